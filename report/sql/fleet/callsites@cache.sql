-- SPDX-License-Identifier: MIT
-- report: callsites --by cache
-- help: per cache over the hosts of a fleet: hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The fleet form of report/sql/callsites@cache.sql: the per-cache figures
-- (memdb_cache, from each trace's cache_stats, named as callsites --by
-- cache names them) added up per cache name over the hosts.
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

SELECT cache, hits, bytes_req, bytes_alloc, avg_alloc, waste, frag_pct,
       freed, pingpong, live, live_bytes
FROM (
	SELECT k AS cache, min(k_ord) AS ord,
	       sum(f_hits) AS hits, sum(f_req) AS bytes_req,
	       sum(f_alloc) AS bytes_alloc,
	       if(hits = 0, 0, intDiv(bytes_alloc, hits)) AS avg_alloc,
	       bytes_alloc - bytes_req AS waste,
	       if(bytes_alloc = 0, 0.0,
	          100.0 - 100.0 * bytes_req / bytes_alloc) AS frag_pct,
	       sum(f_freed) AS freed, sum(f_pp) AS pingpong,
	       sum(f_live) AS live, sum(f_live_bytes) AS live_bytes
	FROM (
		SELECT cache AS k, 0 AS k_ord,
		       hits AS f_hits, bytes_req AS f_req, bytes_alloc AS f_alloc,
		       freed AS f_freed, pingpong AS f_pp, live AS f_live,
		       live_bytes AS f_live_bytes
		FROM memdb_cache
		WHERE type < 2 AND sid IN (
			SELECT argMax(s_sid, (s_taken, h))
			FROM (SELECT hash AS h, min(sid) AS s_sid,
			             argMin(label, sid) AS s_label,
			             argMin(kinds, sid) AS s_kinds,
			             argMin(taken_unix, sid) AS s_taken
			      FROM memdb_source GROUP BY hash)
			WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
			  AND bitAnd(s_kinds, 1) != 0
			  AND s_taken >= ifNull(:from_time, -1)
			  AND s_taken <= ifNull(:to_time, 9223372036854775807)
			  AND (s_taken >= 0 OR isNull(:to_time))
			GROUP BY s_label))
	GROUP BY k)
ORDER BY @sort, cache
LIMIT :top;

SELECT 'total' AS cache,
       sum(f_hits) AS hits, sum(f_req) AS bytes_req,
	       sum(f_alloc) AS bytes_alloc,
	       if(hits = 0, 0, intDiv(bytes_alloc, hits)) AS avg_alloc,
	       bytes_alloc - bytes_req AS waste,
	       if(bytes_alloc = 0, 0.0,
	          100.0 - 100.0 * bytes_req / bytes_alloc) AS frag_pct,
	       sum(f_freed) AS freed, sum(f_pp) AS pingpong,
	       sum(f_live) AS live, sum(f_live_bytes) AS live_bytes
FROM (
	SELECT hits AS f_hits, bytes_req AS f_req, bytes_alloc AS f_alloc,
		       freed AS f_freed, pingpong AS f_pp, live AS f_live,
		       live_bytes AS f_live_bytes
	FROM memdb_cache
	WHERE type < 2 AND sid IN (
		SELECT argMax(s_sid, (s_taken, h))
		FROM (SELECT hash AS h, min(sid) AS s_sid,
		             argMin(label, sid) AS s_label,
		             argMin(kinds, sid) AS s_kinds,
		             argMin(taken_unix, sid) AS s_taken
		      FROM memdb_source GROUP BY hash)
		WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
		  AND bitAnd(s_kinds, 1) != 0
		  AND s_taken >= ifNull(:from_time, -1)
		  AND s_taken <= ifNull(:to_time, 9223372036854775807)
		  AND (s_taken >= 0 OR isNull(:to_time))
		GROUP BY s_label));

SELECT uniqExact(s_label) AS labels, count() AS sources,
       if(min(t) >= 0,
           concat(replaceOne(toString(
               toDateTime(greatest(min(t), 0), 'UTC')), ' ', 'T'), 'Z'), '')
           AS first,
       if(max(t) >= 0,
           concat(replaceOne(toString(
               toDateTime(greatest(max(t), 0), 'UTC')), ' ', 'T'), 'Z'), '')
           AS last
FROM (
	SELECT s_label, argMax(s_taken, (s_taken, h)) AS t
	FROM (SELECT hash AS h, min(sid) AS s_sid,
	             argMin(label, sid) AS s_label,
	             argMin(kinds, sid) AS s_kinds,
	             argMin(taken_unix, sid) AS s_taken
	      FROM memdb_source GROUP BY hash)
	WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
	  AND bitAnd(s_kinds, 1) != 0
	  AND s_taken >= ifNull(:from_time, -1)
	  AND s_taken <= ifNull(:to_time, 9223372036854775807)
	  AND (s_taken >= 0 OR isNull(:to_time))
	GROUP BY s_label);
