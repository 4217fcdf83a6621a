-- SPDX-License-Identifier: MIT
-- report: zones
-- help: per zone, malloc type or slab cache over the hosts of a fleet: size, used, free, requests, failures, bytes, unused %
-- source: zones
-- drop: allocated total xdomain sleeps allocator object_size slabs limit pos requests
-- sort: pos|name|size|used|free|requests|fails|bytes|unused_pct
-- by: zone|label
--
-- The fleet form of queries/zones.sql: each host's latest zone
-- snapshot (slabinfo, vmstat, memstat, a core dump's slab caches), one
-- row per allocator, name and instance, its figures added up over the
-- hosts: size and object_size where all hosts agree, pos the smallest,
-- unused_pct of the sums; sorted as there (--by label:
-- zones@label.sql).
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

SELECT name, pos, allocator, size, "limit", used, free, requests, fails,
       sleeps, xdomain, bytes, unused_pct, object_size, allocated, total,
       slabs, flags
FROM (
	SELECT k_name AS name, min(z_pos) AS pos, k_alloc AS allocator,
	       k_inst AS instance,
	       if(min(z_size) = max(z_size), min(z_size), NULL) AS size,
	       sum(z_limit) AS "limit", sum(z_used) AS used,
	       sum(z_free) AS free, sum(z_req) AS requests,
	       sum(z_fails) AS fails, sum(z_sleeps) AS sleeps,
	       sum(z_xdomain) AS xdomain, sum(z_bytes) AS bytes,
	       if(count(z_unused) = 0, NULL,
	          if(used + free > 0, 100.0 * free / (used + free), 0.0))
	           AS unused_pct,
	       if(min(z_osize) = max(z_osize), min(z_osize), NULL)
	           AS object_size,
	       sum(z_allocated) AS allocated, sum(z_total) AS total,
	       sum(z_slabs) AS slabs,
	       nullIf(concat(if(max(z_approx) != 0, 'approx', ''),
	                     if(max(z_incomplete) != 0, 'incomplete', '')),
	              '') AS flags,
	       multiIf(:sort = 'size', toNullable(toFloat64(size)),
	               :sort = 'used', toFloat64(used),
	               :sort = 'free', toFloat64(free),
	               :sort = 'requests', toFloat64(requests),
	               :sort = 'fails', toFloat64(fails),
	               :sort = 'bytes', toFloat64(bytes),
	               :sort = 'unused_pct', unused_pct, NULL) AS sort_key
	FROM (
	SELECT allocator AS k_alloc, name AS k_name, instance AS k_inst,
	       pos AS z_pos, size AS z_size, count_limit AS z_limit,
	       used AS z_used, free AS z_free, requests AS z_req,
	       fails AS z_fails, sleeps AS z_sleeps, xdomain AS z_xdomain,
	       bytes AS z_bytes, unused_pct AS z_unused,
	       object_size AS z_osize, allocated AS z_allocated,
	       total AS z_total, slabs AS z_slabs, approx AS z_approx,
	       incomplete AS z_incomplete
		FROM memdb_zone
		WHERE sid IN (SELECT l_sid FROM @latest(4, :label, :label_re,
			    :from_time, :to_time)))
	GROUP BY k_alloc, k_name, k_inst)
ORDER BY ifNull(used, 0) = 0 AND ifNull(free, 0) = 0
             AND ifNull(bytes, 0) = 0,
         if(:sort = 'name', name, ''),
         isNull(sort_key), sort_key DESC, pos, allocator, name, instance
LIMIT :top;

SELECT 'total' AS name, NULL AS pos, NULL AS allocator, NULL AS size,
       NULL AS "limit", sum(z_used) AS used, sum(z_free) AS free,
       sum(z_req) AS requests, sum(z_fails) AS fails,
       sum(z_sleeps) AS sleeps, sum(z_xdomain) AS xdomain,
       sum(z_bytes) AS bytes,
       @unused_total()
           AS unused_pct,
       NULL AS object_size, sum(z_allocated) AS allocated,
       sum(z_total) AS total, sum(z_slabs) AS slabs, NULL AS flags
FROM (
	SELECT used AS z_used, free AS z_free, requests AS z_req,
	       fails AS z_fails, sleeps AS z_sleeps, xdomain AS z_xdomain,
	       bytes AS z_bytes, unused_pct AS z_unused,
	       allocated AS z_allocated, total AS z_total, slabs AS z_slabs
	FROM memdb_zone
	WHERE sid IN (SELECT l_sid FROM @latest(4, :label, :label_re,
		    :from_time, :to_time)));

@scope(4, :label, :label_re, :from_time, :to_time);
