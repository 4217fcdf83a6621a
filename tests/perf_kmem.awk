# SPDX-License-Identifier: MIT
# perf kmem's own output (committed with the fixtures of
# testdata/real-perf/) as "figure,value" lines, or for --caller one
# "function+0xoff,hits,bytes_req,bytes_alloc,pingpong" line per call site,
# sorted, for tests/test_perfdata.c to hold memdb's figures against.
#
#   awk -f perf_kmem.awk FILE.kmem-stat.txt     slab SUMMARY
#   awk -f perf_kmem.awk FILE.kmem-caller.txt   --caller table
#   awk -f perf_kmem.awk FILE.kmem-page.txt     --page SUMMARY
/^Total bytes requested:/ { print "bytes_requested," $4 }
/^Total bytes allocated:/ { print "bytes_allocated," $4 }
/^Total bytes freed:/ { print "bytes_freed," $4 }
/^Net total bytes allocated:/ { print "net_bytes_allocated," $5 }
/^Total bytes wasted/ { print "bytes_wasted," $NF }
/^Internal fragmentation:/ { v = $3; sub(/%/, "", v); print "fragmentation_pct," v }
/^Cross CPU allocations:/ {
	split($4, a, "/")
	print "cross_cpu_allocations," a[1]
	print "allocations," a[2]
}
/^Processed .* samples and lost/ { print "samples_with_lost," $2 }

# --page: "Total allocation requests     :   2891   [   13900 KB ]"
/^Total .* requests *:|^Total allocation failures *:/ {
	k = $0
	sub(/^Total /, "", k)
	sub(/ *:.*/, "", k)
	gsub(/[ +-]/, "_", k)
	split($0, a, ":")
	split(a[2], b, /[][ ]+/)
	n = 0
	for (i = 1; i in b; i++)
		if (b[i] ~ /^[0-9]+$/)
			v[++n] = b[i]
	print k "," v[1]
	print k "_kb," v[2]
}

# --caller: " name+off | alloc/per | req/per | hit | pingpong | frag%"
/\|/ && !/Callsite/ {
	split($0, f, "|")
	site = f[1]
	gsub(/ /, "", site)
	if (site ~ /\+/)
		sub(/\+/, "+0x", site)
	split(f[2], al, "/")
	split(f[3], rq, "/")
	gsub(/ /, "", al[1])
	gsub(/ /, "", rq[1])
	gsub(/ /, "", f[4])
	gsub(/ /, "", f[5])
	rows[site "," f[4] "," rq[1] "," al[1] "," f[5]] = 1
}

END {
	n = 0
	for (r in rows)
		s[++n] = r
	# insertion sort: the tables are short
	for (i = 2; i <= n; i++) {
		t = s[i]
		for (j = i - 1; j > 0 && s[j] > t; j--)
			s[j + 1] = s[j]
		s[j + 1] = t
	}
	for (i = 1; i <= n; i++)
		print s[i]
}

# --page: the order x migratetype table, "order_N,c0,c1,c2,c3,c4": perf's
# column i counts migratetype value i, whatever its header calls it
# ('.' is 0).
/^Order +Unmovable/ { intable = 1; next }
intable && /^ *[0-9]+ / {
	line = "order_" $1
	for (i = 2; i <= 6; i++)
		line = line "," ($i == "." ? 0 : $i)
	print line
}
