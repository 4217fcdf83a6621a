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
set -eu
. bench/lib.sh

build=$1
dir=$2/perf
memdb=$build/memdb
stat=$build/runstat
bare=$build/bare_insert
load=${BENCH_PERF_LOAD:-ls -R /usr/share}
runs=${BENCH_PERF_RUNS:-11}
rm -rf "$dir"
mkdir -p "$dir"

echo
data=${BENCH_PERF_DATA:-}
if [ -z "$data" ]; then
	if [ "$(id -u)" != 0 ] || ! command -v perf > /dev/null 2>&1; then
		echo "perf.data: skipped (needs root and perf to record a" \
		     "capture, or BENCH_PERF_DATA=FILE)"
		rm -rf "$dir"
		exit 0
	fi
	data=$dir/kmem.data
	echo "perf.data: recording \`perf kmem record\` around '$load'"
	# shellcheck disable=SC2086
	if ! perf kmem record -m 4096 -o "$data" -- sh -c "$load > /dev/null" \
		> "$dir/record.log" 2>&1; then
		echo "  skipped: perf kmem record failed:"
		sed 's/^/    /' "$dir/record.log" | tail -n 3
		rm -rf "$dir"
		exit 0
	fi
fi
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
echo "  input:          ${samples:-?} samples, $bytes bytes, $allocs allocation rows"
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
[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
