-- SPDX-License-Identifier: MIT
-- report: growth
-- help: change of bytes and counts per tag or zone over the hosts of a fleet between two dates, by growth
-- source: tags|zones
-- drop: count_from count_to module kind bytes_from function bytes_to count_delta
-- by: tag|function|file|module|label
-- sort: bytes|calls|count
--
-- The fleet form of report/sql/growth.sql: of each series (label and
-- format) of the labels matching --label GLOB, the first and the last
-- snapshot taken within --from and --to (by taken_at, ties by the
-- larger content hash; a series with one snapshot there is left out);
-- tags compared where both ends have tags, zones where both have
-- zones; each item's bytes and count added up over the series at each
-- end, and compared; sorted as there.  --by label: name is the label.
-- A tag's figures are added up by its key (memdb_tag.tag_key, a hash of
-- file, line, function and module), then named from memdb_tagname:
-- ClickHouse groups numbers far faster than strings.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows, the total, the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

SELECT k_name AS name, k_function AS function, k_module AS module, kind,
       bytes_from, bytes_to, bytes_to - bytes_from AS bytes_delta,
       count_from, count_to, count_to - count_from AS count_delta,
       nullIf(substring(concat(if(is_new, ',new', ''),
                               if(is_gone, ',gone', ''),
                               if(inacc != 0, ',inaccurate', ''),
                               if(apx != 0, ',approx', ''),
                               if(under != 0, ',underflow', '')), 2), '')
           AS flags
