#!/usr/bin/env python3
"""Reads a FlowCheck JUnit report with the three JUnit readers CI checks against (junitparser,
xunitparser, junit2html) and holds each to what the report must carry: every test case once,
the verdicts the run printed, and each written flow's requirement ids exactly as its spec lists
them (one `<property name="ID requirements">` per suite, a name no other suite repeats:
xunitparser keeps one dict of properties for the whole file).

usage: check-junit-readers.py REPORT SPECS_DIR --failures N
"""
import json
import pathlib
import sys


def spec_requirements(folder):
    """{flow id: [requirement ids]} of every spec file under `folder`."""
    found = {}
    for path in sorted(pathlib.Path(folder).rglob("*.json")):
        if path.name.endswith(".schema.json") or path.name == "flowcheck.requirements.json":
            continue
        try:
            spec = json.loads(path.read_text(encoding="utf-8-sig"))
        except (ValueError, OSError):
            continue
        if isinstance(spec, dict) and "id" in spec and "requirements" in spec:
            found[spec["id"]] = cited(spec)
    return found


def cited(node, into=None):
    """Every requirement id the spec cites, the flow's own then its steps' and checks', in
    document order, each once: what the report's property lists."""
    into = [] if into is None else into
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "requirements" and isinstance(value, list):
                into.extend(item for item in value if isinstance(item, str) and item not in into)
            else:
                cited(value, into)
    elif isinstance(node, list):
        for item in node:
            cited(item, into)
    return into


def as_ids(properties):
    """{flow id: [requirement ids]} from (name, value) pairs."""
    return {name[: -len(" requirements")]: [item.strip() for item in value.split(",") if item.strip()]
            for name, value in properties if name.endswith(" requirements")}


def main():
    report, folder = sys.argv[1], sys.argv[2]
    failures = int(sys.argv[sys.argv.index("--failures") + 1])
    expected = spec_requirements(folder)
    assert expected, f"no spec with requirements under {folder}"
    problems = []

    from junitparser import JUnitXml
    xml = JUnitXml.fromfile(report)
    cases = [case for suite in xml for case in suite]
    names = {(case.classname, case.name) for case in cases}
    if len(cases) != len(names):
        problems.append("junitparser: classname + name repeat")
    failed = sum(1 for case in cases if any(type(r).__name__ == "Failure" for r in case.result))
    if failed != failures:
        problems.append(f"junitparser: {failed} failed test cases, the run said {failures}")
    readers = {"junitparser": as_ids((p.name, p.value) for suite in xml for p in suite.properties())}

    import xunitparser
    suite, result = xunitparser.parse(open(report, encoding="utf-8"))
    if result.testsRun != len(cases):
        problems.append(f"xunitparser: {result.testsRun} test cases, junitparser {len(cases)}")
    if len(result.failures) != failures:
        problems.append(f"xunitparser: {len(result.failures)} failures, the run said {failures}")
    readers["xunitparser"] = as_ids(suite.properties.items())

    from junit2htmlreport.parser import Junit
    parsed = Junit(report)
    counted = sum(len(s.all()) for s in parsed.suites)
    if counted != len(cases):
        problems.append(f"junit2html: {counted} test cases, junitparser {len(cases)}")
    readers["junit2html"] = as_ids((p.name, p.value) for s in parsed.suites for p in s.properties)
    if not Junit(report).html():
        problems.append("junit2html: no HTML")

    for reader, ids in readers.items():
        for flow, requirements in expected.items():
            if flow in names_of(cases) and ids.get(flow) != requirements:
                problems.append(f"{reader}: {flow} requirements read as {ids.get(flow)}, the spec lists {requirements}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"junitparser, xunitparser and junit2html read {len(cases)} test cases, {failures} failed, "
          f"and the requirement ids of {len(expected)} written flows")


def names_of(cases):
    """The flow ids the report has a test case for (`ID: title`)."""
    return {case.name.split(":", 1)[0] for case in cases}


if __name__ == "__main__":
    main()
