# SPDX-License-Identifier: MIT
# Helpers the bench scripts share (sourced, not run).

# seconds and peak KiB of a runstat report file
secs() { sed -n 's/^runstat: \([0-9.]*\) s .*/\1/p' "$1"; }
kib() { sed -n 's/^runstat: [0-9.]* s \([0-9]*\) KiB/\1/p' "$1"; }
# N per second, and A / B
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# the smallest and the middle of some numbers
min_of() { printf '%s\n' "$@" | sort -g | head -n 1; }
median_of() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
