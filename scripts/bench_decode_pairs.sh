#!/usr/bin/env bash
# The decode row of docs/src/performance.md: one decode step of the TinyLlama-shaped
# checkpoint at a key/value cache of 256, shapetrace and transformers back
# to back, ROUNDS times (default 3), so that each round's ratio comes from
# the same minutes of a shared, noisy machine. Each round runs, in order:
#
#   cargo bench --bench decode                          shapetrace's traced decode step, ids (1, 1) to
#                                                       logits, every block reading its cache of 256
#   scripts/bench_decode_torch.py DIR --generate        transformers' eager forward of one token with
#                                                       its DynamicCache, and generate's per-token time
#
# and prints criterion's mean, the script's medians (seconds) and the
# ratios shapetrace / transformers. The checkpoint is DIR (default
# /work/tinyllama; scripts/make_tinyllama_checkpoint.py DIR writes it).
# Loading it and the prefill are outside every timing.
#
# THREADS=N runs both on N threads (RAYON_NUM_THREADS for shapetrace,
# --threads for the script); by default both take every core.
#
# Needs a Python with torch and transformers (PYTHON=/path/to/python).
#
# Run from anywhere:  scripts/bench_decode_pairs.sh [DIR]

set -euo pipefail
cd "$(dirname "$0")/.."

DIR=${1:-/work/tinyllama}
ROUNDS=${ROUNDS:-3}
PYTHON=${PYTHON:-python3}
export SHAPETRACE_TINYLLAMA=$DIR
THREADS=${THREADS:-$(nproc)}
export RAYON_NUM_THREADS=$THREADS

# mean (criterion's seconds) and ratio.
. scripts/bench_lib.sh

# The seconds before " s (median" on the script's line that says $1.
median() {
    awk -v what="$1" 'index($0, what) && /s \(median/ {
        sub(/ s \(median.*/, ""); n = split($0, w, " "); printf "%.4f", w[n]; exit }'
}


cargo bench --no-run --quiet --bench decode 2>/dev/null
for r in $(seq "$ROUNDS"); do
    ours=$(cargo bench --quiet --bench decode 2>/dev/null | mean)
    torch=$("$PYTHON" scripts/bench_decode_torch.py "$DIR" --threads "$THREADS" --generate 2>/dev/null)
    step=$(echo "$torch" | median "one decode step")
    gen=$(echo "$torch" | median "between its steps")
    echo "round $r ($(date +%T), load $(cut -d' ' -f1 /proc/loadavg), $THREADS threads)"
    echo "  one decode step at cache 256: shapetrace ${ours} s, transformers ${step} s (forward with its cache)," \
        "ratio $(ratio "$ours" "$step"); transformers generate ${gen} s per token, ratio $(ratio "$ours" "$gen")"
done
