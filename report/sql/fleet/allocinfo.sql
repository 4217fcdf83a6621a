-- SPDX-License-Identifier: MIT
-- report: allocinfo
-- help: per allocation tag (file:line, function, module) over the hosts of a fleet: bytes and calls, by bytes
-- source: tags
-- drop: tags module calls function
-- by: tag|function|file|module|label
-- sort: bytes|calls|count
--
-- The fleet form of report/sql/allocinfo.sql, on the ClickHouse tables
-- memdb export writes (docs/usage.md, *ClickHouse*): the tags of each
-- host's latest allocinfo snapshot added up over the hosts, one row per
-- tag (or --by function, file, module; --by label: allocinfo@label.sql),
-- sorted as there.
-- A tag's figures are added up by its key (memdb_tag.tag_key, a hash of
-- file, line, function and module), then named from memdb_tagname:
-- ClickHouse groups numbers far faster than strings.
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

SELECT k_tag AS tag, k_function AS function, k_module AS module,
       @tag_sums()
FROM (
	-- renamed: an alias would stand for the column of its name
	SELECT multiIf(:by = 'tag', concat(n_file, ':', toString(n_lineno)),
	               :by = 'file', n_file, NULL) AS k_tag,
	       if(:by IN ('tag', 'function'), n_function, NULL) AS k_function,
	       n_module AS k_module, a_bytes, a_calls, a_lines, a_inacc,
	       a_apx, a_under
	FROM (
		SELECT tag_key AS key, sum(bytes) AS a_bytes,
		       sum(calls) AS a_calls, count() AS a_lines,
		       max(accurate = 0) AS a_inacc, max(approx) AS a_apx,
		       max(bytes < 0 OR calls < 0) AS a_under
		FROM memdb_tag
		WHERE sid IN (SELECT l_sid FROM @latest(2, :label, :label_re,
		                                        :from_time, :to_time))
		GROUP BY tag_key)
	ANY LEFT JOIN @names() USING key)
GROUP BY k_tag, k_function, k_module
ORDER BY if(:sort = 'bytes', bytes, calls) DESC,
         if(:sort = 'bytes', calls, bytes) DESC,
         tag NULLS FIRST, function NULLS FIRST, module NULLS FIRST
LIMIT :top;

SELECT 'total' AS tag, NULL AS function, NULL AS module,
       sum(b) AS bytes, sum(c) AS calls, count() AS tags, NULL AS flags
FROM (
	SELECT bytes AS b, calls AS c
	FROM memdb_tag
	WHERE sid IN (SELECT l_sid FROM @latest(2, :label, :label_re,
	                                        :from_time, :to_time)));

@scope(2, :label, :label_re, :from_time, :to_time);
