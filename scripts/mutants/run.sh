#!/usr/bin/env bash
# Measures SDK mutants: which flows catch each deliberately broken SDK.
#
#   bash scripts/mutants/run.sh                         # every scripts/mutants/*.patch
#   bash scripts/mutants/run.sh scripts/mutants/05-*.patch 13-clever-credential-denylist
#   bash scripts/mutants/run.sh --rev main --no-baseline 20
#
# A PATCH is a file path, or a mutant's name or number prefix under scripts/mutants/.
#
# For each patch, in a copy of the revision (a detached git worktree, never this checkout):
# reset the copy to the revision, `git apply` the patch, `swift build --product flowcheck`,
# run `flowcheck --no-derived specs/` (plain `flowcheck specs/` when the binary has no
# --no-derived), and, when `flowcheck --help` mentions --no-derived, run again with the derived
# variants. One line per mutant:
#
#   NAME  hand: yes (CLV-FULL-16, CLE-STATE)  derived: no  [71 s]
#
# hand: whether a hand-written flow failed (failed or harness error), and which; derived: which
# flows that only the derived run has failed ("n/a" when the binary cannot derive variants);
# CRASH(rc) when flowcheck died (a crashing SDK takes the in-process driver down with it).
# Flows that already fail without any patch (the baseline run) are left out of both lists.
#
# Options:
#   --rev REV        revision to measure (default: HEAD of the checkout this script is in)
#   --workdir DIR    where the copy, the shared build and the logs live
#                    (default: <checkout>/.build-mutants, git-ignored)
#   --specs PATH     specs to run, relative to the copy (default: specs/)
#   --no-baseline    skip the unmutated run (its build warms the cache; its failures are
#                    subtracted from every mutant's)
#   --fresh          delete the work directory first (a full build, several minutes)
#   --explore ARGS   also run `flowcheck explore ARGS` on each mutant (e.g. "--seed 1 --runs
#                    2000"; its own --out is set) and add "explore: yes (the first
#                    finding's id; the shortest's, with its steps)" or "explore: no" to the mutant's line; the shrunk
#                    specs stay in WORKDIR/explore/NAME/
#
# Speed: the copy stays at one path and every build uses one --scratch-path, so after the first
# (full) build each mutant rebuilds only the SDK module and what links it. A run on a 2-core
# machine: 1-2 min per mutant, almost all of it the build; the specs run in seconds.
#
# Results also go to WORKDIR/results.tsv (name, hand, hand ids, derived, derived ids, seconds).
# Exit status: 0 when every patch applied and built; 1 when one did not (the others are still
# measured; its line says which step failed and where the log is); 2 on bad arguments.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(git -C "$script_dir" rev-parse --show-toplevel)
rev=HEAD
workdir="$repo/.build-mutants"
specs=specs/
baseline=1
fresh=0
explore_args=""
patches=()

while [ $# -gt 0 ]; do
    case "$1" in
        --rev) [ $# -ge 2 ] || usage; rev=$2; shift 2 ;;
        --workdir) [ $# -ge 2 ] || usage; workdir=$2; shift 2 ;;
        --specs) [ $# -ge 2 ] || usage; specs=$2; shift 2 ;;
        --no-baseline) baseline=0; shift ;;
        --fresh) fresh=1; shift ;;
        --explore) [ $# -ge 2 ] || usage; explore_args=$2; shift 2 ;;
        -h|--help) usage ;;
        --) shift; patches+=("$@"); break ;;
        -*) echo "run.sh: unknown option $1" >&2; usage ;;
        *) patches+=("$1"); shift ;;
    esac
done

command -v python3 >/dev/null || { echo "run.sh: needs python3 (to read flowcheck's JSON)" >&2; exit 2; }

