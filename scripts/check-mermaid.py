#!/usr/bin/env python3
"""Parses every Mermaid diagram of the given Markdown files with real Mermaid (the mermaidx
wheel: Mermaid 11 in an embedded JavaScript engine, no browser) and fails on the first that
does not render. With --expect TEXT, some diagram's rendered text must show TEXT exactly.

usage: check-mermaid.py [--expect TEXT]... FILE.md...
"""
import concurrent.futures
import html
import os
import re
import sys

import mermaidx


def render(job):
    """(svg, None), or (None, the first lines of the parse error) for one diagram."""
    source, backend = job
    try:
        return mermaidx.Diagram(source, backend=backend).svg(), None
    except Exception as error:  # mermaidx raises an error wrapping Mermaid's parse error
        return None, str(error).splitlines()[0:3]


def main():
    args, expected, files = sys.argv[1:], [], []
    while args:
        arg = args.pop(0)
        if arg == "--expect":
            expected.append(args.pop(0))
        else:
            files.append(arg)
    failed, shown = 0, []
    diagrams = []  # (file, line, source)
    for name in files:
        source = open(name, encoding="utf-8").read()
        for match in re.finditer(r"^```mermaid\n(.*?)^```$", source, re.S | re.M):
            diagrams.append((name, source[: match.start()].count("\n") + 1, match.group(1)))
    count = len(diagrams)
    # V8 (the mini-racer wheel) renders several times faster than the bundled QuickJS; both run
    # the same Mermaid 11. Diagrams render in parallel, one process per core.
    try:
        import py_mini_racer  # noqa: F401
        backend = "v8"
    except ImportError:
        backend = "quickjs"
    with concurrent.futures.ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(render, [(source, backend) for _, _, source in diagrams]))
    for (name, line, _), (svg, error) in zip(diagrams, results):
        if error is not None:
            failed += 1
            print(f"{name}:{line}: Mermaid cannot parse this diagram: {error}", file=sys.stderr)
            continue
        shown += [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]
    missing = [text for text in expected if not any(text in s for s in shown)]
    for text in missing:
        print(f"no diagram shows {text!r} exactly", file=sys.stderr)
    print(f"{count - failed} of {count} Mermaid diagrams parse" + (f"; {len(expected) - len(missing)} of {len(expected)} expected texts shown" if expected else ""))
    sys.exit(1 if failed or missing or count == 0 else 0)


if __name__ == "__main__":
    main()
