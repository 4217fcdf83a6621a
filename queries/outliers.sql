-- SPDX-License-Identifier: MIT
-- report: outliers
-- help: the hosts of a fleet where an allocation tag or a zone (slab cache) is above its 99th percentile over the hosts, by excess
-- source: tags|zones
-- scope: fleet
-- drop: fleet_median hosts module function
--
-- The rows and their columns: docs/reports.md, "outliers".
--
-- Parameters: :src_lo, :src_hi, :label, :fleet, :from_time, :to_time (as
-- in allocinfo.sql), :top.

-- The snapshots read, into temp.rsrc (kind 'tags' or 'zones'): as
-- allocinfo and zones pick them, of the range only those with some.
DROP TABLE IF EXISTS temp.rsrc;
CREATE TEMP TABLE rsrc AS
@rsrc('tags', @has_tags(), @has_tags())
UNION ALL
@rsrc('zones', @has_zones(), @has_zones());

-- Each host's bytes of each item.
DROP TABLE IF EXISTS temp.outlier_vals;
CREATE TEMP TABLE outlier_vals AS
SELECT 'tag' AS kind, t.tag AS name, t.function, t.module, r.label,
       @isum(t.bytes) AS bytes
FROM temp.rsrc r CROSS JOIN v_tags t ON t.source_id = r.source_id
WHERE r.kind = 'tags'
GROUP BY 1, 2, 3, 4, 5
UNION ALL
SELECT z.allocator, z.name, NULL, NULL, r.label, @isum(z.bytes)
FROM temp.rsrc r CROSS JOIN v_zones z ON z.source_id = r.source_id
WHERE r.kind = 'zones' AND z.bytes IS NOT NULL
GROUP BY 1, 2, 5;

-- Each item's percentiles over the hosts (i: the 0-based rank of a
-- host's bytes, n: the hosts).
DROP TABLE IF EXISTS temp.outlier_pct;
CREATE TEMP TABLE outlier_pct AS
WITH r AS (
	SELECT *, row_number() OVER w - 1 AS i,
	       count(*) OVER (PARTITION BY kind, name, function, module) AS n
	FROM temp.outlier_vals
	WINDOW w AS (PARTITION BY kind, name, function, module ORDER BY bytes)
), l AS (
	SELECT *, 0.99 * (n - 1) AS i99, CAST(0.99 * (n - 1) AS INTEGER) AS l99,
	       0.5 * (n - 1) AS i50, CAST(0.5 * (n - 1) AS INTEGER) AS l50
	FROM r
), q AS (
	SELECT kind, name, function, module, max(n) AS n, max(i99) AS i99,
	       max(l99) AS l99, max(i50) AS i50, max(l50) AS l50,
	       max(CASE WHEN i = l99 THEN bytes END) AS a99,
	       max(CASE WHEN i = l99 + 1 THEN bytes END) AS b99,
	       max(CASE WHEN i = l50 THEN bytes END) AS a50,
	       max(CASE WHEN i = l50 + 1 THEN bytes END) AS b50
	FROM l GROUP BY kind, name, function, module
)
SELECT kind, name, function, module, n,
       a99 + (i99 - l99) * (coalesce(b99, a99) - a99) AS p99,
       a50 + (i50 - l50) * (coalesce(b50, a50) - a50) AS p50
FROM q;

SELECT v.kind, v.name, v.function, v.module, v.label, v.bytes,
       p.p99 AS fleet_p99, p.p50 AS fleet_median, p.n AS hosts,
       v.bytes - p.p99 AS excess
FROM temp.outlier_vals v
JOIN temp.outlier_pct p ON p.kind = v.kind AND p.name = v.name
                       AND p.function IS v.function
                       AND p.module IS v.module
WHERE v.bytes > p.p99
ORDER BY excess DESC, v.kind, v.name, v.function, v.module, v.label
LIMIT :top;
