#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb bench, fleet figure (issue 29): BENCH_FLEET_HOSTS hosts (default
# 1000) x BENCH_FLEET_SNAPS hourly allocinfo snapshots (24) of
# BENCH_FLEET_TAGS tags (5000), in one SQLite database and exported to a
# local ClickHouse server; the export's rows per second, and the fleet's
# growth (first to last hour), outliers and allocinfo reports timed on
# ClickHouse and on the SQLite database side by side (medians of three
# runs; on ClickHouse once its merges after the export are done).  Without
# clickhouse-server (make deps installs it) the ClickHouse half is
# skipped.
#
# The snapshots are made from the real allocinfo fixtures
# (testdata/succeed/snapshots/allocinfo-*.txt: their lines, then as many
# more as BENCH_FLEET_TAGS asks, named after real kernel functions of
# testdata/real-6.18-small's kallsyms).  One is ingested; the others are
# its rows copied in SQL, each host's figures scaled a little and moving
# by the hour, a few tags leaking on a few hosts (growing by 1 MiB an
# hour): 24,000 ingests of 5,000 lines would time the ingest, which
# bench-allocinfo.sh does.
#
# At the default size it needs about 16 GB of disk in WORK_DIR (8 GB of
# SQLite, 7 GB in ClickHouse before its merges) and about 10 minutes.
#
#   sh bench/bench-fleet.sh BUILD_DIR WORK_DIR   (run by bench/bench.sh)
set -eu
. bench/lib.sh

build=$1
dir=$2/fleet
memdb=$build/memdb
stat=$build/runstat
hosts=${BENCH_FLEET_HOSTS:-1000}
snaps=${BENCH_FLEET_SNAPS:-24}
tags=${BENCH_FLEET_TAGS:-5000}
t0=1767225600 # 2026-01-01T00:00:00Z
rm -rf "$dir"
mkdir -p "$dir"
db=$dir/fleet.db
rows=$((hosts * snaps * tags))

echo
echo "fleet: $hosts hosts x $snaps snapshots x $tags tags = $rows tag rows"

# ---- the SQLite database of every source --------------------------------
{
	echo "allocinfo - version: 2.0"
	echo "#     <size>  <calls> <tag info>"
	cat testdata/succeed/snapshots/allocinfo-t0.txt \
	    testdata/succeed/snapshots/allocinfo-t1.txt \
	    testdata/succeed/snapshots/allocinfo-v2.txt | grep -v '^[a#]'
	zstd -dc testdata/real-6.18-small/kallsyms.zst |
	awk '$2 ~ /^[tT]$/ && $3 !~ /[.]/ && !seen[$3]++ { print $3 }' |
	head -n "$tags" | awk '{
		# a size of a long tail: most tags small, a few large
		calls = int(100000 / (NR % 997 + 1)) + NR % 13
		split($1, w, "_")
		printf "%12d %8d %s/%s.c:%d func:%s \n", calls * 64, calls,
		       (NR % 5 ? "mm" : "fs"), w[1], NR % 3000 + 1, $1
	}'
} | head -n $((tags + 2)) > "$dir/template"
"$memdb" ingest -q -d "$db" --label template --time @$t0 "$dir/template"
ntags=$(sqlite3 "$db" "SELECT count(*) FROM tag")
start=$(date +%s.%N)
sqlite3 "$db" > /dev/null <<EOF
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
BEGIN;
CREATE TEMP TABLE gen AS
WITH RECURSIVE h(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM h
                        WHERE n + 1 < $hosts),
     s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n + 1 < $snaps)
SELECT h.n AS host, s.n AS hour FROM h, s ORDER BY h.n, s.n;
INSERT INTO source (path, format, format_version, hash, ingested_at,
                    taken_at, label, data_bytes, records)
SELECT printf('gen/host%04d/allocinfo.%02d', host, hour), 'allocinfo',
       '2.0', printf('%016x%016x', host + 1, hour + 1),
       strftime('%Y-%m-%dT%H:%M:%SZ', 'now'),
       strftime('%Y-%m-%dT%H:%M:%SZ', $t0 + 3600 * hour, 'unixepoch'),
       printf('host%04d', host), 0, $ntags
FROM temp.gen ORDER BY host, hour;
-- the ids follow the order of insertion: host by host, hour by hour
CREATE TEMP TABLE ids AS
SELECT s.id, (s.id - m.lo) / $snaps AS host, (s.id - m.lo) % $snaps AS hour
FROM source s, (SELECT min(id) AS lo FROM source WHERE id > 1) m
WHERE s.id > 1 ORDER BY s.id;
-- the template apart: SQLite copies a table into itself through a
-- temporary copy of all it inserts
CREATE TEMP TABLE tmpl AS SELECT * FROM tag WHERE source_id = 1;
-- each host a little off the template, every hour a little more; tags
-- pos % 1000 = 3 leak 1 MiB an hour on hosts % 250 = 7
INSERT INTO tag
SELECT i.id, t.pos, t.input_line,
       t.bytes + t.bytes * ((i.host * 7919) % 41) / 100
               + (i.hour * (t.pos + i.host)) % 97 * 64
               + CASE WHEN i.host % 250 = 7 AND t.pos % 1000 = 3
                      THEN i.hour * 1048576 ELSE 0 END,
       t.calls + (i.hour * (t.pos + i.host)) % 97,
       t.file, t.lineno, t.function, t.module, t.extra, t.accurate,
       t.approx
FROM temp.ids i CROSS JOIN temp.tmpl t;
DELETE FROM tag WHERE source_id = 1;
DELETE FROM source WHERE id = 1;
COMMIT;
EOF
end=$(date +%s.%N)
echo "  database:       $(du -m "$db" | cut -f1) MB, made in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"

