#!/usr/bin/env bash
# The marginal cost of one more three-request Moltin flow (MLT-REFRESH: auth, refresh, products),
# measured through the command line of one or more `flowcheck` binaries, so a binary built from an
# older commit can be compared with today's on the same specs and the same machine.
#
#   bash scripts/per-flow-cost.sh .build/release/flowcheck
#   bash scripts/per-flow-cost.sh /tmp/old/flowcheck .build/release/flowcheck   # alternated
#   ROUNDS=5 SMALL=100 LARGE=1000 bash scripts/per-flow-cost.sh A B
#
# It writes SMALL and LARGE copies of specs/moltin/refresh.json, each with its own id, client
# and secret (so no copy is a repeat of another), and runs `BINARY --no-derived DIR` on each,
# ROUNDS times, the binaries alternated within a round. The marginal cost is
# (time(LARGE) - time(SMALL)) / (LARGE - SMALL): what every run pays once (start, load of the
# binary, the first server) drops out. Wall and CPU (user + system) come from /usr/bin/time;
# each round prints its figures, and the end the median per binary. A run that does not pass
# every flow stops the script (exit 1): a figure of a failing run measures nothing.
#
# flowcheck-bench --only flows gives the same kind of figure in-process for today's code; this
# script is for comparing commits, since it needs nothing but each commit's own command line.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 FLOWCHECK_BINARY [FLOWCHECK_BINARY ...]" >&2; exit 2; }
rounds=${ROUNDS:-3}
small=${SMALL:-100}
large=${LARGE:-1000}
here=$(cd "$(dirname "$0")/.." && pwd)
template="$here/specs/moltin/refresh.json"
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# N copies of the template in DIR, as specs NNNNN.json with ids MLT-REFRESH-NNNNN.
make_specs() {
  local count=$1 dir=$2
  mkdir -p "$dir"
  python3 - "$template" "$count" "$dir" <<'PY'
import json, sys
template, count, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(template).read()
spec = json.loads(text)
client = spec["fixture"]["clients"][0]
for n in range(1, count + 1):
    tag = f"{n:05d}"
    copy = (text.replace('"MLT-REFRESH"', f'"MLT-REFRESH-{tag}"')
                .replace(client["id"], f"store-{tag}")
                .replace(client["secret"], f"sk-bench-{tag}"))
    copy = copy.replace('"$schema": "../flowcheck.schema.json",', '')
    open(f"{folder}/{tag}.json", "w").write(copy)
PY
}
make_specs "$small" "$work/small"
make_specs "$large" "$work/large"

# One run: prints "WALL CPU" in seconds.
run_once() {
  local binary=$1 dir=$2 out="$work/out" stats="$work/stats"
  if ! /usr/bin/time -f '%e %U %S' -o "$stats" "$binary" --no-derived \
        --junit "$out/junit.xml" --markdown "$out/flowcheck.md" "$dir" > "$work/log" 2>&1; then
    echo "$0: $binary failed on $dir:" >&2; tail -20 "$work/log" >&2; exit 1
  fi
  local count
  count=$(ls "$dir" | wc -l)
  grep -q "$count passed" "$work/log" || { echo "$0: $binary did not pass $count flows:" >&2; tail -5 "$work/log" >&2; exit 1; }
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$stats"
}

declare -A results
for round in $(seq 1 "$rounds"); do
  for binary in "$@"; do
    read -r small_wall small_cpu < <(run_once "$binary" "$work/small")
    read -r large_wall large_cpu < <(run_once "$binary" "$work/large")
    figure=$(awk -v sw="$small_wall" -v lw="$large_wall" -v sc="$small_cpu" -v lc="$large_cpu" \
                 -v n="$((large - small))" 'BEGIN { printf "%.3f %.3f", (lw - sw) / n * 1000, (lc - sc) / n * 1000 }')
    results[$binary]+="$figure"$'\n'
    read -r wall cpu <<< "$figure"
    echo "round $round  $binary: $small flows ${small_wall}s, $large flows ${large_wall}s; marginal ${wall} ms wall, ${cpu} ms cpu (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done

for binary in "$@"; do
  printf '%s' "${results[$binary]}" | sort -n -k1,1 | awk -v b="$binary" '
    { wall[NR] = $1; cpu[NR] = $2 }
    END { m = int((NR + 1) / 2); printf "median of %d  %s: %s ms wall a flow (%s to %s); cpu %s ms\n", NR, b, wall[m], wall[1], wall[NR], cpu[m] }'
done
