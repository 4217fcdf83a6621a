-- SPDX-License-Identifier: MIT
-- report: stacks
-- help: folded kernel stacks of slab allocations weighted by bytes allocated (flame graphs)
-- source: trace
-- format: folded
--
-- One line per distinct kernel call stack of the successful slab
-- allocations (kmalloc, kmem_cache_alloc; not failed), root frame first,
-- frames named by function without offsets (as `perf script |
-- stackcollapse-perf.pl`), ';'-separated and ending at the innermost
-- frame, then the bytes allocated (bytes_alloc) under that stack.  Stacks
-- that name the same functions are one line.  Frames not resolved yet
-- (memdb symbolize, or --kallsyms at ingest) show as their address.
-- Captures with callchains only (perf record -g).
--
-- --time and the filters (--cache, --site, --pid, --comm) select the
-- allocations whose stacks are counted.
--
-- Parameters: :src_lo, :src_hi, :t_lo, :t_hi, :tsel, :fsel; @where.
-- Reads the slicing index (db/schema-6.sql, docs/design.md §3.3) and the
-- alloc rows it points to, or every alloc row of a source indexed before
-- version 6 (without --time; with it, the blocks the window reaches).

-- Per source: 'inner' when the window's whole buckets [b1, b2] are read
-- from slice_stack (level 6, no filter: the table has no other key),
-- and the alloc rows of the blocks the window's edges fall in
-- (temp.sl_blk) outside those buckets; else the blocks the window
-- reaches (indexed sources), or every alloc row; or for a source with
-- packed columns (db/schema-8.sql: use_col) the table-valued function
-- slab_scan (report/scan.c) over them.
DROP TABLE IF EXISTS temp.sl_src;
DROP TABLE IF EXISTS temp.sl_blk;
CREATE TEMP TABLE sl_src AS
WITH m AS (
	SELECT s.id AS sid, s.alloc_lo, s.alloc_hi, m.block_rows, m.width,
	       m.stack_lo, m.stack_hi, m.source_id IS NOT NULL AS indexed,
	       m.col_lo,
	       coalesce(m.level >= 6 AND NOT :fsel AND
	                (min(max(:t_lo, 0), m.max_ts + 1) + m.width - 1) /
	                m.width <= (min(:t_hi, m.max_ts) + 1) / m.width - 1,
	                0) AS inner,
	       (min(max(:t_lo, 0), m.max_ts + 1) + m.width - 1) / m.width
	           AS b1,
	       (min(:t_hi, m.max_ts) + 1) / m.width - 1 AS b2
	FROM source s LEFT JOIN slice_meta m ON m.source_id = s.id
	WHERE s.id BETWEEN :src_lo AND :src_hi AND s.alloc_lo IS NOT NULL
)
SELECT sid, alloc_lo, alloc_hi, block_rows, stack_lo, stack_hi, inner,
       indexed AND (:tsel OR inner) AND NOT use_col AS blocks,
       use_col,
       CASE WHEN inner THEN b1 ELSE 1 END AS b1,
       CASE WHEN inner THEN b2 ELSE 0 END AS b2,
       CASE WHEN inner THEN b1 * width ELSE 1 END AS ilo,
       CASE WHEN inner THEN (b2 + 1) * width - 1 ELSE 0 END AS ihi
FROM (SELECT *, coalesce(NOT inner AND col_lo IS NOT NULL, 0) AS use_col
      FROM m);

CREATE TEMP TABLE sl_blk AS
SELECT s.sid, s.alloc_lo + k.blk * s.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * s.block_rows - 1, s.alloc_hi) AS hi,
       s.ilo, s.ihi
FROM temp.sl_src s CROSS JOIN slice_block k ON k.source_id = s.sid
WHERE s.blocks AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
  AND NOT (k.min_ts >= s.ilo AND k.max_ts <= s.ihi)
UNION ALL
SELECT sid, alloc_lo, alloc_hi, 1, 0 FROM temp.sl_src
WHERE NOT blocks AND NOT use_col;

WITH w AS (
	SELECT a.source_id, a.stack_id, total(a.bytes_alloc) AS bytes
	FROM temp.sl_blk b CROSS JOIN alloc a ON a.id BETWEEN b.lo AND b.hi
	WHERE a.type < 2 AND a.state <> 3 AND a.stack_id IS NOT NULL AND @where
	  AND NOT coalesce(a.ts BETWEEN b.ilo AND b.ihi, 0)
	GROUP BY a.source_id, a.stack_id
	UNION ALL
	SELECT a.source_id, a.stack_id, total(a.bytes)
	FROM temp.sl_src s
	CROSS JOIN (SELECT rowid AS rid, * FROM slice_stack) a
	  ON a.rid BETWEEN s.stack_lo AND s.stack_hi
	WHERE s.inner AND a.bucket BETWEEN s.b1 AND s.b2
	GROUP BY a.source_id, a.stack_id
	UNION ALL
	SELECT s.sid, a.rk, a.bytes_alloc
	FROM temp.sl_src s
	CROSS JOIN slab_scan(s.sid, 'stack', :tsel, :t_lo, :t_hi,
	                     CASE WHEN :given_pid THEN :pid END, :comm, :cache,
	                     :site) a
	WHERE s.use_col
)
SELECT v.folded AS stack, CAST(total(w.bytes) AS INTEGER) AS bytes
FROM w
JOIN v_stacks v ON v.source_id = w.source_id AND v.stack_id = w.stack_id
GROUP BY v.folded
HAVING bytes > 0
ORDER BY stack;
