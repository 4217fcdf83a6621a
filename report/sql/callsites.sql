-- SPDX-License-Identifier: MIT
-- report: callsites
-- help: per call site hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- by: site|cache|type|comm|pid|label
-- sort: bytes=bytes_alloc|callsite=addr < 0,addr|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- Slab allocations (kmalloc and kmem_cache), one row per call site, the
-- columns of perf kmem stat --caller plus what a trace also tells:
--   hits        ALLOC events at the site
--   avg_alloc   bytes_alloc / hits
--   waste       bytes_alloc - bytes_req
--   frag_pct    100 - 100 * bytes_req / bytes_alloc
--   freed       allocations ended by a FREE
--   pingpong    of those, freed on another CPU than the allocating one
--   live        allocations still live at the end of the trace
-- --sort KEY[,KEY...] orders the rows as perf kmem -s does: by the first
-- key, largest first, then by the next among equals, then by address
-- (perf's keys: callsite = the address, bytes = bytes_alloc, hit =
-- hits, pingpong, frag = frag_pct; --sort frag,hit,bytes is perf kmem
-- --caller's order; also waste, live = live_bytes and the columns).
-- --time, --cache, --site, --pid and --comm count the allocations they
-- select from the alloc rows (per event) instead of site_stats: freed
-- and pingpong only frees up to --time's END, live what is live at END.
-- --by cache and --by type group by cache or allocation type instead
-- (queries callsites@cache.sql and callsites@type.sql); --by comm and
-- --by pid by the task that allocated (callsites@comm.sql, @pid.sql).
--
-- Parameters: :src_lo, :src_hi (source ids), :top (-1 all), :by, :sel (1
-- when an option selects allocations: @where holds its conditions; :tsel
-- when --time does, :fsel when another does, @fwhere their conditions),
-- :t_lo, :t_hi.
-- Reads site_stats (per call site figures written at ingest) or
-- cache_stats (--by cache), or with :sel, and for --by comm and pid, the
-- alloc rows of the sources (their rowid ranges).
--
-- The statements before the rows compute the groups of every --by into
-- temp.slab_rows (k1, k2: the group's key; addr, ord: its tie order) and
-- their total into temp.slab_total; the variants run them first ('--
-- setup: callsites') and only name their columns.
--
-- A fleet (--label GLOB, or --by label, without --source; :fleet): the
-- latest trace of each label matching GLOB, figures added up over them;
-- a call site is then one row per symbol over the hosts (each host's
-- kernel at its own KASLR offset), per address where it has none, its
-- call_site the address where all agree.  --by label: one row per label
-- (callsites@label.sql).  :label, :fleet, :from_time and :to_time as in
-- allocinfo.sql.

-- The sources covered, into temp.rsrc: as in allocinfo.sql, of the
-- traces (sources with no tags nor zones).  report/sql/fleet/callsites.sql
-- picks the same ones.
DROP TABLE IF EXISTS temp.rsrc;
CREATE TEMP TABLE rsrc AS
SELECT id AS source_id, label FROM source
WHERE NOT coalesce(:fleet, 0) AND id BETWEEN :src_lo AND :src_hi
  AND (:label IS NULL OR label GLOB :label)
UNION ALL
SELECT id, label FROM (
	SELECT s.id, s.label,
	       row_number() OVER (PARTITION BY s.label
	                          ORDER BY s.taken_at DESC, s.hash DESC) AS k
	FROM source s
	WHERE :fleet AND s.label GLOB coalesce(:label, '*')
	  AND NOT EXISTS (SELECT 1 FROM tag t WHERE t.source_id = s.id)
	  AND NOT EXISTS (SELECT 1 FROM zone z WHERE z.source_id = s.id)
	  AND coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER) >=
	               :from_time, :from_time IS NULL)
	  AND coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER) <=
	               :to_time, :to_time IS NULL)
) WHERE k = 1;

DROP TABLE IF EXISTS temp.slab_rows;
DROP TABLE IF EXISTS temp.slab_total;
CREATE TEMP TABLE slab_rows (k1, k2, addr, ord, hits, bytes_req, bytes_alloc,
			     avg_alloc, waste, frag_pct, freed, pingpong, live,
			     live_bytes);

