#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, allocinfo figure: ingest of a generated /proc/allocinfo of
# BENCH_ALLOCINFO_LINES lines (default 1000000), in lines/s, and the time
# of the allocinfo and growth reports over it.
#
#   sh bench/bench-allocinfo.sh BUILD_DIR WORK_DIR   (run by bench/bench.sh)
set -eu
. bench/lib.sh

build=$1
dir=$2
memdb=$build/memdb
stat=$build/runstat
n=${BENCH_ALLOCINFO_LINES:-1000000}


# A version 2.0 file as the kernel prints it: "%12lli %8llu ", the tag,
# one module in ten, one line in a hundred accurate:no.  The second
# snapshot of the series has every size grown by a little.
gen() { # lines growth out
	awk -v n="$1" -v g="$2" 'BEGIN {
		print "allocinfo - version: 2.0"
		print "#     <size>  <calls> <tag info>"
		for (i = 0; i < n; i++) {
			calls = (i * 7919) % 5000
			printf "%12d %8d mm/dir%d/file%d.c:%d%s func:fn_%d%s \n",
			       calls * 64 + g * (i % 3), calls, i % 97, i % 4099,
			       i + 1, i % 10 ? "" : " [mod" i % 13 "]", i,
			       i % 100 ? "" : " accurate:no"
		}
	}' > "$3"
}

echo
echo "allocinfo: generating $n lines"
gen "$n" 0 "$dir/allocinfo.0"
gen "$n" 64 "$dir/allocinfo.1"
bytes=$(wc -c < "$dir/allocinfo.0")
rm -f "$dir/allocinfo.db"
"$stat" "$memdb" ingest -q -d "$dir/allocinfo.db" --label bench \
	--time 2026-01-01T00:00:00Z "$dir/allocinfo.0" 2> "$dir/allocinfo.stat"
t_ingest=$(secs "$dir/allocinfo.stat")
rss=$(kib "$dir/allocinfo.stat")
"$memdb" ingest -q -d "$dir/allocinfo.db" --label bench \
	--time 2026-01-01T01:00:00Z "$dir/allocinfo.1"
"$stat" "$memdb" report allocinfo -d "$dir/allocinfo.db" --by module \
	> /dev/null 2> "$dir/allocinfo-report.stat"
"$stat" "$memdb" report growth -d "$dir/allocinfo.db" \
	> /dev/null 2> "$dir/allocinfo-growth.stat"
echo "  input:          $bytes bytes, $n lines"
echo "  ingest:         $t_ingest s = $(rate "$n" "$t_ingest") lines/s, $(rate "$bytes" "$t_ingest") bytes/s, peak RSS $rss KiB"
echo "  report:         allocinfo --by module in $(secs "$dir/allocinfo-report.stat") s"
echo "  report:         growth of two $n-line snapshots in $(secs "$dir/allocinfo-growth.stat") s"
rm -f "$dir"/allocinfo.0 "$dir"/allocinfo.1 "$dir"/allocinfo.db*
