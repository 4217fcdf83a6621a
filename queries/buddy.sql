-- SPDX-License-Identifier: MIT
-- report: buddy
-- help: free blocks of the page allocator per node, zone, order and migratetype (a core dump's /proc/buddyinfo and /proc/pagetypeinfo)
-- source: zones
--
-- The buddy allocator's free lists of a kernel core dump (memdb ingest
-- VMCORE): one row per node, populated zone, order and migratetype, in
-- the kernel's order (zones DMA, DMA32, Normal, ...; migratetypes by
-- their enum value).  blocks is the length of
-- free_area[order].free_list[migratetype]; pages = blocks << order.
-- Summed over migratetypes, blocks is /proc/buddyinfo's column of that
-- order.  flags is 'incomplete' when a list could not be walked to its
-- end (a warning at ingest named it).  Other sources have no rows.
-- The total row sums every row of the selected sources.
--
-- Parameters (sqlite3: .param set :src_lo 1, ...):
--   :src_lo, :src_hi   range of source ids to cover
--   :top               rows to return, -1 for all

SELECT b.node, b.zone, b."order", b.migratetype, b.blocks, b.pages,
       CASE WHEN b.incomplete THEN 'incomplete' END AS flags
FROM buddy b
LEFT JOIN migratetype m ON m.name = b.migratetype
WHERE b.source_id BETWEEN :src_lo AND :src_hi
ORDER BY b.source_id, b.node,
         CASE b.zone WHEN 'DMA' THEN 0 WHEN 'DMA32' THEN 1
                     WHEN 'Normal' THEN 2 WHEN 'HighMem' THEN 3
                     WHEN 'Movable' THEN 4 WHEN 'Device' THEN 5 ELSE 6 END,
         b.zone, b."order", coalesce(m.id, 99), b.migratetype
LIMIT :top;

SELECT 'total' AS node, NULL AS zone, NULL AS "order", NULL AS migratetype,
       coalesce(sum(blocks), 0) AS blocks, coalesce(sum(pages), 0) AS pages,
       NULL AS flags
FROM buddy
WHERE source_id BETWEEN :src_lo AND :src_hi;
