-- SPDX-License-Identifier: MIT
-- report: allocinfo
-- help: per allocation tag (file:line, function, module): bytes and calls, by bytes; --by function|file|module adds them up
-- source: tags
-- drop: tags module calls function
-- by: tag|function|file|module|label
-- sort: bytes|calls|count
--
-- The rows and their columns: docs/reports.md, "allocinfo".
--
-- Parameters (sqlite3: .param set :src_lo 1, ...):
--   :src_lo, :src_hi   range of source ids to cover
--   :top               rows to return, -1 for all
--   :by                NULL or 'tag', 'function', 'file', 'module'
--   :sort              NULL or 'bytes', 'calls' ('count' = 'calls')
--   :label             NULL, or only sources whose label matches (GLOB)
--   :fleet             1: each label's latest snapshot instead of the
--                      range, :from_time, :to_time (Unix seconds, NULL
--                      for no bound) the times it may be taken in

-- The sources covered, into temp.rsrc: those of :src_lo to :src_hi
-- (--source) whose label matches --label GLOB, when given; or, for a
-- fleet, of each label matching GLOB (default *) its latest snapshot
-- with tags, by taken_at (ties: the larger content hash), among those
-- taken from :from_time to :to_time (queries/_shared.sql).
-- queries/fleet/allocinfo.sql picks the same ones.
DROP TABLE IF EXISTS temp.rsrc;
CREATE TEMP TABLE rsrc AS
@rsrc('tags', 1, @has_tags());

WITH p AS (
	SELECT coalesce(:by, 'tag') AS by, coalesce(:sort, 'bytes') AS sort
),
g AS (
	SELECT CASE p.by WHEN 'tag' THEN t.tag WHEN 'file' THEN t.file
	       END AS tag,
	       CASE WHEN p.by IN ('tag', 'function') THEN t.function
	       END AS function,
	       t.module,
	       (CASE WHEN count(t.bytes) THEN CAST(total(t.bytes) AS INTEGER) END) AS bytes, (CASE WHEN count(t.calls) THEN CAST(total(t.calls) AS INTEGER) END) AS calls, count(*) AS tags,
	       max(NOT t.accurate) AS inaccurate, max(t.approx) AS approx,
	       max(t.bytes < 0 OR t.calls < 0) AS underflow
	FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id, p
	GROUP BY 1, 2, 3
)
SELECT tag, function, module, bytes, calls, tags,
       nullif(substr(CASE WHEN inaccurate THEN ',inaccurate' ELSE '' END ||
                     CASE WHEN approx THEN ',approx' ELSE '' END ||
                     CASE WHEN underflow THEN ',underflow' ELSE '' END, 2),
              '') AS flags
FROM g, p
ORDER BY CASE WHEN p.sort = 'bytes' THEN bytes ELSE calls END DESC,
         CASE WHEN p.sort = 'bytes' THEN calls ELSE bytes END DESC,
         tag, function, module
LIMIT :top;

SELECT 'total' AS tag, NULL AS function, NULL AS module,
       coalesce((CASE WHEN count(bytes) THEN CAST(total(bytes) AS INTEGER) END), 0) AS bytes, coalesce((CASE WHEN count(calls) THEN CAST(total(calls) AS INTEGER) END), 0) AS calls,
       count(*) AS tags, NULL AS flags
FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id;
