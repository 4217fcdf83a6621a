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
-- (frag_pct), and the columns.  Figures come from the alloc rows, one
-- per allocation (or with --time alone the slicing index's per-address
-- rows), so --time, --cache, --site, --pid and --comm select the
-- allocations counted.
--
-- Parameters: :src_lo, :src_hi, :top, :t_lo, :t_hi; @where: the
-- selection; :tsel: --time given, :fsel: another selection.  Without
-- --time the window is the whole trace (:t_lo, :t_hi the extremes).  A
-- source with the slicing index (docs/design.md §3.3) is read in one of
-- three ways (temp.al_src: use_ptr, use_col).  With --time alone or no
-- option, slice_ptr (db/schema-7.sql, slice_meta.level 7: large
-- sources) and a window holding a whole bucket: the window's whole
-- buckets [b1, b2] from slice_ptr, two seeks per address, then the alloc
-- rows of the blocks the window's edges fall in (temp.al_blk), as
-- callsites reads them: those outside the buckets
-- count whole, those inside ended after END take back their freed and
-- pingpong and count as live.  Else, for a source with packed columns
-- (db/schema-8.sql, large sources: use_col), the table-valued function
-- slab_scan over them; else only the blocks of rows whose times reach
-- the window (temp.al_rng: rowid ranges).  temp.al_key holds the
-- figures per address; the latest call site is that of the largest
-- position (last_seq).

DROP TABLE IF EXISTS temp.al_src;
CREATE TEMP TABLE al_src (sid INTEGER PRIMARY KEY, alloc_lo, alloc_hi,
			  block_rows, use_ptr, b1, b2, ilo, ihi, use_col);
INSERT INTO al_src
WITH m AS (
	SELECT s.id AS sid, s.alloc_lo, s.alloc_hi, m.block_rows, m.width,
	       m.level, m.col_lo,
	       (min(max(:t_lo, 0), m.max_ts + 1) + m.width - 1) / m.width
	           AS b1,
	       (min(:t_hi, m.max_ts) + 1) / m.width - 1 AS b2
	FROM source s LEFT JOIN slice_meta m ON m.source_id = s.id
	WHERE s.id BETWEEN :src_lo AND :src_hi
), u AS (
	-- a window without a whole bucket reads its rows as before; no
	-- --time at all is the window (,): an indexed source's rows all
	-- have times (db/schema-5.sql)
	SELECT *, coalesce(NOT :fsel AND level >= 7 AND b1 <= b2, 0)
	          AS use_ptr
	FROM m
)
SELECT sid, alloc_lo, alloc_hi, block_rows, use_ptr,
       CASE WHEN use_ptr THEN b1 ELSE 1 END AS b1,
       CASE WHEN use_ptr THEN b2 ELSE 0 END AS b2,
       CASE WHEN use_ptr THEN b1 * width ELSE 1 END AS ilo,
       CASE WHEN use_ptr THEN (b2 + 1) * width - 1 ELSE 0 END AS ihi,
       coalesce(:sel AND NOT use_ptr AND col_lo IS NOT NULL, 0) AS use_col
FROM u;

DROP TABLE IF EXISTS temp.al_rng;
CREATE TEMP TABLE al_rng AS
SELECT s.alloc_lo + k.blk * s.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * s.block_rows - 1, s.alloc_hi) AS hi
FROM temp.al_src s CROSS JOIN slice_block k ON k.source_id = s.sid
WHERE :tsel AND NOT s.use_ptr AND NOT s.use_col
  AND s.block_rows IS NOT NULL
  AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
UNION ALL
SELECT alloc_lo, alloc_hi
FROM temp.al_src
WHERE NOT use_ptr AND NOT use_col AND (NOT :tsel OR block_rows IS NULL);

DROP TABLE IF EXISTS temp.al_blk;
CREATE TEMP TABLE al_blk AS
SELECT s.alloc_lo + k.blk * s.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * s.block_rows - 1, s.alloc_hi) AS hi,
       s.ilo, s.ihi
FROM temp.al_src s CROSS JOIN slice_block k ON k.source_id = s.sid
WHERE s.use_ptr AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
  AND NOT (k.min_ts >= s.ilo AND k.max_ts <= s.ihi AND
           coalesce(k.max_end <= :t_hi, 1));

