-- SPDX-License-Identifier: MIT
-- report: callsites --by cache
-- help: per cache hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- As callsites, grouped by cache.  The cache is the name the trace gives
-- (ftrace name=); where it gives none, kmalloc objects are put in the
-- kmalloc cache of their size class ('kmalloc-64'; above 8192 bytes
-- 'kmalloc-large', served by the page allocator) and kmem_cache objects
-- in 'cache-<object size>'.  Ties by name.
--
-- --time and the filters (--cache, --site, --pid, --comm) count the
-- allocations they select, from the alloc rows, as in callsites.
--
-- Parameters: :src_lo, :src_hi, :top, :sel, :t_hi; @where, @sort.
-- Reads cache_stats, or with :sel the alloc rows.

DROP TABLE IF EXISTS temp.ca_key;
CREATE TEMP TABLE ca_key AS
SELECT a.source_id, a.type, coalesce(a.cache_id, 0) AS cache_id,
       a.bytes_alloc AS obj_size, count(*) AS hits,
       total(a.bytes_req) AS bytes_req, total(a.bytes_alloc) AS bytes_alloc,
       total(a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1)) AS freed,
       total(a.state = 1 AND a.free_cpu <> a.cpu AND
             coalesce(a.end_ts <= :t_hi, 1)) AS pingpong,
       total(a.state = 0 OR (a.state IN (1, 2) AND a.end_ts > :t_hi))
           AS live,
       total(CASE WHEN a.state = 0 OR (a.state IN (1, 2) AND
                                       a.end_ts > :t_hi)
                  THEN a.bytes_alloc END) AS live_bytes
FROM source s JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
WHERE :sel AND s.id BETWEEN :src_lo AND :src_hi AND a.type < 2 AND @where
GROUP BY a.source_id, a.type, 3, a.bytes_alloc
UNION ALL
SELECT source_id, type, cache_id, obj_size, hits, bytes_req, bytes_alloc, freed,
       pingpong, live, live_bytes
FROM cache_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2;

WITH named AS (
	SELECT coalesce(s.text,
	                CASE WHEN c.type = 1 THEN 'cache-' || c.obj_size
	                     WHEN c.obj_size > 8192 THEN 'kmalloc-large'
	                     ELSE 'kmalloc-' || c.obj_size END) AS cache,
	       c.*
	FROM temp.ca_key c
	LEFT JOIN str s ON s.source_id = c.source_id AND s.id = c.cache_id
), r AS (
	SELECT cache, CAST(total(hits) AS INTEGER) AS hits, CAST(total(bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(bytes_alloc) AS INTEGER) AS bytes_alloc, CAST(total(freed) AS INTEGER) AS freed,
	       CAST(total(pingpong) AS INTEGER) AS pingpong, CAST(total(live) AS INTEGER) AS live,
	       CAST(total(live_bytes) AS INTEGER) AS live_bytes,
	       CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER) AS waste,
	       CASE WHEN CAST(total(bytes_alloc) AS INTEGER) = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
	       END AS frag_pct
	FROM named GROUP BY cache
)
SELECT cache, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY @sort, cache
LIMIT :top;

SELECT 'total' AS cache,
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
FROM temp.ca_key;
