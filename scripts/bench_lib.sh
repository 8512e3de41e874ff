# Sourced by the bench_*pairs.sh scripts: what they share.

# Seconds from criterion's "time: [low mean high]" line on stdin: the
# mean, to 4 decimals.
mean() {
    awk '/time:/ {
        sub(/.*\[/, ""); v = $3; u = $4
        if (u == "ms") v /= 1e3; else if (u == "µs" || u == "us") v /= 1e6
        printf "%.4f", v; exit }'
}

# ratio A B: A / B to 2 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
