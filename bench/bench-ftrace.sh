#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, ftrace text: lines/s ingesting a generated 5M-line trace
# (call sites as %pS prints them, resolved with a kallsyms), next to the
# bare SQLite insert of its allocation rows in the same run.  Not a test:
# it prints numbers.
#
#   sh bench/bench-ftrace.sh BUILD_DIR WORK_DIR     (run by bench/bench.sh)
#
# BENCH_FTRACE_EVENTS (default 5000000) sets the number of events; the
# trace has that many lines plus its 4 header lines.
set -eu
. bench/lib.sh

build=$1
dir=$2/ftrace
memdb=$build/memdb
ktgen=$build/ktgen
stat=$build/runstat
bare=$build/bare_insert
n=${BENCH_FTRACE_EVENTS:-5000000}
rm -rf "$dir"
mkdir -p "$dir"


echo
echo "ftrace text: generating $n events as a trace (4 CPUs, live set 10000)"
"$ktgen" --seed 42 --events "$n" --cpus 4 --live 10000 --sites 256 \
	--pages 2 --leaks 100 --dup-frees 10 --unknown-frees 10 --reuse 100 \
	--cross-cpu 1000 --format ftrace-text-sym --kallsyms "$dir/kallsyms" \
	"$dir/trace"
lines=$(wc -l < "$dir/trace")
bytes=$(wc -c < "$dir/trace")

sync	# the trace just written is not being written back while timed
"$stat" "$memdb" ingest -q -d "$dir/bench.db" "$dir" 2> "$dir/ingest.stat"
allocs=$(sqlite3 -cmd ".load $build/memdb" "$dir/bench.db" "SELECT count(*) FROM alloc")
t_ingest=$(secs "$dir/ingest.stat")
rss=$(kib "$dir/ingest.stat")
t_bare=$("$bare" "$dir/bare.db" "$allocs")
rm -f "$dir/bare.db"

echo "  input:          $lines lines, $bytes bytes, $allocs allocation rows"
echo "  ingest:         $t_ingest s = $(rate "$lines" "$t_ingest") lines/s, $(rate "$bytes" "$t_ingest") bytes/s   (target >= 2000000 lines/s)"
echo "  bare insert:    $t_bare s for $allocs rows of 12 integers (same run)"
echo "  ingest / bare:  $(ratio "$t_ingest" "$t_bare")"
echo "  peak RSS:       $rss KiB"
echo "  threads:        parsing on one, the loader's call-site and pairing"
echo "                  maps on another (ingest/relay.c), packing and SQLite"
echo "                  on a third (see bench/README.md)"
rm -rf "$dir"
