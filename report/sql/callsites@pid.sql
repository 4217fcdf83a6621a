-- SPDX-License-Identifier: MIT
-- report: callsites --by pid
-- help: per task id (pid) hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- As callsites, grouped by task id (pid): the kernel's task id (a thread: perf's tid, ftrace's pid,
-- tracefs common_pid).
-- Slab allocations only, as in every variant.  Captures that name no task
-- give one row with an empty pid.
--
-- --time and the filters (--cache, --site, --pid, --comm) select the
-- allocations counted, as in callsites.
--
-- Parameters: :src_lo, :src_hi, :top, :t_hi; @where, @sort.  Reads alloc (the rowid
-- range of each source).

WITH src AS (
	SELECT id, alloc_lo, alloc_hi FROM source
	WHERE id BETWEEN :src_lo AND :src_hi AND alloc_lo IS NOT NULL
), per AS (
	SELECT a.pid AS pid, count(*) AS hits,
	       CAST(total(a.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(a.bytes_alloc) AS INTEGER) AS bytes_alloc,
	       CAST(total(a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1))
	            AS INTEGER) AS freed,
	       CAST(total(a.state = 1 AND a.free_cpu <> a.cpu AND
	                  coalesce(a.end_ts <= :t_hi, 1)) AS INTEGER)
	           AS pingpong,
	       CAST(total(a.state = 0 OR (a.state IN (1, 2) AND
	                                  a.end_ts > :t_hi)) AS INTEGER) AS live,
	       CAST(total(CASE WHEN a.state = 0 OR (a.state IN (1, 2) AND
	                                            a.end_ts > :t_hi)
	                       THEN a.bytes_alloc END) AS INTEGER) AS live_bytes
	FROM src JOIN alloc a ON a.id BETWEEN src.alloc_lo AND src.alloc_hi
	
	WHERE a.type < 2 AND @where
	GROUP BY 1
), r AS (
	SELECT *, bytes_alloc - bytes_req AS waste,
	       CASE WHEN bytes_alloc = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END AS frag_pct
	FROM per
)
SELECT pid, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, frag_pct, freed, pingpong, live, live_bytes
FROM r
ORDER BY @sort, pid
LIMIT :top;

SELECT 'total' AS pid, coalesce(sum(hits), 0) AS hits,
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
FROM (
	SELECT count(*) AS hits,
	       CAST(total(a.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(a.bytes_alloc) AS INTEGER) AS bytes_alloc,
	       CAST(total(a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1))
	            AS INTEGER) AS freed,
	       CAST(total(a.state = 1 AND a.free_cpu <> a.cpu AND
	                  coalesce(a.end_ts <= :t_hi, 1)) AS INTEGER)
	           AS pingpong,
	       CAST(total(a.state = 0 OR (a.state IN (1, 2) AND
	                                  a.end_ts > :t_hi)) AS INTEGER) AS live,
	       CAST(total(CASE WHEN a.state = 0 OR (a.state IN (1, 2) AND
	                                            a.end_ts > :t_hi)
	                       THEN a.bytes_alloc END) AS INTEGER) AS live_bytes
	FROM source s JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
	WHERE s.id BETWEEN :src_lo AND :src_hi AND a.type < 2 AND @where
);
