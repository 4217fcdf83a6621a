-- SPDX-License-Identifier: MIT
-- report: growth
-- help: change of bytes and counts per tag or zone between two snapshots of a series (default first and last), by growth
-- source: tags|zones
-- drop: count_from count_to module kind bytes_from function bytes_to count_delta
-- by: tag|function|file|module
-- sort: bytes|calls|count
--
-- What grew between snapshot :from and snapshot :to: the leak-suspect
-- view.  memdb report growth takes the first and the last snapshot of the
-- selected source's series (the snapshots with its label and format,
-- ordered by taken_at) unless --from and --to name two sources.
--
-- One row per allocation tag (or, with --by, per function, file or
-- module) and per zone present in either snapshot.  Tags match on
-- file:line, function and module; zones on allocator, name and instance
-- (the second "vm pgcache" of one snapshot is the second of the other).
-- Something present in one snapshot only counts 0 in the other.  Tags
-- are compared when both snapshots have tags, zones when both have
-- zones: a core dump has both, so it compares with a /proc/allocinfo
-- snapshot on its tags and with a /proc/slabinfo one on its caches.
--   count   calls for tags, items in use for zones
--   bytes   bytes for tags; for zones as in the zones report
--   flags   'new' (only in :to), 'gone' (only in :from), 'inaccurate'
--           (accurate:no in either: absolute values are not exact, the
--           delta is), 'approx' (humanized figures in either),
--           'underflow' (a tag's bytes or calls below zero in either, as
--           in the allocinfo report: the delta is that of the counters)
-- Sorted by bytes_delta (--sort calls or count: count_delta), largest
-- growth first, ties by name.  The total row covers every row.
--
-- Parameters (sqlite3: .param set :from 3, ...):
--   :from, :to   the source ids to compare
--   :top         rows to return, -1 for all
--   :by          NULL or 'tag', 'function', 'file', 'module' (tags only)
--   :sort        NULL or 'bytes', 'calls', 'count'

WITH p AS (
	SELECT coalesce(:by, 'tag') AS by, coalesce(:sort, 'bytes') AS sort
),
both_have AS (
	SELECT EXISTS (SELECT 1 FROM tag WHERE source_id = :from) AND
	       EXISTS (SELECT 1 FROM tag WHERE source_id = :to) AS tags,
	       EXISTS (SELECT 1 FROM zone WHERE source_id = :from) AND
	       EXISTS (SELECT 1 FROM zone WHERE source_id = :to) AS zones
),
items AS (
	SELECT t.source_id, 'tag' AS kind,
	       CASE p.by WHEN 'tag' THEN t.tag WHEN 'file' THEN t.file
	       END AS name,
	       CASE WHEN p.by IN ('tag', 'function') THEN t.function
	       END AS function,
	       t.module, 0 AS instance,
	       (CASE WHEN count(t.bytes) THEN CAST(total(t.bytes) AS INTEGER) END) AS bytes, (CASE WHEN count(t.calls) THEN CAST(total(t.calls) AS INTEGER) END) AS count,
	       max(NOT t.accurate) AS inaccurate, max(t.approx) AS approx,
	       max(t.bytes < 0 OR t.calls < 0) AS underflow
	FROM v_tags t, p, both_have b
	WHERE t.source_id IN (:from, :to) AND b.tags
	GROUP BY 1, 2, 3, 4, 5
	UNION ALL
	SELECT source_id, allocator, name, NULL, NULL, instance, bytes, used,
	       0, approx, 0
	FROM v_zones, both_have b
	WHERE source_id IN (:from, :to) AND b.zones
),
a AS (SELECT * FROM items WHERE source_id = :from),
b AS (SELECT * FROM items WHERE source_id = :to),
k AS (
	SELECT kind, name, function, module, instance FROM a
	UNION
	SELECT kind, name, function, module, instance FROM b
),
d AS (
	SELECT k.kind, k.name, k.function, k.module, k.instance,
	       CASE WHEN a.kind IS NULL THEN 0 ELSE a.bytes END AS bytes_from,
	       CASE WHEN b.kind IS NULL THEN 0 ELSE b.bytes END AS bytes_to,
	       CASE WHEN a.kind IS NULL THEN 0 ELSE a.count END AS count_from,
	       CASE WHEN b.kind IS NULL THEN 0 ELSE b.count END AS count_to,
	       a.kind IS NULL AS new, b.kind IS NULL AS gone,
	       coalesce(a.inaccurate, 0) OR coalesce(b.inaccurate, 0)
	           AS inaccurate,
	       coalesce(a.approx, 0) OR coalesce(b.approx, 0) AS approx,
	       coalesce(a.underflow, 0) OR coalesce(b.underflow, 0)
	           AS underflow
	FROM k
	LEFT JOIN a ON a.kind = k.kind AND a.name IS k.name
	           AND a.function IS k.function AND a.module IS k.module
	           AND a.instance = k.instance
	LEFT JOIN b ON b.kind = k.kind AND b.name IS k.name
	           AND b.function IS k.function AND b.module IS k.module
	           AND b.instance = k.instance
)
SELECT name, function, module, kind, bytes_from, bytes_to,
       bytes_to - bytes_from AS bytes_delta, count_from, count_to,
       count_to - count_from AS count_delta,
       nullif(substr(CASE WHEN new THEN ',new' ELSE '' END ||
                     CASE WHEN gone THEN ',gone' ELSE '' END ||
                     CASE WHEN inaccurate THEN ',inaccurate' ELSE '' END ||
                     CASE WHEN approx THEN ',approx' ELSE '' END ||
                     CASE WHEN underflow THEN ',underflow' ELSE '' END, 2),
              '') AS flags
