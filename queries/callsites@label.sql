-- SPDX-License-Identifier: MIT
-- report: callsites --by label
-- help: per label (host) hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- setup: callsites
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The rows and their columns: docs/reports.md, "callsites --by label".
--
-- Parameters: those of callsites, whose statements run first.

@slab_rows_by(label, label);

SELECT 'total' AS label, * FROM temp.slab_total;
