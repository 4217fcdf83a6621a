#!/bin/sh
# SPDX-License-Identifier: MIT
# Run CMD with a made-up NUMA topology under /sys/devices/system/node,
# in a mount namespace of its own: perf kmem stat takes the CPU-to-node
# map of the machine it runs on (tools/perf/util/cpumap.c reads the
# symbolic links nodeN/cpuM there), so this is how perf counts a
# capture's cross-CPU allocations with the topology of the traced
# machine.  Needs root (unshare -m, mount); exits 77 when it cannot.
#
# usage: perf_fake_numa.sh "CPU:NODE ..." CMD [ARG...]
map=$1
shift
unshare -m true 2>/dev/null || exit 77
exec unshare -m sh -c '
map=$1
shift
n=/sys/devices/system/node
mount -t tmpfs none "$n" 2>/dev/null || exit 77
for p in $map; do
	mkdir -p "$n/node${p#*:}" &&
	ln -s "../../cpu/cpu${p%%:*}" "$n/node${p#*:}/cpu${p%%:*}" || exit 77
done
exec "$@"' sh "$map" "$@"
