-- SPDX-License-Identifier: MIT
-- report: callsites
-- help: per call site hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- by: site|cache|type|comm|pid|label
-- sort: bytes=bytes_alloc|callsite=addr < 0,addr|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The rows and their columns: docs/reports.md, "callsites".
--
-- Parameters: :src_lo, :src_hi, :top, :by, :sel (an option selects
-- allocations), @scan's; a fleet's (:fleet, :label, :from_time,
-- :to_time) as in allocinfo.sql.  The statements before the rows put the
-- groups of every --by into temp.slab_rows (k1, k2: the group's key;
-- addr, ord: its tie order) and their total into temp.slab_total; the
-- variants run them first ('-- setup: callsites') and name the columns.
-- A fleet's call site is one row per symbol over its hosts (each kernel
-- at its own KASLR offset), per address where it has none.
DROP TABLE IF EXISTS temp.rsrc;
CREATE TEMP TABLE rsrc AS
@rsrc('trace', 1, NOT @has_tags() AND NOT @has_zones());

DROP TABLE IF EXISTS temp.slab_rows;
DROP TABLE IF EXISTS temp.slab_total;
CREATE TEMP TABLE slab_rows (k1, k2, addr, ord, hits, bytes_req, bytes_alloc,
			     avg_alloc, waste, frag_pct, freed, pingpong, live,
			     live_bytes);

-- One row per stats row (site_stats, cache_stats: written at ingest), or
-- with :sel (and for comm and pid) per group slab_scan sums, keyed by
-- what names its group (rk: the site, type, cache or comm id, or the
-- pid; the cache's type and object size), summed per source and key
-- (p), then named (k).
INSERT INTO temp.slab_rows
WITH f AS (
	SELECT source_id AS sid, CASE :by WHEN 'site' THEN site_id
	                                  ELSE type END AS rk,
	       NULL AS ctype, NULL AS osize, hits, bytes_req, bytes_alloc,
	       freed, pingpong, live, live_bytes
	FROM site_stats
	WHERE :by IN ('site', 'type', 'label') AND NOT :sel
	  AND source_id IN (SELECT source_id FROM temp.rsrc) AND type < 2
	UNION ALL
	SELECT source_id, cache_id, type, obj_size, hits, bytes_req,
	       bytes_alloc, freed, pingpong, live, live_bytes
	FROM cache_stats
	WHERE :by = 'cache' AND NOT :sel
	  AND source_id IN (SELECT source_id FROM temp.rsrc) AND type < 2
	UNION ALL
	SELECT r.source_id, a.rk, a.k2, a.k3, a.hits, a.bytes_req,
	       a.bytes_alloc, a.freed, a.pingpong, a.live, a.live_bytes
	FROM temp.rsrc r
	CROSS JOIN @scan(r.source_id, CASE :by WHEN 'label' THEN 'type'
	                                      ELSE :by END) a
	WHERE :sel OR :by IN ('comm', 'pid')
), p AS (
	SELECT sid, rk, ctype, osize, total(hits) AS hits,
	       total(bytes_req) AS bytes_req, total(bytes_alloc) AS bytes_alloc,
	       total(freed) AS freed, total(pingpong) AS pingpong,
	       total(live) AS live, total(live_bytes) AS live_bytes
	FROM f GROUP BY sid, rk, ctype, osize
), k AS (
	SELECT CASE :by WHEN 'site' THEN v.call_site
	                WHEN 'type' THEN t.name
	                WHEN 'cache' THEN coalesce(n.text,
	                     CASE WHEN p.ctype = 1 THEN 'cache-' || p.osize
	                          WHEN p.osize > 8192 THEN 'kmalloc-large'
	                          ELSE 'kmalloc-' || p.osize END)
	                WHEN 'comm' THEN coalesce(n.text, '')
	                WHEN 'label' THEN (SELECT label FROM source
	                                   WHERE id = p.sid)
	                ELSE p.rk END AS k1,
	       v.symbol AS k2, v.addr, t.id AS ord, p.hits, p.bytes_req,
	       p.bytes_alloc, p.freed, p.pingpong, p.live, p.live_bytes
	FROM p
	LEFT JOIN v_sites v ON :by = 'site' AND v.source_id = p.sid
	                   AND v.site_id = p.rk
	LEFT JOIN alloc_type t ON :by = 'type' AND t.id = p.rk
	LEFT JOIN str n ON :by IN ('cache', 'comm') AND n.source_id = p.sid
	               AND n.id = p.rk
), g AS (
	-- a fleet's call sites: one row per symbol over the hosts
	SELECT CASE WHEN NOT coalesce(:fleet, 0) OR min(k1) = max(k1)
	            THEN min(k1) END AS k1, k2,
	       CASE WHEN NOT coalesce(:fleet, 0) OR min(addr) = max(addr)
	            THEN min(addr) END AS addr, min(ord) AS ord,
	       @isum(hits) AS hits, @isum(bytes_req) AS bytes_req,
	       @isum(bytes_alloc) AS bytes_alloc, @isum(freed) AS freed,
	       @isum(pingpong) AS pingpong, @isum(live) AS live,
	       @isum(live_bytes) AS live_bytes
	FROM k
	GROUP BY CASE WHEN :fleet AND :by = 'site' AND k2 <> '??' THEN NULL
	              ELSE k1 END, k2
)
SELECT k1, k2, addr, ord, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END,
       bytes_alloc - bytes_req, @frag(bytes_req, bytes_alloc),
       freed, pingpong, live, live_bytes
FROM g;

CREATE TEMP TABLE slab_total AS
SELECT hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END AS avg_alloc,
       bytes_alloc - bytes_req AS waste,
       @frag(bytes_req, bytes_alloc) AS frag_pct, freed, pingpong, live,
       live_bytes
FROM (SELECT @isum(hits) AS hits, @isum(bytes_req) AS bytes_req,
             @isum(bytes_alloc) AS bytes_alloc, @isum(freed) AS freed,
             @isum(pingpong) AS pingpong, @isum(live) AS live,
             @isum(live_bytes) AS live_bytes FROM temp.slab_rows);

SELECT k1 AS call_site, k2 AS symbol, hits, bytes_req, bytes_alloc,
       avg_alloc, waste, frag_pct, freed, pingpong, live, live_bytes
FROM temp.slab_rows
ORDER BY @sort, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol, * FROM temp.slab_total;
