-- SPDX-License-Identifier: MIT
-- report: allocinfo --by label
-- help: per label (host) of a fleet: bytes and calls of its allocation tags, by bytes
-- source: tags
-- drop: tags calls sources taken_at
-- sort: bytes|calls|count
--
-- The fleet form of queries/allocinfo@label.sql: one row per label,
-- its latest allocinfo snapshot's tags added up (per sid, then named
-- by memdb_source).
-- The fleet, as the SQLite form picks it (temp.rsrc there): of each
-- label matching --label GLOB (none: every label), the latest source
-- with tags taken within --from and --to, by taken_at, ties by the
-- larger content hash; a content hash exported twice (two exports
-- racing) is read once, with its smallest sid.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows, the total, the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

SELECT label, uniqExact(sid) AS sources,
       @iso(max(l_taken), NULL) AS taken_at,
       @tag_sums(0)
FROM (
	SELECT sid, sum(bytes) AS a_bytes, sum(calls) AS a_calls,
	       count() AS a_lines, max(accurate = 0) AS a_inacc,
	       max(approx) AS a_apx, max(bytes < 0 OR calls < 0) AS a_under
	FROM memdb_tag
	WHERE sid IN (SELECT l_sid FROM @latest(2, :label, :label_re,
		    :from_time, :to_time))
	GROUP BY sid) AS r
ANY LEFT JOIN @labels() AS l USING sid
GROUP BY label
ORDER BY if(:sort = 'bytes', bytes, calls) DESC,
         if(:sort = 'bytes', calls, bytes) DESC, label
LIMIT :top;

SELECT 'total' AS label, uniqExact(k_sid) AS sources, NULL AS taken_at,
       sum(b) AS bytes, sum(c) AS calls, count() AS tags, NULL AS flags
FROM (
	SELECT sid AS k_sid, bytes AS b, calls AS c
	FROM memdb_tag
	WHERE sid IN (SELECT l_sid FROM @latest(2, :label, :label_re,
		    :from_time, :to_time)));

@scope(2, :label, :label_re, :from_time, :to_time);
