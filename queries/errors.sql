-- SPDX-License-Identifier: MIT
-- report: errors
-- help: one row per error or anomaly class: count, bytes, first occurrences
-- source: trace
-- drop: first_call_site first_cpu examples allocator first_seq bytes error first_symbol
--
-- The rows and their columns: docs/reports.md, "errors".

WITH an AS (
	SELECT c.id AS class_id, c.name AS class, a.page,
	       CASE WHEN a.page = 1 THEN 0 ELSE c.error END AS error,
	       @isum(a.count) AS count, @isum(a.bytes) AS bytes,
	       min(a.first_seq) AS first_seq, c.note
	FROM anomaly a JOIN anomaly_class c ON c.id = a.class
	WHERE a.source_id BETWEEN :src_lo AND :src_hi
	GROUP BY c.id, a.page
), firsts AS (
	SELECT a.class, a.page, a.first_seq, a.first_cpu, v.call_site,
	       v.symbol, a.examples,
	       row_number() OVER (PARTITION BY a.class, a.page
	                          ORDER BY a.first_seq, a.source_id) AS rk
	FROM anomaly a
	JOIN v_sites v ON v.source_id = a.source_id
	              AND v.site_id = a.first_site_id
	WHERE a.source_id BETWEEN :src_lo AND :src_hi
), rows AS (
	SELECT an.class_id, an.class, an.page, an.error, an.count, an.bytes,
	       f.first_seq, f.first_cpu, f.call_site AS first_call_site,
	       f.symbol AS first_symbol, f.examples, an.note
	FROM an JOIN firsts f ON f.class = an.class_id AND f.page = an.page
	                     AND f.rk = 1
	UNION ALL
	SELECT 3.5, 'frees_of_non_live', an.page, NULL, @isum(an.count), NULL,
	       min(an.first_seq), NULL, NULL, NULL, NULL,
	       'unknown_free + duplicate_free + duplicate_free_suspect'
	FROM an WHERE an.class_id IN (2, 3, 10) GROUP BY an.page
	UNION ALL
	SELECT 11, 'lost_events', 0, 1,
	       sum(coalesce(overruns, 0) + lost_events +
	           iif(whole_capture, seq_missing, 0)) AS n,
	       NULL, NULL, NULL, NULL, NULL, NULL, 'overruns, LOST lines, '
	       || 'sequence numbers missing: figures are incomplete'
	FROM source WHERE id BETWEEN :src_lo AND :src_hi HAVING n > 0
)
SELECT class, CASE page WHEN 1 THEN 'page' ELSE 'slab' END AS allocator,
       error, count, bytes, first_seq, first_cpu, first_call_site,
       first_symbol, examples, note
FROM rows
ORDER BY CASE class_id WHEN 10 THEN 3.2 ELSE class_id END, page
LIMIT :top;

SELECT 'total' AS class, NULL AS allocator, NULL AS error,
       @isum(a.count) AS count, NULL AS bytes, min(a.first_seq) AS first_seq,
       NULL AS first_cpu, NULL AS first_call_site, NULL AS first_symbol,
       NULL AS examples, 'occurrences of error classes (slab)' AS note
FROM anomaly a JOIN anomaly_class c ON c.id = a.class AND c.error = 1
WHERE a.source_id BETWEEN :src_lo AND :src_hi AND a.page = 0;
