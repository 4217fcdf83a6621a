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
-- Parameters (sqlite3: .param set :src_lo 1, ...):
--   :src_lo, :src_hi   range of source ids to cover
--   :top               rows to return, -1 for all
--   :sort              NULL or 'pos', 'name', 'size', 'used', ...
--   :label             NULL, or only sources whose label matches (GLOB)
--   :fleet             1: each label's latest snapshot instead of the
--                      range, taken from :from_time to :to_time (Unix
--                      seconds, NULL for no bound)

-- The sources covered, into temp.rsrc: as in allocinfo.sql, of the
-- sources with zones.  queries/fleet/zones.sql picks the same ones.
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
	       (CASE WHEN count("limit") THEN CAST(total("limit") AS INTEGER) END),
	       (CASE WHEN count(used) THEN CAST(total(used) AS INTEGER) END),
	       (CASE WHEN count(free) THEN CAST(total(free) AS INTEGER) END),
	       (CASE WHEN count(requests) THEN CAST(total(requests) AS INTEGER) END),
	       (CASE WHEN count(fails) THEN CAST(total(fails) AS INTEGER) END),
	       (CASE WHEN count(sleeps) THEN CAST(total(sleeps) AS INTEGER) END),
	       (CASE WHEN count(xdomain) THEN CAST(total(xdomain) AS INTEGER) END),
	       (CASE WHEN count(bytes) THEN CAST(total(bytes) AS INTEGER) END),
	       CASE WHEN count(unused_pct) THEN 0.0 END,
	       CASE WHEN min(object_size) = max(object_size)
	            THEN min(object_size) END,
	       (CASE WHEN count(allocated) THEN CAST(total(allocated) AS INTEGER) END),
	       (CASE WHEN count(total) THEN CAST(total(total) AS INTEGER) END),
	       (CASE WHEN count(slabs) THEN CAST(total(slabs) AS INTEGER) END),
	       nullif(CASE WHEN max(approx) THEN 'approx' ELSE '' END ||
	              CASE WHEN max(incomplete) THEN 'incomplete' ELSE '' END,
	              '')
	FROM v WHERE :fleet
	GROUP BY allocator, name, instance
), u AS (
	-- v_zones' unused_pct is not NULL for slab caches alone
	SELECT *, CASE WHEN unused_pct IS NULL THEN NULL
	               WHEN used + free > 0 THEN 100.0 * free / (used + free)
	               ELSE 0.0 END AS unused
	FROM g
), z AS (
	SELECT *, CASE :sort WHEN 'size' THEN size
	                     WHEN 'used' THEN used
	                     WHEN 'free' THEN free
	                     WHEN 'requests' THEN requests
	                     WHEN 'fails' THEN fails
	                     WHEN 'bytes' THEN bytes
	                     WHEN 'unused_pct' THEN unused END AS sort_key
	FROM u
)
SELECT name, pos, allocator, size, "limit", used, free, requests, fails,
       sleeps, xdomain, bytes, unused AS unused_pct, object_size,
       allocated, total, slabs, flags
FROM z
ORDER BY coalesce(used, 0) = 0 AND coalesce(free, 0) = 0
             AND coalesce(bytes, 0) = 0,
         CASE WHEN :sort = 'name' THEN name END,
         sort_key IS NULL, sort_key DESC, source_id, pos, allocator, name,
         instance
LIMIT :top;

SELECT 'total' AS name, NULL AS pos, NULL AS allocator, NULL AS size,
       NULL AS "limit", (CASE WHEN count(used) THEN CAST(total(used) AS INTEGER) END) AS used, (CASE WHEN count(free) THEN CAST(total(free) AS INTEGER) END) AS free,
       (CASE WHEN count(requests) THEN CAST(total(requests) AS INTEGER) END) AS requests, (CASE WHEN count(fails) THEN CAST(total(fails) AS INTEGER) END) AS fails,
       (CASE WHEN count(sleeps) THEN CAST(total(sleeps) AS INTEGER) END) AS sleeps, (CASE WHEN count(xdomain) THEN CAST(total(xdomain) AS INTEGER) END) AS xdomain,
       (CASE WHEN count(bytes) THEN CAST(total(bytes) AS INTEGER) END) AS bytes,
       -- the slab caches' (unused_pct not NULL in v_zones), as their rows
       CASE WHEN count(unused_pct) = 0 THEN NULL
            WHEN sum(CASE WHEN unused_pct IS NOT NULL THEN used + free END) > 0
                THEN 100.0 * sum(CASE WHEN unused_pct IS NOT NULL THEN free END) /
                     sum(CASE WHEN unused_pct IS NOT NULL THEN used + free END)
            ELSE 0.0 END AS unused_pct,
       NULL AS object_size,
       (CASE WHEN count(allocated) THEN CAST(total(allocated) AS INTEGER) END) AS allocated,
       (CASE WHEN count(total) THEN CAST(total(total) AS INTEGER) END) AS total,
       (CASE WHEN count(slabs) THEN CAST(total(slabs) AS INTEGER) END) AS slabs,
       NULL AS flags
FROM temp.rsrc r CROSS JOIN v_zones v ON v.source_id = r.source_id;
