#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, perf.data: `memdb ingest` of a perf kmem capture plus the
# first report (callsites), against `perf kmem -i FILE stat` on the same
# file in the same run.  Not a test: it prints numbers.  perf stores
# nothing; memdb writes every allocation to its database.
#
#   sh bench/bench-perf.sh BUILD_DIR WORK_DIR     (run by bench/bench.sh)
#
# The capture is recorded here (`perf kmem record`, root and perf
# needed; skipped with a message otherwise) around BENCH_PERF_LOAD
# (default: listing /usr/share recursively, a few hundred thousand
# samples on the 6.18 test machine).  BENCH_PERF_DATA=FILE uses an
# existing perf.data instead.  Each side runs BENCH_PERF_RUNS (11)
# times, alternating, each after a sync.  Printed: the best and the
# median of each side, and the median of the ratios of the pairs (a
# memdb run and the perf run after it).  One run of each side says
# little on a virtual machine: perf's own time on the bench file moves
# between 0.45 and 0.77 s from run to run there.
# The same run also times bench/bare_insert.c writing as many rows (of 12
# integers, memdb's alloc rows have 24 columns): what SQLite alone needs
# to store them, the floor under memdb's writer thread.
# A second capture is recorded around BENCH_PERF_LOAD2 (default: reading
# every file of /usr/share/man, doc and locale, caches dropped first:
# about a million samples, with hundreds of thousands of distinct
# addresses, most still live at the end, as real traffic has and
# generated traces do not), measured the same way (the issue's capture
# of at least 1M events), and every report timed on it.  BENCH_PERF_DATA2
# uses an existing file instead; BENCH_PERF_LOAD2='' skips it.
set -eu
. bench/lib.sh

build=$1
dir=$2/perf
memdb=$build/memdb
stat=$build/runstat
bare=$build/bare_insert
load=${BENCH_PERF_LOAD:-ls -R /usr/share}
load2=${BENCH_PERF_LOAD2-find /usr/share/man /usr/share/doc /usr/share/locale -type f -print0 | xargs -0 cat}
runs=${BENCH_PERF_RUNS:-11}
rm -rf "$dir"
mkdir -p "$dir"

# record FILE LOAD PAGES: perf kmem record around LOAD into FILE, with a
# buffer of PAGES; 1 when it cannot be (said why)
record() {
	if [ "$(id -u)" != 0 ] || ! command -v perf > /dev/null 2>&1; then
		echo "perf.data: skipped (needs root and perf to record a" \
		     "capture, or BENCH_PERF_DATA=FILE)"
		return 1
	fi
	echo "perf.data: recording \`perf kmem record\` around '$2'"
	# shellcheck disable=SC2086
	if ! perf kmem record -m "$3" -o "$1" -- sh -c "$2 > /dev/null 2>&1" \
		> "$dir/record.log" 2>&1; then
		echo "  skipped: perf kmem record failed:"
		sed 's/^/    /' "$dir/record.log" | tail -n 3
		return 1
	fi
}

# pairs FILE: memdb ingest + the first report against perf kmem stat on
# FILE, alternating; then every report on the database made
pairs() {
	data=$1
	samples=$(perf report -i "$data" --stats 2>/dev/null |
		  awk '/SAMPLE events:/ { print $3; exit }' || true)
	bytes=$(wc -c < "$data")
	tm=""
	tp=""
	tr=""
	km=""
	kp=""
	for i in $(seq 1 "$runs"); do
		rm -f "$dir/bench.db"*
		sync
		"$stat" sh -c "'$memdb' ingest -q -d '$dir/bench.db' '$data' &&
			'$memdb' report callsites -d '$dir/bench.db' > /dev/null" \
			2> "$dir/memdb.stat"
		tm="$tm $(secs "$dir/memdb.stat")"
		km="$km $(kib "$dir/memdb.stat")"
		sync
		"$stat" perf kmem -i "$data" stat > /dev/null 2> "$dir/perf.stat"
		tp="$tp $(secs "$dir/perf.stat")"
		kp="$kp $(kib "$dir/perf.stat")"
		tr="$tr $(ratio "$(secs "$dir/memdb.stat")" "$(secs "$dir/perf.stat")")"
	done
	allocs=$(sqlite3 -cmd ".load $build/memdb" "$dir/bench.db" "SELECT count(*) FROM alloc")
	ptrs=$(sqlite3 -cmd ".load $build/memdb" "$dir/bench.db" "SELECT count(DISTINCT ptr) FROM alloc WHERE type < 2")
	tb=""
	for i in $(seq 1 "$runs"); do
		sync
		tb="$tb $("$bare" "$dir/bare.db" "$allocs")"
		rm -f "$dir/bare.db"
	done
	# shellcheck disable=SC2086
	t_m=$(min_of $tm)
	# shellcheck disable=SC2086
	t_p=$(min_of $tp)
	echo "  input:          ${samples:-?} samples, $bytes bytes, $allocs allocation rows, $ptrs slab addresses"
	echo "  memdb:          ingest + report callsites: $t_m s (best of $runs;$tm s)"
	echo "  perf kmem stat: $t_p s (best of $runs;$tp s)"
	# shellcheck disable=SC2086
	echo "  bare insert:    $(min_of $tb) s for $allocs rows of 12 integers (best of $runs;$tb s) = $(ratio "$(min_of $tb)" "$t_p") x perf"
	# shellcheck disable=SC2086
	echo "  memdb / perf:   $(ratio "$t_m" "$t_p") best, $(ratio "$(median_of $tm)" "$(median_of $tp)") median, $(median_of $tr) median of the $runs pairs   (target < 1.0)"
	# shellcheck disable=SC2086
	echo "  peak memory:    memdb $(median_of $km) KiB, perf $(median_of $kp) KiB (medians; memdb's is the larger of ingest and report)   (target: memdb <= perf)"
	# every report with each option on the database just made
	sh bench/reports.sh "$build" "$dir/bench.db"
}

echo
data=${BENCH_PERF_DATA:-}
if [ -z "$data" ]; then
	data=$dir/kmem.data
	record "$data" "$load" 4096 || data=""
fi
[ -z "$data" ] || pairs "$data"

data=${BENCH_PERF_DATA2:-}
if [ -z "$data" ] && [ -n "$load2" ]; then
	echo
	data=$dir/many.data
	# cold caches: the files' pages and dentries are made while traced
	sync
	[ "$(id -u)" != 0 ] || echo 3 > /proc/sys/vm/drop_caches
	record "$data" "$load2" 8192 || data=""
fi
[ -z "$data" ] || pairs "$data"
[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
