-- SPDX-License-Identifier: MIT
-- report: growth
-- help: change of bytes and counts per tag or zone over the hosts of a fleet between two dates, by growth
-- source: tags|zones
-- total: totals
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
-- Each end's rows are read once: their total (every row of both ends
-- added up) is the totals row of the same GROUP BY (WITH TOTALS).
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re, :from_time and :to_time (_shared.sql).
-- Statements: the rows with their total, the scope (labels, sources, the
-- first and the last taken_at) that the title gives.

SELECT if(is_row = 0, 'total', k_name) AS name,
       if(is_row = 0, NULL, k_function) AS function,
       if(is_row = 0, NULL, k_module) AS module,
       if(is_row = 0, NULL, k_kind) AS kind,
       ifNull(sumIf(e_bytes, role = 0), 0) AS bytes_from,
       ifNull(sumIf(e_bytes, role = 1), 0) AS bytes_to,
       bytes_to - bytes_from AS bytes_delta,
       ifNull(sumIf(e_count, role = 0), 0) AS count_from,
       ifNull(sumIf(e_count, role = 1), 0) AS count_to,
       count_to - count_from AS count_delta,
       if(is_row = 0, NULL,
          nullIf(substring(concat(if(countIf(role = 0) = 0, ',new', ''),
                                  if(countIf(role = 1) = 0, ',gone', ''),
                                  if(max(e_inacc) != 0, ',inaccurate', ''),
                                  if(max(e_approx) != 0, ',approx', ''),
                                  if(max(e_under) != 0, ',underflow', '')),
                           2), '')) AS flags
FROM (
	-- the tags of both ends (role 0 the first, 1 the last) added up by
	-- key (by sid with --by label), then named (by memdb_source with
	-- --by label)
	SELECT role, materialize(toUInt8(1)) AS is_row, 'tag' AS k_kind,
	       multiIf(:by = 'tag', concat(n_file, ':', toString(n_lineno)),
	               :by = 'file', n_file, :by = 'label', l_label, NULL)
	           AS k_name,
	       if(:by IN ('tag', 'function'), n_function, NULL) AS k_function,
	       if(:by != 'label', n_module, NULL) AS k_module,
	       toInt64(0) AS k_inst, toNullable(g_bytes) AS e_bytes,
	       toNullable(g_count) AS e_count, g_inacc AS e_inacc,
	       g_apx AS e_approx, g_under AS e_under
	FROM (
		SELECT * FROM (
		SELECT role, key, sum(bytes) AS g_bytes, sum(calls) AS g_count,
		       max(accurate = 0) AS g_inacc, max(approx) AS g_apx,
		       max(bytes < 0 OR calls < 0) AS g_under
		FROM (
			SELECT toUInt8(sid IN (SELECT t_sid FROM @ends(:label,
				:label_re, :from_time, :to_time))) AS role,
			       materialize(if(:by = 'label', sid, tag_key)) AS key,
			       bytes, calls, accurate, approx
			FROM memdb_tag
			WHERE sid IN (
				SELECT arrayJoin([f_sid, t_sid])
				FROM @ends(:label, :label_re, :from_time, :to_time)
				WHERE bitAnd(f_kinds, 2) != 0 AND bitAnd(t_kinds, 2) != 0))
		GROUP BY role, key) AS r
		ANY LEFT JOIN @names() AS n USING key) AS rn
	ANY LEFT JOIN (SELECT sid AS key, label AS l_label FROM @labels()) AS l
	USING key
	UNION ALL
	-- the zones of both ends
	SELECT toUInt8(sid IN (SELECT t_sid FROM @ends(:label, :label_re,
		:from_time, :to_time))) AS role,
	       materialize(toUInt8(1)) AS is_row, allocator AS k_kind,
	       materialize(if(:by = 'label', label, name)) AS k_name,
	       -- no two columns of one expression: 18.16 would make them
	       -- one, and count the branches' columns different
	       materialize(if(0, name, NULL)) AS k_function,
	       materialize(if(0, allocator, NULL)) AS k_module,
	       materialize(if(:by = 'label', toInt64(0), instance)) AS k_inst,
	       bytes AS e_bytes, used AS e_count, toUInt8(0) AS e_inacc,
	       approx AS e_approx, toUInt8(approx AND 0) AS e_under
	FROM memdb_zone
	WHERE sid IN (
		SELECT arrayJoin([f_sid, t_sid])
		FROM @ends(:label, :label_re, :from_time, :to_time)
		WHERE bitAnd(f_kinds, 4) != 0 AND bitAnd(t_kinds, 4) != 0))
-- is_row: 0 in the totals row alone (a key's default there)
GROUP BY k_kind, k_name, k_function, k_module, k_inst, is_row WITH TOTALS
ORDER BY if(:sort = 'bytes', bytes_delta, count_delta) DESC,
         if(:sort = 'bytes', count_delta, bytes_delta) DESC,
         kind, name NULLS FIRST, function NULLS FIRST,
         module NULLS FIRST, k_inst
LIMIT :top;

SELECT uniqExact(s_label) AS labels, 2 * count() AS sources,
       @iso(min(f_taken), '') AS first, @iso(max(t_taken), '') AS last
FROM @ends(:label, :label_re, :from_time, :to_time);
