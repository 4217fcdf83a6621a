-- SPDX-License-Identifier: MIT
-- report: diff
-- help: change per call site between two traces (--from A --to B): hits, bytes, fragmentation, live bytes, new and gone sites, by growth
-- source: trace
-- drop: frag_a frag_b live_bytes_a live_bytes_b hits_a hits_b delta_frag bytes_a bytes_b delta_live_bytes delta_hits
-- show: changed|all
--
-- The rows and their columns: docs/reports.md, "diff".
--
-- Parameters: :from, :to (the source ids of A and B), :top, :show.

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
d AS (
	SELECT site, max(source_id IS :from) AS in_a,
	       max(source_id IS :to) AS in_b, @diff_sides()
	FROM k GROUP BY site
),
f AS (
	SELECT *, CASE WHEN in_a THEN @frag(req_a, bytes_a) END AS frag_a,
	       CASE WHEN in_b THEN @frag(req_b, bytes_b) END AS frag_b,
	       CASE WHEN NOT in_a THEN 'new' WHEN NOT in_b THEN 'gone'
	            WHEN hits_a = hits_b AND req_a = req_b
	                 AND bytes_a = bytes_b
	                 AND live_bytes_a = live_bytes_b THEN 'same'
	            ELSE 'changed' END AS status
	FROM d
)
SELECT site, status, @diff_cols()
FROM f
WHERE status <> 'same' OR :show = 'all'
ORDER BY delta_bytes DESC, delta_hits DESC, delta_live_bytes DESC, site
LIMIT :top;

WITH t AS (
	SELECT @diff_sides() FROM site_stats
	WHERE source_id IN (:from, :to) AND type < 2
),
f AS (
	SELECT *, @frag(req_a, bytes_a) AS frag_a,
	       @frag(req_b, bytes_b) AS frag_b
	FROM t
)
SELECT 'total' AS site, NULL AS status, @diff_cols()
FROM f;
