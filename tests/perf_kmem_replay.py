#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf kmem stat's slab figures, replayed from `perf script` text of a
capture, for tests/test_perf_figures.c to hold memdb's "as perf kmem
counts" figures against where perf itself cannot run (no perf, a
topology perf does not take from the file).

Independent of memdb: written from what perf 6.1's builtin-kmem.c does
with kmem:kmalloc, kmem:kmem_cache_alloc (and their _node forms) and
kmem:kfree, kmem:kmem_cache_free, checked against perf on the fixtures
of testdata/real-perf: every ALLOC adds its bytes and keeps its pointer
(NULL too) in one tree with its latest bytes_alloc and CPU; a FREE of a
pointer in the tree, whatever became of it, adds that bytes_alloc to
"freed" and counts a ping-pong when its CPU is not the ALLOC's, then sets
the ALLOC's CPU to -1; a FREE of another pointer is ignored.  An ALLOC
with a node field not -1 is a cross-CPU allocation when the node is not
its CPU's (-1 for a CPU in no node).  The events come in the text's
order (perf script prints them in time order, as perf kmem reads them).

usage: perf_kmem_replay.py SCRIPT.txt [--map "CPU:NODE ..."]
prints "figure,value" lines: allocations, bytes_requested,
bytes_allocated, bytes_freed, net_bytes_allocated, bytes_wasted,
pingpong, cross_cpu_allocations, fragmentation_pct
"""
import re
import sys

ALLOCS = ("kmem:kmalloc", "kmem:kmalloc_node", "kmem:kmem_cache_alloc",
          "kmem:kmem_cache_alloc_node")
FREES = ("kmem:kfree", "kmem:kmem_cache_free")
LINE = re.compile(r"\[(\d+)\]\s+[\d.]+:\s+(kmem:\w+):(.*)$")


def field(rest, name):
    m = re.search(r"\b%s=(\S+)" % name, rest)
    return m.group(1) if m else None


def ptr_of(v):
    return 0 if v == "(nil)" else int(v, 16)


def main():
    args = sys.argv[1:]
    node_of = {}
    if "--map" in args:
        i = args.index("--map")
        for w in args[i + 1].split():
            c, n = w.split(":")
            node_of[int(c)] = int(n)
        del args[i:i + 2]
    tree = {}
    n = req = alloc = freed = pingpong = cross = 0
    for line in open(args[0], errors="replace"):
        m = LINE.search(line)
        if not m or line.startswith("\t"):
            continue
        cpu, ev, rest = int(m.group(1)), m.group(2), m.group(3)
        if ev in ALLOCS:
            ptr = ptr_of(field(rest, "ptr"))
            size = int(field(rest, "bytes_alloc"))
            n += 1
            req += int(field(rest, "bytes_req"))
            alloc += size
            tree[ptr] = [size, cpu]
            node = field(rest, "node")
            if node is not None and int(node) != -1 and \
                    int(node) != node_of.get(cpu, -1):
                cross += 1
        elif ev in FREES:
            a = tree.get(ptr_of(field(rest, "ptr")))
            if a is None:
                continue
            freed += a[0]
            pingpong += cpu != a[1]
            a[1] = -1
    for k, v in (("allocations", n), ("bytes_requested", req),
                 ("bytes_allocated", alloc), ("bytes_freed", freed),
                 ("net_bytes_allocated", alloc - freed),
                 ("bytes_wasted", alloc - req),
                 ("pingpong", pingpong), ("cross_cpu_allocations", cross)):
        print("%s,%d" % (k, v))
    # perf prints 100.0 - 100.0 * requested / allocated with %f
    print("fragmentation_pct,%f" % (100.0 - 100.0 * req / alloc
                                    if alloc else 0.0))


main()
