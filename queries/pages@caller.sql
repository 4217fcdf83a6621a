-- SPDX-License-Identifier: MIT
-- report: pages --by caller
-- help: page allocations per caller, order, migratetype and gfp flags
-- source: trace
-- sort: bytes=total_bytes|hit=hits|callsite=caller|order="order"|migtype=mt|gfp=gfp_n|hits|total_alloc_kb
-- sort-default: bytes,hit
-- note: caller: the first frame of the callchain outside the page allocator (perf 6.1 shows every caller at one bogus address)
--
-- The rows and their columns: docs/reports.md, "pages --by caller".

-- The page allocations the options select, failures left out, summed
-- per integer key first (slab_scan's 'page' grouping: stack, size,
-- migratetype, gfp, gfp_id, state), so that the joins, the groups and
-- the total below see a row per key.
DROP TABLE IF EXISTS temp.pc_key;
CREATE TEMP TABLE pc_key AS
SELECT s.id AS source_id, a.rk AS stack_id, a.k2 AS bytes_alloc,
       a.k3 AS migratetype, a.k4 AS gfp, a.k5 AS gfp_id, sum(a.hits) AS hits,
       total(a.bytes_alloc) AS bytes
FROM source s CROSS JOIN @scan(s.id, 'page') a
WHERE s.id BETWEEN :src_lo AND :src_hi AND a.k6 <> 3
GROUP BY 1, 2, 3, 4, 5, 6;

WITH RECURSIVE ord(n) AS (
	SELECT 0 UNION ALL SELECT n + 1 FROM ord WHERE n < 20
), cs AS (
	-- each stack's first frame outside the page allocator: the caller
	-- is read from the row of min(f.pos)
	SELECT f.source_id, f.stack_id, min(f.pos) AS pos,
	       coalesce(y.func || printf('+0x%x', y.off),
	                printf('0x%x', f.addr)) AS caller
	FROM stack_frame f
	LEFT JOIN symbol y ON y.source_id = f.source_id AND y.addr = f.addr
	WHERE f.source_id BETWEEN :src_lo AND :src_hi
	  AND NOT (coalesce(y.func, '') GLOB '*alloc_pages*' OR
	           coalesce(y.func, '') GLOB '*alloc_frozen_pages*' OR
	           coalesce(y.func, '') GLOB '*get_free_page*' OR
	           coalesce(y.func, '') GLOB '*get_zeroed_page*' OR
	           coalesce(y.func, '') GLOB '*folio_alloc*' OR
	           coalesce(y.func, '') GLOB '*alloc_folio*')
	GROUP BY f.source_id, f.stack_id
), r AS (
	SELECT coalesce(cs.caller, '??') AS caller,
	       @isum(k.bytes) / 1024 AS total_alloc_kb,
	       @isum(k.bytes) AS total_bytes,
	       k.migratetype AS mt, k.gfp AS gfp_n,
	       @isum(k.hits) AS hits, ord.n AS "order",
	       coalesce(m.name, k.migratetype) AS migratetype,
	       coalesce(g.text, printf('0x%x', k.gfp)) AS gfp
	FROM temp.pc_key k
	LEFT JOIN ord ON k.bytes_alloc = (4096 << ord.n)
	LEFT JOIN cs ON cs.source_id = k.source_id AND cs.stack_id = k.stack_id
	LEFT JOIN migratetype m ON m.id = k.migratetype
	LEFT JOIN str g ON g.source_id = k.source_id AND g.id = k.gfp_id
	GROUP BY caller, "order", migratetype, gfp
)
SELECT caller, total_alloc_kb, hits, "order", migratetype, gfp
FROM r
ORDER BY @sort, caller, "order", migratetype, gfp
LIMIT :top;

SELECT 'total' AS caller, @isum(bytes) / 1024 AS total_alloc_kb,
       @isum(hits) AS hits, NULL AS "order", NULL AS migratetype, NULL AS gfp
FROM temp.pc_key;
