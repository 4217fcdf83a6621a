-- SPDX-License-Identifier: MIT
-- report: zones --by label
-- help: per label (host) of a fleet: its zones, malloc types or slab caches added up: used, free, requests, failures, bytes, unused %
-- source: zones
-- drop: zones requests fails sources taken_at
-- sort: bytes|used|free|requests|fails|unused_pct|zones
--
-- The fleet form of queries/zones@label.sql: one row per label and
-- allocator, its latest zone snapshot added up.
-- The fleet, as the SQLite form picks it (temp.rsrc there): of each
-- label matching --label GLOB (none: every label), the latest source
-- with zones taken within --from and --to, by taken_at, ties by the
-- larger content hash; a content hash exported twice (two exports
-- racing) is read once, with its smallest sid.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows, the total, the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

SELECT label, allocator, sources, taken_at, zones, used, free, requests,
       fails, bytes, unused_pct
FROM (
	SELECT k_label AS label, k_alloc AS allocator,
	       uniqExact(k_sid) AS sources, count() AS zones,
	       sum(z_used) AS used, sum(z_free) AS free,
	       sum(z_req) AS requests, sum(z_fails) AS fails,
	       sum(z_bytes) AS bytes,
	       if(count(z_unused) = 0, NULL,
	          if(used + free > 0, 100.0 * free / (used + free), 0.0))
	           AS unused_pct,
	       multiIf(:sort = 'used', toNullable(toFloat64(used)),
	               :sort = 'free', toFloat64(free),
	               :sort = 'requests', toFloat64(requests),
	               :sort = 'fails', toFloat64(fails),
	               :sort = 'unused_pct', unused_pct,
	               :sort = 'zones', toFloat64(zones),
	               toFloat64(bytes)) AS sort_key
	FROM (
		SELECT label AS k_label, sid AS k_sid, allocator AS k_alloc,
		       used AS z_used, free AS z_free, requests AS z_req,
		       fails AS z_fails, bytes AS z_bytes,
		       unused_pct AS z_unused
		FROM memdb_zone
		WHERE sid IN (SELECT l_sid FROM @latest(4, :label, :label_re,
			    :from_time, :to_time)))
	GROUP BY k_label, k_alloc) AS r
ANY LEFT JOIN (
	SELECT l_label AS label, @iso(l_taken, NULL) AS taken_at
	FROM @latest(4, :label, :label_re, :from_time, :to_time)) AS l
USING label
ORDER BY isNull(sort_key), sort_key DESC, label, allocator
LIMIT :top;

SELECT 'total' AS label, NULL AS allocator, uniqExact(k_sid) AS sources,
       NULL AS taken_at, count() AS zones, sum(z_used) AS used,
       sum(z_free) AS free, sum(z_req) AS requests, sum(z_fails) AS fails,
       sum(z_bytes) AS bytes,
       @unused_total()
           AS unused_pct
FROM (
	SELECT sid AS k_sid, used AS z_used, free AS z_free,
	       requests AS z_req, fails AS z_fails, bytes AS z_bytes,
	       unused_pct AS z_unused
	FROM memdb_zone
	WHERE sid IN (SELECT l_sid FROM @latest(4, :label, :label_re,
		    :from_time, :to_time)));

@scope(4, :label, :label_re, :from_time, :to_time);
