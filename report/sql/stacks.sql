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
-- Parameters: :src_lo, :src_hi; @where.

WITH src AS (
	SELECT id, alloc_lo, alloc_hi FROM source
	WHERE id BETWEEN :src_lo AND :src_hi AND alloc_lo IS NOT NULL
), w AS (
	SELECT a.source_id, a.stack_id, total(a.bytes_alloc) AS bytes
	FROM src JOIN alloc a ON a.id BETWEEN src.alloc_lo AND src.alloc_hi
	WHERE a.type < 2 AND a.state <> 3 AND a.stack_id IS NOT NULL AND @where
	GROUP BY a.source_id, a.stack_id
)
SELECT v.folded AS stack, CAST(total(w.bytes) AS INTEGER) AS bytes
FROM w
JOIN v_stacks v ON v.source_id = w.source_id AND v.stack_id = w.stack_id
GROUP BY v.folded
HAVING bytes > 0
ORDER BY stack;
