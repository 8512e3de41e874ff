#!/usr/bin/env bash
# Peak resident memory of shape-only traces at depth, mixtures included,
# beside the trace's own estimate, for docs/src/real-models.md's "Numbers or shapes, and
# the memory limit":
#
#   shapetrace trace --shape-only --preset lesson --layers 4096
#   shapetrace trace --shape-only --preset lesson-moe --layers 4096        (4 experts)
#   shapetrace trace --shape-only --preset lesson-moe --experts 256 --layers 64|512
#   shapetrace trace --shape-only --preset lesson-moe --experts 256 --layers 4096   (refused)
#
# Each run prints its peak (GNU time's "Maximum resident set size", in MB
# of 10^6 bytes), its wall time, and the estimate the plan makes of it (read
# off the refusal the same run gives under --max-memory 1B). The 512-block
# run needs about 1.5 GB and 15 s; BIG=0 skips it.
#
# Needs GNU time at /usr/bin/time (apt-get install -y time) and cargo.
# Run from anywhere:  scripts/peak_memory_moe.sh

set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=${CARGO_TARGET_DIR:-target}
BIG=${BIG:-1}

if [ ! -x /usr/bin/time ]; then
    echo "peak_memory_moe.sh: needs GNU time at /usr/bin/time: apt-get install -y time" >&2
    exit 1
fi
cargo build --release --quiet --bin shapetrace
bin="$TARGET/release/shapetrace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# peak ARGS...: one shape-only trace; its peak, time and estimate.
peak() {
    local estimate
    estimate=$("$bin" trace --shape-only "$@" --max-memory 1B 2>&1 >/dev/null |
        grep -o 'in about [0-9.]* [KMGT]iB' | sed 's/in about //' || true)
    /usr/bin/time -v "$bin" trace --shape-only "$@" --max-memory 64GiB >/dev/null 2>"$tmp/time" || {
        echo "peak_memory_moe.sh: failed: trace --shape-only $*" >&2
        cat "$tmp/time" >&2
        exit 1
    }
    local kib secs
    kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
    printf '%-50s peak %5.0f MB  %s  estimate %s\n' "$*" \
        "$(awk -v k="$kib" 'BEGIN {print k * 1024 / 1e6}')" "$secs" "${estimate:-none}"
}

peak --preset lesson --layers 4096
peak --preset lesson-moe --layers 4096
peak --preset lesson-moe --experts 256 --layers 64
if [ "$BIG" = 1 ]; then
    peak --preset lesson-moe --experts 256 --layers 512
fi

echo "\$ $bin trace --shape-only --preset lesson-moe --experts 256 --layers 4096"
/usr/bin/time -v "$bin" trace --shape-only --preset lesson-moe --experts 256 --layers 4096 \
    >/dev/null 2>"$tmp/time" && {
    echo "peak_memory_moe.sh: 256 experts x 4096 blocks ran; expected a refusal" >&2
    exit 1
}
head -n 1 "$tmp/time"
kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
echo "refused: peak $(awk -v k="$kib" 'BEGIN {printf "%.0f", k * 1024 / 1e6}') MB"
