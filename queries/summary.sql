-- SPDX-License-Identifier: MIT
-- report: summary
-- help: perf kmem's SUMMARY figures, plus frees it cannot classify, lost events and live at end
-- source: trace
--
-- The rows and their columns: docs/reports.md, "summary".
--
-- Parameters: :src_lo, :src_hi, :cpu_node_map (1 when temp.cpu_node holds
-- the map).  Reads site_stats, anomaly, node_stats, source.

WITH k AS (
	SELECT type = 2 AS page, CAST(total(hits) AS INTEGER) AS hits, CAST(total(bytes_req) AS INTEGER) AS req,
	       CAST(total(bytes_alloc) AS INTEGER) AS alloc, CAST(total(freed) AS INTEGER) AS freed,
	       CAST(total(freed_bytes) AS INTEGER) AS freed_bytes, CAST(total(pingpong) AS INTEGER) AS pingpong,
	       CAST(total(not_traced) AS INTEGER) AS not_traced, CAST(total(live) AS INTEGER) AS live,
	       CAST(total(live_bytes) AS INTEGER) AS live_bytes, CAST(total(failed) AS INTEGER) AS failed,
	       CAST(total(zero_size) AS INTEGER) AS zero_size
	FROM site_stats
	WHERE source_id BETWEEN :src_lo AND :src_hi
	GROUP BY type = 2
), s AS (
	SELECT (SELECT hits FROM k WHERE page = 0) AS hits,
	       (SELECT req FROM k WHERE page = 0) AS req,
	       (SELECT alloc FROM k WHERE page = 0) AS alloc,
	       (SELECT freed FROM k WHERE page = 0) AS freed,
	       (SELECT freed_bytes FROM k WHERE page = 0) AS freed_bytes,
	       (SELECT pingpong FROM k WHERE page = 0) AS pingpong,
	       (SELECT not_traced FROM k WHERE page = 0) AS not_traced,
	       (SELECT live FROM k WHERE page = 0) AS live,
	       (SELECT live_bytes FROM k WHERE page = 0) AS live_bytes,
	       (SELECT failed FROM k WHERE page = 0) AS failed,
	       (SELECT zero_size FROM k WHERE page = 0) AS zero_size,
	       (SELECT hits FROM k WHERE page = 1) AS p_hits,
	       (SELECT req FROM k WHERE page = 1) AS p_req,
	       (SELECT alloc FROM k WHERE page = 1) AS p_alloc,
	       (SELECT freed FROM k WHERE page = 1) AS p_freed,
	       (SELECT freed_bytes FROM k WHERE page = 1) AS p_freed_bytes,
	       (SELECT pingpong FROM k WHERE page = 1) AS p_pingpong,
	       (SELECT not_traced FROM k WHERE page = 1) AS p_not_traced,
	       (SELECT live FROM k WHERE page = 1) AS p_live,
	       (SELECT live_bytes FROM k WHERE page = 1) AS p_live_bytes,
	       (SELECT failed FROM k WHERE page = 1) AS p_failed
), an AS (
	SELECT class, CAST(total(CASE WHEN page = 0 THEN count END) AS INTEGER) AS slab,
	       CAST(total(CASE WHEN page = 1 THEN count END) AS INTEGER) AS page
	FROM anomaly WHERE source_id BETWEEN :src_lo AND :src_hi
	GROUP BY class
), cn AS (
	-- the CPU-to-node map of each source: --cpu-node FILE's, else the
	-- one its capture records ([first CPU, last CPU, node] ranges)
	SELECT s.id AS source_id, m.cpu AS lo, m.cpu AS hi, m.node AS node
	FROM source s CROSS JOIN temp.cpu_node m
	WHERE coalesce(:cpu_node_map, 0) = 1
	  AND s.id BETWEEN :src_lo AND :src_hi
	UNION ALL
	SELECT s.id, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'),
	       json_extract(j.value, '$[2]')
	FROM source s, json_each(s.cpu_node) j
	WHERE coalesce(:cpu_node_map, 0) <> 1 AND s.cpu_node IS NOT NULL
	  AND s.id BETWEEN :src_lo AND :src_hi
), nd AS (
	SELECT n.type = 2 AS page, CAST(total(n.allocations) AS INTEGER) AS allocs,
	       CAST(total(CASE WHEN n.node <> -1 AND m.node IS NOT NULL
	                     AND n.node <> m.node
	                THEN n.allocations ELSE 0 END) AS INTEGER) AS cross_allocs,
	       CAST(total(CASE WHEN n.node <> -1 AND m.node IS NULL
	                THEN n.allocations ELSE 0 END) AS INTEGER) AS unmapped,
	       max(coalesce(:cpu_node_map, 0) <> 1 AND o.cpu_node IS NULL) AS nomap
	FROM node_stats n JOIN source o ON o.id = n.source_id
	LEFT JOIN cn m ON m.source_id = n.source_id AND n.cpu BETWEEN m.lo AND m.hi
	WHERE n.source_id BETWEEN :src_lo AND :src_hi
	GROUP BY n.type = 2
), nx AS (
	-- the cross-node figures, 'unknown' where a source has no map
	SELECT p.page,
	       CASE WHEN coalesce(nd.nomap, coalesce(:cpu_node_map, 0) <> 1
	                 AND EXISTS (SELECT 1 FROM source WHERE id BETWEEN
	                 :src_lo AND :src_hi AND cpu_node IS NULL)) THEN 'unknown'
	            ELSE coalesce(nd.cross_allocs, 0) END AS cross_allocs,
	       CASE WHEN coalesce(nd.nomap, coalesce(:cpu_node_map, 0) <> 1
	                 AND EXISTS (SELECT 1 FROM source WHERE id BETWEEN
	                 :src_lo AND :src_hi AND cpu_node IS NULL)) THEN 'unknown'
	            ELSE coalesce(nd.unmapped, 0) END AS unmapped
	FROM (SELECT 0 AS page UNION ALL SELECT 1) p
	LEFT JOIN nd ON nd.page = p.page
), src AS (
	SELECT sum(coalesce(overruns, 0)) AS overruns,
	       CAST(total(lost_events) AS INTEGER) AS lost, CAST(total(seq_missing) AS INTEGER) AS missing,
	       CAST(total(events) AS INTEGER) AS events, CAST(total(unknown) AS INTEGER) AS unknown,
	       -- what perf kmem counts beyond memdb's frees; NULL: a source
	       -- ingested before memdb kept it
	       CASE WHEN count(CASE WHEN events > 0 AND perf_frees IS NULL
	                       THEN 1 END) = 0
	            THEN CAST(total(perf_frees) AS INTEGER) END AS pf,
	       CAST(total(perf_freed_bytes) AS INTEGER) AS pf_bytes,
	       CAST(total(perf_pingpong) AS INTEGER) AS pf_pingpong
	FROM source WHERE id BETWEEN :src_lo AND :src_hi
), why AS (
	-- why perf kmem's figures differ: the frees it counts
	SELECT src.pf, src.pf_bytes, src.pf_pingpong,
	       CASE WHEN src.pf IS NULL THEN 'ingested before memdb kept '
	                 || 'perf kmem''s figures: ingest it again with --force'
	            ELSE 'perf kmem counts the ' || substr(d.parts, 1,
	                 length(d.parts) - 9) END AS note
	FROM src, (SELECT
	        -- each kind of free it counts, ending ' and the '
	        iif(n > 0, n || ' duplicate free' || iif(n = 1, '', 's')
	            || ' and the ', '')
	        || iif(sus > 0, sus || ' suspect duplicate free'
	            || iif(sus = 1, '', 's') || ' and the ', '')
	        || iif(nul > 0, nul || ' NULL free' || iif(nul = 1, '', 's')
	            || ' after a failed or zero-size allocation and the ', '')
	        AS parts
	    FROM (SELECT n, sus, coalesce((SELECT pf FROM src), 0) - n - sus AS nul
	          FROM (SELECT CAST(total(CASE WHEN class = 3 THEN count END) AS INTEGER) AS n,
	                       CAST(total(CASE WHEN class = 10 THEN count END) AS INTEGER) AS sus
	                FROM anomaly WHERE source_id BETWEEN :src_lo AND :src_hi
	                  AND page = 0))) d
)
SELECT 'allocations' AS figure, coalesce(hits, 0) AS slab,
       coalesce(p_hits, 0) AS page, '' AS note FROM s
