#!/usr/bin/env bash
# Fuzzes one input-facing parser with libFuzzer for a fixed time.
#
#   bash scripts/fuzz.sh spec 600    # SpecLoader().decode / decodeFixtures over spec bytes
#   bash scripts/fuzz.sh http 600    # HTTPRequestParser().parse and the HTTPRequest views
#
# Run from anywhere in a clone; needs only the Swift toolchain (swiftc with -sanitize=fuzzer,
# i.e. a swift.org Linux toolchain). SwiftPM cannot build a libFuzzer binary, so the target's
# module sources and the harness in scripts/fuzz/ are compiled together by swiftc into one
# module: the harness reaches the parser's internals without an import.
#
# Everything it writes is under .build-fuzz/ (git-ignored):
#   .build-fuzz/TARGET/TARGET-fuzzer   the instrumented binary (rebuilt when a source changes)
#   .build-fuzz/TARGET/build.log       compiler output
#   .build-fuzz/TARGET/fuzz-0.log      libFuzzer's live log (follow it with tail -f)
#   .build-fuzz/corpus/TARGET/         working corpus: the committed seeds plus what runs found
#   .build-fuzz/crashes/TARGET/        crash-*, timeout-*, oom-* inputs
# The committed seeds in scripts/fuzz/corpus/TARGET/ are only read, never written.
#
# Exit status: 0 when the run ends without a finding, 1 when libFuzzer found a crash (the
# inputs' paths are printed), 2 on bad arguments or a build failure.
set -euo pipefail

usage() {
    echo "usage: bash scripts/fuzz.sh TARGET SECONDS" >&2
    echo "  TARGET   spec (the spec loader) or http (the fake server's HTTP/1.1 request parser)" >&2
    echo "  SECONDS  how long libFuzzer runs, a whole number > 0 (e.g. 600)" >&2
    exit 2
}

[[ $# -eq 2 ]] || usage
target=$1
seconds=$2
[[ $seconds =~ ^[0-9]+$ ]] && (( 10#$seconds > 0 )) || usage
seconds=$((10#$seconds))

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

includes=()
case $target in
    spec)
        module=FlowCheckSpec
        harness=scripts/fuzz/SpecFuzz.swift
        max_len=65536 # specs are a few KiB; 64 KiB leaves room for deep nesting and long strings
        ;;
    http)
        module=FlowCheckFakeServer
        # The fake server's event loop imports epoll through this header-only system module.
        includes=(-I Sources/CFlowCheckEpoll)
        harness=scripts/fuzz/HTTPFuzz.swift
        max_len=32768 # twice the server's default 16 KiB head limit, so 431 paths are reachable
        ;;
    *)
        usage
        ;;
esac

swiftc=$(command -v swiftc || true)
if [[ -z $swiftc && -x /opt/swift/usr/bin/swiftc ]]; then swiftc=/opt/swift/usr/bin/swiftc; fi
if [[ -z $swiftc ]]; then
    echo "fuzz.sh: swiftc not found; put a swift.org toolchain's usr/bin on PATH" >&2
    exit 2
fi
# ASan symbolizes stack traces with the toolchain's llvm-symbolizer when it can find it.
symbolizer="$(dirname "$swiftc")/llvm-symbolizer"
if [[ -x $symbolizer ]]; then export ASAN_SYMBOLIZER_PATH=$symbolizer; fi
# Swift's own crash backtracer reads the crashed stack from a helper thread, which ASan reports
# as a stack-buffer-underflow that hides the real trap; libFuzzer's handler prints the stack.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

build_dir="$root/.build-fuzz/$target"
binary="$build_dir/$target-fuzzer"
corpus="$root/.build-fuzz/corpus/$target"
crashes="$root/.build-fuzz/crashes/$target"
seeds="$root/scripts/fuzz/corpus/$target"
dict="$root/scripts/fuzz/$target.dict"
mkdir -p "$build_dir" "$corpus" "$crashes"

# Every source of the module, sub-folders included (the fake server keeps one per provider).
mapfile -t sources < <(find "Sources/$module" -name '*.swift' | LC_ALL=C sort)

# Rebuild when the binary is missing or older than any module source, the harness or this script.
if [[ ! -x $binary ]] || [[ -n $(find "${sources[@]}" "$harness" "${BASH_SOURCE[0]}" -newer "$binary" -print -quit) ]]; then
    echo "fuzz.sh: building $target-fuzzer from ${#sources[@]} files in Sources/$module and $harness ..."
    # -g for line numbers in crash traces. ld.gold warns about every ASan symbol it cannot
    # export ("Cannot export local symbol"); harmless, so kept out of the console.
    # -package-name: the modules declare `package` API (SwiftPM passes the package's name).
    if ! "$swiftc" -sanitize=fuzzer,address -parse-as-library -O -g \
        -package-name FlowCheck -module-name "$module" "${includes[@]}" "${sources[@]}" "$harness" -o "$binary" >"$build_dir/build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$build_dir/build.log" >&2 || true
        echo "fuzz.sh: build failed; full output in $build_dir/build.log" >&2
        exit 2
    fi
fi

# Work on a copy: libFuzzer adds every input that reaches new coverage to its first corpus
# folder, and the committed seeds should stay a small, hand-picked set.
cp -R "$seeds/." "$corpus/"

args=(
    "-max_total_time=$seconds"
    "-max_len=$max_len"
    "-rss_limit_mb=2048"
    "-timeout=30"
    "-jobs=1" "-workers=1"
    "-print_final_stats=1"
    "-artifact_prefix=$crashes/"
)
if [[ -f $dict ]]; then args+=("-dict=$dict"); fi

marker="$build_dir/.run-started"
touch "$marker"
echo "fuzz.sh: fuzzing $target for ${seconds}s over $(find "$corpus" -type f | wc -l | tr -d ' ') inputs; log: $build_dir/fuzz-0.log"
status=0
# With -jobs, libFuzzer writes the job's log to fuzz-0.log in the working directory and echoes
# all of it when the job ends; that copy goes to run.log and only the summary to the console.
(cd "$build_dir" && "$binary" "${args[@]}" "$corpus") >"$build_dir/run.log" 2>&1 || status=$?
log="$build_dir/fuzz-0.log"
[[ -f $log ]] || log="$build_dir/run.log"
grep -E '^#[0-9]+' "$log" | tail -n 1 || true
grep -E '^stat::' "$log" || true

found=$(find "$crashes" -type f -newer "$marker" | sort)
if [[ $status -ne 0 || -n $found ]]; then
    # From the trap's message (Swift "Fatal error", ASan or libFuzzer report) on, not the
    # progress lines before it.
    report=$(awk '/Fatal error|ERROR: |deadly signal|ALARM|out-of-memory/ { shown = 1 } shown' "$log" | head -n 80)
    if [[ -n $report ]]; then echo "$report" >&2; else tail -n 40 "$log" >&2; fi
    echo "fuzz.sh: libFuzzer found a failing input in $target (exit status $status):" >&2
    if [[ -n $found ]]; then
        while IFS= read -r file; do echo "  $file" >&2; done <<<"$found"
        echo "reproduce: SWIFT_BACKTRACE=enable=no $binary FILE" >&2
    else
        echo "  (no input saved; see $log)" >&2
    fi
    exit 1
fi
echo "fuzz.sh: no crash in ${seconds}s of $target"
