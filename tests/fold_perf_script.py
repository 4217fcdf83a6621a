#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fold the kernel stacks of `perf script` output, independently of memdb.

Reads perf script text (of a `perf record -g -e kmem:...` capture) on
standard input and prints, as stackcollapse-perf.pl would for kernel
frames only, one "root;...;innermost BYTES" line per distinct stack of
the successful slab allocations (kmem:kmalloc, kmem:kmem_cache_alloc with
a non-NULL ptr), weighted by their bytes_alloc, sorted by stack.  Frames
are the callchain lines whose dso is [kernel.kallsyms], named by the
function without its +0x offset.  Stacks of zero bytes are left out.
"""
import re
import sys
from collections import defaultdict

HEAD = re.compile(r'\d+\.\d+:\s+kmem:(\w+):(.*)$')
FIELD = re.compile(r'(\w+)=(\S+)')


def main():
    out = defaultdict(int)
    weight = None   # bytes of the sample being read, None: not counted
    frames = []

    def flush():
        if weight is not None and frames:
            out[';'.join(reversed(frames))] += weight

    for line in sys.stdin:
        if line.startswith(('\t', ' ')):
            parts = line.split()
            if len(parts) >= 3 and parts[-1] == '([kernel.kallsyms])':
                frames.append(re.sub(r'\+0x[0-9a-f]+$', '', parts[1]))
            continue
        flush()
        weight, frames = None, []
        m = HEAD.search(line)
        if not m or m.group(1) not in ('kmalloc', 'kmem_cache_alloc',
                                       'kmalloc_node',
                                       'kmem_cache_alloc_node'):
            continue
        f = dict(FIELD.findall(m.group(2)))
        if f.get('ptr') in (None, '(nil)', '0x0', '0'):
            continue
        weight = int(f['bytes_alloc'])
    flush()
    for stack in sorted(out):
        if out[stack]:
            print(stack, out[stack])


if __name__ == '__main__':
    main()
