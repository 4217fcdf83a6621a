-- SPDX-License-Identifier: MIT
-- The parts the fleet forms share, each defined once as a fragment
-- "@NAME(a, b) = TEXT;" that a form calls as @NAME(x, y): report/fragment.c
-- puts TEXT there, each $a replaced by the text given for it.  A form
-- passes the report's parameters (:label, :from_time, ...) to the
-- fragments that read them, so that its own text names every parameter
-- it reads (which decides the options a report takes).  Not a report.

-- The sources of the fleet a report may read: each exported content
-- hash once, as its smallest sid (two exports racing may both send a
-- source), of a label matching --label GLOB (:label_re: the GLOB as a
-- regular expression), taken within --from and --to (Unix seconds, NULL
-- for no bound; a source taken at an unknown time only without --to).
-- Columns: h (the content hash), s_sid, s_label, s_format, s_kinds (2
-- it has tags, 4 zones, 1 neither: a trace), s_taken (Unix seconds, -1
-- unknown).
@sources(label, label_re, from_time, to_time) =
(SELECT * FROM (
	SELECT hash AS h, min(sid) AS s_sid, argMin(label, sid) AS s_label,
	       argMin(format, sid) AS s_format, argMin(kinds, sid) AS s_kinds,
	       argMin(taken_unix, sid) AS s_taken
	FROM memdb_source GROUP BY hash)
 WHERE s_label != '' AND (isNull($label) OR match(s_label, $label_re))
   AND s_taken >= ifNull($from_time, -1)
   AND s_taken <= ifNull($to_time, 9223372036854775807)
   AND (s_taken >= 0 OR isNull($to_time)));

-- The fleet, as the SQLite forms pick it (temp.rsrc there): of each
-- label, its latest source of @sources with any of the kinds KINDS, by
-- taken_at, ties by the larger content hash.  Columns: l_sid, l_label,
-- l_taken.
@latest(kinds, label, label_re, from_time, to_time) =
(SELECT argMax(s_sid, (s_taken, h)) AS l_sid, s_label AS l_label,
        max(s_taken) AS l_taken
 FROM @sources($label, $label_re, $from_time, $to_time)
 WHERE bitAnd(s_kinds, $kinds) != 0
 GROUP BY s_label);

-- The scope statement of a report on @latest(KINDS, ...): its labels,
-- sources, and the first and the last taken_at, which its title gives.
@scope(kinds, label, label_re, from_time, to_time) =
SELECT uniqExact(l_label) AS labels, count() AS sources,
       @iso(min(l_taken), '') AS first, @iso(max(l_taken), '') AS last
FROM @latest($kinds, $label, $label_re, $from_time, $to_time);

-- The total's unused % of zones: of those that give one (z_unused),
-- free over used and free.
@unused_total() =
if(count(z_unused) = 0, NULL,
   if(sumIf(z_used + z_free, isNotNull(z_unused)) > 0,
      100.0 * sumIf(z_free, isNotNull(z_unused)) /
          sumIf(z_used + z_free, isNotNull(z_unused)), 0.0));

-- The two ends growth compares: of each series (label and format) of
-- @sources with tags or zones, its first and its last source (by
-- taken_at, ties by the larger content hash); a series of one source
-- left out.  Columns: f_sid, t_sid, f_kinds, t_kinds, f_taken, t_taken,
-- s_label.
@ends(label, label_re, from_time, to_time) =
(SELECT argMin(s_sid, (s_taken, h)) AS f_sid,
        argMax(s_sid, (s_taken, h)) AS t_sid,
        argMin(s_kinds, (s_taken, h)) AS f_kinds,
        argMax(s_kinds, (s_taken, h)) AS t_kinds,
        min(s_taken) AS f_taken, max(s_taken) AS t_taken, s_label
 FROM @sources($label, $label_re, $from_time, $to_time)
 WHERE bitAnd(s_kinds, 6) != 0
 GROUP BY s_label, s_format
 HAVING count() > 1);

