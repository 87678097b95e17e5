#!/usr/bin/env python3
"""The conformance matrix in docs/matrix.md and in reports/matrix.md is the one CI just made.

    check-matrix.py GENERATED.md             check reports/matrix.md and docs/matrix.md against it
    check-matrix.py --write GENERATED.md     copy it to reports/matrix.md and into docs/matrix.md

Every cell's outcome (its mark: passed, failed, error, skipped checks, not run) must match.
The reason text may differ between runs where the driver itself races (authlib renews twice
from two threads, so which request comes second varies); the marks may not.
"""
import re
import sys

BEGIN, END = "<!-- matrix:begin -->", "<!-- matrix:end -->"
# The page that embeds the matrix between BEGIN and END.
PAGE = "docs/matrix.md"


def table(markdown):
    """The matrix from its driver table on: what PAGE embeds."""
    start = markdown.index("| Driver |")
    return markdown[start:].rstrip("\n") + "\n"


def marks(text):
    """{(row, column): what must match} for every cell: in the driver table every cell whole
    (names, commands, totals, why not run); in the flow table each cell's mark."""
    cells = {}
    section = None
    for line in text.splitlines():
        if line.startswith("| Driver |"):
            section = "drivers"
            continue
        if line.startswith("| Flow |"):
            section = "flows"
            continue
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        parts = [p.strip() for p in re.split(r"(?<!\\)\|", line)[1:-1]]
        for column, cell in enumerate(parts[1:], start=1):
            cells[(section, parts[0], column)] = cell if section == "drivers" else cell.split(" ")[0]
    return cells


def embedded(readme):
    if BEGIN not in readme or END not in readme:
        sys.exit("%s has no %s ... %s section" % (PAGE, BEGIN, END))
    return readme[readme.index(BEGIN) + len(BEGIN):readme.index(END)].strip("\n") + "\n"


def main():
    write = "--write" in sys.argv
    generated = open([a for a in sys.argv[1:] if a != "--write"][0], encoding="utf-8").read()
    page = open(PAGE, encoding="utf-8").read()
    if write:
        open("reports/matrix.md", "w", encoding="utf-8").write(generated)
        head, tail = page.split(BEGIN, 1)
        _, rest = tail.split(END, 1)
        open(PAGE, "w", encoding="utf-8").write(head + BEGIN + "\n" + table(generated) + END + rest)
        print("wrote reports/matrix.md and the matrix in %s" % PAGE)
        return
    want = marks(table(generated))
    problems = []
    for name, text in [("reports/matrix.md", table(open("reports/matrix.md", encoding="utf-8").read())), (PAGE, embedded(page))]:
        have = marks(text)
        for key in sorted(set(want) | set(have)):
            # Driver rows: their totals must match too (the command and name columns as well).
            if want.get(key) != have.get(key):
                problems.append("%s: %s %s column %d: committed %r, this run %r" % (name, key[0], key[1], key[2], have.get(key), want.get(key)))
    for problem in problems[:40]:
        print(problem, file=sys.stderr)
    if problems:
        sys.exit("the committed matrix is stale (%d cells differ): run flowcheck matrix as %s says, then scripts/check-matrix.py --write reports/matrix.md" % (len(problems), PAGE))
    print("the committed matrix matches this run: %d cells" % len(want))


if __name__ == "__main__":
    main()
