#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The figures of a fleet's reports, summed from the input files alone
(tests/test_labels.c, tests/test_clickhouse.c): what memdb report NAME
--label GLOB (or --by label) must print, without memdb's parsers.

    label_sums.py expect REPORT MANIFEST [GLOB [FROM [TO]]]
    label_sums.py project REPORT CSV

MANIFEST has one line per input: LABEL, Unix seconds taken, KIND
(allocinfo, slabinfo or ftrace) and PATH, tab-separated.  A fleet takes
of each label matching GLOB (fnmatch, as SQLite's GLOB for these names)
its latest input of the report's kind taken from FROM to TO (Unix
seconds, '-' for no bound), growth the first and the last of each label's
series (left out when it has one input there).  REPORT is one of
allocinfo, allocinfo-label, growth, growth-label, zones, zones-label,
callsites, callsites-label.  Both modes print the same columns, one row a
line, sorted, so that expect's output equals project's of memdb's CSV
(--format csv --top 0); the total row is printed last.
"""
import csv
import fnmatch
import re
import sys
from collections import defaultdict

KIND = {"allocinfo": ["allocinfo"], "growth": ["allocinfo", "slabinfo"],
        "zones": ["slabinfo"], "callsites": ["ftrace"]}

# the columns compared, as memdb's CSV names them
COLS = {
    "allocinfo": ["tag", "function", "module", "bytes", "calls", "tags"],
    "allocinfo-label": ["label", "bytes", "calls", "tags"],
    "growth": ["name", "function", "module", "bytes_from", "bytes_to",
               "bytes_delta", "count_from", "count_to", "flags"],
    "growth-label": ["name", "bytes_from", "bytes_to", "bytes_delta",
                     "count_from", "count_to"],
    "zones": ["name", "size", "used", "free", "bytes"],
    "zones-label": ["label", "zones", "used", "free", "bytes"],
    "callsites": ["symbol", "hits", "bytes_req", "bytes_alloc", "waste"],
    "callsites-label": ["label", "hits", "bytes_req", "bytes_alloc",
                        "waste"],
}

ALLOC = re.compile(r" (kmalloc|kmalloc_node|kmem_cache_alloc|"
                   r"kmem_cache_alloc_node): call_site=(\S+) .*"
                   r"bytes_req=(\d+) bytes_alloc=(\d+)")
TAG = re.compile(r"^\s*(-?\d+)\s+(\d+)\s+(\S+):(\d+)(?:\s+\[(\S+)\])?\s+"
                 r"func:(\S+)")


def allocinfo(path):
    """(tag, function, module) -> [bytes, calls, lines, inaccurate]"""
    rows = defaultdict(lambda: [0, 0, 0, 0])
    for line in open(path):
        m = TAG.match(line)
        if not m:
            continue
        key = ("%s:%s" % (m.group(3), m.group(4)), m.group(6),
               m.group(5) or "")
        r = rows[key]
        r[0] += int(m.group(1))
        r[1] += int(m.group(2))
        r[2] += 1
        r[3] |= "accurate:no" in line
    return rows


def slabinfo(path):
    """cache name -> [size, used, free, bytes]"""
    rows = {}
    for line in open(path):
        if line.startswith("slabinfo") or line.startswith("#"):
            continue
        f = line.split()
        active, num, size = int(f[1]), int(f[2]), int(f[3])
        rows[f[0]] = [size, active, num - active, num * size]
    return rows


def ftrace(path):
    """call site -> [hits, bytes_req, bytes_alloc]"""
    rows = defaultdict(lambda: [0, 0, 0])
    for line in open(path):
        m = ALLOC.search(line)
        if m:
            r = rows[m.group(2)]
            r[0] += 1
            r[1] += int(m.group(3))
            r[2] += int(m.group(4))
    return rows


def pick(manifest, kinds, glob, lo, hi, pairs):
    """The inputs a fleet covers: (label, kind) -> path (pairs: (first,
    last) of each series)"""
    series = defaultdict(list)
    for line in open(manifest):
        label, t, k, path = line.rstrip("\n").split("\t")
        t = int(t)
        if k not in kinds or not fnmatch.fnmatchcase(label, glob):
            continue
        if (lo is not None and t < lo) or (hi is not None and t > hi):
            continue
        series[(label, k)].append((t, path))
    out = {}
    for key, s in series.items():
        s.sort()
        if pairs:
            if len(s) > 1:
                out[key] = (s[0][1], s[-1][1])
        else:
            out[key] = s[-1][1]
    return out


def items(kind, path):
    """A snapshot's growth items: key -> [bytes, count, inaccurate]"""
    if kind == "allocinfo":
        return {k: [r[0], r[1], r[3]] for k, r in allocinfo(path).items()}
    return {(name, "", ""): [r[3], r[1], 0]
            for name, r in slabinfo(path).items()}