FROM (
	-- per item: its sums at each end over the series, then the two
	-- ends side by side (an end without it counts 0: new, gone)
	SELECT kind, k_name, k_function, k_module, k_inst,
	       sumIf(e_bytes, role = 'from') AS bytes_from,
	       sumIf(e_bytes, role = 'to') AS bytes_to,
	       sumIf(e_count, role = 'from') AS count_from,
	       sumIf(e_count, role = 'to') AS count_to,
	       countIf(role = 'from') = 0 AS is_new,
	       countIf(role = 'to') = 0 AS is_gone,
	       max(e_inacc) AS inacc, max(e_approx) AS apx,
	       max(e_under) AS under
	FROM (
		SELECT role, kind, k_name, k_function, k_module, k_inst,
		       ifNull(sum(v_bytes), 0) AS e_bytes,
		       ifNull(sum(v_count), 0) AS e_count,
		       max(v_inacc) AS e_inacc, max(v_approx) AS e_approx,
		       max(v_under) AS e_under
		FROM (
			-- the tags of each end, added up by key (by sid with --by label),
			-- then named (by memdb_source with --by label)
			SELECT role, 'tag' AS kind,
			       multiIf(:by = 'tag', concat(n_file, ':', toString(n_lineno)),
			               :by = 'file', n_file, :by = 'label', l_label, NULL)
			           AS k_name,
			       if(:by IN ('tag', 'function'), n_function, NULL) AS k_function,
			       if(:by != 'label', n_module, NULL) AS k_module,
			       toInt64(0) AS k_inst, toNullable(g_bytes) AS v_bytes,
			       toNullable(g_count) AS v_count, g_inacc AS v_inacc,
			       g_apx AS v_approx, g_under AS v_under
			FROM (
				SELECT if(t_role = 0, 'from', 'to') AS role, key, g_bytes,
				       g_count, g_inacc, g_apx, g_under, n_file, n_lineno,
				       n_function, n_module
				FROM (
					-- (the ends as numbers: grouping by a string is slower)
					SELECT t_role, key, sum(bytes) AS g_bytes,
					       sum(calls) AS g_count,
					       max(accurate = 0) AS g_inacc,
					       max(approx) AS g_apx,
					       max(bytes < 0 OR calls < 0) AS g_under
					FROM (
						SELECT materialize(toUInt8(0)) AS t_role,
						       materialize(if(:by = 'label', sid, tag_key)) AS key,
						       bytes, calls, accurate, approx
						FROM memdb_tag
						WHERE sid IN (
								SELECT f_sid FROM (
									SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
									       argMax(s_sid, (s_taken, h)) AS t_sid,
									       argMin(s_kinds, (s_taken, h)) AS f_kinds,
									       argMax(s_kinds, (s_taken, h)) AS t_kinds,
									       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
									FROM (SELECT hash AS h, min(sid) AS s_sid,
									             argMin(label, sid) AS s_label,
									             argMin(format, sid) AS s_format,
									             argMin(kinds, sid) AS s_kinds,
									             argMin(taken_unix, sid) AS s_taken
									      FROM memdb_source GROUP BY hash)
									WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
									  AND bitAnd(s_kinds, 6) != 0
									  AND s_taken >= ifNull(:from_time, -1)
									  AND s_taken <= ifNull(:to_time, 9223372036854775807)
									  AND (s_taken >= 0 OR isNull(:to_time))
									GROUP BY s_label, s_format
									HAVING count() > 1)
								WHERE bitAnd(f_kinds, 2) != 0 AND bitAnd(t_kinds, 2) != 0)
					UNION ALL
						SELECT materialize(toUInt8(1)) AS t_role,
						       materialize(if(:by = 'label', sid, tag_key)) AS key,
						       bytes, calls, accurate, approx
						FROM memdb_tag
						WHERE sid IN (
								SELECT t_sid FROM (
									SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
									       argMax(s_sid, (s_taken, h)) AS t_sid,
									       argMin(s_kinds, (s_taken, h)) AS f_kinds,
									       argMax(s_kinds, (s_taken, h)) AS t_kinds,
									       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
									FROM (SELECT hash AS h, min(sid) AS s_sid,
									             argMin(label, sid) AS s_label,
									             argMin(format, sid) AS s_format,
									             argMin(kinds, sid) AS s_kinds,
									             argMin(taken_unix, sid) AS s_taken
									      FROM memdb_source GROUP BY hash)
									WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
									  AND bitAnd(s_kinds, 6) != 0
									  AND s_taken >= ifNull(:from_time, -1)
									  AND s_taken <= ifNull(:to_time, 9223372036854775807)
									  AND (s_taken >= 0 OR isNull(:to_time))
									GROUP BY s_label, s_format
									HAVING count() > 1)
								WHERE bitAnd(f_kinds, 2) != 0 AND bitAnd(t_kinds, 2) != 0))
					GROUP BY t_role, key)
				ANY LEFT JOIN (
					SELECT tag_key AS key, any(file) AS n_file, any(lineno) AS n_lineno,
					       any(function) AS n_function, any(module) AS n_module
					FROM memdb_tagname GROUP BY tag_key) USING key)
			ANY LEFT JOIN (
				SELECT sid AS key, label AS l_label FROM (
					SELECT l_sid AS sid, l_label AS label, l_taken
					FROM (SELECT min(sid) AS l_sid, argMin(label, sid) AS l_label,
					             argMin(taken_unix, sid) AS l_taken
					      FROM memdb_source GROUP BY hash))) USING key
			UNION ALL
			SELECT materialize('from') AS role, allocator AS kind,
			       materialize(if(:by = 'label', label, name)) AS k_name,
			       -- no two columns of one expression: 18.16 would make them
			       -- one, and count the branches' columns different
			       materialize(if(0, name, NULL)) AS k_function,
			       materialize(if(0, allocator, NULL)) AS k_module,
			       materialize(if(:by = 'label', toInt64(0), instance))
			           AS k_inst,
			       bytes AS v_bytes, used AS v_count, toUInt8(0) AS v_inacc,
			       approx AS v_approx, toUInt8(approx AND 0) AS v_under
			FROM memdb_zone
			WHERE sid IN (
					SELECT f_sid FROM (
						SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
						       argMax(s_sid, (s_taken, h)) AS t_sid,
						       argMin(s_kinds, (s_taken, h)) AS f_kinds,
						       argMax(s_kinds, (s_taken, h)) AS t_kinds,
						       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
						FROM (SELECT hash AS h, min(sid) AS s_sid,
						             argMin(label, sid) AS s_label,
						             argMin(format, sid) AS s_format,
						             argMin(kinds, sid) AS s_kinds,
						             argMin(taken_unix, sid) AS s_taken
						      FROM memdb_source GROUP BY hash)
						WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
						  AND bitAnd(s_kinds, 6) != 0
						  AND s_taken >= ifNull(:from_time, -1)
						  AND s_taken <= ifNull(:to_time, 9223372036854775807)
						  AND (s_taken >= 0 OR isNull(:to_time))
						GROUP BY s_label, s_format
						HAVING count() > 1)
					WHERE bitAnd(f_kinds, 4) != 0 AND bitAnd(t_kinds, 4) != 0)
			UNION ALL
			SELECT materialize('to') AS role, allocator AS kind,
			       materialize(if(:by = 'label', label, name)) AS k_name,
			       -- no two columns of one expression: 18.16 would make them
			       -- one, and count the branches' columns different
			       materialize(if(0, name, NULL)) AS k_function,
			       materialize(if(0, allocator, NULL)) AS k_module,
			       materialize(if(:by = 'label', toInt64(0), instance))
			           AS k_inst,
			       bytes AS v_bytes, used AS v_count, toUInt8(0) AS v_inacc,
			       approx AS v_approx, toUInt8(approx AND 0) AS v_under
			FROM memdb_zone
			WHERE sid IN (
					SELECT t_sid FROM (
						SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
						       argMax(s_sid, (s_taken, h)) AS t_sid,
						       argMin(s_kinds, (s_taken, h)) AS f_kinds,
						       argMax(s_kinds, (s_taken, h)) AS t_kinds,
						       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
						FROM (SELECT hash AS h, min(sid) AS s_sid,
						             argMin(label, sid) AS s_label,
						             argMin(format, sid) AS s_format,
						             argMin(kinds, sid) AS s_kinds,
						             argMin(taken_unix, sid) AS s_taken
						      FROM memdb_source GROUP BY hash)
						WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
						  AND bitAnd(s_kinds, 6) != 0
						  AND s_taken >= ifNull(:from_time, -1)
						  AND s_taken <= ifNull(:to_time, 9223372036854775807)
						  AND (s_taken >= 0 OR isNull(:to_time))
						GROUP BY s_label, s_format
						HAVING count() > 1)
					WHERE bitAnd(f_kinds, 4) != 0 AND bitAnd(t_kinds, 4) != 0))
		GROUP BY role, kind, k_name, k_function, k_module, k_inst)
	GROUP BY kind, k_name, k_function, k_module, k_inst)
