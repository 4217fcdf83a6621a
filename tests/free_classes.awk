# SPDX-License-Identifier: MIT
# An independent replay of a kmem trace as text (cat trace, trace_pipe or
# perf script lines), written from docs/design.md §4.3 and the README
# without looking at memdb's C: it classifies every slab FREE that ends no
# allocation and prints one line per class,
#   <class> <count>
# for null_free, unknown_free, duplicate_free and duplicate_free_suspect.
#
# The rule: kmalloc and kmem_cache events share one key space (the
# pointer).  An ALLOC makes its pointer live.  A FREE of a live pointer
# ends it and marks it freed.  A FREE of a pointer below 4096 is a NULL
# free.  A FREE of a pointer never allocated is an unknown free and leaves
# no mark.  A FREE of a freed pointer (no ALLOC since) is a duplicate free
# when the kernel traces every allocation path (-v all_traced=1, the
# kmemtrace-era captures; the file must then hold every event of the
# capture, none lost), else a suspect duplicate.  Page events and other
# lines are ignored.
#
# Usage: awk [-v all_traced=1] -f free_classes.awk trace.txt

# The event name of this line ("kfree", "kmem_cache_alloc", ...), or "".
function event_name(   i, t) {
	for (i = 1; i <= NF; i++) {
		t = $i
		if (t !~ /:$/)
			continue
		sub(/:$/, "", t)
		sub(/^kmem:/, "", t)
		if (t ~ /^(kmalloc|kmalloc_node|kmem_cache_alloc|kmem_cache_alloc_node|kfree|kmem_cache_free)$/)
			return t
	}
	return ""
}

# The ptr= field, lowercase, without 0x and leading zeros; "0" for NULL.
function pointer(   i, p) {
	for (i = 1; i <= NF; i++) {
		if ($i !~ /^ptr=/)
			continue
		p = tolower(substr($i, 5))
		if (p == "(null)" || p == "(nil)")
			return "0"
		sub(/^0x/, "", p)
		sub(/^0+/, "", p)
		return p == "" ? "0" : p
	}
	return ""
}

{
	ev = event_name()
	if (ev == "")
		next
	p = pointer()
	if (p == "")
		next
	small = length(p) <= 3            # below 0x1000
	if (ev ~ /alloc/) {
		if (small)
			next              # failure or ZERO_SIZE_PTR: never live
		live[p] = 1
		delete freed[p]
		next
	}
	if (small) {
		n["null_free"]++
	} else if (p in live) {
		delete live[p]
		freed[p] = 1
	} else if (p in freed) {
		n[all_traced ? "duplicate_free" : "duplicate_free_suspect"]++
	} else {
		n["unknown_free"]++
	}
}

END {
	printf "null_free %d\n", n["null_free"]
	printf "unknown_free %d\n", n["unknown_free"]
	printf "duplicate_free %d\n", n["duplicate_free"]
	printf "duplicate_free_suspect %d\n", n["duplicate_free_suspect"]
}
