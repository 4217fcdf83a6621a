#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Page allocations per caller from `perf script` text, independently of
memdb: for each kmem:mm_page_alloc with a page (pfn not -1), the caller
is the first kernel frame ([kernel.kallsyms]) whose function is not the
page allocator's own (names holding alloc_pages, alloc_frozen_pages,
get_free_page, get_zeroed_page, folio_alloc or alloc_folio), printed as
perf script names it (func+0xoff).  Prints "caller,hits,order,migratetype"
sorted, one line per group.
"""
import re
import sys
from collections import Counter

ALLOCATOR = re.compile(r'alloc_pages|alloc_frozen_pages|get_free_page|'
                       r'get_zeroed_page|folio_alloc|alloc_folio')
FIELD = re.compile(r'(\w+)=(\S+)')


def main():
    groups = Counter()
    cur = None      # (order, migratetype) of the allocation being read
    caller = None

    def flush():
        if cur is not None:
            groups[(caller or '??',) + cur] += 1

    for line in sys.stdin:
        if line.startswith(('\t', ' ')):
            parts = line.split()
            if (cur is not None and caller is None and len(parts) >= 3
                    and parts[-1] == '([kernel.kallsyms])'):
                func = re.sub(r'\+0x[0-9a-f]+$', '', parts[1])
                if not ALLOCATOR.search(func):
                    caller = parts[1]
            continue
        flush()
        cur, caller = None, None
        if 'kmem:mm_page_alloc:' not in line:
            continue
        f = dict(FIELD.findall(line.split('kmem:mm_page_alloc:', 1)[1]))
        if f.get('pfn') in ('0xffffffffffffffff', '-1', '0x0', '0'):
            continue
        cur = (int(f['order']), int(f['migratetype']))
    flush()
    for k in sorted('%s,%d,%d,%d' % (g[0], n, g[1], g[2])
                    for g, n in groups.items()):
        print(k)


if __name__ == '__main__':
    main()
