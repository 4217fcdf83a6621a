-- SPDX-License-Identifier: MIT
-- report: pingpong --by cpu
-- help: allocations freed on another CPU, per (allocating CPU, freeing CPU) pair
-- source: trace
--
-- The rows and their columns: docs/reports.md, "pingpong --by cpu".
--
-- Parameters: :src_lo, :src_hi, :top.  Reads pingpong_stats.
WITH pp AS (
	SELECT cpu, free_cpu, CAST(total(allocations) AS INTEGER) AS n,
	       CAST(total(bytes) AS INTEGER) AS bytes
	FROM pingpong_stats
	WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2
	GROUP BY cpu, free_cpu
)
SELECT cpu AS alloc_cpu, free_cpu, n AS pingpong, bytes,
       100.0 * n / sum(n) OVER () AS share_pct
FROM pp
ORDER BY n DESC, cpu, free_cpu
LIMIT :top;

SELECT 'total' AS alloc_cpu, NULL AS free_cpu, @isum(allocations) AS pingpong,
       @isum(bytes) AS bytes,
       CASE WHEN CAST(total(allocations) AS INTEGER) THEN 100.0 ELSE 0.0 END
           AS share_pct
FROM pingpong_stats
WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2;
