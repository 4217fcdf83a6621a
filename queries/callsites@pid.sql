-- SPDX-License-Identifier: MIT
-- report: callsites --by pid
-- help: per task id (pid) hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- setup: callsites
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The rows and their columns: docs/reports.md, "callsites --by pid".
--
-- Parameters: those of callsites, whose statements run first.

@slab_rows_by(pid, pid);

SELECT 'total' AS pid, * FROM temp.slab_total;
