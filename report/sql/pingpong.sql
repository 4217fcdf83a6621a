-- SPDX-License-Identifier: MIT
-- report: pingpong
-- help: allocations freed on another CPU than the allocating one, per call site
-- source: trace
-- drop: freed bytes
-- by: site|cpu
-- sort: pingpong|callsite=addr < 0,addr|bytes|freed|pingpong_pct
--
-- Slab allocations ended by a FREE on another CPU (perf kmem's
-- ping-pong), per allocation call site: how many, their bytes, their share
-- of the site's frees, and the CPU pair seen most.  --by cpu gives one row
-- per (allocating CPU, freeing CPU) pair instead (pingpong@cpu.sql).
--
-- --sort KEY[,KEY...] orders by pingpong (the default), callsite, bytes,
-- freed or pingpong_pct, largest first, ties by address.  --time and the
-- filters (--cache, --site, --pid, --comm) count the allocations they
-- select: frees up to --time's END.
--
-- Parameters: :src_lo, :src_hi, :top, :sel, :t_lo, :t_hi, :given_pid;
-- @where, @fwhere, @sort.
-- Reads pingpong_stats and site_stats, or with :sel the slicing index
-- (db/schema-6.sql, docs/design.md §3.3) and the alloc rows it points
-- to, or the alloc rows of sources indexed before version 6.

-- Per source: 'inner' when the window's whole buckets [b1, b2] are read
-- from slice_pp and slice_bucket, or slice_bucket_comm for --comm
-- (level 6, no --pid: the buckets have no task id; not --comm with
-- --cache), or for --pid (without --cache and --comm: pw) from
-- slice_pp_pid and slice_bucket_pid, whose buckets are wider (level 7,
-- db/schema-7.sql); the alloc rows of the blocks the window's edges fall in
-- (temp.sl_blk), those outside the buckets counted, those inside ended
-- after END taken back.  Without whole buckets, the blocks the window
-- reaches (indexed sources), or every alloc row.  A source with packed
-- columns (db/schema-8.sql: use_col) is read by the table-valued
-- function slab_scan (report/scan.c) instead, per site and CPU pair
-- (temp.pp_col).
DROP TABLE IF EXISTS temp.sl_src;
DROP TABLE IF EXISTS temp.sl_blk;
CREATE TEMP TABLE sl_src AS
WITH m AS (
	SELECT s.id AS sid, s.alloc_lo, s.alloc_hi, m.block_rows,
	       m.bw AS width,
	       m.bucket_lo, m.bucket_hi, m.bcomm_lo, m.bcomm_hi, m.pp_lo,
	       m.pp_hi, m.bshift, m.bpid_lo, m.bpid_hi, m.ppid_lo,
	       m.ppid_hi, coalesce(m.pw, 0) AS pw,
	       m.source_id IS NOT NULL AS indexed,
	       m.col_lo IS NOT NULL AS use_col,
	       coalesce(m.col_lo IS NULL AND
	                (m.pw OR (m.level >= 6 AND NOT :given_pid AND
	                NOT (:given_comm AND :given_cache))) AND
	                (min(max(:t_lo, 0), m.max_ts + 1) + m.bw - 1) /
	                m.bw <= (min(:t_hi, m.max_ts) + 1) / m.bw - 1,
	                0) AS inner,
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
	WHERE :sel AND s.id BETWEEN :src_lo AND :src_hi
	  AND s.alloc_lo IS NOT NULL
)
SELECT sid, alloc_lo, alloc_hi, block_rows, bucket_lo, bucket_hi, bcomm_lo,
       bcomm_hi, pp_lo, pp_hi, bshift, bpid_lo, bpid_hi, ppid_lo, ppid_hi,
       pw, inner, use_col,
       indexed AND (:tsel OR inner) AND NOT use_col AS blocks,
       CASE WHEN inner THEN b1 ELSE 1 END AS b1,
       CASE WHEN inner THEN b2 ELSE 0 END AS b2,
       CASE WHEN inner THEN b1 * width ELSE 1 END AS ilo,
       CASE WHEN inner THEN (b2 + 1) * width - 1 ELSE 0 END AS ihi
