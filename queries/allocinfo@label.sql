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
-- Parameters: those of allocinfo, whose set-up fills temp.rsrc.

WITH g AS (
	SELECT r.label, count(DISTINCT r.source_id) AS sources,
	       max(s.taken_at) AS taken_at, @nsum(t.bytes) AS bytes,
	       @nsum(t.calls) AS calls, count(*) AS tags, @tag_flags() AS flags
	FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id
	JOIN source s ON s.id = r.source_id
	GROUP BY r.label
)
SELECT label, sources, taken_at, bytes, calls, tags, flags
FROM g
ORDER BY CASE WHEN coalesce(:sort, 'bytes') = 'bytes' THEN bytes
              ELSE calls END DESC,
         CASE WHEN coalesce(:sort, 'bytes') = 'bytes' THEN calls
              ELSE bytes END DESC,
         label
LIMIT :top;

SELECT 'total' AS label, count(DISTINCT r.source_id) AS sources,
       NULL AS taken_at, @isum(t.bytes) AS bytes,
       @isum(t.calls) AS calls, count(*) AS tags, NULL AS flags
FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id;
