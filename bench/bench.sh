#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb benchmark: generated inputs, throughput figures.  Not a test:
# nothing here fails on a slow machine; it prints numbers.
#
#   sh bench/bench.sh BUILD_DIR        (make bench)
#
# BENCH_EVENTS (default 10000000) sets the size of the main capture; the
# memory check runs again at twice that size with the same live set.
# BENCH_DIR (default BUILD_DIR/bench) holds the inputs (~1.5 GB at the
# default size); they are deleted at the end unless BENCH_KEEP=1.
set -eu
. bench/lib.sh

build=$1
memdb=$build/memdb
ktgen=$build/ktgen
stat=$build/runstat
bare=$build/bare_insert
n=${BENCH_EVENTS:-10000000}
dir=${BENCH_DIR:-$build/bench}
rm -rf "$dir"
mkdir -p "$dir"


echo "memdb bench: $(nproc) CPUs, $(uname -m), sqlite $(sqlite3 --version | cut -d' ' -f1)"
echo

# ---- kmemtrace relay ingest -------------------------------------------
gen() { # events outdir
	"$ktgen" --seed 42 --events "$1" --cpus 4 --live 10000 --sites 256 \
		--pages 2 --leaks 100 --dup-frees 10 --unknown-frees 10 \
		--reuse 100 --cross-cpu 1000 "$2"
}
echo "kmemtrace relay: generating $n events (4 CPUs, live set 10000)"
gen "$n" "$dir/cap"
bytes=$(cat "$dir"/cap/cpu* | wc -c)

# Ingest and the bare insert alternate, three times each, each after a
# sync, so the disk's writeback of one run does not land in the next; the
# figures are the best of three (the median is printed beside it).
runs=${BENCH_RUNS:-3}
ti=""
tb=""
for i in $(seq 1 "$runs"); do
	rm -f "$dir/bench.db"*
	sync
	"$stat" "$memdb" ingest -q -d "$dir/bench.db" "$dir/cap" \
		2> "$dir/ingest.stat"
	ti="$ti $(secs "$dir/ingest.stat")"
	[ "$i" = 1 ] && rss1=$(kib "$dir/ingest.stat")
	[ "$i" = 1 ] && allocs=$(sqlite3 -cmd ".load $build/memdb" "$dir/bench.db" "SELECT count(*) FROM alloc")
	sync
	tb="$tb $("$bare" "$dir/bare.db" "$allocs")"
	rm -f "$dir/bare.db"
done
# shellcheck disable=SC2086
t_ingest=$(min_of $ti)
# shellcheck disable=SC2086
t_bare=$(min_of $tb)

"$stat" "$memdb" report fragmentation -d "$dir/bench.db" > /dev/null \
	2> "$dir/report.stat"
t_report=$(secs "$dir/report.stat")
mid=$((n / 2))
reports="summary|callsites|callsites --by cache|callsites --by type|leaks|leaks --at $mid|pingpong|pingpong --by cpu|errors|timeline --buckets 100"

echo "  input:          $bytes bytes, $allocs allocation rows"
# shellcheck disable=SC2086
echo "  ingest:         $t_ingest s = $(rate "$n" "$t_ingest") events/s, $(rate "$bytes" "$t_ingest") bytes/s (best of $runs;$ti s)"
# shellcheck disable=SC2086
echo "  bare insert:    $t_bare s for $allocs rows of 12 integers, same settings (best of $runs;$tb s)"
# shellcheck disable=SC2086
echo "  ingest / bare:  $(ratio "$t_ingest" "$t_bare") best, $(ratio "$(median_of $ti)" "$(median_of $tb)") median   (target <= 1.25)"
echo "  report:         fragmentation in $t_report s   (target < 1)"
echo "$reports" | tr '|' '\n' | while read -r r; do
	# shellcheck disable=SC2086
	"$stat" "$memdb" report $r -d "$dir/bench.db" > /dev/null \
		2> "$dir/r.stat"
	printf '  report:         %-28s %s s\n' "$r" "$(secs "$dir/r.stat")"
done
echo "  peak RSS:       $rss1 KiB at $n events"
rm -rf "$dir/cap"

n2=$((n * 2))
gen "$n2" "$dir/cap2"
rm -f "$dir/bench2.db"
"$stat" "$memdb" ingest -q -d "$dir/bench2.db" "$dir/cap2" 2> "$dir/ingest2.stat"
rss2=$(kib "$dir/ingest2.stat")
echo "  peak RSS:       $rss2 KiB at $n2 events, same live set: ratio $(ratio "$rss2" "$rss1")   (target within 1.10)"
rm -rf "$dir/cap2" "$dir/bench2.db"

# extra figures from later stages append below this line: each
# bench/bench-*.sh takes BUILD_DIR WORK_DIR (a helper that takes other
# arguments is named otherwise: bench/reports.sh)
for f in bench/bench-*.sh; do
	[ -f "$f" ] && sh "$f" "$build" "$dir"
done

[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
