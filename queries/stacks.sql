-- SPDX-License-Identifier: MIT
-- report: stacks
-- help: folded kernel stacks of slab allocations weighted by bytes allocated (flame graphs)
-- source: trace
-- format: folded
--
-- The rows and their columns: docs/reports.md, "stacks".
--
-- Parameters: :src_lo, :src_hi and @scan's.  The bytes per stack are
-- summed by slab_scan, failures left out, then named by their frames.
SELECT v.folded AS stack, CAST(total(a.bytes_alloc) AS INTEGER) AS bytes
FROM source s CROSS JOIN @scan(s.id, 'stack') a
JOIN v_stacks v ON v.source_id = s.id AND v.stack_id = a.rk
WHERE s.id BETWEEN :src_lo AND :src_hi
GROUP BY v.folded
HAVING bytes > 0
ORDER BY stack;
