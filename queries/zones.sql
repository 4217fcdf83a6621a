-- SPDX-License-Identifier: MIT
-- report: zones
-- help: per memstat zone, malloc type or slab cache, in snapshot order (empty ones last) or by --sort: size, limit, used, free, requests, failures, bytes, unused %
-- source: zones
-- drop: allocated total xdomain sleeps allocator object_size slabs limit pos requests
-- sort: pos|name|size|used|free|requests|fails|bytes|unused_pct
-- by: zone|label
--
-- One row per UMA zone, malloc(9) type or slab cache of the selected
-- snapshot, in the order the input lists them.  Names repeat (FreeBSD
-- keeps one UMA zone per NUMA domain): pos, the position in the input,
-- tells them apart.  Each figure is the input's own, NULL (- in tables)
-- where the input has none:
--   used, free  items in use and cached free (slab caches: active_objs,
--               num_objs - active_objs); memstat streams derive them as
--               libmemstat does
--   requests    allocations since boot; fails, sleeps, xdomain likewise
--   bytes       UMA zones: used x size; malloc types: memory in use
--               (vmstat -m text and json print KiB, rounded up); slab
--               caches: num_objs x objsize
--   unused_pct  slab caches: 100 x free / (used + free), the row's own
--               figures (/proc/slabinfo's: 100 x (num_objs -
--               active_objs) / num_objs), 0 for a cache with no object
--   flags       'approx' when a figure was humanized (12K, 3.4M) or
--               rounded (vmstat -m KiB); 'incomplete' when a list of a
--               core dump's cache could not be walked to its end
-- Slab caches of a kernel core dump (memdb ingest VMCORE): size is the
-- slot size; used the objects allocated, counted exactly by walking
-- every free list (per-CPU ones included), free = total - used, and
-- unused_pct of those: the objects free on the CPUs' slabs count as
-- unused.  /proc/slabinfo counts every object of a per-CPU slab as
-- active (a cache with 7 of its 13 objects free on a CPU's slab prints
-- 13 active, 0% unused); that figure is the row's active_objs in
-- v_zones (whose unused_pct is /proc/slabinfo's), not a column here.
-- Their rows also carry object_size (the object's own size, crash's
-- OBJSIZE), allocated, total (objects in all slabs) and slabs, as crash
-- `kmem -s` prints them; these columns are NULL for other inputs.
-- Rows in snapshot order (--sort pos, the default), except that empty
-- rows (no item used or free and no bytes: a slab cache with no object)
-- come last.  --sort name orders by name (byte order); any other --sort KEY
-- by that column, largest first, ties (and NULL figures, last) in
-- snapshot order; empty rows last whatever the key.
-- The total row sums every zone of the selected sources, not only the
-- rows shown; its unused_pct is that of all slab caches together (their
-- free over their used + free).
-- A fleet (--label GLOB, or --by label, without --source): the latest
-- zone snapshot of each label matching GLOB, one row per allocator,
-- name and instance, its figures added up over them: size and
-- object_size where all agree, pos the smallest, unused_pct of the sums
-- (--by label: one row per label, zones@label.sql).
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
