-- SPDX-License-Identifier: MIT
-- report: allocinfo
-- help: per allocation tag (file:line, function, module) over the hosts of a fleet: bytes and calls, by bytes
-- source: tags
-- total: totals
-- drop: tags module calls function
-- by: tag|function|file|module|label
-- sort: bytes|calls|count
--
-- The fleet form of queries/allocinfo.sql, on the ClickHouse tables
-- memdb export writes (docs/usage.md, *ClickHouse*): the tags of each
-- host's latest allocinfo snapshot added up over the hosts, one row per
-- tag (or --by function, file, module; --by label: allocinfo@label.sql),
-- sorted as there.
-- A tag's figures are added up by its key (memdb_tag.tag_key, a hash of
-- file, line, function and module), then named from memdb_tagname:
-- ClickHouse groups numbers far faster than strings.
-- The fleet: each label's latest source with tags (@latest,
-- _shared.sql).
-- The rows are read once: their total is the totals row of the same
-- GROUP BY (WITH TOTALS; is_row is 0 there alone).
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re, :from_time and :to_time (_shared.sql).
-- Statements: the rows with their total, the scope (labels, sources,
-- the first and the last taken_at) that the title gives.

SELECT if(is_row = 0, 'total', k_tag) AS tag,
       if(is_row = 0, NULL, k_function) AS function,
       if(is_row = 0, NULL, k_module) AS module, @tag_sums(is_row = 0)
FROM (
	-- renamed: an alias would stand for the column of its name
	SELECT multiIf(:by = 'tag', concat(n_file, ':', toString(n_lineno)),
	               :by = 'file', n_file, NULL) AS k_tag,
	       if(:by IN ('tag', 'function'), n_function, NULL) AS k_function,
	       n_module AS k_module, materialize(toUInt8(1)) AS is_row,
	       a_bytes, a_calls, a_lines, a_inacc, a_apx, a_under
	FROM (
		SELECT tag_key AS key, sum(bytes) AS a_bytes,
		       sum(calls) AS a_calls, count() AS a_lines,
		       max(accurate = 0) AS a_inacc, max(approx) AS a_apx,
		       max(bytes < 0 OR calls < 0) AS a_under
		FROM memdb_tag
		WHERE sid IN (SELECT l_sid FROM @latest(2, :label, :label_re,
		                                        :from_time, :to_time))
		GROUP BY tag_key) AS r
	ANY LEFT JOIN @names() AS n USING key)
GROUP BY k_tag, k_function, k_module, is_row WITH TOTALS
ORDER BY if(:sort = 'bytes', bytes, calls) DESC,
         if(:sort = 'bytes', calls, bytes) DESC,
         tag NULLS FIRST, function NULLS FIRST, module NULLS FIRST
LIMIT :top;

@scope(2, :label, :label_re, :from_time, :to_time);
