-- SPDX-License-Identifier: MIT
-- report: allocs
-- help: per allocated address, as perf kmem --alloc: hits, bytes, fragmentation, ping-pong, latest call site
-- source: trace
-- drop: avg_alloc freed waste live bytes_req pingpong call_site
-- sort: frag=frag_pct|ptr=rk_u|callsite=site_u|bytes=bytes_alloc|hit=hits|pingpong|hits|waste|bytes_alloc|bytes_req|frag_pct|freed|live
-- sort-default: frag,hit,bytes
--
-- The rows and their columns: docs/reports.md, "allocs".
--
-- Parameters: :src_lo, :src_hi, :top, @scan's and @sort.
-- Per address, summed by slab_scan.  One source: slab_scan orders its
-- rows itself (the ORDER BY names only its columns; rk_u and site_u are
-- the address and the call site's in unsigned order), so the LIMIT
-- reads only the rows shown.  Several: summed here over them, the
-- latest call site that of the largest position (the row max() picks),
-- ordered by SQL.  Ties in the order of the address as an unsigned
-- number, as perf kmem lists them.  Rows whose call site the source
-- does not know are left out (never in a sound database).
DROP TABLE IF EXISTS temp.al_src;
CREATE TEMP TABLE al_src AS
SELECT id AS sid FROM source
WHERE id BETWEEN :src_lo AND :src_hi AND alloc_lo IS NOT NULL;

DROP TABLE IF EXISTS temp.al_top;
CREATE TEMP TABLE al_top AS
SELECT rk AS ptr, (SELECT sid FROM temp.al_src) AS source_id, site_id,
       hits, bytes_req, bytes_alloc, waste, frag_pct, freed, pingpong, live
FROM @scan((SELECT sid FROM temp.al_src), 'ptr')
WHERE (SELECT count(*) FROM temp.al_src) = 1
  AND EXISTS (SELECT 1 FROM site t WHERE t.source_id =
              (SELECT sid FROM temp.al_src) AND t.id = site_id)
ORDER BY @sort, rk_u
LIMIT :top;

INSERT INTO temp.al_top
WITH k AS (
	SELECT a.rk AS ptr, total(a.hits) AS hits, max(a.last_seq),
	       s.sid AS source_id, a.site_id, total(a.bytes_req) AS bytes_req,
	       total(a.bytes_alloc) AS bytes_alloc, total(a.freed) AS freed,
	       total(a.pingpong) AS pingpong, total(a.live) AS live
	FROM temp.al_src s CROSS JOIN @scan(s.sid, 'ptr') a
	WHERE (SELECT count(*) FROM temp.al_src) > 1
	GROUP BY a.rk
)
SELECT ptr, source_id, site_id, hits, bytes_req, bytes_alloc, waste,
       frag_pct, freed, pingpong, live
FROM (
	SELECT k.*, CAST(k.bytes_alloc - k.bytes_req AS INTEGER) AS waste,
	       @frag(CAST(k.bytes_req AS INTEGER),
	             CAST(k.bytes_alloc AS INTEGER)) AS frag_pct,
	       @unsigned(k.ptr) AS rk_u, @unsigned(t.addr) AS site_u
	FROM k JOIN site t ON t.source_id = k.source_id AND t.id = k.site_id
)
ORDER BY @sort, rk_u
LIMIT :top;

SELECT printf('0x%x', a.ptr) AS ptr, CAST(a.hits AS INTEGER) AS hits,
       CAST(a.bytes_req AS INTEGER) AS bytes_req,
       CAST(a.bytes_alloc AS INTEGER) AS bytes_alloc,
       CAST(a.bytes_alloc AS INTEGER) / CAST(a.hits AS INTEGER) AS avg_alloc,
       a.waste, a.frag_pct, CAST(a.freed AS INTEGER) AS freed,
       CAST(a.pingpong AS INTEGER) AS pingpong,
       CAST(a.live AS INTEGER) AS live, v.call_site, v.symbol
FROM temp.al_top a
JOIN v_sites v ON v.source_id = a.source_id AND v.site_id = a.site_id
ORDER BY a.rowid;

-- The total: the same sums, as one group ('all': slab_scan keeps it
-- from the scan per address above).
SELECT 'total' AS ptr, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       waste, @frag(bytes_req, bytes_alloc) AS frag_pct, freed, pingpong,
       live, NULL AS call_site, NULL AS symbol
FROM (SELECT @isum(hits) AS hits, @isum(bytes_req) AS bytes_req,
             @isum(bytes_alloc) AS bytes_alloc,
             coalesce(CAST(total(bytes_alloc) - total(bytes_req)
                           AS INTEGER), 0) AS waste,
             @isum(freed) AS freed, @isum(pingpong) AS pingpong,
             @isum(live) AS live
      FROM temp.al_src s CROSS JOIN @scan(s.sid, 'all') a);
