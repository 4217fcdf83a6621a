-- SPDX-License-Identifier: MIT
-- report: zones --by label
-- help: per label (host): its zones, malloc types or slab caches added up: used, free, requests, failures, bytes, unused %
-- source: zones
-- drop: zones requests fails sources taken_at
-- setup: zones
-- sort: bytes|used|free|requests|fails|unused_pct|zones
--
-- The rows and their columns: docs/reports.md, "zones --by label".
--
-- Parameters: those of zones, whose set-up fills temp.rsrc.

WITH g AS (
	SELECT r.label, v.allocator, count(DISTINCT r.source_id) AS sources,
	       max(s.taken_at) AS taken_at, count(*) AS zones,
	       @nsum(v.used) AS used, @nsum(v.free) AS free,
	       @nsum(v.requests) AS requests, @nsum(v.fails) AS fails,
	       @nsum(v.bytes) AS bytes, count(v.unused_pct) AS slab
	FROM temp.rsrc r CROSS JOIN v_zones v ON v.source_id = r.source_id
	JOIN source s ON s.id = r.source_id
	GROUP BY r.label, v.allocator
), u AS (
	SELECT *, CASE WHEN slab = 0 THEN NULL
	               WHEN used + free > 0 THEN 100.0 * free / (used + free)
	               ELSE 0.0 END AS unused_pct
	FROM g
)
SELECT label, allocator, sources, taken_at, zones, used, free, requests,
       fails, bytes, unused_pct
FROM u
ORDER BY CASE coalesce(:sort, 'bytes')
              WHEN 'used' THEN used WHEN 'free' THEN free
              WHEN 'requests' THEN requests WHEN 'fails' THEN fails
              WHEN 'unused_pct' THEN unused_pct WHEN 'zones' THEN zones
              ELSE bytes END DESC,
         label, allocator
LIMIT :top;

SELECT 'total' AS label, NULL AS allocator,
       count(DISTINCT r.source_id) AS sources, NULL AS taken_at,
       count(*) AS zones, @nsum(v.used) AS used, @nsum(v.free) AS free,
       @nsum(v.requests) AS requests, @nsum(v.fails) AS fails,
       @nsum(v.bytes) AS bytes, @unused_pct_total() AS unused_pct
FROM temp.rsrc r CROSS JOIN v_zones v ON v.source_id = r.source_id;
