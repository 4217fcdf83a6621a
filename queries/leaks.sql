-- SPDX-License-Identifier: MIT
-- report: leaks
-- help: leak candidates: allocations live at the end (or at --at), per call site
-- source: trace
-- drop: youngest_seq oldest_seq avg_bytes youngest_age_s share_pct oldest_age_s
-- sort: bytes=live_bytes|live|callsite=addr < 0,addr|share_pct|avg_bytes|live_bytes
-- sort-default: bytes,live
-- note: a trace cannot tell a leak from a long-lived object: these are candidates
--
-- The rows and their columns: docs/reports.md, "leaks".
--
-- Parameters: :src_lo, :src_hi, :top, :at_seq, :at_ts (ns), :min_age (ns),
-- @scan's and @sort.  slab_scan's 'leak' grouping keeps the allocations
-- live at the end or at the point, per site (their number, bytes, oldest
-- and youngest positions and times), which the rows name and the total
-- adds up.  Ages are ref_ts - ts: to the end, or to --at's time.
CREATE TEMP TABLE leaks_live AS
WITH src AS (
	SELECT id, CASE WHEN :at_ts IS NOT NULL THEN :at_ts
	                WHEN :at_seq IS NULL THEN last_ts END AS ref_ts
	FROM source WHERE id BETWEEN :src_lo AND :src_hi
)
SELECT src.id AS source_id, a.rk AS site_id, a.hits AS n,
       a.bytes_alloc AS b, a.min_seq AS oseq, a.max_seq AS yseq,
       src.ref_ts - a.min_ts AS oage, src.ref_ts - a.max_ts AS yage
FROM src
CROSS JOIN slab_scan(src.id, 'leak', :tsel, :t_lo, :t_hi,
                     CASE WHEN :given_pid THEN :pid END, :comm, :cache,
                     :site, :at_seq, :at_ts, src.ref_ts, :min_age) a;

-- named per site: v_sites' join once a site, not once an allocation
WITH per_site AS (
	SELECT v.call_site, v.symbol, v.addr, CAST(total(g.n) AS INTEGER) AS live,
	       CAST(total(g.b) AS INTEGER) AS live_bytes, min(g.oseq) AS oldest_seq,
	       max(g.yseq) AS youngest_seq, max(g.oage) AS oldest_age,
	       min(g.yage) AS youngest_age
	FROM temp.leaks_live g
	JOIN v_sites v ON v.source_id = g.source_id AND v.site_id = g.site_id
	GROUP BY v.call_site, v.symbol
)
SELECT call_site, symbol, live, live_bytes,
       100.0 * live_bytes / total(live_bytes) OVER () AS share_pct,
       live_bytes / live AS avg_bytes, oldest_seq, youngest_seq,
       oldest_age / 1e9 AS oldest_age_s, youngest_age / 1e9 AS youngest_age_s
FROM per_site
ORDER BY @sort, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol, CAST(total(n) AS INTEGER) AS live,
       @isum(b) AS live_bytes,
       CASE WHEN total(n) THEN 100.0 ELSE 0.0 END AS share_pct,
       CASE WHEN total(n) THEN @isum(b) / CAST(total(n) AS INTEGER) ELSE 0
       END AS avg_bytes,
       min(oseq) AS oldest_seq, max(yseq) AS youngest_seq,
       max(oage) / 1e9 AS oldest_age_s, min(yage) / 1e9 AS youngest_age_s
FROM temp.leaks_live;
