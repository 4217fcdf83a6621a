-- SPDX-License-Identifier: MIT
-- report: callsites --by cache
-- help: per cache hits, bytes, average, waste, fragmentation, ping-pong, live at end
--
-- As callsites, grouped by cache.  The cache is the name the trace gives
-- (ftrace name=); where it gives none, kmalloc objects are put in the
-- kmalloc cache of their size class ('kmalloc-64'; above 8192 bytes
-- 'kmalloc-large', served by the page allocator) and kmem_cache objects
-- in 'cache-<object size>'.  Ties by name.
--
-- Parameters: :src_lo, :src_hi, :top, :sort.  Reads cache_stats.

WITH named AS (
	SELECT coalesce(s.text,
	                CASE WHEN c.type = 1 THEN 'cache-' || c.obj_size
	                     WHEN c.obj_size > 8192 THEN 'kmalloc-large'
	                     ELSE 'kmalloc-' || c.obj_size END) AS cache,
	       c.*
	FROM cache_stats c
	LEFT JOIN str s ON s.source_id = c.source_id AND s.id = c.cache_id
	WHERE c.source_id BETWEEN :src_lo AND :src_hi AND c.type < 2
), r AS (
	SELECT cache, sum(hits) AS hits, sum(bytes_req) AS bytes_req,
	       sum(bytes_alloc) AS bytes_alloc, sum(freed) AS freed,
	       sum(pingpong) AS pingpong, sum(live) AS live,
	       sum(live_bytes) AS live_bytes,
	       sum(bytes_alloc) - sum(bytes_req) AS waste,
	       CASE WHEN sum(bytes_alloc) = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * sum(bytes_req) / sum(bytes_alloc)
	       END AS frag_pct
	FROM named GROUP BY cache
)
SELECT cache, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY CASE :sort WHEN 'hits' THEN hits
                    WHEN 'waste' THEN waste
                    WHEN 'frag' THEN frag_pct
                    WHEN 'pingpong' THEN pingpong
                    WHEN 'live' THEN live_bytes
                    ELSE bytes_alloc END DESC, cache
LIMIT :top;

SELECT 'total' AS cache,
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
FROM cache_stats
WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2;