FROM d, p
ORDER BY CASE WHEN p.sort = 'bytes' THEN bytes_delta ELSE count_delta
         END DESC,
         CASE WHEN p.sort = 'bytes' THEN count_delta ELSE bytes_delta
         END DESC,
         kind, name, function, module, instance
LIMIT :top;

WITH both_have AS (
	SELECT EXISTS (SELECT 1 FROM tag WHERE source_id = :from) AND
	       EXISTS (SELECT 1 FROM tag WHERE source_id = :to) AS tags,
	       EXISTS (SELECT 1 FROM zone WHERE source_id = :from) AND
	       EXISTS (SELECT 1 FROM zone WHERE source_id = :to) AS zones
),
items AS (
	SELECT source_id, bytes, calls AS count FROM v_tags, both_have b
	WHERE source_id IN (:from, :to) AND b.tags
	UNION ALL
	SELECT source_id, bytes, used FROM v_zones, both_have b
	WHERE source_id IN (:from, :to) AND b.zones
),
s AS (
	SELECT coalesce((CASE WHEN count(CASE WHEN source_id = :from THEN bytes END) THEN CAST(total(CASE WHEN source_id = :from THEN bytes END) AS INTEGER) END), 0)
	           AS bytes_from,
	       coalesce((CASE WHEN count(CASE WHEN source_id = :to THEN bytes END) THEN CAST(total(CASE WHEN source_id = :to THEN bytes END) AS INTEGER) END), 0)
	           AS bytes_to,
	       coalesce((CASE WHEN count(CASE WHEN source_id = :from THEN count END) THEN CAST(total(CASE WHEN source_id = :from THEN count END) AS INTEGER) END), 0)
	           AS count_from,
	       coalesce((CASE WHEN count(CASE WHEN source_id = :to THEN count END) THEN CAST(total(CASE WHEN source_id = :to THEN count END) AS INTEGER) END), 0)
	           AS count_to
	FROM items
)
SELECT 'total' AS name, NULL AS function, NULL AS module, NULL AS kind,
       bytes_from, bytes_to, bytes_to - bytes_from AS bytes_delta,
       count_from, count_to, count_to - count_from AS count_delta,
       NULL AS flags
FROM s;