-- The slicing index (db/schema-5.sql, docs/design.md §3.3): per
-- source, how the selection is read (mode): 'raw', every alloc row of a
-- source not indexed (ingested before schema 5), or of one whose tables
-- lack a key the options need; 'key', slice_key, the figures per key and
-- task name, when no window is given or it covers the source (every
-- allocation made and every end seen within it); 'pid', slice_pid, the
-- same per task without the object size, for --pid (without --cache and
-- --comm) and --by pid; 'win', a
-- window's whole buckets [b1, b2] from slice_bucket, or for --comm and
-- --by comm slice_bucket_comm (db/schema-6.sql), or for --pid and --by
-- pid (without --cache and --comm: pw) slice_bucket_pid, whose buckets
-- are wider (db/schema-7.sql; allocations from ilo to ihi; none for
-- --pid or --by pid in a source without that table, slice_meta.level
-- below 7, nor for --comm with --cache or --by cache, which
-- slice_bucket_comm lacks, or in a source indexed before schema 6,
-- slice_meta.level NULL), and
-- the alloc rows of the blocks the window's edges fall in (temp.sl_blk):
-- those outside the buckets, and those inside ended after END (what
-- the buckets counted as freed is live at END).
DROP TABLE IF EXISTS temp.sl_src;
DROP TABLE IF EXISTS temp.sl_blk;
CREATE TEMP TABLE sl_src AS
WITH m AS (
	SELECT s.id AS sid, s.alloc_lo, s.alloc_hi, m.block_rows,
	       m.bw AS width,
	       m.bucket_lo, m.bucket_hi, m.key_lo, m.key_hi, m.pid_lo,
	       m.pid_hi, m.level, m.bcomm_lo, m.bcomm_hi, m.bpid_lo,
	       m.bpid_hi, coalesce(m.pw, 0) AS pw,
	       CASE WHEN m.source_id IS NULL THEN 'raw'
	            WHEN :tsel AND NOT coalesce(m.min_ts >= :t_lo AND
	                 max(m.max_ts, coalesce(m.max_end, m.max_ts))
	                 <= :t_hi, 0)
	                 THEN CASE WHEN m.col_lo IS NULL THEN 'win'
	                           ELSE 'col' END
	            WHEN (:given_pid OR :by = 'pid') AND NOT :given_cache
	                 AND NOT :given_comm
	                 AND :by IN ('site', 'type', 'pid', 'label')
	                 THEN 'pid'
	            WHEN NOT :given_pid AND :by <> 'pid' THEN 'key'
	            WHEN m.col_lo IS NOT NULL THEN 'col'
	            ELSE 'raw' END AS mode,
	       (min(max(:t_lo, 0), m.max_ts + 1) + m.bw - 1) / m.bw
	           AS b1,
	       (min(:t_hi, m.max_ts) + 1) / m.bw - 1 AS b2
	FROM temp.rsrc r JOIN source s ON s.id = r.source_id LEFT JOIN (
		-- slice_bucket_comm's buckets are 2^bcomm_shift of
		-- slice_bucket's (db/schema-6.sql), slice_bucket_pid's
		-- 2^bpid_shift (db/schema-7.sql)
		SELECT *, width << bshift AS bw FROM (
			SELECT *, CASE WHEN :given_comm OR :by = 'comm'
			               THEN coalesce(bcomm_shift, 0)
			               WHEN pw THEN bpid_shift
			               ELSE 0 END AS bshift
			FROM (SELECT *, coalesce(level >= 7 AND
			                (:given_pid OR :by = 'pid') AND
			                NOT :given_cache AND NOT :given_comm
			                AND :by IN ('site', 'type', 'pid',
			                            'label'), 0)
			                AS pw
			      FROM slice_meta))) m ON m.source_id = s.id
), w AS (
	SELECT *, coalesce(CASE WHEN pw THEN b1 <= b2 ELSE
	                   NOT :given_pid AND :by <> 'pid' AND
	                   CASE WHEN :given_comm OR :by = 'comm'
	                        THEN level >= 6 AND NOT :given_cache
	                             AND :by <> 'cache'
	                        ELSE 1 END AND b1 <= b2 END, 0) AS inner
	FROM m
)
SELECT sid, alloc_lo, alloc_hi, block_rows, bucket_lo, bucket_hi, key_lo,
       key_hi, pid_lo, pid_hi, bcomm_lo, bcomm_hi, bpid_lo, bpid_hi, pw,
       mode,
       CASE WHEN inner THEN b1 ELSE 1 END AS b1,
       CASE WHEN inner THEN b2 ELSE 0 END AS b2,
       CASE WHEN inner THEN b1 * width ELSE 1 END AS ilo,
       CASE WHEN inner THEN (b2 + 1) * width - 1 ELSE 0 END AS ihi
