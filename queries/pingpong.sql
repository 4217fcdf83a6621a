-- SPDX-License-Identifier: MIT
-- report: pingpong
-- help: allocations freed on another CPU than the allocating one, per call site
-- source: trace
-- drop: freed bytes
-- by: site|cpu
-- sort: pingpong|callsite=addr < 0,addr|bytes|freed|pingpong_pct
--
-- The rows and their columns: docs/reports.md, "pingpong".
--
-- Parameters: :src_lo, :src_hi, :top, :sel, @scan's and @sort.
-- The allocations freed on another CPU per site and CPU pair (pp_key),
-- and the frees per site (pf_key): from pingpong_stats and site_stats
-- (written at ingest), or with :sel the selection summed per site and
-- CPU pair by slab_scan (pp_col).
DROP TABLE IF EXISTS temp.pp_col;
CREATE TEMP TABLE pp_col AS
SELECT s.id AS sid, a.rk AS site_id, a.k2 AS cpu, a.k3 AS free_cpu,
       a.freed, a.pingpong, a.pp_bytes
FROM source s CROSS JOIN @scan(s.id, 'pp') a
WHERE :sel AND s.id BETWEEN :src_lo AND :src_hi;

DROP TABLE IF EXISTS temp.pp_key;
CREATE TEMP TABLE pp_key AS
SELECT sid AS source_id, site_id, cpu, free_cpu, pingpong AS allocations,
       pp_bytes AS bytes
FROM temp.pp_col WHERE pingpong > 0
UNION ALL
SELECT source_id, site_id, cpu, free_cpu, allocations, bytes
FROM pingpong_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2;

DROP TABLE IF EXISTS temp.pf_key;
CREATE TEMP TABLE pf_key AS
SELECT sid AS source_id, site_id, total(freed) AS freed
FROM temp.pp_col GROUP BY sid, site_id
UNION ALL
SELECT source_id, site_id, freed
FROM site_stats
WHERE NOT :sel AND source_id BETWEEN :src_lo AND :src_hi AND type < 2;

WITH pp AS (
	SELECT v.call_site, v.symbol, v.addr, p.cpu, p.free_cpu,
	       CAST(total(p.allocations) AS INTEGER) AS n,
	       CAST(total(p.bytes) AS INTEGER) AS bytes
	FROM temp.pp_key p
	JOIN v_sites v ON v.source_id = p.source_id AND v.site_id = p.site_id
	GROUP BY v.call_site, v.symbol, p.cpu, p.free_cpu
	HAVING n > 0
), per_site AS (
	SELECT call_site, symbol, addr, CAST(total(n) AS INTEGER) AS pingpong,
	       CAST(total(bytes) AS INTEGER) AS bytes
	FROM pp GROUP BY call_site, symbol
), top_pair AS (
	-- the CPU pair seen most (ties: the lowest CPUs)
	SELECT call_site, symbol, cpu || '->' || free_cpu AS pair,
	       row_number() OVER (PARTITION BY call_site, symbol
	                          ORDER BY n DESC, cpu, free_cpu) AS rk
	FROM pp
), freed AS (
	SELECT v.call_site, v.symbol, CAST(total(k.freed) AS INTEGER) AS freed
	FROM temp.pf_key k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	GROUP BY v.call_site, v.symbol
)
SELECT s.call_site, s.symbol, s.pingpong, s.bytes, f.freed,
       100.0 * s.pingpong / f.freed AS pingpong_pct, t.pair AS top_pair
FROM per_site s
JOIN freed f ON f.call_site IS s.call_site AND f.symbol IS s.symbol
JOIN top_pair t ON t.call_site IS s.call_site AND t.symbol IS s.symbol
               AND t.rk = 1
ORDER BY @sort, s.addr < 0, s.addr, s.symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol, p.pingpong, p.bytes, f.freed,
       CASE WHEN f.freed THEN 100.0 * p.pingpong / f.freed ELSE 0.0 END
           AS pingpong_pct, NULL AS top_pair
FROM (SELECT @isum(allocations) AS pingpong, @isum(bytes) AS bytes
      FROM temp.pp_key) p,
     (SELECT @isum(freed) AS freed FROM temp.pf_key) f;
