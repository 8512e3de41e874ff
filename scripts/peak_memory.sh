#!/usr/bin/env bash
# Peak resident memory of the release binary on GPT-2-small at T 1024, for
# the Performance chapter (docs/src/performance.md):
#
#   1. the numeric run with seeded weights:
#        shapetrace trace --preset gpt2-small --seq 1024 --numeric
#   2. the same model from a random GPT-2-small-shaped nanoGPT checkpoint
#      (498 MB of f32, written by scripts/make_gpt2_small_checkpoint.py to
#      a temporary directory, removed at the end):
#        shapetrace trace --preset gpt2-small --seq 1024 --weights FILE
#   3. the same checkpoint's blocks alone, from a seeded x0 (1, 1024, 768)
#      written beside it (the embeddings and the LM head never read):
#        shapetrace trace --preset gpt2-small --seq 1024 --weights FILE --input x0.npy
#
#   4. with TINYLLAMA=DIR (a checkpoint scripts/make_tinyllama_checkpoint.py
#      wrote: 2.2 GB of BF16), the whole model from B 1, T 256 token ids at
#      the default limit, each weight widened to f32 by the op that reads it:
#        shapetrace trace --weights DIR --tokens IDS --numeric
#
# Each is run RUNS times (default 3); the trace goes to /dev/null. The peak
# is GNU time's "Maximum resident set size" (KiB), printed in MB (10^6
# bytes), the unit of docs/src/performance.md.
#
# Needs GNU time at /usr/bin/time (Debian/Ubuntu: apt-get install -y time),
# cargo, and a Python with numpy and safetensors for the checkpoint
# (pip install numpy safetensors; PYTHON=/path/to/python to pick one).
#
# Run from anywhere:  scripts/peak_memory.sh

set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
PYTHON=${PYTHON:-python3}
TARGET=${CARGO_TARGET_DIR:-target}

if [ ! -x /usr/bin/time ]; then
    echo "peak_memory.sh: needs GNU time at /usr/bin/time: apt-get install -y time" >&2
    exit 1
fi
if ! "$PYTHON" -c 'import numpy, safetensors' 2>/dev/null; then
    echo "peak_memory.sh: $PYTHON lacks numpy or safetensors: pip install numpy safetensors" >&2
    exit 1
fi

# Builds the release binary if it is missing or stale (cargo decides).
cargo build --release --quiet --bin shapetrace
bin="$TARGET/release/shapetrace"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# peak LABEL COMMAND...: runs COMMAND RUNS times, prints each peak.
peak() {
    local label=$1
    shift
    local peaks=()
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -v "$@" >/dev/null 2>"$tmp/time" || {
            echo "peak_memory.sh: failed: $*" >&2
            cat "$tmp/time" >&2
            exit 1
        }
        local kib
        kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
        peaks+=("$(awk -v k="$kib" 'BEGIN {printf "%.0f", k * 1024 / 1e6}')")
    done
    echo "$label: peak ${peaks[*]} MB resident"
}

echo "\$ $bin trace --preset gpt2-small --seq 1024 --numeric"
peak "seeded weights" "$bin" trace --preset gpt2-small --seq 1024 --numeric

ckpt="$tmp/gpt2-small.safetensors"
"$PYTHON" scripts/make_gpt2_small_checkpoint.py "$ckpt"
size=$(stat -c %s "$ckpt")
echo "\$ $bin trace --preset gpt2-small --seq 1024 --weights $ckpt"
peak "checkpoint ($(awk -v s="$size" 'BEGIN {printf "%.0f", s / 1e6}') MB file)" \
    "$bin" trace --preset gpt2-small --seq 1024 --weights "$ckpt"

x0="$tmp/x0.npy"
"$PYTHON" -c 'import sys, numpy as np; np.save(sys.argv[1], np.random.default_rng(0).standard_normal((1, 1024, 768), dtype=np.float32))' "$x0"
echo "\$ $bin trace --preset gpt2-small --seq 1024 --weights $ckpt --input $x0"
peak "checkpoint, blocks from x0" \
    "$bin" trace --preset gpt2-small --seq 1024 --weights "$ckpt" --input "$x0"

if [ -n "${TINYLLAMA:-}" ]; then
    ids=$("$PYTHON" -c 'print(",".join(str((7919 * t + 1) % 32000) for t in range(256)))')
    size=$(stat -c %s "$TINYLLAMA/model.safetensors")
    echo "\$ $bin trace --weights $TINYLLAMA --tokens IDS --numeric"
    peak "TinyLlama BF16 ($(awk -v s="$size" 'BEGIN {printf "%.0f", s / 1e6}') MB file), ids to logits" \
        "$bin" trace --weights "$TINYLLAMA" --tokens "$ids" --numeric
fi
