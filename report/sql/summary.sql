-- SPDX-License-Identifier: MIT
-- report: summary
-- help: perf kmem's SUMMARY figures, plus frees it cannot classify, lost events and live at end
-- source: trace
--
-- One row per figure, with the slab value (kmalloc + kmem_cache) and the
-- page value (page allocator events), as perf kmem stat prints SUMMARY and
-- perf kmem stat --page its own.  perf kmem's formulas:
--   bytes_freed          sum of bytes_alloc of allocations ended by a FREE
--   net_bytes_allocated  bytes_allocated - bytes_freed
--   bytes_wasted         bytes_allocated - bytes_requested
--   fragmentation_pct    100 - 100 * requested / allocated (0 when none)
--   cross_cpu_allocations  allocations whose requested node (not -1)
--                        differs from the node of the allocating CPU: needs
--                        --cpu-node FILE (lines "CPU NODE" of the traced
--                        machine); 'unknown' without it
-- and what perf kmem cannot say: NULL, unknown, duplicate and suspect
-- duplicate frees (docs/design.md §4.3), frees
-- not traced (address allocated again while live), failures, events lost
-- (ftrace LOST lines), sequence numbers missing (kmemtrace: lost events
-- when the source is a whole capture), the producer's overrun count.
-- The rows are themselves totals: there is no total row.
--
-- Parameters: :src_lo, :src_hi, :cpu_node_map (1 when temp.cpu_node holds
-- the map).  Reads site_stats, anomaly, node_stats, source.

WITH k AS (
	SELECT type = 2 AS page, CAST(total(hits) AS INTEGER) AS hits, CAST(total(bytes_req) AS INTEGER) AS req,
	       CAST(total(bytes_alloc) AS INTEGER) AS alloc, CAST(total(freed) AS INTEGER) AS freed,
	       CAST(total(freed_bytes) AS INTEGER) AS freed_bytes, CAST(total(pingpong) AS INTEGER) AS pingpong,
	       CAST(total(not_traced) AS INTEGER) AS not_traced, CAST(total(live) AS INTEGER) AS live,
	       CAST(total(live_bytes) AS INTEGER) AS live_bytes, CAST(total(failed) AS INTEGER) AS failed,
	       CAST(total(zero_size) AS INTEGER) AS zero_size
	FROM site_stats
	WHERE source_id BETWEEN :src_lo AND :src_hi
	GROUP BY type = 2
), s AS (
	SELECT (SELECT hits FROM k WHERE page = 0) AS hits,
	       (SELECT req FROM k WHERE page = 0) AS req,
	       (SELECT alloc FROM k WHERE page = 0) AS alloc,
	       (SELECT freed FROM k WHERE page = 0) AS freed,
	       (SELECT freed_bytes FROM k WHERE page = 0) AS freed_bytes,
	       (SELECT pingpong FROM k WHERE page = 0) AS pingpong,
	       (SELECT not_traced FROM k WHERE page = 0) AS not_traced,
	       (SELECT live FROM k WHERE page = 0) AS live,
	       (SELECT live_bytes FROM k WHERE page = 0) AS live_bytes,
	       (SELECT failed FROM k WHERE page = 0) AS failed,
	       (SELECT zero_size FROM k WHERE page = 0) AS zero_size,
	       (SELECT hits FROM k WHERE page = 1) AS p_hits,
	       (SELECT req FROM k WHERE page = 1) AS p_req,
	       (SELECT alloc FROM k WHERE page = 1) AS p_alloc,
	       (SELECT freed FROM k WHERE page = 1) AS p_freed,
	       (SELECT freed_bytes FROM k WHERE page = 1) AS p_freed_bytes,
	       (SELECT pingpong FROM k WHERE page = 1) AS p_pingpong,
	       (SELECT not_traced FROM k WHERE page = 1) AS p_not_traced,
	       (SELECT live FROM k WHERE page = 1) AS p_live,
	       (SELECT live_bytes FROM k WHERE page = 1) AS p_live_bytes,
	       (SELECT failed FROM k WHERE page = 1) AS p_failed
), an AS (
	SELECT class, CAST(total(CASE WHEN page = 0 THEN count END) AS INTEGER) AS slab,
	       CAST(total(CASE WHEN page = 1 THEN count END) AS INTEGER) AS page
	FROM anomaly WHERE source_id BETWEEN :src_lo AND :src_hi
	GROUP BY class
), nd AS (
	SELECT n.type = 2 AS page, CAST(total(n.allocations) AS INTEGER) AS allocs,
	       CAST(total(CASE WHEN n.node <> -1 AND m.node IS NOT NULL
	                     AND n.node <> m.node
	                THEN n.allocations ELSE 0 END) AS INTEGER) AS cross_allocs,
	       CAST(total(CASE WHEN n.node <> -1 AND m.node IS NULL
	                THEN n.allocations ELSE 0 END) AS INTEGER) AS unmapped
	FROM node_stats n LEFT JOIN temp.cpu_node m ON m.cpu = n.cpu
	WHERE n.source_id BETWEEN :src_lo AND :src_hi
	GROUP BY n.type = 2
), nx AS (
	-- the cross-node figures, 'unknown' without a CPU-to-node map
	SELECT p.page,
	       CASE WHEN :cpu_node_map = 1 THEN coalesce(nd.cross_allocs, 0)
	            ELSE 'unknown' END AS cross_allocs,
	       CASE WHEN :cpu_node_map = 1 THEN coalesce(nd.unmapped, 0)
	            ELSE 'unknown' END AS unmapped
	FROM (SELECT 0 AS page UNION ALL SELECT 1) p
	LEFT JOIN nd ON nd.page = p.page
), src AS (
	SELECT sum(coalesce(overruns, 0)) AS overruns,
	       CAST(total(lost_events) AS INTEGER) AS lost, CAST(total(seq_missing) AS INTEGER) AS missing,
	       CAST(total(events) AS INTEGER) AS events, CAST(total(unknown) AS INTEGER) AS unknown
	FROM source WHERE id BETWEEN :src_lo AND :src_hi
)
SELECT 'allocations' AS figure, coalesce(hits, 0) AS slab,
       coalesce(p_hits, 0) AS page FROM s
