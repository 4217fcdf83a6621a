-- SPDX-License-Identifier: MIT
-- report: callsites --by type
-- help: per allocation type (kmalloc, kmem_cache) hits, bytes, waste, ping-pong, live
-- source: trace
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- As callsites, grouped by allocation type.  Slab allocations only, as in
-- every variant; page allocations have their own figures in summary.
--
-- Parameters: :src_lo, :src_hi, :top, :sort.  Reads site_stats.

WITH r AS (
	SELECT t.name AS type, t.id AS type_id,
	       CAST(total(hits) AS INTEGER) AS hits, CAST(total(bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(bytes_alloc) AS INTEGER) AS bytes_alloc, CAST(total(freed) AS INTEGER) AS freed,
	       CAST(total(pingpong) AS INTEGER) AS pingpong, CAST(total(live) AS INTEGER) AS live,
	       CAST(total(live_bytes) AS INTEGER) AS live_bytes,
	       CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER) AS waste,
	       CASE WHEN CAST(total(bytes_alloc) AS INTEGER) = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
	       END AS frag_pct
	FROM site_stats k JOIN alloc_type t ON t.id = k.type
	WHERE k.source_id BETWEEN :src_lo AND :src_hi AND k.type < 2
	GROUP BY k.type
)
SELECT type, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY @sort, type_id
LIMIT :top;

SELECT 'total' AS type,
       coalesce(CAST(total(hits) AS INTEGER), 0) AS hits,
       coalesce(CAST(total(bytes_req) AS INTEGER), 0) AS bytes_req,
       coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) AS bytes_alloc,
       CASE WHEN coalesce(CAST(total(hits) AS INTEGER), 0) = 0 THEN 0
            ELSE CAST(total(bytes_alloc) AS INTEGER) / CAST(total(hits) AS INTEGER) END AS avg_alloc,
       coalesce(CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER), 0) AS waste,
       CASE WHEN coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
       END AS frag_pct,
       coalesce(CAST(total(freed) AS INTEGER), 0) AS freed,
       coalesce(CAST(total(pingpong) AS INTEGER), 0) AS pingpong,
       coalesce(CAST(total(live) AS INTEGER), 0) AS live,
       coalesce(CAST(total(live_bytes) AS INTEGER), 0) AS live_bytes
FROM site_stats
WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2;
