-- SPDX-License-Identifier: MIT
-- report: fragmentation
-- help: per call site hits, bytes requested and allocated, waste and fragmentation %, by waste
-- source: trace
-- drop: bytes_req hits
-- sort: waste|callsite=addr < 0,addr|bytes=bytes_alloc|hit=hits|frag=frag_pct|hits|bytes_alloc|bytes_req|frag_pct
--
-- The rows and their columns: docs/reports.md, "fragmentation".
--
-- Parameters (sqlite3: .param set :src_lo 1, ...):
--   :src_lo, :src_hi   range of source ids to cover
--   :top               rows to return, -1 for all
--   :sel, :tsel, :t_lo, :t_hi, :given_pid, :pid, :comm, :cache, :site,
--                      @sort  the selection and the order (callsites.sql)
-- Reads site_stats, the per call site aggregates written at ingest, or
-- with :sel the sources' blocks (slab_scan).

-- Per source and site: site_stats, or the selection summed per site by
-- slab_scan over the source's blocks (report/scan.c).
DROP TABLE IF EXISTS temp.fr_key;
CREATE TEMP TABLE fr_key AS
SELECT source_id, site_id, hits, bytes_req, bytes_alloc
FROM site_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2
UNION ALL
SELECT s.id, a.rk, a.hits, a.bytes_req, a.bytes_alloc
FROM source s
CROSS JOIN slab_scan(s.id, 'site', :tsel, :t_lo, :t_hi,
                     CASE WHEN :given_pid THEN :pid END, :comm, :cache,
                     :site) a
WHERE :sel AND s.id BETWEEN :src_lo AND :src_hi;

WITH per_site AS (
	SELECT v.call_site, v.symbol, v.addr,
	       CAST(total(k.hits) AS INTEGER) AS hits,
	       CAST(total(k.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(k.bytes_alloc) AS INTEGER) AS bytes_alloc
	FROM temp.fr_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	GROUP BY v.call_site, v.symbol
), r AS (
	SELECT *, bytes_alloc - bytes_req AS waste,
	       CASE WHEN bytes_alloc = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END AS frag_pct
	FROM per_site
)
SELECT call_site, symbol, hits, bytes_req, bytes_alloc, waste, frag_pct
FROM r
ORDER BY @sort, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
       coalesce(CAST(total(hits) AS INTEGER), 0) AS hits,
       coalesce(CAST(total(bytes_req) AS INTEGER), 0) AS bytes_req,
       coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) AS bytes_alloc,
       coalesce(CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER), 0) AS waste,
       CASE WHEN coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
       END AS frag_pct
FROM temp.fr_key;