FROM w;

CREATE TEMP TABLE sl_blk AS
SELECT s.sid, s.alloc_lo + k.blk * s.block_rows AS lo,
       min(s.alloc_lo + (k.blk + 1) * s.block_rows - 1, s.alloc_hi) AS hi,
       s.ilo, s.ihi
FROM temp.sl_src s CROSS JOIN slice_block k ON k.source_id = s.sid
WHERE s.mode = 'win' AND k.max_ts >= :t_lo AND k.min_ts <= :t_hi
  AND NOT (k.min_ts >= s.ilo AND k.max_ts <= s.ihi AND
           coalesce(k.max_end <= :t_hi, 1));

-- One row per stats row, or per allocation (with :sel, and for comm and
-- pid), keyed by what names its group (rk: the site, type, cache or
-- comm id, or the pid; the cache's type and object size), summed per
-- source and key (p), then named (k).  The slicing index's rows (see
-- above) are per key, or per allocation with signed figures: an edge
-- allocation counts whole, one inside the buckets ended after END takes
-- back its freed and pingpong and counts as live.
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
	SELECT a.source_id, CASE :by WHEN 'site' THEN a.site_id
	                             WHEN 'type' THEN a.type
	                             WHEN 'cache' THEN a.cache_id
	                             WHEN 'comm' THEN a.comm_id
	                             ELSE a.pid END,
	       CASE :by WHEN 'cache' THEN a.type END,
	       CASE :by WHEN 'cache' THEN a.bytes_alloc END, 1, a.bytes_req,
	       a.bytes_alloc, a.state = 1 AND coalesce(a.end_ts <= :t_hi, 1),
	       a.state = 1 AND a.free_cpu <> a.cpu AND
	           coalesce(a.end_ts <= :t_hi, 1),
	       a.state = 0 OR (a.state IN (1, 2) AND a.end_ts > :t_hi),
	       CASE WHEN a.state = 0 OR (a.state IN (1, 2) AND
	                                 a.end_ts > :t_hi)
	            THEN a.bytes_alloc END
	FROM temp.sl_src s
	CROSS JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
	WHERE (:sel OR :by IN ('comm', 'pid')) AND s.mode = 'raw'
	  AND a.type < 2 AND @where
	UNION ALL
	-- packed columns (db/schema-8.sql): the selection summed per key
	-- in C, the same figures as the alloc rows' above (report/scan.c)
	SELECT s.sid, a.rk, a.k2, a.k3, a.hits, a.bytes_req,
	       a.bytes_alloc, a.freed, a.pingpong, a.live, a.live_bytes
	FROM temp.sl_src s
	CROSS JOIN slab_scan(s.sid, CASE :by WHEN 'label' THEN 'type'
	                                ELSE :by END, :tsel, :t_lo, :t_hi,
	                     CASE WHEN :given_pid THEN :pid END, :comm,
	                     :cache, :site) a
	WHERE s.mode = 'col'
	UNION ALL
	SELECT a.source_id, CASE :by WHEN 'site' THEN a.site_id
	                             WHEN 'type' THEN a.type
	                             WHEN 'cache' THEN a.cache_id
	                             WHEN 'comm' THEN a.comm_id
	                             ELSE a.pid END,
	       CASE :by WHEN 'cache' THEN a.type END,
	       CASE :by WHEN 'cache' THEN a.bytes_alloc END, a.hits,
	       a.sum_req, a.sum_alloc, a.freed, a.pingpong, a.live,
	       a.live_bytes
	FROM temp.sl_src s
	CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid FROM slice_key) a
	  ON a.rid BETWEEN s.key_lo AND s.key_hi
	WHERE (:sel OR :by IN ('comm', 'pid')) AND s.mode = 'key'
	  AND @fwhere
	UNION ALL
	SELECT a.source_id, CASE :by WHEN 'site' THEN a.site_id
	                             WHEN 'type' THEN a.type
	                             ELSE a.pid END,
	       NULL, NULL, a.hits, a.sum_req, a.sum_alloc, a.freed,
	       a.pingpong, a.live, a.live_bytes
	FROM temp.sl_src s
	CROSS JOIN (SELECT rowid AS rid, *, NULL AS bytes_alloc, NULL AS comm_id
	      FROM slice_pid) a ON a.rid BETWEEN s.pid_lo AND s.pid_hi
	WHERE (:sel OR :by = 'pid') AND s.mode = 'pid' AND @fwhere
	UNION ALL
	SELECT a.source_id, CASE :by WHEN 'site' THEN a.site_id
	                             WHEN 'type' THEN a.type
	                             ELSE a.cache_id END,
	       CASE :by WHEN 'cache' THEN a.type END,
	       CASE :by WHEN 'cache' THEN a.bytes_alloc END, a.hits,
	       a.sum_req, a.sum_alloc, a.freed, a.pingpong, a.live,
	       a.live_bytes
	FROM temp.sl_src s
	CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid, NULL AS comm_id
	      FROM slice_bucket) a ON a.rid BETWEEN s.bucket_lo AND s.bucket_hi
	WHERE s.mode = 'win' AND NOT :given_comm AND :by <> 'comm'
	  AND NOT s.pw AND a.bucket BETWEEN s.b1 AND s.b2 AND @fwhere
	UNION ALL
	SELECT a.source_id, CASE :by WHEN 'site' THEN a.site_id
	                             WHEN 'type' THEN a.type
	                             ELSE a.pid END,
	       NULL, NULL, a.hits, a.sum_req, a.sum_alloc, a.freed,
	       a.pingpong, a.live, a.live_bytes
	FROM temp.sl_src s
	CROSS JOIN (SELECT rowid AS rid, *, NULL AS bytes_alloc, NULL AS comm_id
	      FROM slice_bucket_pid) a ON a.rid BETWEEN s.bpid_lo AND s.bpid_hi
	WHERE s.mode = 'win' AND s.pw AND a.bucket BETWEEN s.b1 AND s.b2
	  AND @fwhere
	UNION ALL
	SELECT a.source_id, CASE :by WHEN 'site' THEN a.site_id
	                             WHEN 'type' THEN a.type
	                             WHEN 'comm' THEN a.comm_id
	                             ELSE a.cache_id END,
	       CASE :by WHEN 'cache' THEN a.type END,
	       CASE :by WHEN 'cache' THEN a.bytes_alloc END, a.hits,
	       a.sum_req, a.sum_alloc, a.freed, a.pingpong, a.live,
	       a.live_bytes
	FROM temp.sl_src s
	CROSS JOIN (SELECT rowid AS rid, *, NULL AS pid, NULL AS cache_id,
	                   NULL AS bytes_alloc FROM slice_bucket_comm) a
	  ON a.rid BETWEEN s.bcomm_lo AND s.bcomm_hi
	WHERE s.mode = 'win' AND (:given_comm OR :by = 'comm')
	  AND a.bucket BETWEEN s.b1 AND s.b2 AND @fwhere
	UNION ALL
	SELECT sid, rk, ctype, osize, NOT inner,
	       CASE WHEN NOT inner THEN bytes_req END,
	       CASE WHEN NOT inner THEN bytes_alloc END,
	       CASE WHEN inner THEN -(state = 1 AND late)
	            ELSE state = 1 AND coalesce(end_ts <= :t_hi, 1) END,
	       CASE WHEN inner THEN -(state = 1 AND pp AND late)
	            ELSE state = 1 AND pp AND coalesce(end_ts <= :t_hi, 1)
	       END,
	       late OR (NOT inner AND state = 0),
	       CASE WHEN late OR (NOT inner AND state = 0)
	            THEN bytes_alloc END
	FROM (
		SELECT a.source_id AS sid,
		       CASE :by WHEN 'site' THEN a.site_id
		                WHEN 'type' THEN a.type
		                WHEN 'cache' THEN a.cache_id
		                WHEN 'comm' THEN a.comm_id
		                ELSE a.pid END AS rk,
		       CASE :by WHEN 'cache' THEN a.type END AS ctype,
		       CASE :by WHEN 'cache' THEN a.bytes_alloc END AS osize,
		       a.ts BETWEEN b.ilo AND b.ihi AS inner,
		       coalesce(a.state IN (1, 2) AND a.end_ts > :t_hi, 0)
		           AS late,
		       a.state, a.end_ts, a.bytes_req, a.bytes_alloc,
		       coalesce(a.free_cpu <> a.cpu, 0) AS pp
		FROM temp.sl_blk b
		CROSS JOIN alloc a ON a.id BETWEEN b.lo AND b.hi
		WHERE a.type < 2 AND a.ts BETWEEN :t_lo AND :t_hi AND @fwhere
	)
	WHERE NOT inner OR late
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
	       CAST(total(hits) AS INTEGER) AS hits, CAST(total(bytes_req) AS INTEGER) AS bytes_req,
	       CAST(total(bytes_alloc) AS INTEGER) AS bytes_alloc, CAST(total(freed) AS INTEGER) AS freed,
	       CAST(total(pingpong) AS INTEGER) AS pingpong, CAST(total(live) AS INTEGER) AS live,
	       CAST(total(live_bytes) AS INTEGER) AS live_bytes
	FROM k
	GROUP BY CASE WHEN :fleet AND :by = 'site' AND k2 <> '??' THEN NULL
	              ELSE k1 END, k2
)
SELECT k1, k2, addr, ord, hits, bytes_req, bytes_alloc,
       CASE WHEN hits = 0 THEN 0 ELSE bytes_alloc / hits END,
       bytes_alloc - bytes_req,
       CASE WHEN bytes_alloc = 0 THEN 0.0
            ELSE 100.0 - 100.0 * bytes_req / bytes_alloc END,
       freed, pingpong, live, live_bytes
