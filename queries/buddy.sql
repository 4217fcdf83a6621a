-- SPDX-License-Identifier: MIT
-- report: buddy
-- help: free blocks of the page allocator per node, zone, order and migratetype (a core dump's /proc/buddyinfo and /proc/pagetypeinfo)
-- source: zones
--
-- The rows and their columns: docs/reports.md, "buddy".

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
FROM buddy WHERE source_id BETWEEN :src_lo AND :src_hi;