FROM m;

CREATE TEMP TABLE sl_blk AS
SELECT s.sid, s.alloc_lo + k.blk * s.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * s.block_rows - 1, s.alloc_hi) AS hi,
       s.ilo, s.ihi
FROM temp.sl_src s CROSS JOIN slice_block k ON k.source_id = s.sid
WHERE s.blocks AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
  AND NOT (k.min_ts >= s.ilo AND k.max_ts <= s.ihi AND
           coalesce(k.max_end <= :t_hi, 1))
UNION ALL
SELECT sid, alloc_lo, alloc_hi, 1, 0 FROM temp.sl_src
WHERE NOT blocks AND NOT use_col;

DROP TABLE IF EXISTS temp.pp_col;
CREATE TEMP TABLE pp_col AS
SELECT s.sid, a.rk AS site_id, a.k2 AS cpu, a.k3 AS free_cpu, a.freed,
       a.pingpong, a.pp_bytes
FROM temp.sl_src s
CROSS JOIN slab_scan(s.sid, 'pp', :tsel, :t_lo, :t_hi,
                     CASE WHEN :given_pid THEN :pid END, :comm, :cache,
                     :site) a
WHERE s.use_col;

-- The freed allocations of the edge rows per site and CPU pair: d is 1
-- for one outside the buckets freed by END, -1 for one inside them
-- freed after END (the buckets counted it).
DROP TABLE IF EXISTS temp.pp_edge;
CREATE TEMP TABLE pp_edge AS
SELECT sid, site_id, cpu, free_cpu, total(d) AS freed,
       total(CASE WHEN free_cpu <> cpu THEN d END) AS pp,
       total(CASE WHEN free_cpu <> cpu THEN d * bytes_alloc END) AS bytes
FROM (
	SELECT a.source_id AS sid, a.site_id, a.cpu, a.free_cpu,
	       a.bytes_alloc,
	       CASE WHEN coalesce(a.ts BETWEEN b.ilo AND b.ihi, 0)
	            THEN -coalesce(a.end_ts > :t_hi, 0)
	            ELSE coalesce(a.end_ts <= :t_hi, 1) END AS d
	FROM temp.sl_blk b CROSS JOIN alloc a ON a.id BETWEEN b.lo AND b.hi
	WHERE a.type < 2 AND +a.state = 1 AND @where
)
WHERE d <> 0
GROUP BY sid, site_id, cpu, free_cpu;

DROP TABLE IF EXISTS temp.pp_key;
CREATE TEMP TABLE pp_key AS
SELECT sid AS source_id, site_id, cpu, free_cpu, pp AS allocations, bytes
FROM temp.pp_edge WHERE pp <> 0
UNION ALL
SELECT sid, site_id, cpu, free_cpu, pingpong, pp_bytes
FROM temp.pp_col WHERE pingpong > 0
UNION ALL
SELECT a.source_id, a.site_id, a.cpu, a.free_cpu, total(a.hits),
       total(a.hits * a.bytes_alloc)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid FROM slice_pp) a
  ON a.rid BETWEEN s.pp_lo AND s.pp_hi
WHERE s.inner AND NOT s.pw AND a.bucket >> s.bshift BETWEEN s.b1 AND s.b2
  AND @fwhere
GROUP BY a.source_id, a.site_id, a.cpu, a.free_cpu
UNION ALL
SELECT a.source_id, a.site_id, a.cpu, a.free_cpu, total(a.hits),
       total(a.bytes)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS comm_id, NULL AS cache_id,
                   NULL AS type, NULL AS bytes_alloc FROM slice_pp_pid) a ON a.rid BETWEEN s.ppid_lo AND s.ppid_hi
