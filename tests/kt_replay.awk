# SPDX-License-Identifier: MIT
# An independent replay of a ktgen dump (one event per line, in global
# order: seq cpu A|F type call_site ptr bytes_req bytes_alloc gfp node),
# following the pairing rules of docs/design.md §4.3, written without
# looking at memdb's C.  Prints the fragmentation rows (slab events only) as
#   site 0x<call_site>,hits,bytes_req,bytes_alloc,waste,frag_pct
# and every figure as
#   <name> <value>
# Numbers are printed with %.0f: mawk's %d stops at 2^31.

function small(p) { return length(p) <= 3 }   # hex below 0x1000

{
	cpu = $2; ev = $3; type = $4; site = $5; ptr = $6
	key = (type == 2 ? "page:" : "slab:") ptr
	if (ev == "A") {
		if (type < 2) {
			hits[site]++; req[site] += $7; all[site] += $8
			t_hits++; t_req += $7; t_alloc += $8
		}
		if (ptr == "0") { failed++; next }
		if (small(ptr)) { zero++; next }
		if (key in live) {
			not_traced++; not_traced_bytes += lbytes[key]
			if (type < 2) slab_live_n--
		}
		live[key] = 1; lcpu[key] = cpu; ltype[key] = type
		lbytes[key] = $8
		if (type < 2) slab_live_n++
		delete freed[key]
	} else {
		if (small(ptr)) { null_frees++; next }
		if (key in live) {
			ended++
			if (type < 2 || ltype[key] < 2) {
				slab_freed++; slab_freed_bytes += lbytes[key]
				if (cpu != lcpu[key]) slab_pingpong++
			} else {
				page_freed++
				if (cpu != lcpu[key]) page_pingpong++
			}
			if (ltype[key] == 0 && type == 1) {
				cache_free_kmalloc++; cfk_bytes += lbytes[key]
			}
			if (ltype[key] == 1 && type == 0) {
				kfree_cache++; kfc_bytes += lbytes[key]
			}
			if (ltype[key] < 2) slab_live_n--
			delete live[key]
			freed[key] = 1
		} else if (key in freed) {
			dup_frees++
		} else {
			# never allocated: no mark, a later free is unknown too
			unknown_frees++
		}
	}
}

END {
	for (s in hits) {
		w = all[s] - req[s]
		f = all[s] == 0 ? 0 : 100 - 100 * req[s] / all[s]
		printf "site 0x%s,%.0f,%.0f,%.0f,%.0f,%.6f\n", s, hits[s], \
			req[s], all[s], w, f
	}
	for (k in live) if (ltype[k] < 2) { live_n++; live_b += lbytes[k] }
	printf "hits %.0f\n", t_hits
	printf "bytes_req %.0f\n", t_req
	printf "bytes_alloc %.0f\n", t_alloc
	printf "waste %.0f\n", t_alloc - t_req
	printf "failed %.0f\n", failed
	printf "zero_size %.0f\n", zero
	printf "not_traced %.0f\n", not_traced
	printf "not_traced_bytes %.0f\n", not_traced_bytes
	printf "freed %.0f\n", slab_freed
	printf "freed_bytes %.0f\n", slab_freed_bytes
	printf "pingpong %.0f\n", slab_pingpong
	printf "page_freed %.0f\n", page_freed
	printf "page_pingpong %.0f\n", page_pingpong
	printf "cache_free_kmalloc %.0f\n", cache_free_kmalloc
	printf "kfree_cache %.0f\n", kfree_cache
	printf "cache_free_kmalloc_bytes %.0f\n", cfk_bytes
	printf "kfree_cache_bytes %.0f\n", kfc_bytes
	printf "null_frees %.0f\n", null_frees
	printf "unknown_frees %.0f\n", unknown_frees
	printf "dup_frees %.0f\n", dup_frees
	printf "live %.0f\n", live_n
	printf "live_bytes %.0f\n", live_b
}
