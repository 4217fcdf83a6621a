-- SPDX-License-Identifier: MIT
-- report: outliers
-- help: the hosts of a fleet where an allocation tag or a zone (slab cache) is above its 99th percentile over the hosts, by excess
-- source: tags|zones
-- scope: fleet
-- total: none
-- drop: fleet_median hosts module function
--
-- The fleet form of report/sql/outliers.sql: the same question over
-- the ClickHouse tables; each item's values over the hosts sorted in
-- an array (arraySort(groupArray())), its percentiles interpolated as
-- there, the hosts above the 99th unrolled (ARRAY JOIN), the tags
-- named and the hosts labelled after.
-- A tag's figures are added up by its key (memdb_tag.tag_key, a hash of
-- file, line, function and module), then named from memdb_tagname:
-- ClickHouse groups numbers far faster than strings.
-- The fleet, as the SQLite form picks it (temp.rsrc there): of each
-- label matching --label GLOB (none: every label), the latest source
-- with tags, and the latest with zones, taken within --from and --to,
-- by taken_at, ties by the larger content hash; a content hash exported
-- twice (two exports racing) is read once, with its smallest sid.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows and the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

SELECT kind, name, function, module, label, bytes, fleet_p99,
       fleet_median, hosts, excess
FROM (
	SELECT kind, name, function, module, label, bytes, fleet_p99,
	       fleet_median, hosts, bytes - fleet_p99 AS excess
	FROM (
		-- tags: the hosts above, then named (18.16: the ARRAY JOIN in a
		-- query of its own)
		SELECT materialize('tag') AS kind,
		       concat(n_file, ':', toString(n_lineno)) AS name,
		       n_function AS function, n_module AS module, o_sid AS sid,
		       o_bytes AS bytes, fleet_p99, fleet_median, hosts
		FROM (
			SELECT key, o_sid, o_bytes, fleet_p99, fleet_median, hosts
			FROM (
				SELECT key, groupArray(v_sid) AS sids,
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
				SELECT tag_key AS key, sid AS v_sid, sum(bytes) AS v_bytes
				FROM memdb_tag
				WHERE sid IN (
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
					GROUP BY s_label)
				GROUP BY tag_key, sid)
				GROUP BY key)
			ARRAY JOIN sids AS o_sid, vals AS o_bytes
			WHERE o_bytes > fleet_p99)
		ANY LEFT JOIN (
			SELECT tag_key AS key, any(file) AS n_file, any(lineno) AS n_lineno,
			       any(function) AS n_function, any(module) AS n_module
			FROM memdb_tagname GROUP BY tag_key) USING key
		UNION ALL
		SELECT z_alloc AS kind, z_name AS name,
		       materialize(if(0, z_name, NULL)) AS function,
		       materialize(if(0, z_alloc, NULL)) AS module, o_sid AS sid,
		       o_bytes AS bytes, fleet_p99, fleet_median, hosts
		FROM (
			SELECT z_alloc, z_name, groupArray(v_sid) AS sids,
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
				SELECT allocator AS z_alloc, name AS z_name, sid AS v_sid,
				       sum(bytes) AS v_bytes
				FROM memdb_zone
				WHERE isNotNull(bytes) AND sid IN (
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
					GROUP BY s_label)
				GROUP BY allocator, name, sid)
				GROUP BY z_alloc, z_name)
		ARRAY JOIN sids AS o_sid, vals AS o_bytes
		WHERE o_bytes > fleet_p99)
	ANY LEFT JOIN (
		SELECT l_sid AS sid, l_label AS label, l_taken
		FROM (SELECT min(sid) AS l_sid, argMin(label, sid) AS l_label,
		             argMin(taken_unix, sid) AS l_taken
		      FROM memdb_source GROUP BY hash)) USING sid)
ORDER BY excess DESC, kind, name, function NULLS FIRST, module NULLS FIRST,
         label
LIMIT :top;

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
