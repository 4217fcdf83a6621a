#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fold the kernel stacks of an ftrace `trace` file recorded with the
`stacktrace` trigger on the slab allocation events, independently of
memdb.

Reads the trace on standard input.  A "<stack trace>" line belongs to
the last event line of its CPU (the [NNN] column) when that event is a
kmalloc or kmem_cache_alloc with no stack yet; its frames are the
" => func" lines after it, innermost first.  Prints one "root;...;leaf
BYTES" line per distinct stack of the successful allocations (ptr not
all zeros), weighted by bytes_alloc, sorted by stack, frames named by
function without offsets; zero-byte stacks are left out.
"""
import re
import sys
from collections import defaultdict

LINE = re.compile(r'\[(\d+)\]\s+\S*\s*\d+\.\d+: (\S+)(.*)$')
FIELD = re.compile(r'(\w+)=(\S+)')
ALLOCS = ('kmalloc:', 'kmem_cache_alloc:', 'kmalloc_node:',
          'kmem_cache_alloc_node:')


def main():
    out = defaultdict(int)
    allocs = []     # [weight, frames] of the successful allocations
    last = {}       # cpu -> [weight or None, frames or None]
    target = None   # the entry the " => " lines go to

    for line in sys.stdin:
        if line.lstrip().startswith('=>'):
            if target is not None:
                name = line.split('=>', 1)[1].split()[0]
                target[1].append(re.sub(r'\+0x.*$', '', name))
            continue
        target = None
        if line.startswith('#'):
            continue
        m = LINE.search(line)
        if not m:
            continue
        cpu, event, rest = m.groups()
        if event == '<stack':
            e = last.get(cpu)
            if e is not None and e[1] is None:
                e[1] = []
                target = e
            continue
        e = [None, None]
        if event in ALLOCS:
            f = dict(FIELD.findall(rest))
            if f.get('ptr', '0').strip('0') not in ('', '(null)'):
                e[0] = int(f['bytes_alloc'])
        last[cpu] = e
        if e[0] is not None:
            allocs.append(e)
    for w, frames in allocs:
        if w and frames:
            out[';'.join(reversed(frames))] += w
    for stack in sorted(out):
        print(stack, out[stack])


if __name__ == '__main__':
    main()