UNION ALL SELECT 'bytes_requested', coalesce(req, 0), coalesce(p_req, 0), '' FROM s
UNION ALL SELECT 'bytes_allocated', coalesce(alloc, 0), coalesce(p_alloc, 0), '' FROM s
UNION ALL SELECT 'bytes_freed', coalesce(freed_bytes, 0),
                 coalesce(p_freed_bytes, 0), '' FROM s
UNION ALL SELECT 'bytes_freed_as_perf_kmem',
                 iif(why.pf IS NULL, 'unknown',
                     min(coalesce(freed_bytes, 0) + why.pf_bytes, 9223372036854775807)),
                 NULL, why.note
          FROM s, why WHERE why.pf IS NULL OR why.pf_bytes > 0
UNION ALL SELECT 'net_bytes_allocated',
                 coalesce(alloc, 0) - coalesce(freed_bytes, 0),
                 coalesce(p_alloc, 0) - coalesce(p_freed_bytes, 0), '' FROM s
UNION ALL SELECT 'net_bytes_allocated_as_perf_kmem',
                 iif(why.pf IS NULL, 'unknown', coalesce(alloc, 0)
                     - min(coalesce(freed_bytes, 0) + why.pf_bytes, 9223372036854775807)),
                 NULL, why.note
          FROM s, why WHERE why.pf IS NULL OR why.pf_bytes > 0
