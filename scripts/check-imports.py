#!/usr/bin/env python3
"""Every module a target imports is declared in its Package.swift dependencies.

SwiftPM on Linux often builds an undeclared import by accident (the module happens to be
built first), and then a clean build, another platform or a reordered graph breaks. This
reads Package.swift and every target's sources and fails naming target and module.
"""
import glob, re, sys

pkg = open("Package.swift").read()
targets = {}
for m in re.finditer(r'\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"(.*?)\)(?=,\s*\n\s*(?://|\.|\]))', pkg, re.S):
    kind, name, body = m.groups()
    deps_match = re.search(r'dependencies:\s*\[(.*?)\]', body, re.S)
    deps = set(re.findall(r'"([^"]+)"', deps_match.group(1))) if deps_match else set()
    path = re.search(r'path:\s*"([^"]+)"', body)
    folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
    targets[name] = (deps, folder)
if not targets:
    sys.exit("check-imports: no targets found in Package.swift")
bad = 0
for name, (deps, folder) in targets.items():
    files = glob.glob(folder + "/**/*.swift", recursive=True)
    if not files:
        print(f"check-imports: target {name} has no sources under {folder}", file=sys.stderr)
        bad += 1
    for f in files:
        for number, line in enumerate(open(f, encoding="utf-8"), 1):
            m = re.match(r'\s*(?:@testable\s+)?import\s+(\w+)', line)
            if m and m.group(1) in targets and m.group(1) != name and m.group(1) not in deps:
                print(f"{f}:{number}: {name} imports {m.group(1)}, which its Package.swift entry does not declare", file=sys.stderr)
                bad += 1
print(f"check-imports: {len(targets)} targets, {bad} problem(s)")
sys.exit(1 if bad else 0)
