#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, slicing: reports with --time windows and filters on a
# database of a generated 10M-event trace (ftrace text with tasks, 256
# call sites; one microsecond per event, so 1.000001 s to 11 s).  Each
# figure is the best of three runs.  Not a test: it prints numbers.
#
#   sh bench/bench-slice.sh BUILD_DIR WORK_DIR     (run by bench/bench.sh)
#
# BENCH_SLICE_EVENTS (default 10000000) sets the number of events;
# BENCH_SLICE_DB reuses a database made before (then nothing is made).
set -eu
. bench/lib.sh

build=$1
dir=$2/slice
memdb=$build/memdb
stat=$build/runstat
n=${BENCH_SLICE_EVENTS:-10000000}
db=${BENCH_SLICE_DB:-$dir/bench.db}
rm -rf "$dir"
mkdir -p "$dir"

echo
if [ -z "${BENCH_SLICE_DB:-}" ]; then
	echo "slicing: generating $n events as a trace (4 CPUs, 4 tasks, 256 sites)"
	"$build/ktgen" --seed 42 --events "$n" --cpus 4 --live 10000 \
		--sites 256 --pages 2 --format ftrace-text "$dir/trace"
	"$memdb" ingest -q -d "$db" "$dir/trace"
	rm -f "$dir/trace"
fi
allocs=$(sqlite3 -cmd ".load $build/memdb" "$db" "SELECT count(*) FROM alloc")
site=$(sqlite3 "$db" "SELECT printf('0x%x', addr) FROM site LIMIT 1")
pid=$(sqlite3 -cmd ".load $build/memdb" "$db" "SELECT pid FROM alloc WHERE id = 1000")
echo "  database:       $allocs allocation rows"

worst=0
worst_what=
best() { # report args...: the best of three, seconds, into B (the slowest kept)
	t=""
	for _ in 1 2 3; do
		# shellcheck disable=SC2086
		"$stat" "$memdb" report "$@" -d "$db" > /dev/null \
			2> "$dir/r.stat" || true
		t="$t $(secs "$dir/r.stat")"
	done
	# shellcheck disable=SC2086
	B=$(min_of $t)
	if awk -v b="$B" -v w="$worst" 'BEGIN { exit !(b > w) }'; then
		worst=$B
		worst_what="$*"
	fi
}

total() { # report args...: the total row's hits (its notes unshown)
	"$memdb" report "$@" -d "$db" --format csv 2> /dev/null |
		sed -n 's/^total,[^,]*,\([0-9]*\),.*/\1/p'
}

for opt in "" "--time 5,5.1" "--time 5,6" "--time 3,8" "--time ," \
	   "--pid $pid" "--site $site" "--comm tar" "--cache kmalloc-512" \
	   "--comm tar --time 5,6"; do
	for r in callsites fragmentation; do
		# shellcheck disable=SC2086
		best $r $opt
		# shellcheck disable=SC2086
		printf '  report:         %-42s %6s s  (%s allocations)\n' \
			"$r $opt" "$B" "$(total $r $opt)"
	done
done
# The other reports with a window, and filters with a wide one; then
# allocs with a filter, --by pid with a window, two filters at once,
# leaks and pages: every one a scan of the source's blocks
# (report/scan.c).
for r in "allocs --time 5,5.1" "allocs --time 5,6" "allocs --time 3,8" \
	 "pingpong --time 3,8" \
	 "pingpong --cache kmalloc-512 --time 3,8" \
	 "pingpong --comm tar --time 3,8" "pingpong --pid $pid --time 3,8" \
	 "stacks --time 3,8" "callsites --comm tar --time 3,8" \
	 "fragmentation --comm tar --time 3,8" \
	 "callsites --by comm --time 3,8" \
	 "callsites --pid $pid --time 3,8" \
	 "fragmentation --pid $pid --time 3,8" \
	 "callsites --cache kmalloc-512 --time 3,8" \
	 "allocs" "allocs --pid $pid" "allocs --cache kmalloc-512" \
	 "allocs --comm tar" "allocs --site $site" \
	 "allocs --comm tar --time 3,8" "allocs --pid $pid --time 4,6" \
	 "callsites --by pid --time 3,8" "callsites --by cache --time 5,6" \
	 "callsites --cache kmalloc-512 --comm tar --time 3,8" \
	 "callsites --pid $pid --cache kmalloc-512" \
	 "fragmentation --pid $pid --cache kmalloc-512" \
	 "pingpong --pid $pid --cache kmalloc-512" \
	 "stacks --comm tar" "leaks --time 3,8" "leaks --comm tar" \
	 "pages" "pages --by caller" "pages --by caller --time 3,8" \
	 "pages --by caller --pid $pid --time 3,8"; do
	# shellcheck disable=SC2086
	best $r
	printf '  report:         %-42s %6s s\n' "$r" "$B"
done
echo "  slowest:        $worst_what: $worst s"
echo "  target:         at most 0.2 s at 10M events, any filter or window (issue 26)"
[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
