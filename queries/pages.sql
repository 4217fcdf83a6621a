-- SPDX-License-Identifier: MIT
-- report: pages
-- help: page allocator: perf kmem --page stat's summary and order x migratetype table
-- source: trace
-- by: order|caller
-- note: migratetypes by the kernel's enum (since 4.4: 0 Unmovable, 1 Movable, 2 Reclaimable, 3 HighAtomic); perf 6.1 labels 1 Reclaimable and 2 Movable
--
-- The rows and their columns: docs/reports.md, "pages".
--
-- Parameters: :src_lo, :src_hi.  Reads alloc (the source's id range)
-- of the sources with page allocations, once, and bad_free.

-- The page allocations of the sources with any (site_stats has a row for
-- every site and type seen: a slab-only source's blocks are not read),
-- read once for both tables below.
DROP TABLE IF EXISTS temp.pg;
CREATE TEMP TABLE pg AS
SELECT a.bytes_alloc, a.migratetype, a.state
FROM source s CROSS JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
WHERE s.id BETWEEN :src_lo AND :src_hi AND s.alloc_lo IS NOT NULL
  AND EXISTS (SELECT 1 FROM site_stats t
              WHERE t.source_id = s.id AND t.type = 2)
  AND a.type = 2;

WITH RECURSIVE ord(n) AS (
	SELECT 0 UNION ALL SELECT n + 1 FROM ord WHERE n < 10
), m AS (
	-- per size first: a join of every allocation with every order
	-- costs more than the grouping
	SELECT ord.n AS o, g.mt, g.c
	FROM (SELECT bytes_alloc AS b, migratetype AS mt, count(*) AS c
	      FROM temp.pg WHERE state <> 3 GROUP BY 1, 2) g
	JOIN ord ON g.b = (4096 << ord.n)
)
SELECT ord.n AS "order",
       coalesce((SELECT sum(c) FROM m WHERE o = ord.n AND mt = 0), 0)
           AS unmovable,
       coalesce((SELECT sum(c) FROM m WHERE o = ord.n AND mt = 1), 0)
           AS movable,
       coalesce((SELECT sum(c) FROM m WHERE o = ord.n AND mt = 2), 0)
           AS reclaimable,
       coalesce((SELECT sum(c) FROM m WHERE o = ord.n AND mt = 3), 0)
           AS highatomic,
       coalesce((SELECT sum(c) FROM m WHERE o = ord.n AND
                                           (mt >= 4 OR mt IS NULL)), 0)
           AS other
FROM ord
ORDER BY ord.n;

WITH a AS (
	SELECT count(*) AS n, CAST(total(a.bytes_alloc) AS INTEGER) AS b,
	       CAST(total(a.state = 1) AS INTEGER) AS fn,
	       CAST(total(CASE WHEN a.state = 1 THEN a.bytes_alloc END)
	            AS INTEGER) AS fb,
	       CAST(total(a.state = 3) AS INTEGER) AS xn,
	       CAST(total(CASE WHEN a.state = 3 THEN a.bytes_alloc END)
	            AS INTEGER) AS xb
	FROM temp.pg a
), f AS (
	SELECT count(*) AS n, CAST(total(b.bytes) AS INTEGER) AS b
	FROM source src JOIN bad_free b ON b.id BETWEEN src.bad_lo AND src.bad_hi
	WHERE src.id BETWEEN :src_lo AND :src_hi AND b.type = 2
)
SELECT 'total' AS "order",
       a.n AS alloc_requests, a.b / 1024 AS alloc_requests_kb,
       a.fn + f.n AS free_requests, (a.fb + f.b) / 1024 AS free_requests_kb,
       a.fn AS alloc_freed, a.fb / 1024 AS alloc_freed_kb,
       a.n - a.fn AS alloc_only, (a.b - a.fb) / 1024 AS alloc_only_kb,
       f.n AS free_only, f.b / 1024 AS free_only_kb,
       a.xn AS failures, a.xb / 1024 AS failures_kb
FROM a, f;
