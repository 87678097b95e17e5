#!/usr/bin/env python3
"""Parses every Mermaid diagram of the given Markdown files with real Mermaid (the mermaidx
wheel: Mermaid 11 in an embedded JavaScript engine, no browser) and fails on the first that
does not render. With --expect TEXT, some diagram's rendered text must show TEXT exactly.

usage: check-mermaid.py [--expect TEXT]... FILE.md...
"""
import html
import re
import sys

import mermaidx


def main():
    args, expected, files = sys.argv[1:], [], []
    while args:
        arg = args.pop(0)
        if arg == "--expect":
            expected.append(args.pop(0))
        else:
            files.append(arg)
    failed, count, shown = 0, 0, []
    for name in files:
        source = open(name, encoding="utf-8").read()
        for match in re.finditer(r"^```mermaid\n(.*?)^```$", source, re.S | re.M):
            count += 1
            line = source[: match.start()].count("\n") + 1
            try:
                svg = mermaidx.render(match.group(1)).svg()
            except Exception as error:  # mermaidx raises RuntimeError wrapping the parse error
                failed += 1
                print(f"{name}:{line}: Mermaid cannot parse this diagram: {str(error).splitlines()[0:3]}", file=sys.stderr)
                continue
            shown += [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]
    missing = [text for text in expected if not any(text in s for s in shown)]
    for text in missing:
        print(f"no diagram shows {text!r} exactly", file=sys.stderr)
    print(f"{count - failed} of {count} Mermaid diagrams parse" + (f"; {len(expected) - len(missing)} of {len(expected)} expected texts shown" if expected else ""))
    sys.exit(1 if failed or missing or count == 0 else 0)


if __name__ == "__main__":
    main()
