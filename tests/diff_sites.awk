# SPDX-License-Identifier: MIT
# An independent per-site count for `memdb report diff`, from the `trace`
# text of two tracefs captures (testdata/real-diff):
#   awk -f diff_sites.awk KALLSYMS_A A.txt KALLSYMS_B B.txt
# For every call site 'func+0xoff' of a kmalloc or kmem_cache_alloc event
# (the size '/0x...' dropped), prints
#   site,status,hits_a,hits_b,delta_hits,bytes_a,bytes_b,delta_bytes
# with status 'new' (only in B), 'gone' (only in A) or 'both', one line
# per site, unsorted.  Every function must be in the kallsyms file that
# comes with its capture: a line "missing FUNC" otherwise.
FNR == 1 { file++ }
file % 2 == 1 { if (NF >= 3) sym[file, $3] = 1; next }
/^#/ { next }
$5 == "kmalloc:" || $5 == "kmem_cache_alloc:" {
	side = file / 2 # 1: A, 2: B
	site = ""
	bytes = 0
	for (i = 6; i <= NF; i++) {
		if ($i ~ /^call_site=/)
			site = substr($i, 11)
		else if ($i ~ /^bytes_alloc=/)
			bytes = substr($i, 13) + 0
	}
	sub(/\/0x[0-9a-f]+$/, "", site)
	func_ = site
	sub(/\+0x[0-9a-f]+$/, "", func_)
	if (!((file - 1, func_) in sym))
		missing[func_] = 1
	hits[side, site]++
	b[side, site] += bytes
	seen[site] = 1
}
END {
	for (f in missing)
		print "missing " f
	for (s in seen) {
		ha = hits[1, s] + 0; hb = hits[2, s] + 0
		ba = b[1, s] + 0; bb = b[2, s] + 0
		st = !ha ? "new" : !hb ? "gone" : "both"
		printf "%s,%s,%d,%d,%d,%d,%d,%d\n", s, st, ha, hb, hb - ha,
		       ba, bb, bb - ba
	}
}
