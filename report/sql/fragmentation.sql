-- SPDX-License-Identifier: MIT
-- report: fragmentation
-- help: per call site hits, bytes requested and allocated, waste and fragmentation %, by waste
-- source: trace
-- drop: bytes_req hits
-- sort: waste|callsite=addr < 0,addr|bytes=bytes_alloc|hit=hits|frag=frag_pct|hits|bytes_alloc|bytes_req|frag_pct
--
-- Slab allocations only (kmalloc and kmem_cache); page allocations have
-- figures of their own.  The figures are perf kmem stat --caller's:
--   hits      ALLOC events (NULL and ZERO_SIZE_PTR results included)
--   waste     bytes_alloc - bytes_req
--   frag_pct  100 - 100 * bytes_req / bytes_alloc  (0 when nothing allocated)
-- Rows sorted by waste (--sort KEY[,KEY...]: perf kmem's keys callsite,
-- bytes, hit, frag, or the columns; --sort frag,hit,bytes is perf kmem
-- --caller's order), ties by address.  --time and the filters (--cache,
-- --site, --pid, --comm) count the allocations they select, from the
-- alloc rows.  The total row covers every call
-- site of the selected sources, not only the rows shown.
--
-- Parameters (sqlite3: .param set :src_lo 1, ...):
--   :src_lo, :src_hi   range of source ids to cover
--   :top               rows to return, -1 for all
--   :sel, :tsel, :fsel, :t_lo, :t_hi, @where, @fwhere, @sort  the
--                      selection and the order (callsites.sql)
-- Reads site_stats, the per call site aggregates written at ingest, or
-- with :sel the slicing index (callsites.sql) and the alloc rows it
-- points to, or the alloc rows of sources ingested before it.

-- The slicing index, as in callsites.sql (whose comment tells the modes;
-- with --pid the wider buckets of slice_bucket_pid, db/schema-7.sql, in
-- a source that has them; no bucket with --comm and --cache; 'col', a
-- source's packed columns, db/schema-8.sql, for what 'win' and 'raw'
-- would read).
DROP TABLE IF EXISTS temp.sl_src;
DROP TABLE IF EXISTS temp.sl_blk;
CREATE TEMP TABLE sl_src AS
WITH m AS (
	SELECT s.id AS sid, s.alloc_lo, s.alloc_hi, m.block_rows,
	       m.bw AS width,
	       m.bucket_lo, m.bucket_hi, m.key_lo, m.key_hi, m.pid_lo,
	       m.pid_hi, m.level, m.bcomm_lo, m.bcomm_hi, m.bpid_lo,
	       m.bpid_hi, coalesce(m.pw, 0) AS pw,
	       CASE WHEN m.source_id IS NULL THEN 'raw'
	            WHEN :tsel AND NOT coalesce(m.min_ts >= :t_lo AND
	                 max(m.max_ts, coalesce(m.max_end, m.max_ts))
	                 <= :t_hi, 0)
	                 THEN CASE WHEN m.col_lo IS NULL THEN 'win'
	                           ELSE 'col' END
	            WHEN :given_pid AND NOT :given_cache AND NOT :given_comm
	                 THEN 'pid'
	            WHEN NOT :given_pid THEN 'key'
	            WHEN m.col_lo IS NOT NULL THEN 'col'
	            ELSE 'raw' END AS mode,
	       (min(max(:t_lo, 0), m.max_ts + 1) + m.bw - 1) / m.bw
	           AS b1,
	       (min(:t_hi, m.max_ts) + 1) / m.bw - 1 AS b2
	FROM source s LEFT JOIN (
		-- slice_bucket_comm's buckets are 2^bcomm_shift of
		-- slice_bucket's (db/schema-6.sql), slice_bucket_pid's
		-- 2^bpid_shift (db/schema-7.sql)
		SELECT *, width << bshift AS bw FROM (
			SELECT *, CASE WHEN :given_comm
			               THEN coalesce(bcomm_shift, 0)
			               WHEN pw THEN bpid_shift
			               ELSE 0 END AS bshift
			FROM (SELECT *, coalesce(level >= 7 AND :given_pid AND
			                NOT :given_cache AND NOT :given_comm,
			                0) AS pw
			      FROM slice_meta))) m ON m.source_id = s.id
	WHERE s.id BETWEEN :src_lo AND :src_hi
), w AS (
	SELECT *, coalesce(CASE WHEN pw THEN b1 <= b2 ELSE
	                   NOT :given_pid AND
	                   (NOT :given_comm OR (level >= 6 AND
	                                        NOT :given_cache)) AND
	                   b1 <= b2 END, 0) AS inner
	FROM m
)
SELECT sid, alloc_lo, alloc_hi, block_rows, bucket_lo, bucket_hi, key_lo,
       key_hi, pid_lo, pid_hi, bcomm_lo, bcomm_hi, bpid_lo, bpid_hi, pw,
       mode,
       CASE WHEN inner THEN b1 ELSE 1 END AS b1,
       CASE WHEN inner THEN b2 ELSE 0 END AS b2,
       CASE WHEN inner THEN b1 * width ELSE 1 END AS ilo,
       CASE WHEN inner THEN (b2 + 1) * width - 1 ELSE 0 END AS ihi
