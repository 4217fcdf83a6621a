#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: ingest the bundled real capture (kmem tracepoints of a 6.18
# x86-64 kernel, re-encoded as kmemtrace relay ABI v1), symbolize its call
# sites with the kallsyms of the same boot, and show what memdb makes of
# it.  The kallsyms is put in the capture directory, so ingest keeps it
# with the source and 'memdb symbolize' needs no option.
set -eu

memdb=$1
data=testdata/real-6.18-small
out=build/demo
rm -rf "$out"
mkdir -p "$out/kmemtrace-v1-le"
cp "$data/kmemtrace-v1-le/abi_version" "$data/kmemtrace-v1-le/total_overruns" \
	"$out/kmemtrace-v1-le/"
for f in "$data"/kmemtrace-v1-le/cpu*.out.zst; do
	zstd -dq "$f" -o "$out/kmemtrace-v1-le/$(basename "$f" .zst)"
done
zstd -dq "$data/kallsyms.zst" -o "$out/kmemtrace-v1-le/kallsyms"

db=$out/memdb.db
set -x
"$memdb" ingest -d "$db" "$out/kmemtrace-v1-le"
"$memdb" sources -d "$db"
"$memdb" symbolize -d "$db"
"$memdb" report fragmentation -d "$db" --top 15
"$memdb" sql -d "$db" "SELECT state, count(*) AS allocations, sum(bytes_alloc) AS bytes FROM v_allocations WHERE type <> 'page' GROUP BY state ORDER BY 2 DESC"
"$memdb" report summary -d "$db"
"$memdb" report errors -d "$db"
"$memdb" report leaks -d "$db" --top 10
"$memdb" check "$out/kmemtrace-v1-le"

# snapshots: the same machine's /proc/slabinfo just before and after
"$memdb" ingest -d "$db" --label demo --time 2026-11-22T10:00:00Z "$data/slabinfo.before"
"$memdb" ingest -d "$db" --label demo --time 2026-11-22T10:00:01Z "$data/slabinfo.after"
"$memdb" report zones -d "$db" --top 10
"$memdb" report growth -d "$db" --top 10
