-- SPDX-License-Identifier: MIT
-- report: timeline
-- help: live slab bytes and allocations over the trace, in --buckets N buckets, for plotting
-- source: trace
-- drop: from_seq to_seq frees
-- by: seq|time
-- scope: one source
--
-- The rows and their columns: docs/reports.md, "timeline".
--
-- Parameters: :src_lo (one source), :buckets, :by.  Reads timeline.

WITH s AS (
	SELECT slot, first_seq, last_seq, first_ts, last_ts, allocs, frees,
	       sum(allocs - frees) OVER w AS live,
	       CAST(total(bytes_in - bytes_out) OVER w AS INTEGER) AS live_bytes,
	       row_number() OVER w - 1 AS i, count(*) OVER () AS n,
	       min(first_ts) OVER () AS t0, max(last_ts) OVER () AS t1
	FROM timeline WHERE source_id = :src_lo
	WINDOW w AS (ORDER BY slot)
), b AS (
	SELECT *,
	       CASE WHEN :by = 'time' AND t1 > t0
	            THEN min((last_ts - t0) * :buckets / (t1 - t0),
	                     :buckets - 1)
	            ELSE i * :buckets / n END AS bucket
	FROM s
), g AS (
	SELECT bucket, min(first_seq) AS from_seq, max(last_seq) AS to_seq,
	       min(first_ts) AS from_ts, max(last_ts) AS to_ts,
	       CAST(total(allocs) AS INTEGER) AS allocs, CAST(total(frees) AS INTEGER) AS frees, max(i) AS last_i
	FROM b GROUP BY bucket
)
SELECT g.bucket, g.from_seq, g.to_seq, g.from_ts / 1e9 AS from_s,
       g.to_ts / 1e9 AS to_s, g.allocs, g.frees, b.live, b.live_bytes
FROM g JOIN b ON b.i = g.last_i
ORDER BY g.bucket;

SELECT 'total' AS bucket, min(first_seq) AS from_seq,
       max(last_seq) AS to_seq, min(first_ts) / 1e9 AS from_s,
       max(last_ts) / 1e9 AS to_s, coalesce(CAST(total(allocs) AS INTEGER), 0) AS allocs,
       coalesce(CAST(total(frees) AS INTEGER), 0) AS frees,
       coalesce(CAST(total(allocs) AS INTEGER) - CAST(total(frees) AS INTEGER), 0) AS live,
       coalesce(CAST(total(bytes_in) AS INTEGER) - CAST(total(bytes_out) AS INTEGER), 0) AS live_bytes
FROM timeline WHERE source_id = :src_lo;
