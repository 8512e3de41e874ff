#!/usr/bin/env bash
# The TinyLlama rows of docs/src/performance.md, shapetrace and transformers back to back,
# ROUNDS times (default 3), so that each round's ratio comes from the same
# minutes of a shared, noisy machine. Each round runs, in this order:
#
#   cargo bench --bench tinyllama -- "widened once"       shapetrace's traced forward, ids to logits,
#                                                         the BF16 weights widened at the first forward
#                                                         and kept (a limit that holds them in f32)
#   cargo bench --bench tinyllama -- "widened per op"     the same, each weight widened by the op that
#                                                         reads it, every forward (the 4 GiB default)
#   scripts/bench_tinyllama_torch.py DIR                  transformers' eager forward, the same
#   cargo bench --bench tinyllama -- "linear products"    one block's linear products, gemm
#   scripts/bench_tinyllama_torch.py DIR --linear         the same products, PyTorch
#
# and prints criterion's means and the script's medians (seconds) and the
# ratios shapetrace / transformers. The checkpoint is DIR (default
# /work/tinyllama; scripts/make_tinyllama_checkpoint.py DIR writes it).
# Loading it is outside both timings. A round takes about four minutes on
# the 2-core machine of docs/src/performance.md.
#
# THREADS=N runs both on N threads (RAYON_NUM_THREADS for shapetrace,
# --threads for the script); by default both take every core. One thread
# each is the fairer view when other jobs share the cores: OpenMP's
# barriers wait for a thread the scheduler put aside, rayon steals its work.
#
# Needs a Python with torch and transformers (PYTHON=/path/to/python).
#
# Run from anywhere:  scripts/bench_tinyllama_pairs.sh [DIR]

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

bench() { cargo bench --quiet --bench tinyllama -- "$1" 2>/dev/null | mean; }

# torch ARGS...: seconds from the script's "N ms (median" line.
torch_s() {
    "$PYTHON" scripts/bench_tinyllama_torch.py "$DIR" --threads "$THREADS" "$@" 2>/dev/null |
        awk '/ms \(median/ { for (i = 1; i <= NF; i++) if ($i == "ms") { printf "%.3f", $(i - 1) / 1e3; exit } }'
}


cargo bench --no-run --quiet --bench tinyllama 2>/dev/null
for r in $(seq "$ROUNDS"); do
    fwd=$(bench "widened once")
    tfwd=$(torch_s)
    per_op=$(bench "widened per op")
    lin=$(bench "linear products")
    tlin=$(torch_s --linear --runs 20 --warmup 3)
    echo "round $r ($(date +%T), load $(cut -d' ' -f1 /proc/loadavg), $THREADS threads)"
    echo "  forward: shapetrace ${fwd} s (widened once), transformers ${tfwd} s, ratio $(ratio "$fwd" "$tfwd");" \
        "widened per op ${per_op} s, ratio $(ratio "$per_op" "$tfwd");" \
        "one block's linear products: gemm ${lin} s, PyTorch ${tlin} s, ratio $(ratio "$lin" "$tlin")"
done
