#!/bin/sh
# SPDX-License-Identifier: MIT
# Every report with every option over the bundled captures, one file per
# run, so that two builds can be compared before and after a change that
# must not alter any figure (a restructuring of the store, the reports or
# the commands):
#
#   sh tools/report-matrix.sh MEMDB OUTDIR
#   (another build)  sh tools/report-matrix.sh MEMDB2 OUTDIR2
#   diff -r OUTDIR OUTDIR2
#
# This is a guard, not a check of the figures: what is right is checked
# by the tests against the peer tools.  Each run's file holds its command
# line, exit status, standard output and standard error (OUTDIR's path
# taken out of them).  Databases are made afresh in OUTDIR/db (two
# traces twice, as *-big: before schema 12 a large source took another
# path, and the matrices of then compare with these).  Takes about a
# minute.
set -eu

memdb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
td=$(cd "$(dirname "$0")/../testdata" && pwd)
rm -rf "$out"
mkdir -p "$out/db" "$out/in"
out=$(cd "$out" && pwd)
in=$out/in

unz() {	# unz FILE.zst NAME: decompressed into $in
	zstd -dqf "$1" -o "$in/$2"
}

ingest() {	# ingest DB ARGS...: fails the harness if ingest fails
	db=$1
	shift
	"$memdb" ingest -q -d "$out/db/$db.db" "$@" > /dev/null 2>&1 || {
		echo "report-matrix: ingest into $db failed: $*" >&2
		exit 1
	}
}

# The captures, one database each, named after what they exercise.
unz "$td/real-perf/slab.data.zst" slab.data
unz "$td/real-perf/page.data.zst" page.data
unz "$td/real-perf/cg.data.zst" cg.data
unz "$td/real-perf/lossy.data.zst" lossy.data
unz "$td/real-tracedat/v7.dat.zst" v7.dat
unz "$td/real-ftrace-stacks/trace.zst" stacks.txt
unz "$td/real-6.18-small/ftrace.txt.zst" ftrace.txt
unz "$td/real-6.18-small/kallsyms.zst" kallsyms-6.18
unz "$td/vmcore/nokaslr.kallsyms.zst" kallsyms-vmcore
ks=$td/real-perf/kallsyms

ingest perf-slab --kallsyms "$ks" "$in/slab.data"
ingest perf-page --kallsyms "$ks" "$in/page.data"
ingest perf-cg --kallsyms "$ks" "$in/cg.data"
ingest perf-lossy --kallsyms "$ks" "$in/lossy.data"
ingest tracedat --kallsyms "$td/real-tracedat/kallsyms" "$in/v7.dat"
ingest tracefs "$td/real-tracefs"
ingest stacks --kallsyms "$td/real-ftrace-stacks/kallsyms" "$in/stacks.txt"
ingest slicing "$td/slicing/trace.txt"
ingest slicing-big "$td/slicing/trace.txt"
ingest ftrace-big --kallsyms "$in/kallsyms-6.18" \
	"$in/ftrace.txt"
ingest ftrace --kallsyms "$in/kallsyms-6.18" "$in/ftrace.txt"
ingest diff "$td/real-diff/a" "$td/real-diff/b"
ingest vmcore --kallsyms "$in/kallsyms-vmcore" "$td/vmcore/nokaslr.kdump"
sn=$td/succeed/snapshots
ingest snap --label h1 --time 2026-11-22T10:00:00Z "$sn/allocinfo-t0.txt"
ingest snap --label h1 --time 2026-11-22T11:00:00Z "$sn/allocinfo-t1.txt"
ingest snap --label h2 --time 2026-11-22T10:00:00Z "$sn/allocinfo-v1.txt"
ingest snap --label h2 --time 2026-11-22T11:00:00Z "$sn/allocinfo-v2.txt"
ingest snap --label h1 --time 2026-11-22T10:00:00Z \
	"$td/real-6.18-small/slabinfo.before"
ingest snap --label h1 --time 2026-11-22T11:00:00Z \
	"$td/real-6.18-small/slabinfo.after"
ingest snap --label h2 --time 2026-11-22T10:30:00Z \
	"$td/real-6.18-tracefs/slabinfo.before"
ingest snap --label h2 --time 2026-11-22T11:30:00Z \
	"$td/real-6.18-tracefs/slabinfo.after"

n=0
run() {	# run DB NAME ARGS...: one report run into $out/DB/NAME
	db=$1
	name=$2
	shift 2
	mkdir -p "$out/$db"
	f=$out/$db/$name
	n=$((n + 1))
	{
		echo "memdb report $*"
		st=0
		COLUMNS=200 "$memdb" report "$@" -d "$out/db/$db.db" \
			> "$f.stdout" 2> "$f.stderr" || st=$?
		echo "exit $st"
		echo "--- stdout"
		sed "s|$out/||g; s|$td/|testdata/|g" "$f.stdout"
		echo "--- stderr"
		sed "s|$out/||g; s|$td/|testdata/|g" "$f.stderr"
	} > "$f"
	rm -f "$f.stdout" "$f.stderr"
}

