#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copy a little-endian perf.data and its `perf script` text, making one
kmem:kmalloc fail: the first whose pointer is written once in each
(an allocation never freed in the capture) gets pointer 0 in both, the
data's 8 bytes zeroed and the text's ptr=(nil), as perf script prints a
NULL pointer.  perf kmem then counts every NULL free after it as a free
of that allocation (tests/perf_kmem_replay.py).

usage: perf_fail_alloc.py IN.data IN.script OUT.data OUT.script
prints the pointer and the line of the text it was on
"""
import re
import struct
import sys


def main():
    din, sin, dout, sout = sys.argv[1:5]
    data = bytearray(open(din, "rb").read())
    lines = open(sin, errors="replace").read().split("\n")
    seen = {}
    for line in lines:
        for p in re.findall(r"\bptr=(0x[0-9a-f]+)", line):
            seen[p] = seen.get(p, 0) + 1
    for i, line in enumerate(lines):
        m = re.search(r"kmem:kmalloc: .*\bptr=(0x[0-9a-f]+)", line)
        if not m or seen[m.group(1)] != 1:
            continue
        raw = struct.pack("<Q", int(m.group(1), 16))
        if data.count(raw) != 1:
            continue
        at = data.index(raw)
        data[at:at + 8] = bytes(8)
        lines[i] = line.replace("ptr=" + m.group(1), "ptr=(nil)")
        open(dout, "wb").write(data)
        open(sout, "w").write("\n".join(lines))
        print(m.group(1), i + 1)
        return
    sys.exit("no kmalloc whose pointer is written once")


main()
