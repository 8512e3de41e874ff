#!/usr/bin/env bash
# The paired rows of docs/src/performance.md, run back to back ROUNDS times (default 3) so
# that each round's ratios come from the same minutes of a shared, noisy
# machine. Each round runs, in this order:
#
#   cargo bench --bench trace -- "numeric/forward T=1024"     the traced forward (mimalloc, as the binary)
#   cargo bench --bench system_alloc -- "forward T=1024"      the same forward, system allocator
#   cargo bench --bench trace -- "bare matmuls/T=1024 gemm"   its bare matmuls
#   python3 scripts/bench_torch.py --seq 1024 --sdpa          PyTorch, nanoGPT's fused attention
#   cargo bench --bench trace -- "linear matmuls"             the linear layers' products, gemm
#   python3 scripts/bench_torch.py --linear                   the same products, PyTorch
#   the first, second and fourth again at T 128
#
# and prints, per round, criterion's means and PyTorch's medians (seconds)
# and the ratios: forward / bare matmuls, system allocator / mimalloc,
# forward / PyTorch, gemm / PyTorch on the linear products.
#
# Needs a Python with torch (PYTHON=/path/to/python to pick one). A round
# takes five to six minutes on the 2-core machine of docs/src/performance.md; compare rounds
# only when nothing else ran (the load average is printed with each).
#
# Run from anywhere:  scripts/bench_pairs.sh

set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
PYTHON=${PYTHON:-python3}

# mean (criterion's seconds) and ratio.
. scripts/bench_lib.sh

# bench BENCH FILTER: the criterion mean of the one benchmark FILTER picks.
bench() {
    cargo bench --quiet --bench "$1" -- "$2" 2>/dev/null | mean
}

# torch ARGS...: the seconds of bench_torch.py's one timed row.
torch_s() {
    "$PYTHON" scripts/bench_torch.py "$@" | awk '
        / ms \(median/ { printf "%.3f", $(NF - 4) / 1e3; exit }
        / s \(median/  { for (i = 1; i <= NF; i++) if ($i == "s") { printf "%.3f", $(i - 1); exit } }'
}


cargo bench --no-run --quiet --bench trace --bench system_alloc 2>/dev/null
for r in $(seq "$ROUNDS"); do
    fwd=$(bench trace "numeric/forward T=1024")
    sys=$(bench system_alloc "forward T=1024")
    bare=$(bench trace "bare matmuls/T=1024 gemm")
    torch=$(torch_s --seq 1024 --sdpa)
    lin=$(bench trace "linear matmuls")
    tlin=$(torch_s --linear)
    fwd128=$(bench trace "numeric/forward T=128")
    sys128=$(bench system_alloc "forward T=128")
    torch128=$(torch_s --seq 128 --sdpa)
    echo "round $r ($(date +%T), load $(cut -d' ' -f1 /proc/loadavg))"
    echo "  T 1024: forward ${fwd} s, system allocator ${sys} s, bare matmuls ${bare} s, PyTorch ${torch} s;" \
        "linear products ${lin} s, PyTorch ${tlin} s"
    echo "          forward/bare $(ratio "$fwd" "$bare"), system/mimalloc $(ratio "$sys" "$fwd")," \
        "forward/PyTorch $(ratio "$fwd" "$torch"), linear gemm/PyTorch $(ratio "$lin" "$tlin")"
    echo "  T  128: forward ${fwd128} s, system allocator ${sys128} s, PyTorch ${torch128} s;" \
        "system/mimalloc $(ratio "$sys128" "$fwd128"), forward/PyTorch $(ratio "$fwd128" "$torch128")"
done