ORDER BY if(:sort = 'bytes', bytes_delta, count_delta) DESC,
         if(:sort = 'bytes', count_delta, bytes_delta) DESC,
         kind, name NULLS FIRST, function NULLS FIRST,
         module NULLS FIRST, k_inst
LIMIT :top;

-- every row of both ends added up: the rows' own sums, without naming
-- or grouping them
SELECT 'total' AS name, NULL AS function, NULL AS module, NULL AS kind,
       sumIf(t_bytes, role = 'from') AS bytes_from,
       sumIf(t_bytes, role = 'to') AS bytes_to,
       bytes_to - bytes_from AS bytes_delta,
       sumIf(t_count, role = 'from') AS count_from,
       sumIf(t_count, role = 'to') AS count_to,
       count_to - count_from AS count_delta, NULL AS flags
FROM (
	SELECT materialize('from') AS role, bytes AS t_bytes,
	       calls AS t_count
	FROM memdb_tag
	WHERE sid IN (
		SELECT f_sid FROM (
			SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
			       argMax(s_sid, (s_taken, h)) AS t_sid,
			       argMin(s_kinds, (s_taken, h)) AS f_kinds,
			       argMax(s_kinds, (s_taken, h)) AS t_kinds,
			       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
			FROM (SELECT hash AS h, min(sid) AS s_sid,
			             argMin(label, sid) AS s_label,
			             argMin(format, sid) AS s_format,
			             argMin(kinds, sid) AS s_kinds,
			             argMin(taken_unix, sid) AS s_taken
			      FROM memdb_source GROUP BY hash)
			WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
			  AND bitAnd(s_kinds, 6) != 0
			  AND s_taken >= ifNull(:from_time, -1)
			  AND s_taken <= ifNull(:to_time, 9223372036854775807)
			  AND (s_taken >= 0 OR isNull(:to_time))
			GROUP BY s_label, s_format
			HAVING count() > 1)
		WHERE bitAnd(f_kinds, 2) != 0 AND bitAnd(t_kinds, 2) != 0)
	UNION ALL
	SELECT materialize('to') AS role, bytes AS t_bytes,
	       calls AS t_count
	FROM memdb_tag
	WHERE sid IN (
		SELECT t_sid FROM (
			SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
			       argMax(s_sid, (s_taken, h)) AS t_sid,
			       argMin(s_kinds, (s_taken, h)) AS f_kinds,
			       argMax(s_kinds, (s_taken, h)) AS t_kinds,
			       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
			FROM (SELECT hash AS h, min(sid) AS s_sid,
			             argMin(label, sid) AS s_label,
			             argMin(format, sid) AS s_format,
			             argMin(kinds, sid) AS s_kinds,
			             argMin(taken_unix, sid) AS s_taken
			      FROM memdb_source GROUP BY hash)
			WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
			  AND bitAnd(s_kinds, 6) != 0
			  AND s_taken >= ifNull(:from_time, -1)
			  AND s_taken <= ifNull(:to_time, 9223372036854775807)
			  AND (s_taken >= 0 OR isNull(:to_time))
			GROUP BY s_label, s_format
			HAVING count() > 1)
		WHERE bitAnd(f_kinds, 2) != 0 AND bitAnd(t_kinds, 2) != 0)
	UNION ALL
	SELECT materialize('from') AS role, ifNull(bytes, 0) AS t_bytes,
	       ifNull(used, 0) AS t_count
	FROM memdb_zone
	WHERE sid IN (
		SELECT f_sid FROM (
			SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
			       argMax(s_sid, (s_taken, h)) AS t_sid,
			       argMin(s_kinds, (s_taken, h)) AS f_kinds,
			       argMax(s_kinds, (s_taken, h)) AS t_kinds,
			       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
			FROM (SELECT hash AS h, min(sid) AS s_sid,
			             argMin(label, sid) AS s_label,
			             argMin(format, sid) AS s_format,
			             argMin(kinds, sid) AS s_kinds,
			             argMin(taken_unix, sid) AS s_taken
			      FROM memdb_source GROUP BY hash)
			WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
			  AND bitAnd(s_kinds, 6) != 0
			  AND s_taken >= ifNull(:from_time, -1)
			  AND s_taken <= ifNull(:to_time, 9223372036854775807)
			  AND (s_taken >= 0 OR isNull(:to_time))
			GROUP BY s_label, s_format
			HAVING count() > 1)
		WHERE bitAnd(f_kinds, 4) != 0 AND bitAnd(t_kinds, 4) != 0)
	UNION ALL
	SELECT materialize('to') AS role, ifNull(bytes, 0) AS t_bytes,
	       ifNull(used, 0) AS t_count
	FROM memdb_zone
	WHERE sid IN (
		SELECT t_sid FROM (
			SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
			       argMax(s_sid, (s_taken, h)) AS t_sid,
			       argMin(s_kinds, (s_taken, h)) AS f_kinds,
			       argMax(s_kinds, (s_taken, h)) AS t_kinds,
			       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
			FROM (SELECT hash AS h, min(sid) AS s_sid,
			             argMin(label, sid) AS s_label,
			             argMin(format, sid) AS s_format,
			             argMin(kinds, sid) AS s_kinds,
			             argMin(taken_unix, sid) AS s_taken
			      FROM memdb_source GROUP BY hash)
			WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
			  AND bitAnd(s_kinds, 6) != 0
			  AND s_taken >= ifNull(:from_time, -1)
			  AND s_taken <= ifNull(:to_time, 9223372036854775807)
			  AND (s_taken >= 0 OR isNull(:to_time))
			GROUP BY s_label, s_format
			HAVING count() > 1)
		WHERE bitAnd(f_kinds, 4) != 0 AND bitAnd(t_kinds, 4) != 0));