UNION ALL SELECT 'bytes_wasted', coalesce(alloc - req, 0),
                 coalesce(p_alloc - p_req, 0), '' FROM s
UNION ALL SELECT 'fragmentation_pct',
                 CASE WHEN coalesce(alloc, 0) = 0 THEN 0.0
                      ELSE 100.0 - 100.0 * req / alloc END,
                 CASE WHEN coalesce(p_alloc, 0) = 0 THEN 0.0
                      ELSE 100.0 - 100.0 * p_req / p_alloc END, '' FROM s
UNION ALL SELECT 'cross_cpu_allocations',
                 (SELECT cross_allocs FROM nx WHERE page = 0),
                 (SELECT cross_allocs FROM nx WHERE page = 1),
                 CASE WHEN (SELECT cross_allocs FROM nx WHERE page = 0) = 'unknown'
                      THEN 'no CPU-to-node map of the traced machine: '
                           || '--cpu-node FILE gives one'
                      ELSE 'perf kmem prints ' || ((SELECT cross_allocs FROM nx
                           WHERE page = 0) + (SELECT unmapped FROM nx WHERE
                           page = 0)) || '/' || coalesce(s.hits, 0)
                           || iif(coalesce(:cpu_node_map, 0) = 1,
                                  ' (map: --cpu-node)',
                                  ' (map: the capture''s NUMA topology)') END
          FROM s
UNION ALL SELECT 'allocations_on_unmapped_cpus',
                 (SELECT unmapped FROM nx WHERE page = 0),
                 (SELECT unmapped FROM nx WHERE page = 1),
                 iif(typeof((SELECT unmapped FROM nx WHERE page = 0)) =
                     'integer' AND (SELECT unmapped FROM nx WHERE page = 0) > 0,
                     'CPUs in no node of the map: perf kmem counts these '
                     || 'as cross-CPU (node -1 to it)', '')
UNION ALL SELECT 'frees_ending_an_allocation', coalesce(freed, 0),
                 coalesce(p_freed, 0), '' FROM s
UNION ALL SELECT 'pingpong', coalesce(pingpong, 0), coalesce(p_pingpong, 0), '' FROM s
UNION ALL SELECT 'pingpong_as_perf_kmem',
                 iif(why.pf IS NULL, 'unknown',
                     coalesce(pingpong, 0) + why.pf_pingpong),
                 NULL, why.note
          FROM s, why WHERE why.pf IS NULL OR why.pf_pingpong > 0
UNION ALL SELECT * FROM (
	-- anomaly classes 1, 2, 3, 10, in this order
	SELECT c.column2, coalesce(an.slab, 0), coalesce(an.page, 0), ''
	FROM (VALUES (1, 'null_frees'), (2, 'unknown_frees'),
	             (3, 'duplicate_frees'), (10, 'duplicate_frees_suspect')) c
	LEFT JOIN an ON an.class = c.column1)
UNION ALL SELECT 'frees_not_traced', coalesce(not_traced, 0),
                 coalesce(p_not_traced, 0), '' FROM s
UNION ALL SELECT 'allocation_failures', coalesce(failed, 0),
                 coalesce(p_failed, 0), '' FROM s
UNION ALL SELECT 'zero_size_allocations', coalesce(zero_size, 0), 0, '' FROM s
UNION ALL SELECT 'live_at_end', coalesce(live, 0), coalesce(p_live, 0), '' FROM s
UNION ALL SELECT 'live_bytes_at_end', coalesce(live_bytes, 0),
                 coalesce(p_live_bytes, 0), '' FROM s
UNION ALL SELECT 'events', events, NULL, '' FROM src
UNION ALL SELECT 'events_lost', lost, NULL, '' FROM src
UNION ALL SELECT 'seq_numbers_missing', missing, NULL, '' FROM src
UNION ALL SELECT 'overruns', overruns, NULL, '' FROM src
UNION ALL SELECT 'unknown_records_skipped', unknown, NULL, '' FROM src;
