-- SPDX-License-Identifier: MIT
-- report: summary
-- help: perf kmem's SUMMARY figures, plus frees it cannot classify, lost events and live at end
-- source: trace
--
-- The rows and their columns: docs/reports.md, "summary".

WITH k AS (
	-- the sites' figures of the slab (page 0) and page allocator (1)
	SELECT g.page, @isum(hits) AS hits, @isum(bytes_req) AS req,
	       @isum(bytes_alloc) AS alloc, @isum(freed) AS freed,
	       @isum(freed_bytes) AS freed_bytes,
	       @isum(pingpong) AS pingpong, @isum(not_traced) AS not_traced,
	       @isum(live) AS live, @isum(live_bytes) AS live_bytes,
	       @isum(failed) AS failed, @isum(zero_size) AS zero_size
	FROM (SELECT 0 AS page UNION ALL SELECT 1) g
	LEFT JOIN site_stats t ON (t.type = 2) = g.page
	                      AND t.source_id BETWEEN :src_lo AND :src_hi
	GROUP BY g.page
), an AS (
	-- the anomaly classes shown
	SELECT c.column1 AS class, c.column2 AS figure,
	       @isum(iif(a.page = 0, a.count, NULL)) AS slab,
	       @isum(iif(a.page = 1, a.count, NULL)) AS page
	FROM (VALUES (1, 'null_frees'), (2, 'unknown_frees'),
	             (3, 'duplicate_frees'), (10, 'duplicate_frees_suspect')) c
	LEFT JOIN anomaly a ON a.class = c.column1
	                   AND a.source_id BETWEEN :src_lo AND :src_hi
	GROUP BY c.column1
), cn AS (
	-- the CPU-to-node map of each source: --cpu-node FILE's (in
	-- temp.cpu_node when :cpu_node_map is 1), else the one its capture
	-- records ([first CPU, last CPU, node] ranges)
	SELECT s.id AS source_id, m.cpu AS lo, m.cpu AS hi, m.node AS node
	FROM source s CROSS JOIN temp.cpu_node m
	WHERE coalesce(:cpu_node_map, 0) = 1
	  AND s.id BETWEEN :src_lo AND :src_hi
	UNION ALL
	SELECT s.id, json_extract(j.value, '$[0]'),
	       json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]')
	FROM source s, json_each(s.cpu_node) j
	WHERE coalesce(:cpu_node_map, 0) <> 1 AND s.cpu_node IS NOT NULL
	  AND s.id BETWEEN :src_lo AND :src_hi
), nd AS (
	SELECT n.type = 2 AS page,
	       @isum(iif(n.node <> -1 AND m.node IS NOT NULL
	                   AND n.node <> m.node, n.allocations, 0))
	           AS cross_allocs,
	       @isum(iif(n.node <> -1 AND m.node IS NULL, n.allocations, 0))
	           AS unmapped,
	       max(coalesce(:cpu_node_map, 0) <> 1 AND o.cpu_node IS NULL)
	           AS nomap
	FROM node_stats n JOIN source o ON o.id = n.source_id
	LEFT JOIN cn m ON m.source_id = n.source_id
	              AND n.cpu BETWEEN m.lo AND m.hi
	WHERE n.source_id BETWEEN :src_lo AND :src_hi
	GROUP BY n.type = 2
), x AS (
	-- k, its frag_pct and cross-node figures (nomap: a source has no map)
	SELECT k.*, @frag(req, alloc) AS frag,
	       coalesce(nd.cross_allocs, 0) AS cross_allocs,
	       coalesce(nd.unmapped, 0) AS unmapped,
	       coalesce(nd.nomap, coalesce(:cpu_node_map, 0) <> 1 AND EXISTS (
	                SELECT 1 FROM source WHERE cpu_node IS NULL
	                AND id BETWEEN :src_lo AND :src_hi)) AS nomap
	FROM k LEFT JOIN nd USING (page)
), s AS (SELECT * FROM x WHERE page = 0
), p AS (SELECT * FROM x WHERE page = 1
), src AS (
	SELECT sum(coalesce(overruns, 0)) AS overruns,
	       @isum(lost_events) AS lost, @isum(seq_missing) AS missing,
	       @isum(events) AS events, @isum(unknown) AS unknown,
	       -- the frees perf kmem counts beyond memdb's; NULL: a source
	       -- ingested before memdb kept them
	       CASE WHEN total(events > 0 AND perf_frees IS NULL) = 0
	            THEN @isum(perf_frees) END AS pf,
	       @isum(perf_freed_bytes) AS pf_bytes,
	       @isum(perf_pingpong) AS pf_pingpong
	FROM source WHERE id BETWEEN :src_lo AND :src_hi
), fr AS (
	-- those frees: duplicate ones, suspect duplicate ones, and NULL ones
	-- after a failed or zero-size allocation (the rest)
	SELECT d.slab AS n, u.slab AS sus,
	       coalesce(pf, 0) - d.slab - u.slab AS nul
	FROM src, an d, an u WHERE d.class = 3 AND u.class = 10
), why AS (
	-- perf kmem's figures, and a note on the frees it counts
	SELECT pf, pf_bytes, pf_pingpong,
	       min(s.freed_bytes + pf_bytes, 9223372036854775807) AS kmem_freed,
	       s.pingpong + pf_pingpong AS kmem_pingpong,
	       iif(pf IS NULL, 'ingested before memdb kept perf kmem''s '
	           || 'figures: ingest it again with --force',
	           'perf kmem counts the '
	           || substr(parts, 1, length(parts) - 9)) AS note
	FROM s, src, (SELECT
		-- each kind of free it counts, ending ' and the '
		iif(n > 0, n || ' duplicate free' || iif(n = 1, '', 's')
		    || ' and the ', '')
		|| iif(sus > 0, sus || ' suspect duplicate free'
		    || iif(sus = 1, '', 's') || ' and the ', '')
		|| iif(nul > 0, nul || ' NULL free' || iif(nul = 1, '', 's')
		    || ' after a failed or zero-size allocation and the ', '')
		AS parts FROM fr)
)
SELECT 'allocations' AS figure, s.hits AS slab, p.hits AS page, '' AS note
FROM s, p
UNION ALL SELECT 'bytes_requested', s.req, p.req, '' FROM s, p
UNION ALL SELECT 'bytes_allocated', s.alloc, p.alloc, '' FROM s, p
UNION ALL SELECT 'bytes_freed', s.freed_bytes, p.freed_bytes, '' FROM s, p
UNION ALL SELECT 'bytes_freed_as_perf_kmem',
                 iif(pf IS NULL, 'unknown', kmem_freed), NULL, note
          FROM why WHERE pf IS NULL OR pf_bytes > 0
