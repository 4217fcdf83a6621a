-- SPDX-License-Identifier: MIT
-- report: callsites
-- help: per call site over the hosts of a fleet: hits, bytes, average, waste, fragmentation, ping-pong, live at end
-- source: trace
-- drop: avg_alloc freed waste bytes_req live pingpong live_bytes
-- by: site|cache|type|label
-- sort: bytes=bytes_alloc|callsite=addr < 0,addr|hit=hits|pingpong|frag=frag_pct|hits|waste|live=live_bytes|bytes_alloc|bytes_req|frag_pct|freed|live_bytes|avg_alloc
--
-- The fleet form of queries/callsites.sql: the per-call-site
-- figures (memdb_site, from each trace's site_stats) of each host's
-- latest trace, slab allocations only, added up over the hosts: one row
-- per symbol (each host's kernel at its own KASLR offset), per address
-- where there is none; call_site is the address where all hosts agree.
-- --by cache, type, label: callsites@cache.sql, @type.sql, @label.sql.
-- The slicing options (--time and the filters) need the allocations,
-- which the fleet form does not read.
-- The fleet, as the SQLite form picks it (temp.rsrc there): of each
-- label matching --label GLOB (none: every label), the latest source
-- with neither tags nor zones (a trace) taken within --from and --to,
-- by taken_at, ties by the larger content hash; a content hash exported
-- twice (two exports racing) is read once, with its smallest sid.
-- Parameters, written in as literals by report/fleet.c: those of the
-- SQLite form, :label_re (the --label GLOB as a regular expression,
-- '^.*$' when not given), :from_time and :to_time (Unix seconds, NULL
-- for no bound).  Statements: the rows, the total, the scope (labels,
-- sources, the first and the last taken_at) that the title gives.

SELECT call_site, symbol,
       hits, bytes_req, bytes_alloc, avg_alloc, waste, frag_pct,
       freed, pingpong, live, live_bytes
FROM (
	SELECT if(min(k_cs) = max(k_cs), min(k_cs), NULL) AS call_site,
	       k_sym AS symbol,
	       if(min(k_addr) = max(k_addr), min(k_addr), NULL) AS addr,
	       @figures()
	FROM (
		SELECT call_site AS k_cs, addr AS k_addr, symbol AS k_sym,
		       @trace_rows(memdb_site, :label, :label_re, :from_time, :to_time))
	GROUP BY if(k_sym != '??', '', ifNull(k_cs, '')), k_sym)
ORDER BY @sort, isNotNull(addr), addr < 0, addr, symbol
LIMIT :top;

SELECT 'total' AS call_site, NULL AS symbol,
       @figures()
FROM (
	SELECT @trace_rows(memdb_site, :label, :label_re, :from_time, :to_time));

@scope(1, :label, :label_re, :from_time, :to_time);
