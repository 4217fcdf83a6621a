-- SPDX-License-Identifier: MIT
-- report: callsites
-- help: per call site hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- by: site|cache|type|comm|pid
-- sort: bytes|hits|waste|frag|pingpong|live
--
-- Slab allocations (kmalloc and kmem_cache), one row per call site, the
-- columns of perf kmem stat --caller plus what a trace also tells:
--   hits        ALLOC events at the site
--   avg_alloc   bytes_alloc / hits
--   waste       bytes_alloc - bytes_req
--   frag_pct    100 - 100 * bytes_req / bytes_alloc
--   freed       allocations ended by a FREE
--   pingpong    of those, freed on another CPU than the allocating one
--   live        allocations still live at the end of the trace
-- --sort picks the column rows are ordered by, largest first (bytes =
-- bytes_alloc, as perf kmem's sort key 'bytes'); ties by address.
-- --by cache and --by type group by cache or allocation type instead
-- (queries callsites@cache.sql and callsites@type.sql); --by comm and
-- --by pid by the task that allocated (callsites@comm.sql, @pid.sql).
--
-- Parameters: :src_lo, :src_hi (source ids), :top (-1 all), :sort.
-- Reads site_stats (per call site figures written at ingest).

WITH per_site AS (
	SELECT v.call_site, v.symbol, v.addr,
	       CAST(total(k.hits) AS INTEGER) AS hits, CAST(total(k.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(k.bytes_alloc) AS INTEGER) AS bytes_alloc, CAST(total(k.freed) AS INTEGER) AS freed,
	       CAST(total(k.pingpong) AS INTEGER) AS pingpong, CAST(total(k.live) AS INTEGER) AS live,
	       CAST(total(k.live_bytes) AS INTEGER) AS live_bytes
	FROM site_stats k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	WHERE k.source_id BETWEEN :src_lo AND :src_hi AND k.type < 2
	GROUP BY v.call_site, v.symbol
), r AS (
	SELECT *, bytes_alloc - bytes_req AS waste,
	       CASE WHEN bytes_alloc = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END AS frag_pct
	FROM per_site
)
SELECT call_site, symbol, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY CASE :sort WHEN 'hits' THEN hits
                    WHEN 'waste' THEN waste
                    WHEN 'frag' THEN frag_pct
                    WHEN 'pingpong' THEN pingpong
                    WHEN 'live' THEN live_bytes
                    ELSE bytes_alloc END DESC,
         addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
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
