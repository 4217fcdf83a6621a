-- SPDX-License-Identifier: MIT
-- report: callsites --by comm
-- help: per task name (comm) hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- setup: callsites
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The rows and their columns: docs/reports.md, "callsites --by comm".
--
-- Parameters: those of callsites, whose statements run first.

@slab_rows_by(comm, comm);

SELECT 'total' AS comm, * FROM temp.slab_total;