-- Every exported source's label and taken_unix by its sid (each content
-- hash once), to be joined USING sid.  Columns: sid, label, l_taken.
@labels() =
(SELECT l_sid AS sid, l_label AS label, l_taken
 FROM (SELECT min(sid) AS l_sid, argMin(label, sid) AS l_label,
              argMin(taken_unix, sid) AS l_taken
       FROM memdb_source GROUP BY hash));

-- A tag's names by its key (memdb_tag.tag_key), to be joined USING key:
-- the reports add a tag's figures up by its key, a number, and name it
-- after (ClickHouse groups numbers far faster than strings).  Columns:
-- key, n_file, n_lineno, n_function, n_module.
@names() =
(SELECT tag_key AS key, any(file) AS n_file, any(lineno) AS n_lineno,
        any(function) AS n_function, any(module) AS n_module
 FROM memdb_tagname GROUP BY tag_key);

-- Of an item's rows over the hosts, as the arrays r_sids (the hosts'
-- sids) and r_vals (their values) of an aggregate SELECT grouped by the
-- item (groupArray), in a SELECT of its own: each host's sum (a host
-- may list an item twice), as the columns h_sids and h_vals (arrays).
-- One GROUP BY of the items alone, not of items and hosts, which costs
-- ClickHouse twice the CPU; a host repeats (r_dup) where the array of
-- hosts has fewer distinct ones than rows (cheaper than an uniqExact()
-- state per item beside the arrays); there the rows sorted by host,
-- each run of one host's ends its sum (the running sum there, less the
-- last run's); the others' arrays are taken as they are (the sorting
-- given empty arrays: 18.16 computes both sides of an if()).  Not in
-- the aggregate SELECT: 18.16 writes each alias out in full where it
-- is used, and analysing the aliases of this and @above_p99 over an
-- aggregate's took longer than some reports.
@per_host() =
length(arrayDistinct(r_sids)) != length(r_sids) AS r_dup,
if(r_dup, r_sids, emptyArrayUInt64()) AS d_sids,
if(r_dup, r_vals, emptyArrayInt64()) AS d_vals,
arraySort(d_sids) AS r_ss, arraySort((v, k) -> k, d_vals, d_sids) AS r_sv,
length(r_ss) AS r_n,
arrayMap((a, b, i) -> a != b OR i = r_n, r_ss,
         arraySlice(arrayPushBack(r_ss, toUInt64(0)), 2),
         arrayEnumerate(r_ss)) AS r_end,
arrayFilter((c, e) -> e, arrayCumSum(r_sv), r_end) AS r_cs,
if(r_dup, arrayFilter((k, e) -> e, r_ss, r_end), r_sids) AS h_sids,
if(r_dup,
   arrayMap((c, p) -> c - p, r_cs, arrayPopBack(arrayPushFront(r_cs, 0))),
   r_vals) AS h_vals;

-- Of an item's values over the hosts (VALS, Int64, of the hosts SIDS:
-- columns of the SELECT below), its 99th percentile and median as the
-- SQLite forms compute them (sorted, interpolated between neighbours),
-- and the hosts above the 99th percentile: the columns hosts,
-- fleet_p99, fleet_median, o_sids and o_vals (those hosts and their
-- values).  The values are not sorted, only the elements at the
-- neighbours' places found (sorting every item's values took a third
-- of the report): the 99th's neighbours, l99 and l99 + 1 (from 0) of
-- the sorted values, are among the values at or above the one at
-- 0.98 * hosts (quantileExact(), an nth_element, at or below l99 from
-- 99 hosts on; below, every value), which are sorted; the median's,
-- l50 and l50 + 1, are the one at hosts / 2 (m50) and, for an even
-- count of hosts, the one below it: the largest value under m50 if
-- hosts / 2 values are under it, else m50 again.
@above_p99(sids, vals) =
length($vals) AS hosts,
0.99 * (hosts - 1) AS i99, toUInt64(i99) AS l99,
if(hosts >= 99, arrayReduce('quantileExact(0.98)', $vals),
   arrayReduce('min', $vals)) AS t98,