# Resolve every patch to an absolute path before anything changes directory.
resolved=()
if [ ${#patches[@]} -eq 0 ]; then
    for p in "$script_dir"/*.patch; do [ -e "$p" ] && resolved+=("$p"); done
else
    for p in "${patches[@]}"; do
        if [ -f "$p" ]; then
            resolved+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
        else
            matches=("$script_dir/$p"*.patch)
            if [ ${#matches[@]} -ne 1 ] || [ ! -f "${matches[0]}" ]; then
                echo "run.sh: $p names no single patch in $script_dir" >&2
                exit 2
            fi
            resolved+=("${matches[0]}")
        fi
    done
fi
[ ${#resolved[@]} -gt 0 ] || { echo "run.sh: no patches" >&2; exit 2; }

commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}") || { echo "run.sh: unknown revision $rev" >&2; exit 2; }

if [ "$fresh" = 1 ] && [ -d "$workdir" ]; then
    rm -rf "$workdir"
    git -C "$repo" worktree prune
fi
mkdir -p "$workdir/logs"
workdir=$(cd "$workdir" && pwd)
src="$workdir/src"
scratch="$workdir/scratch"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flowcheck-mutants.XXXXXX")

# One run at a time per work directory: they share the copy and the build.
exec 9>"$workdir/lock"
if command -v flock >/dev/null && ! flock -n 9; then
    echo "run.sh: another run is using $workdir" >&2
    exit 2
fi

# The copy: a detached worktree at a fixed path, so the shared build stays incremental.
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    rm -rf "$src"
    git -C "$repo" worktree prune
    git -C "$repo" worktree add --detach "$src" "$commit" >/dev/null
fi

reset_copy() {
    git -C "$src" checkout -q --detach --force "$commit"
    git -C "$src" reset -q --hard "$commit"
    git -C "$src" clean -q -fd
}

cleanup() {
    local status=$?
    # Leave the copy unmutated (and its sources as the revision has them) whatever happened.
    reset_copy >/dev/null 2>&1 || true
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

reset_copy
flowcheck="$scratch/debug/flowcheck"

build() {  # build LOG: 0 on success
    (cd "$src" && swift build --product flowcheck --scratch-path "$scratch") >"$1" 2>&1
}

# run_specs OUT.json [--no-derived]: flowcheck's exit code (the JSON document goes to OUT)
run_specs() {
    local out=$1; shift
    local limit=()
    command -v timeout >/dev/null && limit=(timeout 1800)
    local rc=0
    (cd "$src" && "${limit[@]}" "$flowcheck" --format json --junit "$tmp/junit.xml" \
        --markdown "$tmp/flowcheck.md" "$@" "$specs") >"$out" 2>"$out.stderr" || rc=$?
    return "$rc"
}

# failed_ids JSON [EXCLUDE_FILE] [ONLY_NOT_IN_FILE]: the ids of failed or errored flows, one a
# line, minus those listed in EXCLUDE_FILE, and (when given) minus those ids listed in
# ONLY_NOT_IN_FILE's flows (so: derived ids only).
failed_ids() {
    python3 - "$@" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
exclude = set(open(sys.argv[2]).read().split()) if len(sys.argv) > 2 and sys.argv[2] else set()
hand = set()
if len(sys.argv) > 3:
    hand = {f["id"] for f in json.load(open(sys.argv[3]))["flows"]}
for flow in doc["flows"]:
    if flow["status"] in ("failed", "error") and flow["id"] not in exclude and flow["id"] not in hand:
        print(flow["id"])
for spec in doc.get("invalidSpecs", []):
    print("INVALID:" + str(spec.get("file")))
EOF
}

all_ids() {
    python3 -c 'import json,sys; [print(f["id"]) for f in json.load(open(sys.argv[1]))["flows"]]' "$1"
}

joined() { paste -sd, - | sed 's/,/, /g'; }

has_derived=0
check_derived() {
    if "$flowcheck" --help 2>&1 | grep -q -- '--no-derived'; then has_derived=1; else has_derived=0; fi
}

# measure NAME -> prints the mutant's line, appends to results.tsv
: >"$tmp/base-hand"; : >"$tmp/base-derived"
measure() {
    local name=$1 start=$2
    local hand_args=() rc=0 hand="" hand_ids="" derived="n/a" derived_ids=""
    [ "$has_derived" = 1 ] && hand_args=(--no-derived)
    run_specs "$tmp/hand.json" "${hand_args[@]}" || rc=$?
    if [ "$rc" -gt 3 ] || ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/hand.json" 2>/dev/null; then
        hand="CRASH($rc)"
        hand_ids=$(grep -m1 -E 'Fatal error|fatal error|Crash|crash' "$tmp/hand.json.stderr" | cut -c1-160 || true)
        cp "$tmp/hand.json.stderr" "$workdir/logs/$name.flowcheck.stderr"
    else
        hand_ids=$(failed_ids "$tmp/hand.json" "$tmp/base-hand" | joined)
        if [ -n "$hand_ids" ]; then hand=yes; else hand=no; fi
    fi
    if [ "$has_derived" = 1 ]; then
        rc=0
        run_specs "$tmp/all.json" || rc=$?
        if [ "$rc" -gt 3 ] || ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/all.json" 2>/dev/null; then
            derived="CRASH($rc)"
            cp "$tmp/all.json.stderr" "$workdir/logs/$name.flowcheck-derived.stderr"
        else
            # Only the flows the hand-written run did not have (when it crashed: every failure).
            local only=("$tmp/hand.json")
            [ "${hand#CRASH}" != "$hand" ] && only=()
            derived_ids=$(failed_ids "$tmp/all.json" "$tmp/base-derived" "${only[@]}" | joined)
            if [ -n "$derived_ids" ]; then derived=yes; else derived=no; fi
        fi
    fi
    local seconds=$(( $(date +%s) - start ))
    local line="$name  hand: $hand"
    [ -n "$hand_ids" ] && line+=" ($hand_ids)"
    line+="  derived: $derived"
    [ -n "$derived_ids" ] && line+=" ($derived_ids)"
    echo "$line  [${seconds} s]"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$hand" "$hand_ids" "$derived" "$derived_ids" "$seconds" >>"$workdir/results.tsv"
}

echo "measuring $(git -C "$repo" log -1 --format='%h %s' "$commit" | cut -c1-90)" >&2
echo "copy: $src  build: $scratch  logs: $workdir/logs" >&2
printf 'name\thand\thand ids\tderived\tderived ids\tseconds\n' >"$workdir/results.tsv"

if [ "$baseline" = 1 ]; then
    start=$(date +%s)
    if ! build "$workdir/logs/baseline.build.log"; then
        echo "baseline: BUILD FAILED (log: $workdir/logs/baseline.build.log)"
        exit 1
    fi
    check_derived
    hand_args=()
    [ "$has_derived" = 1 ] && hand_args=(--no-derived)
    run_specs "$tmp/hand.json" "${hand_args[@]}" || true
    failed_ids "$tmp/hand.json" >"$tmp/base-hand" || true
    if [ "$has_derived" = 1 ]; then
        run_specs "$tmp/all.json" || true
        failed_ids "$tmp/all.json" >"$tmp/base-derived" || true
    fi
    count=$(all_ids "$tmp/hand.json" | wc -l)
    if [ -s "$tmp/base-hand" ] || [ -s "$tmp/base-derived" ]; then
        echo "baseline: WARNING: flows fail without any patch, left out below: $(cat "$tmp/base-hand" "$tmp/base-derived" | joined)" >&2
    fi
    echo "baseline: $count hand-written flows, derived variants: $([ "$has_derived" = 1 ] && echo yes || echo no)  [$(( $(date +%s) - start )) s]" >&2
fi

status=0
for patch in "${resolved[@]}"; do
    name=$(basename "$patch" .patch)
    start=$(date +%s)
    reset_copy
    if ! git -C "$src" apply "$patch" 2>"$workdir/logs/$name.apply.log"; then
        echo "$name  APPLY FAILED (log: $workdir/logs/$name.apply.log)"
        printf '%s\tapply failed\t\t\t\t0\n' "$name" >>"$workdir/results.tsv"
        status=1
        continue
    fi
    if ! build "$workdir/logs/$name.build.log"; then
        echo "$name  BUILD FAILED (log: $workdir/logs/$name.build.log)"
        printf '%s\tbuild failed\t\t\t\t%s\n' "$name" "$(( $(date +%s) - start ))" >>"$workdir/results.tsv"
        status=1
        continue
    fi
    check_derived
    measure "$name" "$start"
    if [ -n "$explore_args" ]; then
        out="$workdir/explore/$name"
        rm -rf "$out"
        start=$(date +%s)
        # Findings as "STEPS ID", in the order explore printed them (its flows' order).
        # shellcheck disable=SC2086 # the arguments are words on purpose
        findings=$(cd "$src" && "$flowcheck" explore $explore_args --out "$out" 2>"$workdir/logs/$name.explore.stderr" | sed -n 's/^✘ \([^ ]*\)  \([0-9]*\) steps.*/\2 \1/p') || true
        if [ -n "$findings" ]; then
            first=$(printf '%s\n' "$findings" | head -n 1 | cut -d' ' -f2)
            shortest=$(printf '%s\n' "$findings" | sort -n | head -n 1)
            echo "$name  explore: yes (first: $first; shortest: ${shortest#* }, ${shortest%% *} steps)  [$(( $(date +%s) - start )) s]"
        else
            echo "$name  explore: no  [$(( $(date +%s) - start )) s]"
        fi
    fi
done
exit "$status"