def line(values):
    return ",".join(str(v) for v in values)


def expect(report, manifest, glob, lo, hi):
    base = report.split("-")[0]
    by_label = report.endswith("-label")
    picked = {k[0]: v for k, v in
              pick(manifest, KIND[base], glob, lo, hi, False).items()}
    rows, total = [], None
    if base == "allocinfo":
        sums = defaultdict(lambda: [0, 0, 0])
        for label, path in picked.items():
            for key, r in allocinfo(path).items():
                k = (label,) if by_label else key
                for i in range(3):
                    sums[k][i] += r[i]
        rows = [line(list(k) + v) for k, v in sums.items()]
        tot = [sum(v[i] for v in sums.values()) for i in range(3)]
        total = line(["total"] + ([] if by_label else ["", ""]) + tot)
    elif base == "growth":
        ends = [defaultdict(lambda: [0, 0, 0]), defaultdict(lambda: [0, 0, 0])]
        series = pick(manifest, KIND[base], glob, lo, hi, True)
        for (label, kind), paths in series.items():
            for e in range(2):
                for key, r in items(kind, paths[e]).items():
                    # tags and slab caches apart, as memdb's kind column
                    k = (label, kind) if by_label else (kind,) + key
                    ends[e][k][0] += r[0]
                    ends[e][k][1] += r[1]
                    ends[e][k][2] |= r[2]
        keys = set(ends[0]) | set(ends[1])
        for k in keys:
            a, b = ends[0].get(k), ends[1].get(k)
            bf, bt = (a or [0])[0], (b or [0])[0]
            cf, ct = (a or [0, 0])[1], (b or [0, 0])[1]
            if by_label:
                rows.append(line([k[0], bf, bt, bt - bf, cf, ct]))
                continue
            flags = ([] if a else ["new"]) + ([] if b else ["gone"]) + \
                (["inaccurate"] if (a and a[2]) or (b and b[2]) else [])
            rows.append(line(list(k[1:]) + [bf, bt, bt - bf, cf, ct,
                                            ",".join(flags)]))
        bf = sum(v[0] for v in ends[0].values())
        bt = sum(v[0] for v in ends[1].values())
        cf = sum(v[1] for v in ends[0].values())
        ct = sum(v[1] for v in ends[1].values())
        total = line(["total"] + ([] if by_label else ["", ""]) +
                     [bf, bt, bt - bf, cf, ct] + ([] if by_label else [""]))
    elif base == "zones":
        sums = {}
        for label, path in picked.items():
            for name, r in slabinfo(path).items():
                k = label if by_label else name
                if k not in sums:
                    sums[k] = [r[0], 0, 0, 0, 0]
                s = sums[k]
                if s[0] != r[0]:
                    s[0] = ""   # sizes that differ: none shown
                s[1] += 1
                for i in range(1, 4):
                    s[i + 1] += r[i]
        for k, s in sums.items():
            rows.append(line([k, s[1]] + s[2:]) if by_label else
                        line([k, s[0]] + s[2:]))
        tot = [sum(s[i] for s in sums.values()) for i in range(1, 5)]
        total = line(["total"] + (tot if by_label else [""] + tot[1:]))
    elif base == "callsites":
        sums = defaultdict(lambda: [0, 0, 0])
        for label, path in picked.items():
            for site, r in ftrace(path).items():
                k = label if by_label else site
                for i in range(3):
                    sums[k][i] += r[i]
        rows = [line([k] + v + [v[2] - v[1]]) for k, v in sums.items()]
        tot = [sum(v[i] for v in sums.values()) for i in range(3)]
        total = line(["total"] + tot + [tot[2] - tot[1]])
    return rows, total


def project(report, path):
    rows, total = [], None
    for r in csv.DictReader(open(path)):
        first = next(iter(r.values()))
        values = [r[c] for c in COLS[report]]
        if first == "total":
            values[0] = "total"
            total = line(values)
        else:
            rows.append(line(values))
    return rows, total


def main():
    if sys.argv[1] == "expect":
        a = sys.argv[2:] + ["*", "-", "-"][len(sys.argv) - 4:]
        bound = [None if x == "-" else int(x) for x in a[3:5]]
        rows, total = expect(a[0], a[1], a[2], bound[0], bound[1])
    else:
        rows, total = project(sys.argv[2], sys.argv[3])
    for r in sorted(rows):
        print(r)
    print(total)


main()
