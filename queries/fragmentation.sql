-- SPDX-License-Identifier: MIT
-- report: fragmentation
-- help: per call site hits, bytes requested and allocated, waste and fragmentation %, by waste
-- source: trace
-- drop: bytes_req hits
-- sort: waste|callsite=addr < 0,addr|bytes=bytes_alloc|hit=hits|frag=frag_pct|hits|bytes_alloc|bytes_req|frag_pct
--
-- The rows and their columns: docs/reports.md, "fragmentation".
--
-- Parameters: :src_lo, :src_hi, :top, :sel, @scan's and @sort.
-- Per source and site: site_stats (figures written at ingest), or with
-- :sel the selection summed per site by slab_scan.
DROP TABLE IF EXISTS temp.fr_key;
CREATE TEMP TABLE fr_key AS
SELECT source_id, site_id, hits, bytes_req, bytes_alloc
FROM site_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2
UNION ALL
SELECT s.id, a.rk, a.hits, a.bytes_req, a.bytes_alloc
FROM source s CROSS JOIN @scan(s.id, 'site') a
WHERE :sel AND s.id BETWEEN :src_lo AND :src_hi;

WITH r AS (
	SELECT v.call_site, v.symbol, v.addr,
	       CAST(total(k.hits) AS INTEGER) AS hits,
	       CAST(total(k.bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(k.bytes_alloc) AS INTEGER) AS bytes_alloc
	FROM temp.fr_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	GROUP BY v.call_site, v.symbol
)
SELECT call_site, symbol, hits, bytes_req, bytes_alloc,
       bytes_alloc - bytes_req AS waste,
       @frag(bytes_req, bytes_alloc) AS frag_pct
FROM r
ORDER BY @sort, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol, hits, bytes_req, bytes_alloc,
       bytes_alloc - bytes_req AS waste,
       @frag(bytes_req, bytes_alloc) AS frag_pct
FROM (SELECT @isum(hits) AS hits, @isum(bytes_req) AS bytes_req,
             @isum(bytes_alloc) AS bytes_alloc FROM temp.fr_key);
