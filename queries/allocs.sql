-- SPDX-License-Identifier: MIT
-- report: allocs
-- help: per allocated address, as perf kmem --alloc: hits, bytes, fragmentation, ping-pong, latest call site
-- source: trace
-- drop: avg_alloc freed waste live bytes_req pingpong call_site
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
-- (frag_pct), and the columns.  --time, --cache, --site, --pid and
-- --comm select the allocations counted.
--
-- Parameters: :src_lo, :src_hi, :top, :tsel (--time given), :t_lo,
-- :t_hi (without --time the whole trace), :given_pid, :pid, :comm,
-- :cache, :site; @sort.

-- Per address, summed by slab_scan over each source's blocks
-- (report/scan.c), then over the sources when there are several (one
-- source's rows are one per address already); the latest call site is
-- that of the largest position (the row max() picks).  Two statements,
-- of which one runs: a common table read by both arms of a UNION would
-- be copied once more.
DROP TABLE IF EXISTS temp.al_src;
CREATE TEMP TABLE al_src AS
SELECT id AS sid FROM source
WHERE id BETWEEN :src_lo AND :src_hi AND alloc_lo IS NOT NULL;

DROP TABLE IF EXISTS temp.al_key;
CREATE TEMP TABLE al_key AS
SELECT a.rk AS ptr, a.hits, a.last_seq, s.sid AS source_id, a.site_id,
       a.bytes_req, a.bytes_alloc, a.freed, a.pingpong, a.live
FROM temp.al_src s
CROSS JOIN slab_scan(s.sid, 'ptr', :tsel, :t_lo, :t_hi,
                     CASE WHEN :given_pid THEN :pid END, :comm,
                     :cache, :site) a
WHERE (SELECT count(*) FROM temp.al_src) = 1;

INSERT INTO temp.al_key
SELECT a.rk, total(a.hits), max(a.last_seq), s.sid, a.site_id,
       total(a.bytes_req), total(a.bytes_alloc), total(a.freed),
       total(a.pingpong), total(a.live)
FROM temp.al_src s
CROSS JOIN slab_scan(s.sid, 'ptr', :tsel, :t_lo, :t_hi,
                     CASE WHEN :given_pid THEN :pid END, :comm,
                     :cache, :site) a
WHERE (SELECT count(*) FROM temp.al_src) > 1
GROUP BY a.rk;

-- The rows shown, in order (rowid), then named and the address made
-- text (text made for every address costs more than the sort).  Equal
-- rows in the order of their address as an unsigned number, as perf
-- kmem lists them (it sorts its per-address tree, walked in address
-- order, keeping equal ones as they come).
DROP TABLE IF EXISTS temp.al_top;
CREATE TEMP TABLE al_top AS
WITH r AS (
	SELECT k.ptr, k.source_id, k.site_id, t.addr,
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
	JOIN site t ON t.source_id = k.source_id AND t.id = k.site_id
)
SELECT * FROM r
ORDER BY @sort, ptr < 0, ptr
LIMIT :top;

SELECT printf('0x%x', a.ptr) AS ptr, a.hits, a.bytes_req, a.bytes_alloc,
       a.bytes_alloc / a.hits AS avg_alloc, a.waste, a.frag_pct, a.freed,
       a.pingpong, a.live, v.call_site, v.symbol
FROM temp.al_top a
JOIN v_sites v ON v.source_id = a.source_id AND v.site_id = a.site_id
ORDER BY a.rowid;

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