SELECT uniqExact(s_label) AS labels, 2 * count() AS sources,
       if(min(f_taken) >= 0,
           concat(replaceOne(toString(
               toDateTime(greatest(min(f_taken), 0), 'UTC')), ' ', 'T'), 'Z'),
          '') AS first,
       if(max(t_taken) >= 0,
           concat(replaceOne(toString(
               toDateTime(greatest(max(t_taken), 0), 'UTC')), ' ', 'T'), 'Z'),
          '') AS last
FROM (
	SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
	       argMax(s_sid, (s_taken, h)) AS t_sid,
	       argMin(s_kinds, (s_taken, h)) AS f_kinds,
	       argMax(s_kinds, (s_taken, h)) AS t_kinds,
	       min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
	FROM (SELECT hash AS h, min(sid) AS s_sid,
	             argMin(label, sid) AS s_label,
	             argMin(format, sid) AS s_format,
	             argMin(kinds, sid) AS s_kinds,
	             argMin(taken_unix, sid) AS s_taken
	      FROM memdb_source GROUP BY hash)
	WHERE s_label != '' AND (isNull(:label) OR match(s_label, :label_re))
	  AND bitAnd(s_kinds, 6) != 0
	  AND s_taken >= ifNull(:from_time, -1)
	  AND s_taken <= ifNull(:to_time, 9223372036854775807)
	  AND (s_taken >= 0 OR isNull(:to_time))
	GROUP BY s_label, s_format
	HAVING count() > 1);
