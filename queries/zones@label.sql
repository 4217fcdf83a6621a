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
-- Parameters: those of zones, whose set-up statement selects the
-- sources into temp.rsrc.

WITH g AS (
	SELECT r.label, v.allocator, count(DISTINCT r.source_id) AS sources,
	       max(s.taken_at) AS taken_at, count(*) AS zones,
	       (CASE WHEN count(v.used) THEN CAST(total(v.used) AS INTEGER) END) AS used,
	       (CASE WHEN count(v.free) THEN CAST(total(v.free) AS INTEGER) END) AS free,
	       (CASE WHEN count(v.requests) THEN CAST(total(v.requests) AS INTEGER) END) AS requests,
	       (CASE WHEN count(v.fails) THEN CAST(total(v.fails) AS INTEGER) END) AS fails,
	       (CASE WHEN count(v.bytes) THEN CAST(total(v.bytes) AS INTEGER) END) AS bytes,
	       count(v.unused_pct) AS slab
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
ORDER BY CASE coalesce(:sort, 'bytes') WHEN 'used' THEN used
                                       WHEN 'free' THEN free
                                       WHEN 'requests' THEN requests
                                       WHEN 'fails' THEN fails
                                       WHEN 'unused_pct' THEN unused_pct
                                       WHEN 'zones' THEN zones
                                       ELSE bytes END IS NULL,
         CASE coalesce(:sort, 'bytes') WHEN 'used' THEN used
                                       WHEN 'free' THEN free
                                       WHEN 'requests' THEN requests
                                       WHEN 'fails' THEN fails
                                       WHEN 'unused_pct' THEN unused_pct
                                       WHEN 'zones' THEN zones
                                       ELSE bytes END DESC,
         label, allocator
LIMIT :top;

SELECT 'total' AS label, NULL AS allocator,
       count(DISTINCT r.source_id) AS sources, NULL AS taken_at,
       count(*) AS zones,
       (CASE WHEN count(v.used) THEN CAST(total(v.used) AS INTEGER) END) AS used,
       (CASE WHEN count(v.free) THEN CAST(total(v.free) AS INTEGER) END) AS free,
       (CASE WHEN count(v.requests) THEN CAST(total(v.requests) AS INTEGER) END) AS requests,
       (CASE WHEN count(v.fails) THEN CAST(total(v.fails) AS INTEGER) END) AS fails,
       (CASE WHEN count(v.bytes) THEN CAST(total(v.bytes) AS INTEGER) END) AS bytes,
       CASE WHEN count(v.unused_pct) = 0 THEN NULL
            WHEN sum(CASE WHEN v.unused_pct IS NOT NULL THEN v.used + v.free END) > 0
                THEN 100.0 * sum(CASE WHEN v.unused_pct IS NOT NULL THEN v.free END) /
                     sum(CASE WHEN v.unused_pct IS NOT NULL THEN v.used + v.free END)
            ELSE 0.0 END AS unused_pct
FROM temp.rsrc r CROSS JOIN v_zones v ON v.source_id = r.source_id;
