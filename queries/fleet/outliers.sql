-- SPDX-License-Identifier: MIT
-- report: outliers
-- help: the hosts of a fleet where an allocation tag or a zone (slab cache) is above its 99th percentile over the hosts, by excess
-- source: tags|zones
-- scope: fleet
-- total: none
-- drop: fleet_median hosts module function
--
-- The fleet form of queries/outliers.sql: the same question over
-- the ClickHouse tables; each item's values over the hosts gathered in
-- an array (groupArray()), each host's summed (@per_host), its
-- percentiles interpolated as there (@above_p99), the hosts above the
-- 99th unrolled (ARRAY JOIN), the tags named and the hosts labelled
-- after.
-- A tag's figures are added up by its key (memdb_tag.tag_key, a hash of
-- file, line, function and module), then named from memdb_tagname:
-- ClickHouse groups numbers far faster than strings.
-- The fleet: each label's latest source with tags, and its latest with
-- zones (@latest, _shared.sql).  Statements: the rows and the scope
-- (labels, sources, the first and the last taken_at) that the title
-- gives.

SELECT kind, name, function, module, label, bytes, fleet_p99,
       fleet_median, hosts, bytes - fleet_p99 AS excess
FROM (
	-- tags: the hosts above, then named (18.16: the ARRAY JOIN in a
	-- query of its own)
	SELECT materialize('tag') AS kind,
	       concat(n_file, ':', toString(n_lineno)) AS name,
	       n_function AS function, n_module AS module, sid, bytes,
	       fleet_p99, fleet_median, hosts
	FROM (
		SELECT key, sid, bytes, fleet_p99, fleet_median, hosts
		FROM (
			SELECT key, @above_p99(h_sids, h_vals)
			FROM (
				SELECT key, @per_host()
				FROM (
					SELECT tag_key AS key, groupArray(sid) AS r_sids,
					       groupArray(bytes) AS r_vals
					FROM memdb_tag
					WHERE sid IN (SELECT l_sid FROM @latest(2, :label,
						:label_re, :from_time, :to_time))
					GROUP BY tag_key)))
		ARRAY JOIN o_sids AS sid, o_vals AS bytes) AS r
	ANY LEFT JOIN @names() AS n USING key
	UNION ALL
	-- zones (slab caches): the same
	SELECT z_alloc AS kind, z_name AS name,
	       materialize(if(0, z_name, NULL)) AS function,
	       materialize(if(0, z_alloc, NULL)) AS module, sid, bytes,
	       fleet_p99, fleet_median, hosts
	FROM (
		SELECT z_alloc, z_name, @above_p99(h_sids, h_vals)
		FROM (
			SELECT z_alloc, z_name, @per_host()
			FROM (
				SELECT allocator AS z_alloc, name AS z_name,
				       groupArray(sid) AS r_sids,
				       groupArray(assumeNotNull(bytes)) AS r_vals
				FROM memdb_zone
				WHERE isNotNull(bytes) AND sid IN (SELECT l_sid
					FROM @latest(4, :label, :label_re, :from_time,
					             :to_time))
				GROUP BY allocator, name)))
	ARRAY JOIN o_sids AS sid, o_vals AS bytes) AS r
ANY LEFT JOIN @labels() AS l USING sid
ORDER BY excess DESC, kind, name, function NULLS FIRST, module NULLS FIRST,
         label
LIMIT :top;

SELECT uniqExact(l_label) AS labels, count() AS sources,
       @iso(min(l_taken), '') AS first, @iso(max(l_taken), '') AS last
FROM (SELECT l_label, l_taken
      FROM @latest(2, :label, :label_re, :from_time, :to_time)
      UNION ALL
      SELECT l_label, l_taken
      FROM @latest(4, :label, :label_re, :from_time, :to_time));