UNION ALL SELECT 'net_bytes_allocated', s.alloc - s.freed_bytes,
                 p.alloc - p.freed_bytes, '' FROM s, p
UNION ALL SELECT 'net_bytes_allocated_as_perf_kmem',
                 iif(pf IS NULL, 'unknown', s.alloc - kmem_freed), NULL, note
          FROM s, why WHERE pf IS NULL OR pf_bytes > 0
UNION ALL SELECT 'bytes_wasted', s.alloc - s.req, p.alloc - p.req, '' FROM s, p
UNION ALL SELECT 'fragmentation_pct', s.frag, p.frag, '' FROM s, p
UNION ALL SELECT 'cross_cpu_allocations',
                 iif(s.nomap, 'unknown', s.cross_allocs),
                 iif(p.nomap, 'unknown', p.cross_allocs),
                 iif(s.nomap, 'no CPU-to-node map of the traced machine: '
                     || '--cpu-node FILE gives one', 'perf kmem prints '
                     || (s.cross_allocs + s.unmapped) || '/' || s.hits
                     || iif(coalesce(:cpu_node_map, 0) = 1,
                            ' (map: --cpu-node)',
                            ' (map: the capture''s NUMA topology)'))
          FROM s, p
UNION ALL SELECT 'allocations_on_unmapped_cpus',
                 iif(s.nomap, 'unknown', s.unmapped),
                 iif(p.nomap, 'unknown', p.unmapped),
                 iif(NOT s.nomap AND s.unmapped > 0,
                     'CPUs in no node of the map: perf kmem counts these '
                     || 'as cross-CPU (node -1 to it)', '')
          FROM s, p
UNION ALL SELECT 'frees_ending_an_allocation', s.freed, p.freed, '' FROM s, p
UNION ALL SELECT 'pingpong', s.pingpong, p.pingpong, '' FROM s, p
UNION ALL SELECT 'pingpong_as_perf_kmem',
                 iif(pf IS NULL, 'unknown', kmem_pingpong), NULL, note
          FROM why WHERE pf IS NULL OR pf_pingpong > 0
UNION ALL SELECT * FROM (SELECT figure, slab, page, '' FROM an ORDER BY class)
UNION ALL SELECT 'frees_not_traced', s.not_traced, p.not_traced, '' FROM s, p
UNION ALL SELECT 'allocation_failures', s.failed, p.failed, '' FROM s, p
UNION ALL SELECT 'zero_size_allocations', s.zero_size, 0, '' FROM s
UNION ALL SELECT 'live_at_end', s.live, p.live, '' FROM s, p
UNION ALL SELECT 'live_bytes_at_end', s.live_bytes, p.live_bytes, '' FROM s, p
UNION ALL SELECT 'events', events, NULL, '' FROM src
UNION ALL SELECT 'events_lost', lost, NULL, '' FROM src
UNION ALL SELECT 'seq_numbers_missing', missing, NULL, '' FROM src
UNION ALL SELECT 'overruns', overruns, NULL, '' FROM src
UNION ALL SELECT 'unknown_records_skipped', unknown, NULL, '' FROM src;
