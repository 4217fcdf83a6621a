-- SPDX-License-Identifier: MIT
-- memdb database schema, version 4: the forward migration from version 3
-- (db/schema-3.sql).  A new database runs every migration, in order.
--
-- Kernel core dumps (format vmcore): slab caches counted exactly, the
-- buddy allocator's free lists, and the kernel's vm_stat counters.

-- Slab caches read out of a dump (NULL for every other input):
--   object_size  kmem_cache.object_size (crash's OBJSIZE); size is the
--                slot size (slabinfo's objsize)
--   allocated    objects in use, every free list walked
--   total, slabs objects and slabs of the cache (kmem_cache_node)
--   incomplete   1: a list could not be walked to its end
--   refcount     kmem_cache.refcount: how many users share a merged
--                cache (their alias names live only in sysfs)
ALTER TABLE zone ADD COLUMN object_size INTEGER;
ALTER TABLE zone ADD COLUMN allocated INTEGER;
ALTER TABLE zone ADD COLUMN total INTEGER;
ALTER TABLE zone ADD COLUMN slabs INTEGER;
ALTER TABLE zone ADD COLUMN incomplete INTEGER;
ALTER TABLE zone ADD COLUMN refcount INTEGER;

-- The buddy allocator's free lists: free blocks of 2^order pages per
-- node, zone and migratetype (/proc/pagetypeinfo); nr_free is the
-- zone's free_area[order].nr_free (/proc/buddyinfo), on every row of
-- that order.
CREATE TABLE buddy (
	source_id   INTEGER NOT NULL,
	node        INTEGER NOT NULL,
	zone        TEXT NOT NULL,    -- 'DMA', 'DMA32', 'Normal', ...
	"order"     INTEGER NOT NULL,
	migratetype TEXT NOT NULL,    -- 'Unmovable', 'Movable', ...
	blocks      INTEGER NOT NULL,
	pages       INTEGER NOT NULL, -- blocks << order
	nr_free     INTEGER,
	incomplete  INTEGER NOT NULL, -- 1: the list could not be walked
	PRIMARY KEY (source_id, node, zone, "order", migratetype)
) WITHOUT ROWID;

-- Counters of the dumped kernel: scope 'global' (vm_zone_stat,
-- vm_node_stat: /proc/vmstat), 'node' and 'zone' (per node or zone),
-- 'kernel' (release, dump time, uptime, as numbers where they are).
CREATE TABLE kcounter (
	source_id INTEGER NOT NULL,
	pos       INTEGER NOT NULL,
	scope     TEXT NOT NULL,
	node      INTEGER,
	zone      TEXT,
	name      TEXT NOT NULL,
	value     INTEGER NOT NULL,
	PRIMARY KEY (source_id, pos)
) WITHOUT ROWID;

DROP VIEW IF EXISTS v_snapshots;
CREATE VIEW v_snapshots AS
SELECT s.id AS source_id, s.format, s.format_version, s.label, s.taken_at,
       s.path,
       (SELECT count(*) FROM zone z WHERE z.source_id = s.id) AS zones,
       (SELECT count(*) FROM tag t WHERE t.source_id = s.id) AS tags,
       coalesce((SELECT sum(bytes) FROM zone z WHERE z.source_id = s.id),
                (SELECT sum(bytes) FROM tag t WHERE t.source_id = s.id))
           AS bytes,
       row_number() OVER (PARTITION BY s.label, s.format
                          ORDER BY s.taken_at, s.id) AS series_pos,
       count(*) OVER (PARTITION BY s.label, s.format) AS series_len
FROM source s
WHERE s.format IN ('allocinfo', 'memstat-uma', 'memstat-malloc',
                   'vmstat-z', 'vmstat-m', 'vmstat-json', 'slabinfo',
                   'vmcore');

DROP VIEW IF EXISTS v_zones;
CREATE VIEW v_zones AS
SELECT z.source_id, z.pos, k.name AS allocator, z.name, z.instance,
       z.input_line, z.size, z.count_limit AS "limit", z.used, z.free,
       z.requests, z.frees, z.fails, z.sleeps, z.xdomain, z.bytes,
       CASE WHEN z.kind <> 2 THEN NULL
            WHEN z.num_objs > 0
                THEN 100.0 * (z.num_objs - z.active_objs) / z.num_objs
            ELSE 0.0 END AS unused_pct,
       z.sizes, z.sizemask, z.keg_free, z.zone_free, z.zone_flags,
       CASE WHEN z.zone_flags IS NOT NULL THEN z.zone_flags & 1 END
           AS secondary,
       z.active_objs, z.num_objs, z.objsize, z.objperslab, z.pagesperslab,
       z.active_slabs, z.num_slabs, z.approx,
       z.object_size, z.allocated, z.total, z.slabs, z.incomplete,
       z.refcount,
       nullif(CASE WHEN z.approx THEN 'approx' ELSE '' END ||
              CASE WHEN z.incomplete THEN 'incomplete' ELSE '' END, '')
           AS flags
FROM zone z
JOIN zone_kind k ON k.id = z.kind;
