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
-- Parameters: :src_lo, :src_hi (source ids), :top, :by, :sort, :label
-- (a GLOB, or NULL); :fleet 1: each label's latest snapshot instead,
-- taken from :from_time to :to_time (Unix seconds, NULL for no bound).

-- The sources covered, into temp.rsrc: those with tags (@rsrc of
-- queries/_shared.sql); queries/fleet/allocinfo.sql picks the same ones.
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
	       t.module, @nsum(t.bytes) AS bytes, @nsum(t.calls) AS calls,
	       count(*) AS tags, @tag_flags() AS flags
	FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id, p
	GROUP BY 1, 2, 3
)
SELECT tag, function, module, bytes, calls, tags, flags
FROM g, p
ORDER BY CASE WHEN p.sort = 'bytes' THEN bytes ELSE calls END DESC,
         CASE WHEN p.sort = 'bytes' THEN calls ELSE bytes END DESC,
         tag, function, module
LIMIT :top;

SELECT 'total' AS tag, NULL AS function, NULL AS module,
       @isum(t.bytes) AS bytes, @isum(t.calls) AS calls,
       count(*) AS tags, NULL AS flags
FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id;
