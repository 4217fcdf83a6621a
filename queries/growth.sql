-- SPDX-License-Identifier: MIT
-- report: growth
-- help: change of bytes and counts per tag or zone between two snapshots of a series (default first and last), by growth
-- source: tags|zones
-- drop: count_from count_to module kind bytes_from function bytes_to count_delta
-- by: tag|function|file|module|label
-- sort: bytes|calls|count
--
-- The rows and their columns: docs/reports.md, "growth".
--
-- Parameters: :from, :to (the source ids compared), :top, :by, :sort;
-- :fleet 1: instead, the series of the labels matching :label, taken
-- from :from_time to :to_time (Unix seconds, NULL for no bound).  The
-- snapshots compared go into temp.rsrc (source_id, label, series, role
-- 'from' or 'to'): :from and :to, or the first and the last of each
-- series by taken_at (ties: by content hash), as queries/fleet/growth.sql
-- picks them.
DROP TABLE IF EXISTS temp.rsrc;
CREATE TEMP TABLE rsrc AS
SELECT :from AS source_id, (SELECT label FROM source WHERE id = :from)
           AS label, 0 AS series, 'from' AS role
WHERE NOT coalesce(:fleet, 0)
UNION ALL
SELECT :to, (SELECT label FROM source WHERE id = :to), 0, 'to'
WHERE NOT coalesce(:fleet, 0)
UNION ALL
SELECT id, label, dense_rank() OVER (ORDER BY label, format),
       CASE WHEN k = 1 THEN 'from' ELSE 'to' END
FROM (
	SELECT s.id, s.label, s.format,
	       row_number() OVER (PARTITION BY s.label, s.format
	                          ORDER BY s.taken_at, s.hash) AS k,
	       count(*) OVER (PARTITION BY s.label, s.format) AS n
	FROM source s
	WHERE :fleet AND s.label GLOB coalesce(:label, '*')
	  AND (@has_tags() OR @has_zones())
	  AND coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER) >=
	               :from_time, :from_time IS NULL)
	  AND coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER) <=
	               :to_time, :to_time IS NULL)
)
WHERE n > 1 AND k IN (1, n);

-- One row per item present in either end (temp.growth_rows), summed
-- over the series; the rows statement orders them, the total adds them.
DROP TABLE IF EXISTS temp.growth_rows;
CREATE TEMP TABLE growth_rows AS
WITH p AS (
	SELECT coalesce(:by, 'tag') AS by
),
both_have AS (
	-- tags are compared when both ends of a series have tags, zones
	-- when both have zones
	SELECT r.series,
	       min(EXISTS (SELECT 1 FROM tag t WHERE t.source_id = r.source_id))
	           AS tags,
	       min(EXISTS (SELECT 1 FROM zone z WHERE z.source_id =
	                                              r.source_id)) AS zones
	FROM temp.rsrc r GROUP BY r.series
),
items AS (
	SELECT r.role, 'tag' AS kind,
	       CASE p.by WHEN 'tag' THEN t.tag WHEN 'file' THEN t.file
	                 WHEN 'label' THEN r.label END AS name,
	       CASE WHEN p.by IN ('tag', 'function') THEN t.function
	       END AS function,
	       CASE WHEN p.by <> 'label' THEN t.module END AS module,
	       0 AS instance,
	       @nsum(t.bytes) AS bytes, @nsum(t.calls) AS count,
	       max(NOT t.accurate) AS inaccurate, max(t.approx) AS approx,
	       max(t.bytes < 0 OR t.calls < 0) AS underflow
	FROM temp.rsrc r JOIN both_have b ON b.series = r.series AND b.tags
	CROSS JOIN v_tags t ON t.source_id = r.source_id, p
	GROUP BY 1, 2, 3, 4, 5
	UNION ALL
	SELECT r.role, z.allocator,
	       CASE WHEN p.by = 'label' THEN r.label ELSE z.name END, NULL,
	       NULL, CASE WHEN p.by = 'label' THEN 0 ELSE z.instance END,
	       @nsum(z.bytes), @nsum(z.used),
	       0, max(z.approx), 0
	FROM temp.rsrc r JOIN both_have b ON b.series = r.series AND b.zones
	CROSS JOIN v_zones z ON z.source_id = r.source_id, p
	GROUP BY 1, 2, 3, 4, 5, 6
)
SELECT kind, name, function, module, instance,
       iif(max(role = 'from'), max(iif(role = 'from', bytes, NULL)), 0)
           AS bytes_from,
       iif(max(role = 'to'), max(iif(role = 'to', bytes, NULL)), 0)
           AS bytes_to,
       iif(max(role = 'from'), max(iif(role = 'from', count, NULL)), 0)
           AS count_from,
       iif(max(role = 'to'), max(iif(role = 'to', count, NULL)), 0)
           AS count_to,
       NOT max(role = 'from') AS new, NOT max(role = 'to') AS gone,
       max(inaccurate) AS inaccurate, max(approx) AS approx,
       max(underflow) AS underflow
FROM items
-- the ends side by side: one grouping of both (an item has at most one
-- row of each end; absent from one, 0 there)
GROUP BY kind, name, function, module, instance;

WITH p AS (
	SELECT coalesce(:sort, 'bytes') AS sort
)
SELECT name, function, module, kind, @growth_cols(),
       nullif(substr(CASE WHEN new THEN ',new' ELSE '' END ||
                     CASE WHEN gone THEN ',gone' ELSE '' END ||
                     CASE WHEN inaccurate THEN ',inaccurate' ELSE '' END ||
                     CASE WHEN approx THEN ',approx' ELSE '' END ||
                     CASE WHEN underflow THEN ',underflow' ELSE '' END, 2),
              '') AS flags
FROM temp.growth_rows, p
ORDER BY CASE WHEN p.sort = 'bytes' THEN bytes_delta ELSE count_delta
         END DESC,
         CASE WHEN p.sort = 'bytes' THEN count_delta ELSE bytes_delta
         END DESC,
         kind, name, function, module, instance
LIMIT :top;

SELECT 'total' AS name, NULL AS function, NULL AS module, NULL AS kind,
       @growth_cols(), NULL AS flags
FROM (SELECT @isum(bytes_from) AS bytes_from, @isum(bytes_to) AS bytes_to,
             @isum(count_from) AS count_from, @isum(count_to) AS count_to
      FROM temp.growth_rows);