# Every trace report, every option alone, in CSV (exact numbers) and as
# the table a user sees.
for db in perf-slab perf-page perf-cg perf-lossy tracedat tracefs stacks \
	slicing slicing-big ftrace ftrace-big; do
	for r in summary errors callsites allocs fragmentation leaks pingpong \
		pages stacks timeline; do
		run $db "$r" $r --top 0 --wide
		run $db "$r.csv" $r --format csv
		run $db "$r.json" $r --format json
	done
	for by in site cache type comm pid label; do
		run $db "callsites-by-$by" callsites --by $by --format csv
	done
	run $db pages-by-caller pages --by caller --format csv
	run $db pingpong-by-cpu pingpong --by cpu --format csv
	run $db timeline-time timeline --by time --buckets 7 --format csv
	run $db stacks-svg stacks --format svg
	run $db callsites-human callsites --human --top 5
	for s in bytes callsite hit pingpong frag live; do
		run $db "callsites-sort-$s" callsites --sort $s --format csv
		run $db "allocs-sort-$s" allocs --sort $s --format csv
	done
	run $db callsites-sort-multi callsites --sort frag,hit,bytes --top 7
	run $db leaks-bytes leaks --sort live,bytes --format csv
	run $db leaks-age leaks --min-age 1ms --format csv
	run $db leaks-at leaks --at 1000 --format csv
	# the slicing options alone and together, on every report they apply to
	for r in allocs callsites fragmentation leaks pages pingpong stacks; do
		run $db "$r-cache" $r --cache kmalloc-128 --format csv
		run $db "$r-cache-dentry" $r --cache dentry --format csv
		run $db "$r-comm" $r --comm bash --format csv
		run $db "$r-pid" $r --pid 100 --format csv
		run $db "$r-site" $r --site foo_alloc+0x10 --format csv
		run $db "$r-site-kmalloc" $r --site kmalloc_reserve --format csv
		run $db "$r-time" $r --time 100.000002,100.000006 --format csv
		run $db "$r-time-open" $r --time ,100.000004 --format csv
		run $db "$r-all" $r --time 100,101 --comm bash --cache dentry \
			--format csv
	done
	for by in site cache type comm pid; do
		run $db "callsites-by-$by-time" callsites --by $by \
			--time 100.000002, --format csv
		run $db "callsites-by-$by-comm" callsites --by $by --comm cat \
			--format csv
	done
	run $db source-all callsites --source all --format csv
	run $db columns callsites --columns callsite,hits,bytes_alloc
done

# Exploration through SQL: the rows and views users query.
for db in perf-slab perf-cg tracedat tracefs slicing-big ftrace-big diff; do
	mkdir -p "$out/$db"
	for q in "SELECT state, type, count(*), sum(bytes_req), sum(bytes_alloc), \
sum(ts), sum(end_ts), sum(ptr % 4099), sum(cpu), sum(free_cpu), \
sum(site_id), sum(cache_id), sum(gfp), sum(node), sum(end_seq) \
FROM alloc GROUP BY state, type" \
		"SELECT * FROM v_allocations ORDER BY seq LIMIT 50" \
		"SELECT class, count(*), sum(ptr % 4099) FROM v_bad_frees GROUP BY 1" \
		"SELECT * FROM v_callsites ORDER BY 1, 2 LIMIT 50"; do
		n=$((n + 1))
		{
			echo "memdb sql $q"
			"$memdb" sql -d "$out/db/$db.db" "$q" 2>&1 |
				sed "s|$out/||g; s|$td/|testdata/|g"
		} > "$out/$db/sql-$n"
	done
done

# Two traces: diff, and every report over --source.
for show in changed all; do
	run diff "diff-$show" diff --from 1 --to 2 --show $show --format csv
done
run diff diff-table diff --from 1 --to 2 --human
run diff callsites-1 callsites --source 1 --format csv

# A core dump: its slab caches and free blocks.
for r in zones buddy summary; do
	run vmcore "$r" $r --top 0 --wide
	run vmcore "$r.csv" $r --format csv
done
for s in pos name size used free bytes unused_pct; do
	run vmcore "zones-sort-$s" zones --sort $s --format csv
done

# Snapshots of two hosts: every snapshot and fleet report.
for r in zones allocinfo growth outliers; do
	run snap "$r" $r --top 0 --wide
	run snap "$r.csv" $r --format csv
	run snap "$r-label" $r --label 'h*' --format csv
	run snap "$r-by-label" $r --by label --format csv
	run snap "$r-dates" $r --label 'h*' --from 2026-11-22T10:15Z \
		--to 2026-11-22T12:00Z --format csv
done
for by in tag function file module; do
	run snap "allocinfo-by-$by" allocinfo --by $by --format csv
	run snap "growth-by-$by" growth --by $by --format csv
done
run snap growth-from-to growth --from 1 --to 2 --format csv
run snap growth-svg growth --format svg
run snap zones-svg zones --format svg
run snap zones-source zones --source 5 --format csv
run snap allocinfo-human allocinfo --human --top 3

echo "report-matrix: $n runs in $out" >&2
