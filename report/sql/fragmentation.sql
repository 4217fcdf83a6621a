-- SPDX-License-Identifier: MIT
-- report: fragmentation
-- help: per call site hits, bytes requested and allocated, waste and fragmentation %, by waste
-- source: trace
--
-- Slab allocations only (kmalloc and kmem_cache); page allocations have
-- figures of their own.  The figures are perf kmem stat --caller's:
--   hits      ALLOC events (NULL and ZERO_SIZE_PTR results included)
--   waste     bytes_alloc - bytes_req
--   frag_pct  100 - 100 * bytes_req / bytes_alloc  (0 when nothing allocated)
-- Rows sorted by waste, ties by address.  The total row covers every call
-- site of the selected sources, not only the rows shown.
--
-- Parameters (sqlite3: .param set :src_lo 1, ...):
--   :src_lo, :src_hi   range of source ids to cover
--   :top               rows to return, -1 for all
-- Reads site_stats, the per call site aggregates written at ingest.

WITH per_site AS (
	SELECT v.call_site, v.symbol, v.addr,
	       CAST(total(k.hits) AS INTEGER) AS hits,
	       CAST(total(k.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(k.bytes_alloc) AS INTEGER) AS bytes_alloc
	FROM site_stats k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	WHERE k.source_id BETWEEN :src_lo AND :src_hi AND k.type < 2
	GROUP BY v.call_site, v.symbol
)
SELECT call_site, symbol, hits, bytes_req, bytes_alloc,
       bytes_alloc - bytes_req AS waste,
       CASE WHEN bytes_alloc = 0 THEN 0.0
            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END AS frag_pct
FROM per_site
ORDER BY waste DESC, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
       coalesce(CAST(total(hits) AS INTEGER), 0) AS hits,
       coalesce(CAST(total(bytes_req) AS INTEGER), 0) AS bytes_req,
       coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) AS bytes_alloc,
       coalesce(CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER), 0) AS waste,
       CASE WHEN coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
       END AS frag_pct
FROM site_stats
WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2;