FROM g;

CREATE TEMP TABLE slab_total AS
SELECT coalesce(CAST(total(hits) AS INTEGER), 0) AS hits,
       coalesce(CAST(total(bytes_req) AS INTEGER), 0) AS bytes_req,
       coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) AS bytes_alloc,
       CASE WHEN coalesce(CAST(total(hits) AS INTEGER), 0) = 0 THEN 0
            ELSE CAST(total(bytes_alloc) AS INTEGER) / CAST(total(hits) AS INTEGER) END AS avg_alloc,
       coalesce(CAST(total(bytes_alloc) AS INTEGER) - CAST(total(bytes_req) AS INTEGER), 0) AS waste,
       CASE WHEN coalesce(CAST(total(bytes_alloc) AS INTEGER), 0) = 0 THEN 0.0
            ELSE 100.0 - 100.0 * CAST(total(bytes_req) AS INTEGER) / CAST(total(bytes_alloc) AS INTEGER)
       END AS frag_pct,
       coalesce(CAST(total(freed) AS INTEGER), 0) AS freed,
       coalesce(CAST(total(pingpong) AS INTEGER), 0) AS pingpong,
       coalesce(CAST(total(live) AS INTEGER), 0) AS live,
       coalesce(CAST(total(live_bytes) AS INTEGER), 0) AS live_bytes
FROM temp.slab_rows;

SELECT k1 AS call_site, k2 AS symbol, hits, bytes_req, bytes_alloc,
       avg_alloc, waste, frag_pct, freed, pingpong, live, live_bytes
FROM temp.slab_rows
ORDER BY @sort, addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol, * FROM temp.slab_total;
