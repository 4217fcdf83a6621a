# SPDX-License-Identifier: MIT
#
# Slab allocations (kmalloc, kmem_cache_alloc) per task of an ftrace
# `trace` or a `trace-cmd report` text, as "KEY,HITS" lines: KEY the
# task's comm (by=comm, the default; "<...>", a task the tracer could
# not name, is an empty comm) or its pid (by=pid).  memdb's `callsites
# --by comm|pid` must count the same hits (tests/test_tracedat.c,
# tests/test_tracefs.c).
#
#   awk [-v by=pid] -f task_hits.awk TEXT | LC_ALL=C sort

# "COMM-PID [CPU]" (trace: "COMM-PID (TGID) [CPU]"); the comm may hold
# dashes and spaces (not one followed by digits and a CPU column)
match($0, /-[0-9]+ +(\([ 0-9-]+\) +)?\[[0-9]+\] /) {
	line = $0
	rest = substr(line, RSTART + 1)
	comm = substr(line, 1, RSTART - 1)
	sub(/^ +/, "", comm)
	pid = rest
	sub(/ .*/, "", pid)
	if (rest !~ /\] ([^:]* )?[0-9]+\.[0-9]+: (kmalloc|kmem_cache_alloc): /)
		next
	if (comm == "<...>")
		comm = ""
	hits[by == "pid" ? pid : comm]++
}

END {
	for (k in hits)
		print k "," hits[k]
}
