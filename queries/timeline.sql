-- SPDX-License-Identifier: MIT
-- report: timeline
-- help: live slab bytes and allocations over the trace, in --buckets N buckets, for plotting
-- source: trace
-- drop: from_seq to_seq frees
-- by: seq|time
-- scope: one source
--
-- The rows and their columns: docs/reports.md, "timeline".

WITH s AS (
	SELECT slot, first_seq, last_seq, first_ts, last_ts, allocs, frees,
	       sum(allocs - frees) OVER w AS live, row_number() OVER w - 1 AS i,
	       CAST(total(bytes_in - bytes_out) OVER w AS INTEGER)
	           AS live_bytes, count(*) OVER () AS n,
	       min(first_ts) OVER () AS t0, max(last_ts) OVER () AS t1
	FROM timeline WHERE source_id = :src_lo
	WINDOW w AS (ORDER BY slot)
), b AS (
	SELECT *, iif(:by = 'time' AND t1 > t0,
	              min((last_ts - t0) * :buckets / (t1 - t0), :buckets - 1),
	              i * :buckets / n) AS bucket
	FROM s
), g AS (
	SELECT bucket, min(first_seq) AS from_seq, max(last_seq) AS to_seq,
	       min(first_ts) AS from_ts, max(last_ts) AS to_ts, max(i) AS end_i,
	       @isum(allocs) AS allocs, @isum(frees) AS frees
	FROM b GROUP BY bucket
)
SELECT g.bucket, g.from_seq, g.to_seq, g.from_ts / 1e9 AS from_s,
       g.to_ts / 1e9 AS to_s, g.allocs, g.frees, b.live, b.live_bytes
FROM g JOIN b ON b.i = g.end_i
ORDER BY g.bucket;

SELECT 'total' AS bucket, min(first_seq) AS from_seq, max(last_seq) AS to_seq,
       min(first_ts) / 1e9 AS from_s, max(last_ts) / 1e9 AS to_s,
       @isum(allocs) AS allocs, @isum(frees) AS frees,
       @isum(allocs) - @isum(frees) AS live,
       @isum(bytes_in) - @isum(bytes_out) AS live_bytes
FROM timeline WHERE source_id = :src_lo;