WHERE s.inner AND s.pw AND a.bucket BETWEEN s.b1 AND s.b2 AND @fwhere
GROUP BY a.source_id, a.site_id, a.cpu, a.free_cpu
UNION ALL
SELECT source_id, site_id, cpu, free_cpu, allocations, bytes
FROM pingpong_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2;

DROP TABLE IF EXISTS temp.pf_key;
CREATE TEMP TABLE pf_key AS
SELECT sid AS source_id, site_id, total(freed) AS freed
FROM temp.pp_edge GROUP BY sid, site_id
UNION ALL
SELECT sid, site_id, total(freed) FROM temp.pp_col GROUP BY sid, site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.freed)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid, NULL AS comm_id
      FROM slice_bucket) a ON a.rid BETWEEN s.bucket_lo AND s.bucket_hi
WHERE s.inner AND NOT :given_comm AND NOT s.pw
  AND a.bucket BETWEEN s.b1 AND s.b2 AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.freed)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS bytes_alloc, NULL AS comm_id
      FROM slice_bucket_pid) a ON a.rid BETWEEN s.bpid_lo AND s.bpid_hi
WHERE s.inner AND s.pw AND a.bucket BETWEEN s.b1 AND s.b2 AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT a.source_id, a.site_id, total(a.freed)
FROM temp.sl_src s
CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid, NULL AS cache_id,
                   NULL AS bytes_alloc FROM slice_bucket_comm) a
  ON a.rid BETWEEN s.bcomm_lo AND s.bcomm_hi
WHERE s.inner AND :given_comm AND a.bucket BETWEEN s.b1 AND s.b2
  AND @fwhere
GROUP BY a.source_id, a.site_id
UNION ALL
SELECT source_id, site_id, freed
FROM site_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2;

WITH pp AS (
	SELECT v.call_site, v.symbol, v.addr, p.cpu, p.free_cpu,
	       CAST(total(p.allocations) AS INTEGER) AS n, CAST(total(p.bytes) AS INTEGER) AS bytes
	FROM temp.pp_key p
	JOIN v_sites v ON v.source_id = p.source_id AND v.site_id = p.site_id
	GROUP BY v.call_site, v.symbol, p.cpu, p.free_cpu
	HAVING n > 0
), per_site AS (
	SELECT call_site, symbol, addr, CAST(total(n) AS INTEGER) AS pingpong, CAST(total(bytes) AS INTEGER) AS bytes
	FROM pp GROUP BY call_site, symbol
), top_pair AS (
	SELECT call_site, symbol, cpu || '->' || free_cpu AS pair,
	       row_number() OVER (PARTITION BY call_site, symbol
	                          ORDER BY n DESC, cpu, free_cpu) AS rk
	FROM pp
), freed AS (
	SELECT v.call_site, v.symbol, CAST(total(k.freed) AS INTEGER) AS freed
	FROM temp.pf_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	GROUP BY v.call_site, v.symbol
)
SELECT s.call_site, s.symbol, s.pingpong, s.bytes, f.freed,
       100.0 * s.pingpong / f.freed AS pingpong_pct, t.pair AS top_pair
FROM per_site s
JOIN freed f ON f.call_site IS s.call_site AND f.symbol IS s.symbol
JOIN top_pair t ON t.call_site IS s.call_site AND t.symbol IS s.symbol
               AND t.rk = 1
ORDER BY @sort, s.addr < 0, s.addr, s.symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
       (SELECT coalesce(CAST(total(allocations) AS INTEGER), 0) FROM temp.pp_key)
           AS pingpong,
       (SELECT coalesce(CAST(total(bytes) AS INTEGER), 0) FROM temp.pp_key) AS bytes,
       f.freed,
       CASE WHEN f.freed THEN 100.0 *
            (SELECT coalesce(CAST(total(allocations) AS INTEGER), 0) FROM temp.pp_key)
            / f.freed ELSE 0.0 END AS pingpong_pct,
       NULL AS top_pair
FROM (SELECT coalesce(CAST(total(freed) AS INTEGER), 0) AS freed
      FROM temp.pf_key) f;
