#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# An independent count of what callsites reports for a window and filters
# over an ftrace text (ktgen's, or any with the kmem events), pairing the
# events here (docs/design.md, Semantics):
#
#   python3 slice_count.py 'START,END [--pid N] [--comm NAME] [--site HEX]
#                          [--cache NAME]'... < trace.txt
#
# (one argument per query; the trace is read once).
# START or END may be '' (open); seconds as the trace prints them, up to
# nine decimals, compared as integers of nanoseconds.  An allocation is
# selected when its time lies in [START, END] and it passes the filters.
# Prints the total "hits,bytes_req,bytes_alloc,freed,pingpong,live":
#   freed     freed by a FREE at or before END
#   pingpong  of those, freed on another CPU
#   live      not freed by the end of the trace, or ended after END (by a
#             FREE, or by its address allocated again while live)
# One line per call site first: "0xSITE,<the same>", sorted by address,
# and a line "==" after each query's total.
import re
import sys

LINE = re.compile(r'^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S*\s+(\d+)\.(\d+): '
                  r'(\w+): (.*)$')
ALLOCS = ('kmalloc', 'kmalloc_node', 'kmem_cache_alloc',
          'kmem_cache_alloc_node')
FREES = ('kfree', 'kmem_cache_free')


def nsecs(s):
    if s == '':
        return None
    whole, _, frac = s.partition('.')
    frac = (frac + '000000000')[:9]
    return int(whole or '0') * 1000000000 + int(frac)


def fields(rest):
    return dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)


def cache_name(ev, f):
    if 'name' in f:
        return f['name']
    size = int(f['bytes_alloc'])
    if ev.startswith('kmem_cache'):
        return 'cache-%d' % size
    return 'kmalloc-large' if size > 8192 else 'kmalloc-%d' % size


def main():
    allocs = []   # [site, cpu, ts, req, alloc, comm, pid, cache, end]
    live = {}     # ptr -> index into allocs
    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, cpu = m.group(1).strip(), int(m.group(2)), int(m.group(3))
        ts = int(m.group(4)) * 1000000000 + int((m.group(5) + '000')[:9])
        ev, f = m.group(6), fields(m.group(7))
        if ev in ALLOCS:
            ptr = int(f['ptr'], 16)
            a = [int(f['call_site'], 16), cpu, ts, int(f['bytes_req']),
                 int(f['bytes_alloc']), comm, pid, cache_name(ev, f), None]
            if ptr >= 4096:
                if ptr in live:   # allocated again while live
                    allocs[live[ptr]][8] = ('again', ts, None)
                live[ptr] = len(allocs)
            else:
                a[8] = ('failed', None, None)
            allocs.append(a)
        elif ev in FREES:
            ptr = int(f['ptr'], 16)
            if ptr in live:
                allocs[live.pop(ptr)][8] = ('freed', ts, cpu)
    for q in sys.argv[1:]:
        query(allocs, q)


def query(allocs, q):
    win, _, rest = q.partition(' ')
    lo, hi = (nsecs(x) for x in win.split(','))
    rest = rest.split()
    opt = {rest[i].lstrip('-'): rest[i + 1] for i in range(0, len(rest), 2)}
    per = {}
    for site, cpu, ts, req, alloc, comm, pid, cache, end in allocs:
        if (lo is not None and ts < lo) or (hi is not None and ts > hi):
            continue
        if 'pid' in opt and pid != int(opt['pid']):
            continue
        if 'comm' in opt and comm != opt['comm']:
            continue
        if 'site' in opt and site != int(opt['site'], 16):
            continue
        if 'cache' in opt and cache != opt['cache']:
            continue
        r = per.setdefault(site, [0] * 6)
        r[0] += 1
        r[1] += req
        r[2] += alloc
        kind, t, fcpu = end if end else ('live', None, None)
        late = t is not None and hi is not None and t > hi
        if kind == 'freed' and not late:
            r[3] += 1
            r[4] += fcpu != cpu
        if kind == 'live' or (kind in ('freed', 'again') and late):
            r[5] += 1
    tot = [0] * 6
    for site in sorted(per):
        print('0x%x,%s' % (site, ','.join(map(str, per[site]))))
        tot = [x + y for x, y in zip(tot, per[site])]
    print(','.join(map(str, tot)))
    print('==')


main()
