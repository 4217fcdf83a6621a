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

-- summary, errors, timeline, pages:
@itotal(x) = CAST(total($x) AS INTEGER);
@page_allocs() =
source s CROSS JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
WHERE s.id BETWEEN :src_lo AND :src_hi AND s.alloc_lo IS NOT NULL
  -- site_stats has a row for every site and type seen: a source
  -- without page allocations has no block to read
  AND EXISTS (SELECT 1 FROM site_stats t
              WHERE t.source_id = s.id AND t.type = 2)
  AND a.type = 2;

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
