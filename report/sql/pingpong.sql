-- SPDX-License-Identifier: MIT
-- report: pingpong
-- help: allocations freed on another CPU than the allocating one, per call site
-- source: trace
-- by: site|cpu
--
-- Slab allocations ended by a FREE on another CPU (perf kmem's
-- ping-pong), per allocation call site: how many, their bytes, their share
-- of the site's frees, and the CPU pair seen most.  --by cpu gives one row
-- per (allocating CPU, freeing CPU) pair instead (pingpong@cpu.sql).
--
-- Parameters: :src_lo, :src_hi, :top.  Reads pingpong_stats, site_stats.

WITH pp AS (
	SELECT v.call_site, v.symbol, v.addr, p.cpu, p.free_cpu,
	       CAST(total(p.allocations) AS INTEGER) AS n, CAST(total(p.bytes) AS INTEGER) AS bytes
	FROM pingpong_stats p
	JOIN v_sites v ON v.source_id = p.source_id AND v.site_id = p.site_id
	WHERE p.source_id BETWEEN :src_lo AND :src_hi AND p.type < 2
	GROUP BY v.call_site, v.symbol, p.cpu, p.free_cpu
), per_site AS (
	SELECT call_site, symbol, addr, CAST(total(n) AS INTEGER) AS pingpong, CAST(total(bytes) AS INTEGER) AS bytes
	FROM pp GROUP BY call_site, symbol
), top_pair AS (
	SELECT call_site, symbol, cpu || '->' || free_cpu AS pair,
	       row_number() OVER (PARTITION BY call_site, symbol
	                          ORDER BY n DESC, cpu, free_cpu) AS rk
	FROM pp
), freed AS (
	SELECT v.call_site, v.symbol, CAST(total(k.freed) AS INTEGER) AS freed
	FROM site_stats k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	WHERE k.source_id BETWEEN :src_lo AND :src_hi AND k.type < 2
	GROUP BY v.call_site, v.symbol
)
SELECT s.call_site, s.symbol, s.pingpong, s.bytes, f.freed,
       100.0 * s.pingpong / f.freed AS pingpong_pct, t.pair AS top_pair
FROM per_site s
JOIN freed f ON f.call_site IS s.call_site AND f.symbol IS s.symbol
JOIN top_pair t ON t.call_site IS s.call_site AND t.symbol IS s.symbol
               AND t.rk = 1
ORDER BY s.pingpong DESC, s.addr < 0, s.addr, s.symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
       (SELECT coalesce(CAST(total(allocations) AS INTEGER), 0) FROM pingpong_stats
        WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2)
           AS pingpong,
       (SELECT coalesce(CAST(total(bytes) AS INTEGER), 0) FROM pingpong_stats
        WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2) AS bytes,
       f.freed,
       CASE WHEN f.freed THEN 100.0 *
            (SELECT coalesce(CAST(total(allocations) AS INTEGER), 0) FROM pingpong_stats
             WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2)
            / f.freed ELSE 0.0 END AS pingpong_pct,
       NULL AS top_pair
FROM (SELECT coalesce(CAST(total(freed) AS INTEGER), 0) AS freed FROM site_stats
      WHERE source_id BETWEEN :src_lo AND :src_hi AND type < 2) f;
