-- SPDX-License-Identifier: MIT
-- report: callsites --by pid
-- help: per task id (pid) hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- setup: callsites
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- As callsites, grouped by task id (pid): the kernel's task id (a thread: perf's tid, ftrace's pid,
-- tracefs common_pid).
-- Slab allocations only, as in every variant.  Captures that name no task
-- give one row with an empty pid.
--
-- --time and the filters (--cache, --site, --pid, --comm) select the
-- allocations counted, as in callsites.
--
-- Parameters: those of callsites, whose set-up statements compute the
-- groups into temp.slab_rows and their total into temp.slab_total.

@slab_rows_by(pid, pid);

SELECT 'total' AS pid, * FROM temp.slab_total;
