-- SPDX-License-Identifier: MIT
-- report: callsites --by type
-- help: per allocation type (kmalloc, kmem_cache) hits, bytes, waste, ping-pong, live
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- setup: callsites
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The rows and their columns: docs/reports.md, "callsites --by type".
--
-- Parameters: those of callsites, whose statements run first.

@slab_rows_by(type, ord);

SELECT 'total' AS type, * FROM temp.slab_total;
