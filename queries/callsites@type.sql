-- SPDX-License-Identifier: MIT
-- report: callsites --by type
-- help: per allocation type (kmalloc, kmem_cache) hits, bytes, waste, ping-pong, live
--
-- As callsites, grouped by allocation type.  Slab allocations only, as in
-- every variant; page allocations have their own figures in summary.
--
-- Parameters: :src_lo, :src_hi, :top, :sort.  Reads site_stats.

WITH r AS (
	SELECT t.name AS type, t.id AS type_id,
	       sum(hits) AS hits, sum(bytes_req) AS bytes_req,
	       sum(bytes_alloc) AS bytes_alloc, sum(freed) AS freed,
	       sum(pingpong) AS pingpong, sum(live) AS live,
	       sum(live_bytes) AS live_bytes,
	       sum(bytes_alloc) - sum(bytes_req) AS waste,
	       CASE WHEN sum(bytes_alloc) = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * sum(bytes_req) / sum(bytes_alloc)
	       END AS frag_pct
	FROM site_stats k JOIN alloc_type t ON t.id = k.type
	WHERE k.source_id BETWEEN :src_lo AND :src_hi AND k.type < 2
	GROUP BY k.type
)
SELECT type, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY CASE :sort WHEN 'hits' THEN hits
                    WHEN 'waste' THEN waste
                    WHEN 'frag' THEN frag_pct
                    WHEN 'pingpong' THEN pingpong
                    WHEN 'live' THEN live_bytes
                    ELSE bytes_alloc END DESC, type_id
LIMIT :top;

SELECT 'total' AS type,
       coalesce(sum(hits), 0) AS hits,
       coalesce(sum(bytes_req), 0) AS bytes_req,
       coalesce(sum(bytes_alloc), 0) AS bytes_alloc,
       CASE WHEN coalesce(sum(hits), 0) = 0 THEN 0
            ELSE sum(bytes_alloc) / sum(hits) END AS avg_alloc,
       coalesce(sum(bytes_alloc) - sum(bytes_req), 0) AS waste,
       CASE WHEN coalesce(sum(bytes_alloc), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * sum(bytes_req) / sum(bytes_alloc)
       END AS frag_pct,
       coalesce(sum(freed), 0) AS freed,
       coalesce(sum(pingpong), 0) AS pingpong,
       coalesce(sum(live), 0) AS live,
       coalesce(sum(live_bytes), 0) AS live_bytes
FROM site_stats
WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2;