arraySort(arrayFilter(v -> v >= t98, $vals)) AS top,
hosts - length(top) AS skip,
top[l99 + 1 - skip] AS p_lo,
if(l99 + 1 < hosts, top[l99 + 2 - skip], p_lo) AS p_hi,
p_lo + (i99 - l99) * (p_hi - p_lo) AS fleet_p99,
0.5 * (hosts - 1) AS i50, toUInt64(i50) AS l50,
arrayReduce('quantileExact(0.5)', $vals) AS m50,
arrayFilter(v -> v < m50, $vals) AS under,
if(hosts % 2 = 0 AND length(under) = intDiv(hosts, 2),
   arrayReduce('max', under), m50) AS m_lo,
m_lo + (i50 - l50) * (m50 - m_lo) AS fleet_median,
arrayFilter((k, v) -> v > fleet_p99, $sids, $vals) AS o_sids,
arrayFilter(v -> v > fleet_p99, $vals) AS o_vals;

-- An allocinfo report's figures added up, of the columns a_bytes,
-- a_calls, a_lines (tag lines), a_inacc, a_apx, a_under: bytes, calls,
-- tags, flags (NULL where TOTAL is true: the total row).
@tag_sums(total) =
sum(a_bytes) AS bytes, sum(a_calls) AS calls, sum(a_lines) AS tags,
if($total, NULL,
   nullIf(substring(concat(if(max(a_inacc) != 0, ',inaccurate', ''),
                           if(max(a_apx) != 0, ',approx', ''),
                           if(max(a_under) != 0, ',underflow', '')), 2),
          '')) AS flags;

-- Unix seconds T as ISO 8601 UTC ("2026-01-01T00:00:00Z"), or NONE when
-- T is negative (unknown).
@iso(t, none) =
if($t >= 0,
   concat(replaceOne(toString(toDateTime(greatest($t, 0), 'UTC')), ' ', 'T'),
          'Z'),
   $none);

-- The traces' call-site or cache figures, added up: hits, bytes_req,
-- bytes_alloc, avg_alloc, waste, frag_pct, freed, pingpong, live,
-- live_bytes (of @trace_rows' columns).
@figures() =
sum(f_hits) AS hits, sum(f_req) AS bytes_req, sum(f_alloc) AS bytes_alloc,
if(hits = 0, 0, intDiv(bytes_alloc, hits)) AS avg_alloc,
bytes_alloc - bytes_req AS waste,
if(bytes_alloc = 0, 0.0, 100.0 - 100.0 * bytes_req / bytes_alloc)
    AS frag_pct,
sum(f_freed) AS freed, sum(f_pp) AS pingpong, sum(f_live) AS live,
sum(f_live_bytes) AS live_bytes;

-- The traces' figures per NAME (cache, label, type): KEY its value of a
-- row of TABLE, ORD what orders its values (ord) where the report's sort
-- keys tie; the SELECT before its ORDER BY.
@trace_by(name, key, ord, table, label, label_re, from_time, to_time) =
SELECT $name, hits, bytes_req, bytes_alloc, avg_alloc, waste, frag_pct,
       freed, pingpong, live, live_bytes
FROM (
	SELECT k AS $name, min(k_ord) AS ord, @figures()
	FROM (
		SELECT $key AS k, $ord AS k_ord,
		       @trace_rows($table, $label, $label_re, $from_time,
		                   $to_time))
	GROUP BY k);

-- The rows of TABLE (memdb_site: per call site, or memdb_cache: per
-- cache) of each label's latest trace, kmalloc and kmem_cache types
-- (not pages), their figures as @figures adds them up: the columns
-- after the SELECT's own, and its FROM and WHERE.
@trace_rows(table, label, label_re, from_time, to_time) =
hits AS f_hits, bytes_req AS f_req, bytes_alloc AS f_alloc,
freed AS f_freed, pingpong AS f_pp, live AS f_live,
live_bytes AS f_live_bytes
FROM $table
WHERE type < 2 AND sid IN (SELECT l_sid FROM @latest(1, $label, $label_re,
                                                     $from_time, $to_time));
