#!/usr/bin/env bash
# Runs `swift test` repeatedly on a deliberately overloaded machine, so a test that can hang
# (or that only passes when the CPU is idle) shows up as a named failure instead of a stuck run.
#
#   bash scripts/loaded-swift-test.sh                 # 5 runs under 16 busy loops (issue 20's bar)
#   bash scripts/loaded-swift-test.sh 1 6             # 1 run under 6 busy loops
#   bash scripts/loaded-swift-test.sh 2 16 -- --filter 'FlowCheck(Spec|Runner)Tests'
#
# Usage: loaded-swift-test.sh [RUNS [BUSY_LOOPS]] [-- SWIFT_TEST_ARGS...]
#   RUNS             how many times to run swift test (default 5)
#   BUSY_LOOPS       how many busy loops (one shell `while :` each) load the CPU meanwhile
#                    (default 16: eight per core on a 2-core machine)
#   SWIFT_TEST_ARGS  passed to every `swift test` (e.g. --skip-build, --filter REGEX)
# Environment:
#   BUSY_LOOPS       the same as the second argument (the argument wins)
#   RUN_TIMEOUT      wall-clock limit per run, in timeout(1) syntax (default 45m)
#
# The package is built once first (not under load, not timed). Each run goes under
# timeout(1) in a session of its own: at the limit swift test gets SIGINT, which it passes on
# to the test process (SIGTERM would orphan it: SwiftPM starts it in its own process group),
# then SIGKILL 60 s later; whatever is still left in the run's session afterwards (a test
# process or a child it started, which would keep its ports) is killed by session ID. A run
# that hits the limit is reported as TIMED OUT. The busy loops are killed by PID when the
# script ends, however it ends (Ctrl-C included). Each run's line gives its wall time and the
# load average (1 minute) at its start and end.
# Exit status: 0 when every run passed, 1 when any failed or timed out, 2 on bad arguments.
set -uo pipefail

usage() { echo "usage: $0 [RUNS [BUSY_LOOPS]] [-- SWIFT_TEST_ARGS...]" >&2; exit 2; }
runs=5
busy_loops=${BUSY_LOOPS:-16}
if [[ $# -gt 0 && $1 != -- ]]; then
    runs=$1
    shift
    if [[ $# -gt 0 && $1 != -- ]]; then
        busy_loops=$1
        shift
    fi
fi
[[ $runs =~ ^[0-9]+$ ]] && (( runs > 0 )) || usage
[[ $busy_loops =~ ^[0-9]+$ ]] || usage
if [[ $# -gt 0 ]]; then
    [[ $1 == -- ]] || usage
    shift
fi
test_args=("$@")
run_timeout=${RUN_TIMEOUT:-45m}

load_average() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

busy_pids=()
current_run_pid=""
current_run_sid=""

stop_busy_loops() {
    local pid
    for pid in "${busy_pids[@]}"; do
        kill "$pid" 2>/dev/null
    done
    for pid in "${busy_pids[@]}"; do
        wait "$pid" 2>/dev/null
    done
    busy_pids=()
}

# Kills what is left of the current run: every process in its session.
end_run_session() {
    [[ -n $current_run_sid ]] && pkill -KILL -s "$current_run_sid" 2>/dev/null
    current_run_sid=""
}

cleanup() {
    # timeout(1) passes SIGINT on to swift test, which interrupts the test process.
    if [[ -n $current_run_pid ]]; then
        kill -INT "$current_run_pid" 2>/dev/null
        wait "$current_run_pid" 2>/dev/null
    fi
    end_run_session
    stop_busy_loops
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM HUP

echo "== building (before the load starts)"
swift build --build-tests || { echo "build failed" >&2; exit 1; }

echo "== starting $busy_loops busy loops"
for _ in $(seq 1 "$busy_loops"); do
    while :; do :; done &
    busy_pids+=($!)
done
echo "busy loop PIDs: ${busy_pids[*]}"

failures=0
results=()
for run in $(seq 1 "$runs"); do
    log=$(mktemp "${TMPDIR:-/tmp}/loaded-swift-test.$run.XXXXXX")
    echo "== run $run/$runs: swift test ${test_args[*]} (limit $run_timeout, log $log)"
    start=$(date +%s)
    load_start=$(load_average)
    # In the background and waited for, so Ctrl-C reaches the trap at once. A job of a
    # non-interactive shell is no group leader, so setsid makes a session without forking.
    setsid timeout --signal=INT --kill-after=60s "$run_timeout" swift test "${test_args[@]}" > "$log" 2>&1 &
    current_run_pid=$!
    current_run_sid=$current_run_pid
    wait "$current_run_pid"
    status=$?
    current_run_pid=""
    end_run_session
    seconds=$(( $(date +%s) - start ))
    load_end=$(load_average)
    if [[ $status == 0 ]]; then
        verdict="passed"
    elif [[ $status == 124 || $status == 137 ]]; then
        verdict="TIMED OUT after $run_timeout"
        failures=$((failures + 1))
    else
        verdict="FAILED (exit $status)"
        failures=$((failures + 1))
    fi
    summary=$(grep -E "Test run with [0-9]+ tests" "$log" | tail -n 1)
    results+=("run $run: $verdict in ${seconds} s, load average $load_start -> $load_end${summary:+ | $summary}")
    echo "${results[-1]}"
    if [[ $verdict != passed ]]; then
        grep -E "^✘|error:|Time limit was exceeded|within [0-9.]+ s" "$log" | grep -v "^✘ .*recorded an issue" | head -n 40
    fi
done

stop_busy_loops
echo "== summary: $((runs - failures)) of $runs runs passed"
printf '%s\n' "${results[@]}"
(( failures == 0 ))
