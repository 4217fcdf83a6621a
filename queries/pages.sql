-- SPDX-License-Identifier: MIT
-- report: pages
-- help: page allocator: perf kmem --page stat's summary and order x migratetype table
-- source: trace
-- by: order|caller
-- note: migratetypes by the kernel's enum (since 4.4: 0 Unmovable, 1 Movable, 2 Reclaimable, 3 HighAtomic); perf 6.1 labels 1 Reclaimable and 2 Movable
--
-- The rows and their columns: docs/reports.md, "pages".

-- The page allocations per size, migratetype and state (slab_scan's
-- 'page' grouping: k2, k3, k6), read once for both tables below.
DROP TABLE IF EXISTS temp.pg;
CREATE TEMP TABLE pg AS
SELECT a.k2 AS b, a.k3 AS mt, a.k6 AS state, a.hits, a.bytes_alloc
FROM source s CROSS JOIN slab_scan(s.id, 'page') a
WHERE s.id BETWEEN :src_lo AND :src_hi;

WITH RECURSIVE ord(n) AS (
	SELECT 0 UNION ALL SELECT n + 1 FROM ord WHERE n < 10
), g AS (
	SELECT b, mt, sum(hits) AS c FROM temp.pg WHERE state <> 3
	GROUP BY 1, 2
)
SELECT ord.n AS "order", @isum(iif(mt = 0, c, 0)) AS unmovable,
       @isum(iif(mt = 1, c, 0)) AS movable,
       @isum(iif(mt = 2, c, 0)) AS reclaimable,
       @isum(iif(mt = 3, c, 0)) AS highatomic,
       @isum(iif(mt >= 4 OR mt IS NULL, c, 0)) AS other
FROM ord LEFT JOIN g ON g.b = (4096 << ord.n)
GROUP BY ord.n
ORDER BY ord.n;

WITH a AS (
	SELECT @isum(hits) AS n, @isum(bytes_alloc) AS b,
	       @isum(iif(state = 1, hits, 0)) AS fn,
	       @isum(iif(state = 3, hits, 0)) AS xn,
	       @isum(iif(state = 1, bytes_alloc, NULL)) AS fb,
	       @isum(iif(state = 3, bytes_alloc, NULL)) AS xb
	FROM temp.pg
), f AS (
	SELECT count(*) AS n, @isum(b.bytes) AS b
	FROM source s JOIN bad_free b ON b.id BETWEEN s.bad_lo AND s.bad_hi
	WHERE s.id BETWEEN :src_lo AND :src_hi AND b.type = 2
)
SELECT 'total' AS "order",
       a.n AS alloc_requests, a.b / 1024 AS alloc_requests_kb,
       a.fn + f.n AS free_requests, (a.fb + f.b) / 1024 AS free_requests_kb,
       a.fn AS alloc_freed, a.fb / 1024 AS alloc_freed_kb,
       a.n - a.fn AS alloc_only, (a.b - a.fb) / 1024 AS alloc_only_kb,
       f.n AS free_only, f.b / 1024 AS free_only_kb,
       a.xn AS failures, a.xb / 1024 AS failures_kb
FROM a, f;
