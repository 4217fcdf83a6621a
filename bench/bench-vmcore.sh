#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, core dumps: memdb ingest of a kernel core dump (slab
# caches, buddy lists, counters) against crash's startup + `kmem -s` and
# against drgn's slab walk (tests/vmcore_drgn_slab.py), same dump, same
# run.  The dump is testdata/vmcore/nokaslr.kdump (or MEMDB_VMCORE_DIR's);
# crash, drgn and memdb's DWARF mode need the -dbg vmlinux, MEMDB_VMLINUX.
# memdb with BTF and kallsyms, memdb with --vmlinux, drgn's start-up
# alone (the dump opened and the DWARF indexed) and drgn's walk
# alternate BENCH_VMCORE_PAIRS times (7); the medians and the median of
# each round's ratio are printed.  Says what it skipped, and when drgn's
# walk printed nothing (it failed: its last message).
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
if ! command -v drgn > /dev/null; then
	echo "  drgn:           skipped (not installed)"
	rm -f "$dir/vmcore.db"* "$dir/kallsyms"
	exit 0
fi
# One timed run: memdb with BTF and kallsyms (btf), memdb with the
# vmlinux (dwarf), drgn's start-up alone (start: the dump opened and the
# vmlinux's DWARF indexed, an empty script) or its slab walk (walk).
echo pass > "$dir/empty.py"
timed() {
	rm -f "$dir/vmcore.db"*
	case $1 in
	btf) "$stat" "$memdb" ingest -q -d "$dir/vmcore.db" \
		--kallsyms "$dir/kallsyms" "$dump" 2> "$dir/run.stat" ;;
	dwarf) "$stat" "$memdb" ingest -q -d "$dir/vmcore.db" \
		--vmlinux "$vmlinux" "$dump" 2> "$dir/run.stat" ;;
	start) "$stat" drgn -q -c "$dump" -s "$vmlinux" "$dir/empty.py" \
		2> "$dir/run.stat" || true ;;
	walk) "$stat" drgn -q -c "$dump" -s "$vmlinux" \
		tests/vmcore_drgn_slab.py > "$dir/drgn.out" \
		2> "$dir/run.stat" || true ;;
	esac
	secs "$dir/run.stat"
}
r3() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# memdb / drgn per round: BTF and DWARF against the walk, DWARF against
# the start-up
tb="" tw="" ts="" tk="" rb="" rw="" rs=""
n=${BENCH_VMCORE_PAIRS:-7}
for _ in $(seq 1 "$n"); do
	b=$(timed btf)
	w=$(timed dwarf)
	s=$(timed start)
	k=$(timed walk)
	if [ ! -s "$dir/drgn.out" ]; then
		echo "  drgn slab walk: failed: $(grep -v '^runstat:' "$dir/run.stat" | tail -n 1)"
		rm -f "$dir"/vmcore.db* "$dir/kallsyms" "$dir"/drgn.out "$dir/empty.py"
		exit 0
	fi
	tb="$tb $b" tw="$tw $w" ts="$ts $s" tk="$tk $k"
	rb="$rb $(r3 "$b" "$k")" rw="$rw $(r3 "$w" "$k")" rs="$rs $(r3 "$w" "$s")"
done
# shellcheck disable=SC2086
{
echo "  drgn slab walk: $(median_of $tk) s, its start-up alone $(median_of $ts) s (medians of $n rounds alternating with memdb; $(wc -l < "$dir/drgn.out") caches)"
echo "  memdb, BTF:     $(median_of $tb) s: memdb / drgn's walk $(median_of $rb)   (target: below 1; median of the rounds' ratios)"
echo "  memdb, DWARF:   $(median_of $tw) s: memdb / drgn's walk $(median_of $rw), memdb / drgn's start-up $(median_of $rs)   (target: below 1)"
}
rm -f "$dir/drgn.out" "$dir/empty.py"
rm -f "$dir/vmcore.db"* "$dir/kallsyms"
