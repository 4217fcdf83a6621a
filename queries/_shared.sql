-- SPDX-License-Identifier: MIT
-- The parts the reports share, each defined once as a fragment
-- "@NAME(a, b) = TEXT;" that a report calls as @NAME(x, y): the report
-- table (report/queries.c) holds each report with its calls replaced by
-- TEXT, each $a replaced by the text given for it (report/fragment.c,
-- which expands the fleet forms' fragments too).  A fragment may read
-- the report's parameters (:label, :from_time, ...) itself: the engine
-- looks for them in the expanded text.  Not a report.

-- The sources a report covers, the rows of temp.rsrc: those of :src_lo
-- to :src_hi (--source) whose label matches --label GLOB, when given,
-- and of which RANGE holds; or, for a fleet (:fleet), of each label
-- matching GLOB (default *) its latest source of which LATEST holds, by
-- taken_at (ties: the larger content hash), among those taken from
-- :from_time to :to_time (Unix seconds, NULL for no bound).  RANGE and
-- LATEST are conditions on source s.  Columns: source_id, label, kind
-- (the text KIND).
@rsrc(kind, range, latest) =
SELECT id AS source_id, label, $kind AS kind FROM source s
WHERE NOT coalesce(:fleet, 0) AND id BETWEEN :src_lo AND :src_hi
  AND (:label IS NULL OR label GLOB :label) AND $range
UNION ALL
SELECT id, label, kind FROM (
	SELECT s.id, s.label, $kind AS kind,
	       row_number() OVER (PARTITION BY s.label
	                          ORDER BY s.taken_at DESC, s.hash DESC) AS k
	FROM source s
	WHERE :fleet AND s.label GLOB coalesce(:label, '*') AND $latest
	  AND coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER) >=
	               :from_time, :from_time IS NULL)
	  AND coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER) <=
	               :to_time, :to_time IS NULL)
) WHERE k = 1;

-- Source s has tags (/proc/allocinfo lines), zones (slabinfo, ...).
@has_tags() = EXISTS (SELECT 1 FROM tag t WHERE t.source_id = s.id);
@has_zones() = EXISTS (SELECT 1 FROM zone z WHERE z.source_id = s.id);

-- Snapshots and diff.  A sum as an integer, NULL for no value (a row's
-- figure: NULL where the input has none).
@nsum(x) = CASE WHEN count($x) THEN CAST(total($x) AS INTEGER) END;
-- diff: X's sum over source SRC's rows; both traces' sums; the columns.
@src_total(src, x) =
CAST(total(CASE WHEN source_id = $src THEN $x END) AS INTEGER);
@diff_sides() =
@src_total(:from, hits) AS hits_a, @src_total(:to, hits) AS hits_b,
@src_total(:from, bytes_req) AS req_a, @src_total(:to, bytes_req) AS req_b,
@src_total(:from, bytes_alloc) AS bytes_a,
@src_total(:to, bytes_alloc) AS bytes_b,
@src_total(:from, live_bytes) AS live_bytes_a,
@src_total(:to, live_bytes) AS live_bytes_b;
-- growth's columns from the two ends' sums.
@growth_cols() =
bytes_from, bytes_to, bytes_to - bytes_from AS bytes_delta,
count_from, count_to, count_to - count_from AS count_delta;
@diff_cols() =
hits_a, hits_b, hits_b - hits_a AS delta_hits,
bytes_a, bytes_b, bytes_b - bytes_a AS delta_bytes,
frag_a, frag_b, frag_b - frag_a AS delta_frag,
live_bytes_a, live_bytes_b, live_bytes_b - live_bytes_a AS delta_live_bytes;
-- allocinfo's flags of a group of tag lines t.
@tag_flags() =
nullif(substr(iif(max(NOT t.accurate), ',inaccurate', '') ||
              iif(max(t.approx), ',approx', '') ||
              iif(max(t.bytes < 0 OR t.calls < 0), ',underflow', ''), 2),
       '');
-- unused % of zones v added up: free over used + free, of slab caches.
@unused_pct_total() =
CASE WHEN count(v.unused_pct) = 0 THEN NULL
     WHEN sum(CASE WHEN v.unused_pct IS NOT NULL THEN v.used + v.free END) > 0
         THEN 100.0 * sum(CASE WHEN v.unused_pct IS NOT NULL THEN v.free END) /
              sum(CASE WHEN v.unused_pct IS NOT NULL THEN v.used + v.free END)
     ELSE 0.0 END;

-- The rows of a callsites --by KEY report: the groups callsites' set-up
-- statements computed into temp.slab_rows (k1 the key), named KEY,
-- ordered by --sort and then by TIE.
@slab_rows_by(key, tie) =
SELECT k1 AS $key, hits, bytes_req, bytes_alloc, avg_alloc, waste,
       frag_pct, freed, pingpong, live, live_bytes
FROM temp.slab_rows
ORDER BY @sort, $tie
LIMIT :top;

-- X (an int64) in the order of unsigned numbers, as "X < 0, X" orders
-- it: X with its top bit flipped, without passing int64 on the way
-- (slab_scan's rk_u and site_u).
@unsigned(x) = CASE WHEN $x < 0 THEN $x + 9223372036854775807 + 1
                    ELSE $x - 9223372036854775807 - 1 END;

-- The allocations of source SRC that slab_scan (report/scan.c) sums per
-- BY, as the options --time, --pid, --comm, --cache and --site select
-- them (slab allocations; page ones for BY 'page').
@scan(src, by) = slab_scan($src, $by, :tsel, :t_lo, :t_hi,
                           CASE WHEN :given_pid THEN :pid END, :comm,
                           :cache, :site);

-- A sum as an integer (a total row's figure; 0 for no row).
@isum(x) = coalesce(CAST(total($x) AS INTEGER), 0);

-- perf kmem's fragmentation: 100 - 100 * REQ / ALLOC, 0 when ALLOC is.
@frag(req, alloc) = CASE WHEN $alloc = 0 THEN 0.0
                         ELSE 100.0 - 100.0 * $req / $alloc END;
