-- SPDX-License-Identifier: MIT
-- report: outliers
-- help: the hosts of a fleet where an allocation tag or a zone (slab cache) is above its 99th percentile over the hosts, by excess
-- source: tags|zones
-- scope: fleet
-- drop: fleet_median hosts module function
--
-- The fleet form of report/sql/outliers.sql: the same question over
-- the ClickHouse tables; each item's values over the hosts sorted in
-- an array (arraySort(groupArray())), its percentiles interpolated as
-- there, the hosts above the 99th unrolled (ARRAY JOIN).
-- The fleet, as the SQLite form picks it (temp.rsrc there): of each
-- label matching --label GLOB (none: every label), the latest source
-- with tags, and the latest with zones, taken within --from and --to, by taken_at, ties by the larger
-- content hash; a content hash exported twice (two exports racing) is
-- read once, with its smallest sid.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows, the total, the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

SELECT kind, name, function, module, o_label AS label, o_bytes AS bytes,
       fleet_p99, fleet_median, hosts, o_bytes - fleet_p99 AS excess
FROM (
	SELECT kind, name, function, module, groupArray(v_label) AS labels,
	       groupArray(v_bytes) AS vals, arraySort(vals) AS s,
	       length(s) AS hosts,
	       0.99 * (hosts - 1) AS i99, toUInt64(i99) AS l99,
	       s[l99 + 1] + (i99 - l99) *
	           (if(l99 + 1 < hosts, s[l99 + 2], s[l99 + 1]) - s[l99 + 1])
	           AS fleet_p99,
	       0.5 * (hosts - 1) AS i50, toUInt64(i50) AS l50,
	       s[l50 + 1] + (i50 - l50) *
	           (if(l50 + 1 < hosts, s[l50 + 2], s[l50 + 1]) - s[l50 + 1])
	           AS fleet_median
	FROM (
		-- each host's bytes of an item: a tag's lines added up, a
		-- zone's instances
		SELECT materialize('tag') AS kind, k_name AS name,
		       k_function AS function,
		       k_module AS module, k_label AS v_label,
		       sum(b) AS v_bytes
		FROM (
			SELECT concat(file, ':', toString(lineno)) AS k_name,
			       function AS k_function, module AS k_module,
			       label AS k_label, bytes AS b
			FROM memdb_tag
			WHERE sid GLOBAL IN (
				SELECT argMax(s_sid, (s_taken, h))
				FROM (SELECT hash AS h, min(sid) AS s_sid,
				             argMin(label, sid) AS s_label,
				             argMin(kinds, sid) AS s_kinds,
				             argMin(taken_unix, sid) AS s_taken
				      FROM memdb_source GROUP BY hash)
				WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
				  AND bitAnd(s_kinds, 2) != 0
				  AND s_taken >= ifNull(:from_time, -1)
				  AND s_taken <= ifNull(:to_time, 9223372036854775807)
				  AND (s_taken >= 0 OR isNull(:to_time))
				GROUP BY s_label))
		GROUP BY k_name, k_function, k_module, k_label
		UNION ALL
		SELECT k_alloc AS kind, k_name AS name, NULL AS function,
		       NULL AS module, k_label AS v_label, sum(b) AS v_bytes
		FROM (
			SELECT allocator AS k_alloc, name AS k_name,
			       label AS k_label, bytes AS b
			FROM memdb_zone
			WHERE isNotNull(bytes) AND sid GLOBAL IN (
				SELECT argMax(s_sid, (s_taken, h))
				FROM (SELECT hash AS h, min(sid) AS s_sid,
				             argMin(label, sid) AS s_label,
				             argMin(kinds, sid) AS s_kinds,
				             argMin(taken_unix, sid) AS s_taken
				      FROM memdb_source GROUP BY hash)
				WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
				  AND bitAnd(s_kinds, 4) != 0
				  AND s_taken >= ifNull(:from_time, -1)
				  AND s_taken <= ifNull(:to_time, 9223372036854775807)
				  AND (s_taken >= 0 OR isNull(:to_time))
				GROUP BY s_label))
		GROUP BY k_alloc, k_name, k_label)
	GROUP BY kind, name, function, module)
ARRAY JOIN labels AS o_label, vals AS o_bytes
WHERE o_bytes > fleet_p99
ORDER BY excess DESC, kind, name, function NULLS FIRST, module NULLS FIRST,
         label
LIMIT :top;

-- (18.16 sums nothing when the aggregate sits over the ARRAY JOIN)
SELECT 'total' AS kind, NULL AS name, NULL AS function, NULL AS module,
       NULL AS label, sum(x_bytes) AS bytes, NULL AS fleet_p99,
       NULL AS fleet_median, uniqExact(x_label) AS hosts, NULL AS excess
