-- SPDX-License-Identifier: MIT
-- report: allocinfo --by label
-- help: per label (host): bytes and calls of its allocation tags, by bytes
-- source: tags
-- drop: tags calls sources taken_at
-- setup: allocinfo
-- sort: bytes|calls|count
--
-- The rows and their columns: docs/reports.md, "allocinfo --by label".
--
-- Parameters: those of allocinfo, whose set-up statement selects the
-- sources into temp.rsrc.

WITH g AS (
	SELECT r.label, count(DISTINCT r.source_id) AS sources,
	       max(s.taken_at) AS taken_at,
	       (CASE WHEN count(t.bytes) THEN CAST(total(t.bytes) AS INTEGER) END) AS bytes,
	       (CASE WHEN count(t.calls) THEN CAST(total(t.calls) AS INTEGER) END) AS calls,
	       count(*) AS tags,
	       max(NOT t.accurate) AS inaccurate, max(t.approx) AS approx,
	       max(t.bytes < 0 OR t.calls < 0) AS underflow
	FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id
	JOIN source s ON s.id = r.source_id
	GROUP BY r.label
)
SELECT label, sources, taken_at, bytes, calls, tags,
       nullif(substr(CASE WHEN inaccurate THEN ',inaccurate' ELSE '' END ||
                     CASE WHEN approx THEN ',approx' ELSE '' END ||
                     CASE WHEN underflow THEN ',underflow' ELSE '' END, 2),
              '') AS flags
FROM g
ORDER BY CASE WHEN coalesce(:sort, 'bytes') = 'bytes' THEN bytes
              ELSE calls END DESC,
         CASE WHEN coalesce(:sort, 'bytes') = 'bytes' THEN calls
              ELSE bytes END DESC,
         label
LIMIT :top;

SELECT 'total' AS label, count(DISTINCT r.source_id) AS sources,
       NULL AS taken_at,
       coalesce((CASE WHEN count(t.bytes) THEN CAST(total(t.bytes) AS INTEGER) END), 0) AS bytes,
       coalesce((CASE WHEN count(t.calls) THEN CAST(total(t.calls) AS INTEGER) END), 0) AS calls,
       count(*) AS tags, NULL AS flags
FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id;
