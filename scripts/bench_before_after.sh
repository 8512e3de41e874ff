#!/usr/bin/env bash
# The criterion benches of a base revision and of this work tree, run in
# alternation in one sitting, so that a structural change can be held to
# "within noise" on a shared, noisy machine.
#
#   scripts/bench_before_after.sh BASE [ROUNDS]     (ROUNDS defaults to 2)
#
# BASE (a commit) is checked out in a temporary worktree with its own
# target folder (kept in target/before-bench between runs). Each round runs,
# before then after:
#
#   cargo bench --bench trace  -- "forward T=|shape-only"
#   cargo bench --bench render -- "render lesson screen|lesson trace and checks"
#
# and the script prints, per benchmark, every round's criterion mean for
# before and after and the ratio after / before of their medians. A round
# takes about eight minutes on the 2-core machine of docs/src/performance.md.

set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench_before_after.sh BASE [ROUNDS]}
rounds=${2:-2}
here=$(pwd)
tree=$(mktemp -d)/before
git worktree add --quiet --detach "$tree" "$base"
trap 'git -C "$here" worktree remove --force "$tree"' EXIT
results=$(mktemp -d)

# run DIR TARGET LABEL ROUND: every bench below, means saved as JSON lines.
run() {
    local dir=$1 target=$2 label=$3 round=$4
    for spec in "trace|forward T=|shape-only" "render|render lesson screen|lesson trace and checks"; do
        local bench=${spec%%|*} filter=${spec#*|}
        (cd "$dir" && CARGO_TARGET_DIR=$target cargo bench --quiet --bench "$bench" -- "$filter" >/dev/null 2>&1)
        python3 - "$target/criterion" "$label" "$round" >>"$results/means.jsonl" <<'PY'
import json, pathlib, sys
root, label, rnd = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for est in root.glob("**/new/estimates.json"):
    bench = json.loads((est.parent / "benchmark.json").read_text())["full_id"]
    mean = json.loads(est.read_text())["mean"]["point_estimate"] / 1e9
    print(json.dumps({"bench": bench, "label": label, "round": rnd, "mean": mean, "at": est.stat().st_mtime}))
PY
    done
}

for round in $(seq 1 "$rounds"); do
    run "$tree" "$here/target/before-bench" before "$round"
    run "$here" "$here/target" after "$round"
done

python3 - "$results/means.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
# Only the benchmarks this script ran (criterion keeps older ones too):
# the newest estimate per (bench, label, round).
latest = {}
for r in rows:
    k = (r["bench"], r["label"], r["round"])
    if k not in latest or r["at"] > latest[k]["at"]:
        latest[k] = r
benches = sorted({k[0] for k in latest if (k[0], "before", 1) in latest and (k[0], "after", 1) in latest})
fmt = lambda s: f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.3f} s"
for b in benches:
    get = lambda lab: [latest[k]["mean"] for k in sorted(latest) if k[0] == b and k[1] == lab]
    before, after = get("before"), get("after")
    ratio = statistics.median(after) / statistics.median(before)
    print(f"{b}: before {', '.join(map(fmt, before))}; after {', '.join(map(fmt, after))}; after/before {ratio:.2f}")
PY
