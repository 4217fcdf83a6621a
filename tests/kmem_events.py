#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kmem events of a text made by the traced machine's own tools (the
kernel's `trace`, `trace-cmd report`, `perf script`), read independently
of memdb, for tests/test_arch.c to hold memdb's rows against.

    kmem_events.py stream [--by-time] < TEXT
        one line per kmem event, in the text's order (--by-time: sorted
        by the printed time, ties in the text's order: perf script prints
        a sample perf recorded out of order where it came, perf's
        "N out of order events recorded"):
        "alloc|free,TYPE,CPU,PTR,BYTES_REQ,BYTES_ALLOC" (TYPE 0 kmalloc /
        kfree, 1 kmem_cache_*, 2 mm_page_*; PTR in hex, a page's pfn << 12
        as memdb keys pages, 0 for NULL; the bytes empty for a free; a
        page allocation's bytes 4096 << order)
    kmem_events.py sites [KALLSYMS] < TEXT
        per call site of the slab allocations: "SITE,HITS,REQ,ALLOC",
        sorted; SITE is func+0xoff as the text names it (the kernel's
        "/0xsize" and " [module]" dropped), or, where the text prints an
        address (trace-cmd for code its kallsyms lacks), that address
        named with KALLSYMS (the nearest symbol at or below it)
    kmem_events.py pages < TEXT
        the page allocations per order and migratetype:
        "order_N,MT0,MT1,MT2,MT3,OTHER" for orders 0 to 10 (or the
        highest seen)

Lines that are not kmem events (headers, stack frames, other events) are
skipped; an event line whose fields do not parse stops the script.
"""
import bisect
import re
import sys
from collections import Counter, defaultdict

# "[CPU] [FLAGS] SECS.FRAC: [kmem:]EVENT: FIELDS"
LINE = re.compile(r'\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):\s+(?:kmem:)?(\w+):\s*(.*)$')
FIELD = re.compile(r'(\w+)=(\S*)')
SITE = re.compile(r'call_site=(\S+)')
EVENTS = {
    'kmalloc': ('alloc', 0), 'kmem_cache_alloc': ('alloc', 1),
    'mm_page_alloc': ('alloc', 2), 'kfree': ('free', 0),
    'kmem_cache_free': ('free', 1), 'mm_page_free': ('free', 2),
}
NULLS = ('(nil)', '(null)', '0x0', '')


def number(s):
    """A pointer or pfn as printed: hex with or without 0x, NULL forms."""
    if s in NULLS:
        return 0
    return int(s, 16)


def events(lines):
    """(kind, type, cpu, fields, site text, time in ns) of each kmem
    event line."""
    for line in lines:
        if line.startswith(('#', '\t', ' \t')):
            continue
        m = LINE.search(line)
        if not m or m.group(4) not in EVENTS:
            continue
        kind, typ = EVENTS[m.group(4)]
        rest = m.group(5)
        fields = dict(reversed(FIELD.findall(rest)))  # the first wins
        site = SITE.search(rest)
        ns = int(m.group(2)) * 10**9 + int((m.group(3) + '0' * 9)[:9])
        yield (kind, typ, int(m.group(1)), fields,
               site.group(1) if site else '', ns)


def page_ptr(f):
    pfn = f['pfn']
    pfn = int(pfn, 16) if pfn.startswith('0x') else int(pfn)
    if pfn in (0, 2**64 - 1, 2**32 - 1):
        return 0
    return pfn << 12


def stream(lines, by_time):
    evs = list(events(lines))
    if by_time:
        evs.sort(key=lambda e: e[5])  # stable: ties keep the text's order
    for kind, typ, cpu, f, _, _ in evs:
        if typ == 2:
            ptr = page_ptr(f)
            size = 4096 << int(f['order'])
            req = alloc = str(size) if kind == 'alloc' else ''
        else:
            ptr = number(f['ptr'])
            req = f['bytes_req'] if kind == 'alloc' else ''
            alloc = f['bytes_alloc'] if kind == 'alloc' else ''
        print('%s,%d,%d,%x,%s,%s' % (kind, typ, cpu, ptr, req, alloc))


def symbols(path):
    addrs, names = [], []
    for line in open(path):
        p = line.split()
        if len(p) >= 3 and p[1] in 'tTwW':
            addrs.append(int(p[0], 16))
            names.append(p[2])
    order = sorted(range(len(addrs)), key=lambda i: addrs[i])
    return [addrs[i] for i in order], [names[i] for i in order]


def sites(lines, kallsyms):
    syms = symbols(kallsyms) if kallsyms else ([], [])
    out = defaultdict(lambda: [0, 0, 0])
    for kind, typ, _, f, site, _ in events(lines):
        if kind != 'alloc' or typ == 2:
            continue
        if '+' in site:
            key = site.split('/')[0]
        else:
            a = int(site, 16)
            i = bisect.bisect_right(syms[0], a) - 1
            if i < 0:
                sys.exit('kmem_events: %s: no symbol at or below it' % site)
            key = '%s+0x%x' % (syms[1][i], a - syms[0][i])
        o = out[key]
        o[0] += 1
        o[1] += int(f['bytes_req'])
        o[2] += int(f['bytes_alloc'])
    for k in sorted(out):
        print('%s,%d,%d,%d' % ((k,) + tuple(out[k])))


def pages(lines):
    n = Counter()
    top = 10
    for kind, typ, _, f, _, _ in events(lines):
        if kind != 'alloc' or typ != 2 or not page_ptr(f):
            continue
        order, mt = int(f['order']), int(f['migratetype'])
        n[(order, min(mt, 4))] += 1
        top = max(top, order)
    for o in range(top + 1):
        print('order_%d,%s' % (o, ','.join(str(n[(o, mt)])
                                           for mt in range(5))))


def main():
    sys.stdin.reconfigure(errors="replace")
    lines = sys.stdin
    if len(sys.argv) >= 2 and sys.argv[1] == 'stream':
        stream(lines, sys.argv[2:] == ['--by-time'])
    elif len(sys.argv) >= 2 and sys.argv[1] == 'sites':
        sites(lines, sys.argv[2] if len(sys.argv) > 2 else None)
    elif len(sys.argv) >= 2 and sys.argv[1] == 'pages':
        pages(lines)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
