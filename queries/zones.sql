-- SPDX-License-Identifier: MIT
-- report: zones
-- help: per memstat zone, malloc type or slab cache, in snapshot order (empty ones last) or by --sort: size, limit, used, free, requests, failures, bytes, unused %
-- source: zones
-- drop: allocated total xdomain sleeps allocator object_size slabs limit pos requests
-- sort: pos|name|size|used|free|requests|fails|bytes|unused_pct
-- by: zone|label
--
-- The rows and their columns: docs/reports.md, "zones".
--
-- Parameters: those of allocinfo.sql but :by.

-- The sources covered, into temp.rsrc: those with zones (@rsrc of
-- queries/_shared.sql); queries/fleet/zones.sql picks the same ones.
DROP TABLE IF EXISTS temp.rsrc;
CREATE TEMP TABLE rsrc AS
@rsrc('zones', 1, @has_zones());

WITH v AS (
	SELECT v.*
	FROM temp.rsrc r CROSS JOIN v_zones v ON v.source_id = r.source_id
), g AS (
	SELECT source_id, pos, allocator, name, instance, size, "limit", used,
	       free, requests, fails, sleeps, xdomain, bytes, unused_pct,
	       object_size, allocated, total, slabs, flags
	FROM v WHERE NOT coalesce(:fleet, 0)
	UNION ALL
	-- a fleet: added up per allocator, name and instance
	SELECT NULL, min(pos), allocator, name, instance,
	       CASE WHEN min(size) = max(size) THEN min(size) END,
	       @nsum("limit"), @nsum(used), @nsum(free), @nsum(requests),
	       @nsum(fails), @nsum(sleeps), @nsum(xdomain), @nsum(bytes),
	       CASE WHEN count(unused_pct) THEN 0.0 END,
	       CASE WHEN min(object_size) = max(object_size)
	            THEN min(object_size) END,
	       @nsum(allocated), @nsum(total), @nsum(slabs),
	       nullif(iif(max(approx), 'approx', '') ||
	              iif(max(incomplete), 'incomplete', ''), '')
	FROM v WHERE :fleet
	GROUP BY allocator, name, instance
), u AS (
	-- v_zones' unused_pct is not NULL for slab caches alone
	SELECT *, CASE WHEN unused_pct IS NULL THEN NULL
	               WHEN used + free > 0 THEN 100.0 * free / (used + free)
	               ELSE 0.0 END AS unused
	FROM g
)
SELECT name, pos, allocator, size, "limit", used, free, requests, fails,
       sleeps, xdomain, bytes, unused AS unused_pct, object_size,
       allocated, total, slabs, flags
FROM u
ORDER BY coalesce(used, 0) = 0 AND coalesce(free, 0) = 0
             AND coalesce(bytes, 0) = 0,
         CASE WHEN :sort = 'name' THEN name END,
         CASE :sort WHEN 'size' THEN size WHEN 'used' THEN used
                    WHEN 'free' THEN free WHEN 'requests' THEN requests
                    WHEN 'fails' THEN fails WHEN 'bytes' THEN bytes
                    WHEN 'unused_pct' THEN unused END DESC,
         source_id, pos, allocator, name, instance
LIMIT :top;

-- unused_pct: of the slab caches (unused_pct not NULL), as their rows
SELECT 'total' AS name, NULL AS pos, NULL AS allocator, NULL AS size,
       NULL AS "limit", @nsum(used) AS used, @nsum(free) AS free,
       @nsum(requests) AS requests, @nsum(fails) AS fails,
       @nsum(sleeps) AS sleeps, @nsum(xdomain) AS xdomain,
       @nsum(bytes) AS bytes, @unused_pct_total() AS unused_pct,
       NULL AS object_size, @nsum(allocated) AS allocated,
       @nsum(total) AS total, @nsum(slabs) AS slabs, NULL AS flags
FROM temp.rsrc r CROSS JOIN v_zones v ON v.source_id = r.source_id;
