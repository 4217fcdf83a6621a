-- SPDX-License-Identifier: MIT
-- report: callsites
-- help: per call site hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- by: site|cache|type|comm|pid
-- sort: bytes=bytes_alloc|callsite=addr < 0,addr|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
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
-- --sort KEY[,KEY...] orders the rows as perf kmem -s does: by the first
-- key, largest first, then by the next among equals, then by address
-- (perf's keys: callsite = the address, bytes = bytes_alloc, hit =
-- hits, pingpong, frag = frag_pct; --sort frag,hit,bytes is perf kmem
-- --caller's order; also waste, live = live_bytes and the columns).
-- --time, --cache, --site, --pid and --comm count the allocations they
-- select from the alloc rows (per event) instead of site_stats: freed
-- and pingpong only frees up to --time's END, live what is live at END.
-- --by cache and --by type group by cache or allocation type instead
-- (queries callsites@cache.sql and callsites@type.sql); --by comm and
-- --by pid by the task that allocated (callsites@comm.sql, @pid.sql).
--
-- Parameters: :src_lo, :src_hi (source ids), :top (-1 all), :sel (1 when
-- an option selects allocations: @where holds its conditions), :t_hi.
-- Reads site_stats (per call site figures written at ingest), or with
-- :sel the alloc rows of the sources (their rowid ranges).

DROP TABLE IF EXISTS temp.cs_key;
CREATE TEMP TABLE cs_key AS
SELECT a.source_id, a.site_id, count(*) AS hits,
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
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT source_id, site_id, hits, bytes_req, bytes_alloc, freed, pingpong,
       live, live_bytes
FROM site_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2;

WITH per_site AS (
	SELECT v.call_site, v.symbol, v.addr,
	       CAST(total(k.hits) AS INTEGER) AS hits, CAST(total(k.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(k.bytes_alloc) AS INTEGER) AS bytes_alloc, CAST(total(k.freed) AS INTEGER) AS freed,
	       CAST(total(k.pingpong) AS INTEGER) AS pingpong, CAST(total(k.live) AS INTEGER) AS live,
	       CAST(total(k.live_bytes) AS INTEGER) AS live_bytes
	FROM temp.cs_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	GROUP BY v.call_site, v.symbol
), r AS (
	SELECT *, bytes_alloc - bytes_req AS waste,
	       CASE WHEN bytes_alloc = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END AS frag_pct,
	       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc
	FROM per_site
)
SELECT call_site, symbol, hits, bytes_req, bytes_alloc, avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY @sort, addr < 0, addr, symbol
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
FROM temp.cs_key;
