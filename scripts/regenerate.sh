#!/bin/sh
# Rewrites every committed file generated from code or specs, then checks them:
#   docs/command-line.md        from the option declarations  (CommandLineDocsTests)
#   specs/README.md catalogue   from the specs                (GeneratedPagesTests)
#   docs/protocol-actions.md    from the provider kits        (GeneratedPagesTests)
#   specs/flowcheck.schema.json from the providers and kinds  (SchemaGoldenTests)
# The report schema's closed lists are checked, not rewritten (ReportSchemaKindsTests names
# the list to write). A recording run fails on purpose, so the second run is the verdict.
set -eu
cd "$(dirname "$0")/.."
suites='CommandLineDocsTests|GeneratedPagesTests|SchemaGoldenTests'
swift build --build-tests
FLOWCHECK_RECORD_GOLDEN=1 swift test --skip-build --filter "$suites" >/dev/null 2>&1 || true
swift test --skip-build --filter "$suites|ReportSchemaKindsTests"
git status --short docs specs reports
