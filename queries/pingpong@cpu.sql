-- SPDX-License-Identifier: MIT
-- report: pingpong --by cpu
-- help: allocations freed on another CPU, per (allocating CPU, freeing CPU) pair
-- source: trace
-- setup: pingpong
--
-- The rows and their columns: docs/reports.md, "pingpong --by cpu".
--
-- Parameters: those of pingpong, whose statements run first: its
-- temp.pp_key holds the allocations freed on another CPU per site and
-- CPU pair, as the options select them.
WITH pp AS (
	SELECT cpu, free_cpu, CAST(total(allocations) AS INTEGER) AS n,
	       CAST(total(bytes) AS INTEGER) AS bytes
	FROM temp.pp_key
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
FROM temp.pp_key;
