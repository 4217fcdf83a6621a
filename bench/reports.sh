#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, reports: every trace report, alone and with each option
# (and the selections together), timed on one database; prints each
# time and the slowest.  Not a test: it prints numbers.
#
#   sh bench/reports.sh BUILD_DIR DATABASE
#
# The options' values are the database's own (its busiest task name,
# task, cache and call site, windows of a tenth, a half and the whole of
# its time), so that each selection selects something.  Each time is
# the best of BENCH_REPORTS_RUNS (3) runs, memdb's start included.  The
# issue's targets: 0.1 s at 500k allocations, 0.2 s at 10M events.
set -eu
. bench/lib.sh

memdb=$1/memdb
db=$2
runs=${BENCH_REPORTS_RUNS:-3}
q() { sqlite3 -cmd ".load $1/memdb" "$db" "$2"; }
b=$1

allocs=$(q "$b" "SELECT count(*) FROM alloc")
comm=$(q "$b" "SELECT s.text FROM alloc a JOIN str s ON s.source_id = a.source_id AND s.id = a.comm_id GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
pid=$(q "$b" "SELECT pid FROM alloc WHERE pid IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
cache=$(q "$b" "SELECT s.text FROM alloc a JOIN str s ON s.source_id = a.source_id AND s.id = a.cache_id GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
site=$(q "$b" "SELECT printf('0x%x', t.addr) FROM alloc a JOIN site t ON t.source_id = a.source_id AND t.id = a.site_id WHERE t.addr IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
lo=$(q "$b" "SELECT min(ts) FROM alloc")
hi=$(q "$b" "SELECT max(ts) FROM alloc")
win() {	# win FROM_FRACTION TO_FRACTION: a --time window in seconds
	awk -v lo="$lo" -v hi="$hi" -v a="$1" -v b="$2" 'BEGIN {
		printf "%.6f,%.6f", (lo + (hi - lo) * a) / 1e9,
				     (lo + (hi - lo) * b) / 1e9 }'
}
w10=$(win 0.45 0.55)
w50=$(win 0.25 0.75)
# the middle of the capture, as a position and as a time
mid_seq=$(q "$b" "SELECT (min(seq) + max(seq)) / 2 FROM alloc")
mid_ts=$(awk -v lo="$lo" -v hi="$hi" 'BEGIN { printf "%.6fs", (lo + hi) / 2e9 }')

echo
echo "reports: $db, $allocs allocations (comm '$comm', pid $pid, cache '$cache', site $site)"
worst=0
worst_what=
one() {	# one ARGS...: the best of $runs runs of memdb report ARGS
	best=
	for i in $(seq 1 "$runs"); do
		s=$(date +%s%N)
		"$memdb" report "$@" -d "$db" > /dev/null 2>&1 || true
		e=$(date +%s%N)
		t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", (e - s) / 1e9 }')
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	printf '  %-58s %s s\n' "$*" "$best"
	if awk -v a="$best" -v b="$worst" 'BEGIN { exit !(a > b) }'; then
		worst=$best
		worst_what="$*"
	fi
}

for r in summary errors callsites allocs fragmentation leaks pingpong pages \
	stacks timeline; do
	one $r
done
for by in site cache type comm pid; do
	one callsites --by $by
done
one pages --by caller
one pingpong --by cpu
one leaks --at "$mid_seq"
one leaks --at "$mid_ts"
one leaks --min-age 1ms
one timeline --buckets 100
for s in bytes callsite hit pingpong frag live; do
	one allocs --sort $s
done
for r in allocs callsites fragmentation leaks pages pingpong stacks; do
	one $r --time "$w10"
	one $r --time "$w50"
	one $r --time ,
	one $r --comm "$comm"
	one $r --pid "$pid"
	one $r --cache "$cache"
	one $r --site "$site"
	one $r --time "$w50" --comm "$comm" --cache "$cache"
done
echo "  slowest: $worst s ($worst_what)"
