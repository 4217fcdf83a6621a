#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# An independent count of the slab allocations of an ftrace text whose
# timestamp lies in a window, both ends included (perf kmem --time):
#
#   python3 time_window.py START END < trace.txt
#
# START or END may be '' (open).  Prints "hits,bytes_req,bytes_alloc".
# Timestamps are compared as integers of microseconds, as the text
# prints them (exactly: no floating point).
import re
import sys

ALLOC = re.compile(r'\s(\d+)\.(\d{6}): (kmalloc|kmalloc_node|kmem_cache_alloc|'
                   r'kmem_cache_alloc_node): .*bytes_req=(\d+) bytes_alloc=(\d+)')


def usecs(s):
    if s == '':
        return None
    whole, _, frac = s.partition('.')
    frac = (frac + '000000')[:6]
    return int(whole or '0') * 1000000 + int(frac)


lo, hi = usecs(sys.argv[1]), usecs(sys.argv[2])
hits = req = alloc = 0
for line in sys.stdin:
    m = ALLOC.search(line)
    if not m:
        continue
    t = int(m.group(1)) * 1000000 + int(m.group(2))
    if (lo is not None and t < lo) or (hi is not None and t > hi):
        continue
    hits += 1
    req += int(m.group(4))
    alloc += int(m.group(5))
print('%d,%d,%d' % (hits, req, alloc))
