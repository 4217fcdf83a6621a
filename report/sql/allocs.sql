-- SPDX-License-Identifier: MIT
-- report: allocs
-- help: per allocated address, as perf kmem --alloc: hits, bytes, fragmentation, ping-pong, latest call site
-- source: trace
-- sort: frag=frag_pct|ptr=ptr < 0,ptr|callsite=addr < 0,addr|bytes=bytes_alloc|hit=hits|pingpong|hits|waste|bytes_alloc|bytes_req|frag_pct|freed|live
-- sort-default: frag,hit,bytes
--
-- Slab allocations (kmalloc and kmem_cache), one row per address
-- returned (ptr), perf kmem stat --alloc's figures:
--   hits        ALLOC events that returned the address (failures: 0x0)
--   bytes_req, bytes_alloc, waste, frag_pct  as in callsites
--   freed       of those, ended by a FREE (up to --time's END)
--   pingpong    of those, freed on another CPU than the allocating one
--   live        still live at the end (of the trace, or --time's END)
--   call_site, symbol  the call site of the latest allocation there
-- Rows ordered as perf kmem -s orders them: by default frag,hit,bytes
-- (perf kmem --alloc's default), each key largest first, then by address.
-- Keys: ptr, callsite, bytes (bytes_alloc), hit, pingpong, frag
-- (frag_pct), and the columns.  Figures come from the alloc rows, one
-- per allocation, so --time, --cache, --site, --pid and --comm select
-- the allocations counted.
--
-- Parameters: :src_lo, :src_hi, :top, :t_lo, :t_hi; @where: the
-- selection; :tsel: --time given.  With --time, a source with the
-- slicing index (docs/design.md §3.3) is read only in the blocks of rows
-- whose times reach the window (temp.al_rng: rowid ranges).

DROP TABLE IF EXISTS temp.al_rng;
CREATE TEMP TABLE al_rng AS
SELECT s.alloc_lo + k.blk * m.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * m.block_rows - 1, s.alloc_hi) AS hi
FROM source s JOIN slice_meta m ON m.source_id = s.id
JOIN slice_block k ON k.source_id = s.id
WHERE :tsel AND s.id BETWEEN :src_lo AND :src_hi
  AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
UNION ALL
SELECT s.alloc_lo, s.alloc_hi
FROM source s LEFT JOIN slice_meta m ON m.source_id = s.id
WHERE s.id BETWEEN :src_lo AND :src_hi
  AND (NOT :tsel OR m.source_id IS NULL);

DROP TABLE IF EXISTS temp.al_key;
CREATE TEMP TABLE al_key AS
SELECT a.ptr, count(*) AS hits, max(a.seq) AS last_seq,
       a.source_id AS source_id, a.site_id AS site_id,
       total(a.bytes_req) AS bytes_req, total(a.bytes_alloc) AS bytes_alloc,
       total(a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1)) AS freed,
       total(a.state = 1 AND a.free_cpu <> a.cpu AND
             coalesce(a.end_ts <= :t_hi, 1)) AS pingpong,
       total(a.state = 0 OR (a.state IN (1, 2) AND a.end_ts > :t_hi))
           AS live
FROM temp.al_rng r CROSS JOIN alloc a ON a.id BETWEEN r.lo AND r.hi
WHERE a.type < 2 AND @where
GROUP BY a.ptr;

WITH r AS (
	SELECT k.ptr, v.call_site, v.symbol, v.addr,
	       CAST(k.hits AS INTEGER) AS hits,
	       CAST(k.bytes_req AS INTEGER) AS bytes_req,
	       CAST(k.bytes_alloc AS INTEGER) AS bytes_alloc,
	       CAST(k.bytes_alloc - k.bytes_req AS INTEGER) AS waste,
	       CASE WHEN k.bytes_alloc = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * CAST(k.bytes_req AS INTEGER) /
	                 CAST(k.bytes_alloc AS INTEGER) END AS frag_pct,
	       CAST(k.freed AS INTEGER) AS freed,
	       CAST(k.pingpong AS INTEGER) AS pingpong,
	       CAST(k.live AS INTEGER) AS live
	FROM temp.al_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
)
SELECT printf('0x%x', ptr) AS ptr, hits, bytes_req, bytes_alloc,
       bytes_alloc / hits AS avg_alloc, waste, frag_pct, freed, pingpong,
       live, call_site, symbol
FROM r
ORDER BY @sort, ptr < 0, ptr
LIMIT :top;

SELECT 'total' AS ptr,
       coalesce(CAST(total(hits) AS INTEGER), 0) AS hits,
       coalesce(CAST(total(bytes_req) AS INTEGER), 0) AS bytes_req,
       coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) AS bytes_alloc,
       CASE WHEN coalesce(total(hits), 0) = 0 THEN 0
            ELSE CAST(total(bytes_alloc) AS INTEGER) / CAST(total(hits) AS INTEGER) END AS avg_alloc,
       coalesce(CAST(total(bytes_alloc) - total(bytes_req) AS INTEGER), 0) AS waste,
       CASE WHEN coalesce(total(bytes_alloc), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
       END AS frag_pct,
       coalesce(CAST(total(freed) AS INTEGER), 0) AS freed,
       coalesce(CAST(total(pingpong) AS INTEGER), 0) AS pingpong,
       coalesce(CAST(total(live) AS INTEGER), 0) AS live,
       NULL AS call_site, NULL AS symbol
FROM temp.al_key;
