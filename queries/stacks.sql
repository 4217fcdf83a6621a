-- SPDX-License-Identifier: MIT
-- report: stacks
-- help: folded kernel stacks of slab allocations weighted by bytes allocated (flame graphs)
-- source: trace
-- format: folded
--
-- The rows and their columns: docs/reports.md, "stacks".
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
