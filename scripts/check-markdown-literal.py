#!/usr/bin/env python3
"""Renders a FlowCheck Markdown report with a CommonMark parser (markdown-it-py, GitHub's
table extension on) and checks that each hostile value given on the command line shows
literally in the rendered text (text, code spans and fenced blocks), that no value became raw
HTML, and that the only headings are FlowCheck's own.

usage: check-markdown-literal.py REPORT.md VALUE...
"""
import re
import sys
from markdown_it import MarkdownIt


def texts(tokens):
    for token in tokens:
        if token.type in ("text", "code_inline", "fence", "code_block"):
            yield token.content
        if token.children:
            yield from texts(token.children)


def main():
    report, values = sys.argv[1], sys.argv[2:]
    source = open(report, encoding="utf-8").read()
    tokens = MarkdownIt("commonmark").enable("table").parse(source)
    problems = []
    html = [t for t in tokens if t.type == "html_block"] + [c for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    # FlowCheck's own collapsing of a flow's passed derived variants: fixed text and a count,
    # nothing a value can reach.
    html = [t for t in html if not re.fullmatch(r"<details><summary>[0-9]+ passed</summary>\n|</details>\n", t.content)]
    if html:
        problems.append(f"raw HTML in the rendered report: {[t.content for t in html][:3]}")
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    # FlowCheck writes a heading per flow id and its own section names, nothing else.
    own = ("FlowCheck", "Invariants", "Contents", "Invalid specs", "Requirements coverage", "Derived variants by family and provider")
    stray = [h for h in headings if not h.startswith(own) and not all(c.isalnum() or c in "-_" for c in h)]
    if stray:
        problems.append(f"headings that are not FlowCheck's: {stray}")
    rendered = "\n".join(texts(tokens))
    # A line break inside a value is shown as the two characters \n (a code span cannot hold one).
    for value in values:
        shown = value.replace("\r", "\\r").replace("\n", "\\n")
        if shown not in rendered:
            problems.append(f"not shown literally: {value!r}")
    for problem in problems:
        print(f"{report}: {problem}", file=sys.stderr)
    print(f"{report}: {len(values) - len([p for p in problems if p.startswith('not shown')])} of {len(values)} hostile values shown literally, "
          f"{len(html)} raw HTML, {len(headings)} headings")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
