-- SPDX-License-Identifier: MIT
-- report: growth
-- help: change of bytes and counts per tag or zone over the hosts of a fleet between two dates, by growth
-- source: tags|zones
-- total: totals
-- drop: count_from count_to module kind bytes_from function bytes_to count_delta
-- by: tag|function|file|module|label
-- sort: bytes|calls|count
--
-- The fleet form of queries/growth.sql: of each series (label and
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
       ifNull(sum(f_bytes), 0) AS bytes_from,
       ifNull(sum(t_bytes), 0) AS bytes_to,
       bytes_to - bytes_from AS bytes_delta,
       ifNull(sum(f_count), 0) AS count_from,
       ifNull(sum(t_count), 0) AS count_to,
       count_to - count_from AS count_delta,
       if(is_row = 0, NULL,
          nullIf(substring(concat(if(sum(f_n) = 0, ',new', ''),
                                  if(sum(t_n) = 0, ',gone', ''),
                                  if(max(e_inacc) != 0, ',inaccurate', ''),
                                  if(max(e_approx) != 0, ',approx', ''),
                                  if(max(e_under) != 0, ',underflow', '')),
                           2), '')) AS flags
FROM (
	-- the tags of both ends (role 0 the first, 1 the last) added up by
	-- key (by sid with --by label), each end apart, then named (by
	-- memdb_source with --by label); f_n, t_n: rows at each end
	SELECT materialize(toUInt8(1)) AS is_row, 'tag' AS k_kind,
	       multiIf(:by = 'tag', concat(n_file, ':', toString(n_lineno)),
	               :by = 'file', n_file, :by = 'label', l_label, NULL)
	           AS k_name,
	       if(:by IN ('tag', 'function'), n_function, NULL) AS k_function,
	       if(:by != 'label', n_module, NULL) AS k_module,
	       toInt64(0) AS k_inst, toNullable(g_fb) AS f_bytes,
	       toNullable(g_tb) AS t_bytes, toNullable(g_fc) AS f_count,
	       toNullable(g_tc) AS t_count, g_fn AS f_n, g_tn AS t_n,
	       g_inacc AS e_inacc, g_apx AS e_approx, g_under AS e_under
	FROM (
		SELECT * FROM (
			-- by key alone: ClickHouse groups one number faster
			-- than two
			SELECT key, sumIf(bytes, role = 0) AS g_fb,
			       sumIf(bytes, role = 1) AS g_tb,
			       sumIf(calls, role = 0) AS g_fc,
			       sumIf(calls, role = 1) AS g_tc,
			       countIf(role = 0) AS g_fn, countIf(role = 1) AS g_tn,
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
			GROUP BY key) AS r
		ANY LEFT JOIN @names() AS n USING key) AS rn
	ANY LEFT JOIN (SELECT sid AS key, label AS l_label FROM @labels()) AS l
	USING key
	UNION ALL
	-- the zones of both ends
	SELECT materialize(toUInt8(1)) AS is_row, allocator AS k_kind,
	       materialize(if(:by = 'label', label, name)) AS k_name,
	       -- no two columns of one expression: 18.16 would make them
	       -- one, and count the branches' columns different
	       materialize(if(0, name, NULL)) AS k_function,
	       materialize(if(0, allocator, NULL)) AS k_module,
	       materialize(if(:by = 'label', toInt64(0), instance)) AS k_inst,
	       if(role = 0, bytes, NULL) AS f_bytes,
	       if(role = 1, bytes, NULL) AS t_bytes,
	       if(role = 0, used, NULL) AS f_count,
	       if(role = 1, used, NULL) AS t_count,
	       toUInt64(role = 0) AS f_n, toUInt64(role = 1) AS t_n,
	       toUInt8(0) AS e_inacc, approx AS e_approx,
	       toUInt8(approx AND 0) AS e_under
	FROM (
		SELECT toUInt8(sid IN (SELECT t_sid FROM @ends(:label, :label_re,
			:from_time, :to_time))) AS role, *
		FROM memdb_zone
		WHERE sid IN (
			SELECT arrayJoin([f_sid, t_sid])
			FROM @ends(:label, :label_re, :from_time, :to_time)
			WHERE bitAnd(f_kinds, 4) != 0 AND bitAnd(t_kinds, 4) != 0)))
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
