-- SPDX-License-Identifier: MIT
-- report: diff
-- help: change per call site between two traces (--from A --to B): hits, bytes, fragmentation, live bytes, new and gone sites, by growth
-- source: trace
-- drop: frag_a frag_b live_bytes_a live_bytes_b hits_a hits_b delta_frag bytes_a bytes_b delta_live_bytes delta_hits
-- show: changed|all
--
-- The rows and their columns: docs/reports.md, "diff".
--
-- Parameters (sqlite3: .param set :from 1, ...):
--   :from, :to   the source ids to compare (A, B)
--   :top         rows to return, -1 for all
--   :show        NULL or 'changed', 'all'

WITH k AS (
	SELECT k.source_id,
	       CASE WHEN v.symbol IS NULL OR v.symbol = '??'
	            THEN coalesce(v.call_site, '??')
	            WHEN instr(v.symbol, '/0x')
	            THEN substr(v.symbol, 1, instr(v.symbol, '/0x') - 1) ||
	                 CASE WHEN instr(v.symbol, ' [')
	                      THEN substr(v.symbol, instr(v.symbol, ' ['))
	                      ELSE '' END
	            ELSE v.symbol END AS site,
	       k.hits, k.bytes_req, k.bytes_alloc, k.live_bytes
	FROM site_stats k
	JOIN v_sites v ON v.source_id = k.source_id AND v.site_id = k.site_id
	WHERE k.source_id IN (:from, :to) AND k.type < 2
),
side AS (
	SELECT source_id, site, total(hits) AS hits,
	       total(bytes_req) AS bytes_req, total(bytes_alloc) AS bytes_alloc,
	       total(live_bytes) AS live_bytes
	FROM k
	GROUP BY source_id, site
),
a AS (SELECT * FROM side WHERE source_id = :from),
b AS (SELECT * FROM side WHERE source_id = :to),
s AS (SELECT site FROM a UNION SELECT site FROM b),
d AS (
	SELECT s.site, a.site IS NOT NULL AS in_a, b.site IS NOT NULL AS in_b,
	       CAST(coalesce(a.hits, 0) AS INTEGER) AS hits_a,
	       CAST(coalesce(b.hits, 0) AS INTEGER) AS hits_b,
	       CAST(coalesce(a.bytes_req, 0) AS INTEGER) AS req_a,
	       CAST(coalesce(b.bytes_req, 0) AS INTEGER) AS req_b,
	       CAST(coalesce(a.bytes_alloc, 0) AS INTEGER) AS bytes_a,
	       CAST(coalesce(b.bytes_alloc, 0) AS INTEGER) AS bytes_b,
	       CAST(coalesce(a.live_bytes, 0) AS INTEGER) AS live_bytes_a,
	       CAST(coalesce(b.live_bytes, 0) AS INTEGER) AS live_bytes_b
	FROM s
	LEFT JOIN a ON a.site = s.site
	LEFT JOIN b ON b.site = s.site
),
f AS (
	SELECT *,
	       CASE WHEN NOT in_a THEN NULL WHEN bytes_a = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * req_a / bytes_a END AS frag_a,
	       CASE WHEN NOT in_b THEN NULL WHEN bytes_b = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * req_b / bytes_b END AS frag_b,
	       CASE WHEN NOT in_a THEN 'new' WHEN NOT in_b THEN 'gone'
	            WHEN hits_a = hits_b AND req_a = req_b
	                 AND bytes_a = bytes_b
	                 AND live_bytes_a = live_bytes_b THEN 'same'
	            ELSE 'changed' END AS status
	FROM d
)
SELECT site, status, hits_a, hits_b, hits_b - hits_a AS delta_hits,
       bytes_a, bytes_b, bytes_b - bytes_a AS delta_bytes,
       frag_a, frag_b, frag_b - frag_a AS delta_frag,
       live_bytes_a, live_bytes_b,
       live_bytes_b - live_bytes_a AS delta_live_bytes
FROM f
WHERE status <> 'same' OR :show = 'all'
ORDER BY delta_bytes DESC, delta_hits DESC, delta_live_bytes DESC, site
LIMIT :top;

WITH t AS (
	SELECT coalesce(CAST(total(CASE WHEN source_id = :from THEN hits END)
	                     AS INTEGER), 0) AS hits_a,
	       coalesce(CAST(total(CASE WHEN source_id = :to THEN hits END)
	                     AS INTEGER), 0) AS hits_b,
	       CAST(total(CASE WHEN source_id = :from THEN bytes_req END)
	            AS INTEGER) AS req_a,
	       CAST(total(CASE WHEN source_id = :to THEN bytes_req END)
	            AS INTEGER) AS req_b,
	       CAST(total(CASE WHEN source_id = :from THEN bytes_alloc END)
	            AS INTEGER) AS bytes_a,
	       CAST(total(CASE WHEN source_id = :to THEN bytes_alloc END)
	            AS INTEGER) AS bytes_b,
	       CAST(total(CASE WHEN source_id = :from THEN live_bytes END)
	            AS INTEGER) AS live_bytes_a,
	       CAST(total(CASE WHEN source_id = :to THEN live_bytes END)
	            AS INTEGER) AS live_bytes_b
	FROM site_stats
	WHERE source_id IN (:from, :to) AND type < 2
),
f AS (
	SELECT *,
	       CASE WHEN bytes_a = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * req_a / bytes_a END AS frag_a,
	       CASE WHEN bytes_b = 0 THEN 0.0
	            ELSE 100.0 - 100.0 * req_b / bytes_b END AS frag_b
	FROM t
)
SELECT 'total' AS site, NULL AS status, hits_a, hits_b,
       hits_b - hits_a AS delta_hits, bytes_a, bytes_b,
       bytes_b - bytes_a AS delta_bytes, frag_a, frag_b,
       frag_b - frag_a AS delta_frag, live_bytes_a, live_bytes_b,
       live_bytes_b - live_bytes_a AS delta_live_bytes
FROM f;
