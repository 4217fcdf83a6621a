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
-- Parameters: :src_lo, :src_hi, :tsel, :t_lo, :t_hi, :given_pid, :pid,
-- :comm, :cache, :site.
-- The bytes per stack are summed by slab_scan over the sources' blocks
-- (report/scan.c), failures left out, then named by their folded frames.
WITH w AS (
	SELECT s.id AS source_id, a.rk AS stack_id, a.bytes_alloc AS bytes
	FROM source s
	CROSS JOIN slab_scan(s.id, 'stack', :tsel, :t_lo, :t_hi,
	                     CASE WHEN :given_pid THEN :pid END, :comm, :cache,
	                     :site) a
	WHERE s.id BETWEEN :src_lo AND :src_hi
)
SELECT v.folded AS stack, CAST(total(w.bytes) AS INTEGER) AS bytes
FROM w
JOIN v_stacks v ON v.source_id = w.source_id AND v.stack_id = w.stack_id
GROUP BY v.folded
HAVING bytes > 0
ORDER BY stack;
