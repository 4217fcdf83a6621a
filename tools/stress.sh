#!/bin/bash
# SPDX-License-Identifier: MIT
# make stress: kill ingests with SIGKILL at random moments, then check
# that the database is valid and holds no partial source.  Not part of
# make check.
#
#   bash tools/stress.sh BUILD_DIR      (STRESS_KILLS, default 200)
#
# Every fourth round starts from no database at all (the rollback-journal
# path of a new file); the others ingest with --force into an existing
# one (WAL), so a kill must also leave the source being replaced intact.
set -u

build=$1
memdb=$build/memdb
kills=${STRESS_KILLS:-200}
dir=$build/stress
rm -rf "$dir"
mkdir -p "$dir"
db=$dir/stress.db

"$build/ktgen" --seed 77 --events 3000000 --cpus 4 --live 20000 \
	--leaks 50 --reuse 50 --dup-frees 5 "$dir/big" || exit 1
"$build/ktgen" --seed 78 --events 20000 --cpus 2 "$dir/small" || exit 1
t0=$(date +%s.%N)
"$memdb" ingest -q -d "$dir/timing.db" "$dir/big" || exit 1
t1=$(date +%s.%N)
ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 + 200 }')
rm -f "$dir/timing.db"*
echo "stress: $kills kills at random moments of a ${ms} ms ingest"

check() { # prints problems, if any
	[ -e "$db" ] || return 0
	local ic partial orphans
	ic=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
	[ "$ic" = ok ] || echo "integrity: $ic"
	[ "$(sqlite3 "$db" "PRAGMA user_version" 2>&1)" = 0 ] && return 0
	partial=$(sqlite3 "$db" "SELECT count(*) FROM source s WHERE events = 0 OR allocations <> (SELECT count(*) FROM alloc a WHERE a.id BETWEEN s.alloc_lo AND s.alloc_hi) OR NOT EXISTS (SELECT 1 FROM site_stats k WHERE k.source_id = s.id)" 2>&1)
	[ "$partial" = 0 ] || echo "partial sources: $partial"
	orphans=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM alloc a WHERE NOT EXISTS (SELECT 1 FROM source s WHERE a.id BETWEEN s.alloc_lo AND s.alloc_hi)) + (SELECT count(*) FROM site WHERE source_id NOT IN (SELECT id FROM source))" 2>&1)
	[ "$orphans" = 0 ] || echo "orphan rows: $orphans"
}

bad=0
partials=0
done_before=0
big_hash=
for i in $(seq 1 "$kills"); do
	if [ $((i % 4)) = 1 ]; then
		rm -f "$db" "$db"-*
	elif [ ! -e "$db" ]; then
		"$memdb" ingest -q -d "$db" "$dir/small" >/dev/null 2>&1
	fi
	"$memdb" ingest -q --force -d "$db" "$dir/big" >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v r="$RANDOM" -v ms="$ms" 'BEGIN { printf "%.3f", r % ms / 1000 }')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	out=$(check)
	if [ -e "$db" ] && [ "$(sqlite3 "$db" "SELECT count(*) FROM source WHERE path LIKE '%/big'" 2>/dev/null)" = 1 ]; then
		done_before=$((done_before + 1))
	fi
	if [ -n "$out" ]; then
		echo "round $i: $out"
		bad=$((bad + 1))
		case $out in *partial*) partials=$((partials + 1)) ;; esac
	fi
done
sources=$(sqlite3 "$db" "SELECT count(*) FROM source" 2>/dev/null || echo 0)
echo "stress: $kills kills ($((kills - done_before)) left no copy of the big capture, $done_before left one: just committed, or the earlier kept), $bad rounds with a problem ($partials with a partial source); the database ends with $sources sources"
[ "$bad" = 0 ]