from=2026-01-01T00:00:00Z
to=$(date -u -d "@$((t0 + 3600 * (snaps - 1)))" +%Y-%m-%dT%H:%M:%SZ)
# where args... -> the median of three runs' seconds (and that run's
# server CPU seconds)
time_report() {
	w=$1
	shift
	: > "$dir/runs"
	for i in 1 2 3; do
		c0=$(server_cpu)
		"$stat" "$memdb" report "$@" $w > "$dir/out" \
			2> "$dir/r.stat" ||
			{ cat "$dir/r.stat" >&2; echo "-"; return 0; }
		c1=$(server_cpu)
		if [ -n "$c0" ]; then
			echo "$(secs "$dir/r.stat") ($(cpu_secs "$c0" "$c1") cpu)"
		else
			secs "$dir/r.stat"
		fi >> "$dir/runs"
	done
	sort -n "$dir/runs" | sed -n 2p
}
# the ClickHouse server's CPU time so far (user + system, clock ticks):
# on a machine other jobs share, what a question cost it apart from
# how long it waited for a core
chpid=
server_cpu() { if [ -n "$chpid" ]; then awk '{ print $14 + $15 }' "/proc/$chpid/stat"; fi; }
cpu_secs() { awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz }'; }
lite="-d $db"
s_growth=$(time_report "$lite" growth --label '*' --from $from --to "$to")
s_outliers=$(time_report "$lite" outliers)
s_allocinfo=$(time_report "$lite" allocinfo --label '*')

# ---- a local ClickHouse server ------------------------------------------
if ! command -v clickhouse-server > /dev/null; then
	echo "  ClickHouse:     skipped: clickhouse-server is not installed (make deps installs it)"
	printf '  %-22s %10s\n' "question (SQLite)" "seconds"
	printf '  %-22s %10s\n' "growth" "$s_growth" "outliers" \
		"$s_outliers" "allocinfo" "$s_allocinfo"
	rm -rf "$dir"
	exit 0
fi
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http=$(port)
tcp=$(port)
ch=$dir/ch
mkdir -p "$ch/data" "$ch/tmp" "$ch/uf"
cat > "$ch/users.xml" <<EOF
<?xml version="1.0"?>
<yandex><profiles><default><max_memory_usage>8000000000</max_memory_usage></default></profiles>
<users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
<quotas><default></default></quotas></yandex>
EOF
cat > "$ch/config.xml" <<EOF
<?xml version="1.0"?>
<yandex><logger><level>warning</level><log>$ch/server.log</log><errorlog>$ch/server.err.log</errorlog></logger>
<http_port>$http</http_port><tcp_port>$tcp</tcp_port><listen_host>127.0.0.1</listen_host>
<path>$ch/data/</path><tmp_path>$ch/tmp/</tmp_path><user_files_path>$ch/uf/</user_files_path>
<users_config>$ch/users.xml</users_config><default_profile>default</default_profile>
<default_database>default</default_database><mark_cache_size>536870912</mark_cache_size></yandex>
EOF
clickhouse-server --config-file="$ch/config.xml" > "$ch/stdout" 2>&1 &
chpid=$!
trap 'kill -KILL $chpid 2> /dev/null; wait $chpid 2> /dev/null || true' EXIT INT TERM
url=http://127.0.0.1:$http/
i=0
until curl -sf "${url}ping" > /dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || { echo "  ClickHouse:     did not start" >&2; exit 1; }
	sleep 0.1
done
c0=$(server_cpu)
"$stat" "$memdb" export -q -d "$db" --clickhouse "$url" 2> "$dir/export.stat"
c1=$(server_cpu)
t_export=$(secs "$dir/export.stat")
rss=$(kib "$dir/export.stat")
chdu=$(du -sm "$ch/data" | cut -f1)
# the reports are timed once the server has merged what the export
# wrote (a fleet's data is read hours after it came in; right after the
# export the merges of 120M rows take the CPU the questions would get)
settle=$(date +%s)
while [ "$(curl -sf "$url" --data-binary \
	'SELECT count() FROM system.merges' || echo 0)" != 0 ] &&
	[ $(($(date +%s) - settle)) -lt 300 ]; do
	sleep 1
done
settle=$(($(date +%s) - settle))
c_growth=$(time_report "--clickhouse $url" growth --from $from --to "$to")
c_outliers=$(time_report "--clickhouse $url" outliers)
c_allocinfo=$(time_report "--clickhouse $url" allocinfo)
# the answers agree
"$memdb" report growth --clickhouse "$url" --from $from --to "$to" -f csv \
	--top 10 > "$dir/a" 2> /dev/null
"$memdb" report growth $lite --label '*' --from $from --to "$to" -f csv \
	--top 10 > "$dir/b" 2> /dev/null
same=$(cmp -s "$dir/a" "$dir/b" && echo same || echo DIFFERENT)

echo "  export:         $t_export s = $(rate "$rows" "$t_export") rows/s into a local server (peak RSS $rss KiB; $chdu MB on its disk; the server's CPU $(cpu_secs "$c0" "$c1") s)   (target >= 1,000,000)"
printf '  %-22s %10s %22s\n' "question" "SQLite s" "ClickHouse s (its CPU)"
printf '  %-22s %10s %22s\n' "growth, first to last" "$s_growth" "$c_growth"
printf '  %-22s %10s %22s\n' "outliers (p99)" "$s_outliers" "$c_outliers"
printf '  %-22s %10s %22s\n' "allocinfo over hosts" "$s_allocinfo" "$c_allocinfo"
echo "  (target: fleet reports < 1 s; medians of 3, after $settle s of the server's merges; growth's top 10 of both: $same)"
kill "$chpid"
wait "$chpid" 2> /dev/null || true
trap - EXIT INT TERM
[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