DROP TABLE IF EXISTS temp.al_key;
CREATE TEMP TABLE al_key (ptr INTEGER PRIMARY KEY, hits, last_seq,
			  source_id, site_id, bytes_req, bytes_alloc, freed,
			  pingpong, live);

-- The alloc rows the ranges hold, per address, and the sources with
-- packed columns (db/schema-8.sql: use_col) summed per address in C by
-- slab_scan (report/scan.c) alike; the latest call site is that of the
-- largest position (the row max() picks).
INSERT INTO al_key (ptr, hits, last_seq, source_id, site_id, bytes_req,
		    bytes_alloc, freed, pingpong, live)
SELECT ptr, total(hits), max(last_seq), source_id, site_id,
       total(bytes_req), total(bytes_alloc), total(freed), total(pingpong),
       total(live)
FROM (
	SELECT a.ptr, count(*) AS hits, max(a.seq) AS last_seq,
	       a.source_id, a.site_id, total(a.bytes_req) AS bytes_req,
	       total(a.bytes_alloc) AS bytes_alloc,
	       total(a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1))
	           AS freed,
	       total(a.state = 1 AND a.free_cpu <> a.cpu AND
	             coalesce(a.end_ts <= :t_hi, 1)) AS pingpong,
	       total(a.state = 0 OR (a.state IN (1, 2) AND
	                             a.end_ts > :t_hi)) AS live
	FROM temp.al_rng r CROSS JOIN alloc a ON a.id BETWEEN r.lo AND r.hi
	WHERE a.type < 2 AND @where
	GROUP BY a.ptr
	UNION ALL
	SELECT a.rk, a.hits, a.last_seq, s.sid, a.site_id, a.bytes_req,
	       a.bytes_alloc, a.freed, a.pingpong, a.live
	FROM temp.al_src s
	CROSS JOIN slab_scan(s.sid, 'ptr', :tsel, :t_lo, :t_hi,
	                     CASE WHEN :given_pid THEN :pid END, :comm,
	                     :cache, :site) a
	WHERE s.use_col
)
GROUP BY ptr;

-- the whole buckets: per address (al_ptr, each a seek), the row of its
-- largest bucket up to b2 less that of its largest before b1 (slice_ptr
-- sums the figures over an address's buckets)
DROP TABLE IF EXISTS temp.al_ptr;
CREATE TEMP TABLE al_ptr (sid, ptr, PRIMARY KEY (sid, ptr)) WITHOUT ROWID;
INSERT INTO al_ptr
WITH RECURSIVE d(sid, ptr) AS (
	SELECT sid, (SELECT min(p.ptr) FROM slice_ptr p
	             WHERE p.source_id = s.sid)
	FROM temp.al_src s WHERE use_ptr AND b1 <= b2
	UNION ALL
	SELECT sid, (SELECT min(p.ptr) FROM slice_ptr p
	             WHERE p.source_id = d.sid AND p.ptr > d.ptr)
	FROM d WHERE d.ptr IS NOT NULL
)
SELECT sid, ptr FROM d WHERE ptr IS NOT NULL;

INSERT INTO al_key (ptr, hits, last_seq, source_id, site_id, bytes_req,
		    bytes_alloc, freed, pingpong, live)
SELECT d.ptr, h.hits - coalesce(l.hits, 0), h.last_seq, s.sid, h.site_id,
       h.bytes_req - coalesce(l.bytes_req, 0),
       h.bytes_alloc - coalesce(l.bytes_alloc, 0),
       h.freed - coalesce(l.freed, 0),
       h.pingpong - coalesce(l.pingpong, 0), h.live - coalesce(l.live, 0)
FROM temp.al_src s CROSS JOIN temp.al_ptr d ON d.sid = s.sid
CROSS JOIN slice_ptr h ON h.source_id = s.sid AND h.ptr = d.ptr
	AND h.bucket = (SELECT max(x.bucket) FROM slice_ptr x
	                WHERE x.source_id = s.sid AND x.ptr = d.ptr
	                  AND x.bucket <= s.b2)
LEFT JOIN slice_ptr l ON l.source_id = s.sid AND l.ptr = d.ptr
	AND l.bucket = (SELECT max(x.bucket) FROM slice_ptr x
	                WHERE x.source_id = s.sid AND x.ptr = d.ptr
	                  AND x.bucket < s.b1)
WHERE s.use_ptr AND h.bucket >= s.b1
ON CONFLICT (ptr) DO UPDATE SET
	hits = hits + excluded.hits,
	source_id = CASE WHEN excluded.last_seq > last_seq
	                 THEN excluded.source_id ELSE source_id END,
	site_id = CASE WHEN excluded.last_seq > last_seq
	               THEN excluded.site_id ELSE site_id END,
	last_seq = max(last_seq, excluded.last_seq),
	bytes_req = bytes_req + excluded.bytes_req,
	bytes_alloc = bytes_alloc + excluded.bytes_alloc,
	freed = freed + excluded.freed,
	pingpong = pingpong + excluded.pingpong,
	live = live + excluded.live;

-- the edges' alloc rows, summed per address first (one UPSERT per
-- address, not per row): those outside the whole buckets count whole
-- (nearly all the rows read: two statements keep each one's sums
-- simple), those inside ended after END take back the freed and
-- pingpong the buckets counted and count as live
INSERT INTO al_key (ptr, hits, last_seq, source_id, site_id, bytes_req,
		    bytes_alloc, freed, pingpong, live)
