-- SPDX-License-Identifier: MIT
-- report: callsites --by cache
-- help: per cache hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- setup: callsites
-- sort: bytes=bytes_alloc|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- As callsites, grouped by cache.  The cache is the name the trace gives
-- (ftrace name=); where it gives none, kmalloc objects are put in the
-- kmalloc cache of their size class ('kmalloc-64'; above 8192 bytes
-- 'kmalloc-large', served by the page allocator) and kmem_cache objects
-- in 'cache-<object size>'.  Ties by name.
--
-- --time and the filters (--cache, --site, --pid, --comm) count the
-- allocations they select, from the alloc rows, as in callsites.
--
-- Parameters: those of callsites, whose set-up statements compute the
-- groups into temp.slab_rows and their total into temp.slab_total.

@slab_rows_by(cache, cache);

SELECT 'total' AS cache, * FROM temp.slab_total;