FROM w;

CREATE TEMP TABLE sl_blk AS
SELECT s.sid, s.alloc_lo + k.blk * s.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * s.block_rows - 1, s.alloc_hi) AS hi,
       s.ilo, s.ihi
FROM temp.sl_src s CROSS JOIN slice_block k ON k.source_id = s.sid
WHERE s.mode = 'win' AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
  AND NOT (k.min_ts >= s.ilo AND k.max_ts <= s.ihi AND
           coalesce(k.max_end <= :t_hi, 1));

DROP TABLE IF EXISTS temp.fr_key;
CREATE TEMP TABLE fr_key AS
SELECT a.source_id, a.site_id, count(*) AS hits,
       total(a.bytes_req) AS bytes_req, total(a.bytes_alloc) AS bytes_alloc
FROM temp.sl_src s
CROSS JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
WHERE :sel AND s.mode = 'raw' AND a.type < 2 AND @where
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT s.sid, a.rk, a.hits, a.bytes_req, a.bytes_alloc
FROM temp.sl_src s
CROSS JOIN slab_scan(s.sid, 'site', :tsel, :t_lo, :t_hi,
                     CASE WHEN :given_pid THEN :pid END, :comm, :cache,
                     :site) a
WHERE :sel AND s.mode = 'col'
UNION ALL
SELECT source_id, site_id, hits, bytes_req, bytes_alloc
FROM site_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2
UNION ALL
SELECT a.source_id, a.site_id, total(a.hits), total(a.sum_req),
       total(a.sum_alloc)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid FROM slice_key) a
  ON a.rid BETWEEN s.key_lo AND s.key_hi
WHERE :sel AND s.mode = 'key' AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.hits), total(a.sum_req),
       total(a.sum_alloc)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS bytes_alloc, NULL AS comm_id
      FROM slice_pid) a ON a.rid BETWEEN s.pid_lo AND s.pid_hi
WHERE :sel AND s.mode = 'pid' AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.hits), total(a.sum_req),
       total(a.sum_alloc)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid, NULL AS comm_id
      FROM slice_bucket) a ON a.rid BETWEEN s.bucket_lo AND s.bucket_hi
WHERE s.mode = 'win' AND NOT :given_comm AND NOT s.pw
  AND a.bucket BETWEEN s.b1 AND s.b2 AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.hits), total(a.sum_req),
       total(a.sum_alloc)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS bytes_alloc, NULL AS comm_id
      FROM slice_bucket_pid) a ON a.rid BETWEEN s.bpid_lo AND s.bpid_hi
WHERE s.mode = 'win' AND s.pw AND a.bucket BETWEEN s.b1 AND s.b2
  AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.hits), total(a.sum_req),
       total(a.sum_alloc)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid, NULL AS cache_id,
                   NULL AS bytes_alloc FROM slice_bucket_comm) a
  ON a.rid BETWEEN s.bcomm_lo AND s.bcomm_hi
WHERE s.mode = 'win' AND :given_comm AND a.bucket BETWEEN s.b1 AND s.b2
  AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, count(*), total(a.bytes_req),
       total(a.bytes_alloc)
FROM temp.sl_blk b CROSS JOIN alloc a ON a.id BETWEEN b.lo AND b.hi
WHERE a.type < 2 AND a.ts BETWEEN :t_lo AND :t_hi AND @fwhere
  AND NOT a.ts BETWEEN b.ilo AND b.ihi
GROUP BY a.source_id, a.site_id;

WITH per_site AS (
	SELECT v.call_site, v.symbol, v.addr,
	       CAST(total(k.hits) AS INTEGER) AS hits,
	       CAST(total(k.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(k.bytes_alloc) AS INTEGER) AS bytes_alloc
	FROM temp.fr_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	GROUP BY v.call_site, v.symbol
), r AS (
	SELECT *, bytes_alloc - bytes_req AS waste,
	       CASE WHEN bytes_alloc = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END AS frag_pct
	FROM per_site
)
SELECT call_site, symbol, hits, bytes_req, bytes_alloc, waste, frag_pct
FROM r
ORDER BY @sort, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
       coalesce(CAST(total(hits) AS INTEGER), 0) AS hits,
       coalesce(CAST(total(bytes_req) AS INTEGER), 0) AS bytes_req,
       coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) AS bytes_alloc,
       coalesce(CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER), 0) AS waste,
       CASE WHEN coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
       END AS frag_pct
FROM temp.fr_key;