UNION ALL SELECT 'bytes_requested', coalesce(req, 0), coalesce(p_req, 0) FROM s
UNION ALL SELECT 'bytes_allocated', coalesce(alloc, 0), coalesce(p_alloc, 0) FROM s
UNION ALL SELECT 'bytes_freed', coalesce(freed_bytes, 0),
                 coalesce(p_freed_bytes, 0) FROM s
UNION ALL SELECT 'net_bytes_allocated',
                 coalesce(alloc, 0) - coalesce(freed_bytes, 0),
                 coalesce(p_alloc, 0) - coalesce(p_freed_bytes, 0) FROM s
UNION ALL SELECT 'bytes_wasted', coalesce(alloc - req, 0),
                 coalesce(p_alloc - p_req, 0) FROM s
UNION ALL SELECT 'fragmentation_pct',
                 CASE WHEN coalesce(alloc, 0) = 0 THEN 0.0
                      ELSE 100.0 - 100.0 * req / alloc END,
                 CASE WHEN coalesce(p_alloc, 0) = 0 THEN 0.0
                      ELSE 100.0 - 100.0 * p_req / p_alloc END FROM s
UNION ALL SELECT 'cross_cpu_allocations',
                 (SELECT cross_allocs FROM nx WHERE page = 0),
                 (SELECT cross_allocs FROM nx WHERE page = 1)
UNION ALL SELECT 'allocations_on_unmapped_cpus',
                 (SELECT unmapped FROM nx WHERE page = 0),
                 (SELECT unmapped FROM nx WHERE page = 1)
UNION ALL SELECT 'frees_ending_an_allocation', coalesce(freed, 0),
                 coalesce(p_freed, 0) FROM s
UNION ALL SELECT 'pingpong', coalesce(pingpong, 0), coalesce(p_pingpong, 0) FROM s
UNION ALL SELECT * FROM (
	-- anomaly classes 1, 2, 3, 10, in this order
	SELECT c.column2, coalesce(an.slab, 0), coalesce(an.page, 0)
	FROM (VALUES (1, 'null_frees'), (2, 'unknown_frees'),
	             (3, 'duplicate_frees'), (10, 'duplicate_frees_suspect')) c
	LEFT JOIN an ON an.class = c.column1)
UNION ALL SELECT 'frees_not_traced', coalesce(not_traced, 0),
                 coalesce(p_not_traced, 0) FROM s
UNION ALL SELECT 'allocation_failures', coalesce(failed, 0),
                 coalesce(p_failed, 0) FROM s
UNION ALL SELECT 'zero_size_allocations', coalesce(zero_size, 0), 0 FROM s
UNION ALL SELECT 'live_at_end', coalesce(live, 0), coalesce(p_live, 0) FROM s
UNION ALL SELECT 'live_bytes_at_end', coalesce(live_bytes, 0),
                 coalesce(p_live_bytes, 0) FROM s
UNION ALL SELECT 'events', events, NULL FROM src
UNION ALL SELECT 'events_lost', lost, NULL FROM src
UNION ALL SELECT 'seq_numbers_missing', missing, NULL FROM src
UNION ALL SELECT 'overruns', overruns, NULL FROM src
UNION ALL SELECT 'unknown_records_skipped', unknown, NULL FROM src;