FROM (
SELECT o_label AS x_label, o_bytes AS x_bytes
FROM (
	SELECT kind, name, function, module, groupArray(v_label) AS labels,
	       groupArray(v_bytes) AS vals, arraySort(vals) AS s,
	       length(s) AS n,
	       0.99 * (n - 1) AS i99, toUInt64(i99) AS l99,
	       s[l99 + 1] + (i99 - l99) *
	           (if(l99 + 1 < n, s[l99 + 2], s[l99 + 1]) - s[l99 + 1])
	           AS fleet_p99
	FROM (
		SELECT materialize('tag') AS kind, k_name AS name,
		       k_function AS function,
		       k_module AS module, k_label AS v_label,
		       sum(b) AS v_bytes
		FROM (
			SELECT concat(file, ':', toString(lineno)) AS k_name,
			       function AS k_function, module AS k_module,
			       label AS k_label, bytes AS b
			FROM memdb_tag
			WHERE sid GLOBAL IN (
				SELECT argMax(s_sid, (s_taken, h))
				FROM (SELECT hash AS h, min(sid) AS s_sid,
				             argMin(label, sid) AS s_label,
				             argMin(kinds, sid) AS s_kinds,
				             argMin(taken_unix, sid) AS s_taken
				      FROM memdb_source GROUP BY hash)
				WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
				  AND bitAnd(s_kinds, 2) != 0
				  AND s_taken >= ifNull(:from_time, -1)
				  AND s_taken <= ifNull(:to_time, 9223372036854775807)
				  AND (s_taken >= 0 OR isNull(:to_time))
				GROUP BY s_label))
		GROUP BY k_name, k_function, k_module, k_label
		UNION ALL
		SELECT k_alloc AS kind, k_name AS name, NULL AS function,
		       NULL AS module, k_label AS v_label, sum(b) AS v_bytes
		FROM (
			SELECT allocator AS k_alloc, name AS k_name,
			       label AS k_label, bytes AS b
			FROM memdb_zone
			WHERE isNotNull(bytes) AND sid GLOBAL IN (
				SELECT argMax(s_sid, (s_taken, h))
				FROM (SELECT hash AS h, min(sid) AS s_sid,
				             argMin(label, sid) AS s_label,
				             argMin(kinds, sid) AS s_kinds,
				             argMin(taken_unix, sid) AS s_taken
				      FROM memdb_source GROUP BY hash)
				WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
				  AND bitAnd(s_kinds, 4) != 0
				  AND s_taken >= ifNull(:from_time, -1)
				  AND s_taken <= ifNull(:to_time, 9223372036854775807)
				  AND (s_taken >= 0 OR isNull(:to_time))
				GROUP BY s_label))
		GROUP BY k_alloc, k_name, k_label)
	GROUP BY kind, name, function, module)
ARRAY JOIN labels AS o_label, vals AS o_bytes
WHERE o_bytes > fleet_p99);

SELECT uniqExact(s_label) AS labels, count() AS sources,
       if(min(t) >= 0, formatDateTime(toDateTime(min(t)),
                                      '%Y-%m-%dT%H:%M:%SZ', 'UTC'), '')
           AS first,
       if(max(t) >= 0, formatDateTime(toDateTime(max(t)),
                                      '%Y-%m-%dT%H:%M:%SZ', 'UTC'), '')
           AS last
FROM (
	SELECT s_label, argMax(s_taken, (s_taken, h)) AS t
	FROM (SELECT hash AS h, min(sid) AS s_sid,
	             argMin(label, sid) AS s_label,
	             argMin(kinds, sid) AS s_kinds,
	             argMin(taken_unix, sid) AS s_taken
	      FROM memdb_source GROUP BY hash)
	WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
	  AND bitAnd(s_kinds, 2) != 0
	  AND s_taken >= ifNull(:from_time, -1)
	  AND s_taken <= ifNull(:to_time, 9223372036854775807)
	  AND (s_taken >= 0 OR isNull(:to_time))
	GROUP BY s_label
	UNION ALL
	SELECT s_label, argMax(s_taken, (s_taken, h)) AS t
	FROM (SELECT hash AS h, min(sid) AS s_sid,
	             argMin(label, sid) AS s_label,
	             argMin(kinds, sid) AS s_kinds,
	             argMin(taken_unix, sid) AS s_taken
	      FROM memdb_source GROUP BY hash)
	WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
	  AND bitAnd(s_kinds, 4) != 0
	  AND s_taken >= ifNull(:from_time, -1)
	  AND s_taken <= ifNull(:to_time, 9223372036854775807)
	  AND (s_taken >= 0 OR isNull(:to_time))
	GROUP BY s_label);
