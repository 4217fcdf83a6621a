-- SPDX-License-Identifier: MIT
-- report: callsites --by label
-- help: per label (host) of a fleet: hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The fleet form of queries/callsites@label.sql: one row per
-- label, its latest trace's call sites added up.
-- The fleet, as the SQLite form picks it (temp.rsrc there): of each
-- label matching --label GLOB (none: every label), the latest source
-- with neither tags nor zones (a trace) taken within --from and --to,
-- by taken_at, ties by the larger content hash; a content hash exported
-- twice (two exports racing) is read once, with its smallest sid.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows, the total, the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

@trace_by(label, label, 0, memdb_site, :label, :label_re, :from_time,
          :to_time)
ORDER BY @sort, label
LIMIT :top;

SELECT 'total' AS label,
       @figures()
FROM (
	SELECT @trace_rows(memdb_site, :label, :label_re, :from_time, :to_time));

@scope(1, :label, :label_re, :from_time, :to_time);
