#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, core dumps: memdb ingest of a kernel core dump (slab
# caches, buddy lists, counters) against crash's startup + `kmem -s` and
# against drgn's slab walk (tests/vmcore_drgn_slab.py), same dump, same
# run.  The dump is testdata/vmcore/nokaslr.kdump (or MEMDB_VMCORE_DIR's);
# crash and drgn need the -dbg vmlinux, MEMDB_VMLINUX.  Says what it
# skipped.
#
#   sh bench/bench-vmcore.sh BUILD_DIR WORK_DIR   (run by bench/bench.sh)
set -eu
. bench/lib.sh

build=$1
dir=$2
memdb=$build/memdb
stat=$build/runstat
src=${MEMDB_VMCORE_DIR:-testdata/vmcore}
dump=$src/nokaslr.kdump
vmlinux=${MEMDB_VMLINUX:-}

echo
if [ ! -f "$dump" ] || [ ! -f "$src/nokaslr.kallsyms.zst" ]; then
	echo "vmcore: skipped (no $dump and its kallsyms)"
	exit 0
fi
zstd -dqf "$src/nokaslr.kallsyms.zst" -o "$dir/kallsyms"
rm -f "$dir/vmcore.db"*
"$stat" "$memdb" ingest -q -d "$dir/vmcore.db" --kallsyms "$dir/kallsyms" \
	"$dump" 2> "$dir/vmcore.stat"
t_memdb=$(secs "$dir/vmcore.stat")
caches=$(sqlite3 "$dir/vmcore.db" "SELECT count(*) FROM zone")
echo "vmcore: $dump ($(wc -c < "$dump") bytes, $caches slab caches)"
echo "  memdb ingest:   $t_memdb s, peak RSS $(kib "$dir/vmcore.stat") KiB"
if [ -z "$vmlinux" ] || [ ! -f "$vmlinux" ]; then
	echo "  crash, drgn:    skipped (MEMDB_VMLINUX names no -dbg vmlinux)"
	rm -f "$dir/vmcore.db"* "$dir/kallsyms"
	exit 0
fi
if command -v crash > /dev/null; then
	echo "kmem -s" | "$stat" crash -s "$vmlinux" "$dump" > /dev/null \
		2> "$dir/crash.stat" || true
	t=$(secs "$dir/crash.stat")
	echo "  crash kmem -s:  $t s (startup included): memdb $(ratio "$t" "$t_memdb") x faster"
else
	echo "  crash:          skipped (not installed)"
fi
if command -v drgn > /dev/null; then
	"$stat" drgn -q -c "$dump" -s "$vmlinux" tests/vmcore_drgn_slab.py \
		> /dev/null 2> "$dir/drgn.stat" || true
	t=$(secs "$dir/drgn.stat")
	echo "  drgn slab walk: $t s: memdb $(ratio "$t" "$t_memdb") x faster   (target: faster than drgn)"
else
	echo "  drgn:           skipped (not installed)"
fi
rm -f "$dir/vmcore.db"* "$dir/kallsyms"