SELECT a.ptr, count(*), max(a.seq), a.source_id, a.site_id,
       total(a.bytes_req), total(a.bytes_alloc),
       total(a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1)),
       total(a.state = 1 AND a.free_cpu <> a.cpu AND
             coalesce(a.end_ts <= :t_hi, 1)),
       total(a.state = 0 OR (a.state IN (1, 2) AND a.end_ts > :t_hi))
FROM temp.al_blk b
CROSS JOIN alloc a ON a.id BETWEEN b.lo AND b.hi
WHERE a.type < 2 AND a.ts BETWEEN :t_lo AND :t_hi
  AND NOT a.ts BETWEEN b.ilo AND b.ihi
GROUP BY a.ptr
ON CONFLICT (ptr) DO UPDATE SET
	hits = hits + excluded.hits,
	source_id = CASE WHEN excluded.last_seq > last_seq
	                 THEN excluded.source_id ELSE source_id END,
	site_id = CASE WHEN excluded.last_seq > last_seq
	               THEN excluded.site_id ELSE site_id END,
	last_seq = max(last_seq, excluded.last_seq),
	bytes_req = bytes_req + excluded.bytes_req,
	bytes_alloc = bytes_alloc + excluded.bytes_alloc,
	freed = freed + excluded.freed,
	pingpong = pingpong + excluded.pingpong,
	live = live + excluded.live;

INSERT INTO al_key (ptr, hits, last_seq, source_id, site_id, bytes_req,
		    bytes_alloc, freed, pingpong, live)
SELECT a.ptr, 0, max(a.seq), a.source_id, a.site_id, 0, 0,
       -total(a.state = 1), -total(a.state = 1 AND a.free_cpu <> a.cpu),
       count(*)
FROM temp.al_blk b
CROSS JOIN alloc a ON a.id BETWEEN b.lo AND b.hi
WHERE a.type < 2 AND a.ts BETWEEN :t_lo AND :t_hi
  AND a.ts BETWEEN b.ilo AND b.ihi AND +a.state IN (1, 2)
  AND a.end_ts > :t_hi
GROUP BY a.ptr
ON CONFLICT (ptr) DO UPDATE SET
	hits = hits + excluded.hits,
	source_id = CASE WHEN excluded.last_seq > last_seq
	                 THEN excluded.source_id ELSE source_id END,
	site_id = CASE WHEN excluded.last_seq > last_seq
	               THEN excluded.site_id ELSE site_id END,
	last_seq = max(last_seq, excluded.last_seq),
	bytes_req = bytes_req + excluded.bytes_req,
	bytes_alloc = bytes_alloc + excluded.bytes_alloc,
	freed = freed + excluded.freed,
	pingpong = pingpong + excluded.pingpong,
	live = live + excluded.live;

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
