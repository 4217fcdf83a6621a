#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Re-encode a little-endian tracefs copy as a big-endian machine writes it.

    tracefs_swap.py SRC DST

An independent encoder for tests/test_tracefs.c: it knows nothing of
memdb's reader.  Every ring-buffer page of per_cpu/cpuN/trace_pipe_raw is
rewritten: the page header (u64 timestamp, long commit), each 32-bit event
header (type_len in the top 5 bits, time_delta in the low 27 on big-endian
machines, the reverse of little-endian), the 32-bit words after it
(lengths, time extensions), and every field of every event payload,
swapped by the size the capture's own format files give.  Strings and
the other files are copied as they are.
"""
import os
import re
import shutil
import struct
import sys


def parse_format(text):
    """An event format file's (ID, [(offset, size, elementsize)])."""
    eid = int(re.search(r"^ID: (\d+)", text, re.M).group(1))
    fields = []
    for m in re.finditer(r"field:([^;]*);\s*offset:(\d+);\s*size:(\d+);",
                         text):
        decl, off, size = m.group(1).strip(), int(m.group(2)), int(m.group(3))
        if decl.startswith("__data_loc") or decl.startswith("__rel_loc"):
            fields.append((off, 4, 4))
        elif "[" in decl:
            n = re.search(r"\[(\d*)\]", decl).group(1)
            elem = size // int(n) if n and int(n) else 1
            fields.append((off, size, elem))
        else:
            fields.append((off, size, size))
    return eid, fields


def page_layout(text):
    """header_page text -> (size of its commit, a kernel long; page size)."""
    long_size = int(re.search(r"commit;\s*offset:\d+;\s*size:(\d+);",
                              text).group(1))
    m = re.search(r"data;\s*offset:(\d+);\s*size:(\d+);", text)
    return long_size, int(m.group(1)) + int(m.group(2))


def read_formats(src):
    """common_type id -> [(offset, size, elementsize)]"""
    fmts = {}
    base = os.path.join(src, "events")
    for root, _dirs, files in os.walk(base):
        if "format" in files:
            text = open(os.path.join(root, "format")).read()
            eid, fields = parse_format(text)
            fmts[eid] = fields
    return fmts


def swap(buf, off, size):
    if size in (2, 4, 8) and off + size <= len(buf):
        buf[off:off + size] = buf[off:off + size][::-1]


def swap_payload(buf, start, length, fmts):
    if length < 2:
        return
    eid = struct.unpack_from("<H", buf, start)[0]
    for off, size, elem in fmts.get(eid, [(0, 2, 2)]):
        if elem in (2, 4, 8):
            for k in range(0, size, elem):
                if off + k + elem <= length:
                    swap(buf, start + off + k, elem)


def swap_page(page, long_size, fmts):
    buf = bytearray(page)
    commit = struct.unpack_from("<Q" if long_size == 8 else "<I", buf, 8)[0]
    swap(buf, 0, 8)
    swap(buf, 8, long_size)
    data = 8 + long_size
    end = data + (commit & ((1 << 30) - 1))
    i = data
    while i + 4 <= end:
        h = struct.unpack_from("<I", buf, i)[0]
        type_len, delta = h & 31, h >> 5
        struct.pack_into(">I", buf, i, (type_len << 27) | delta)
        if type_len == 0:
            length = struct.unpack_from("<I", buf, i + 4)[0] - 4
            swap(buf, i + 4, 4)
            swap_payload(buf, i + 8, length, fmts)
            i += 8 + ((length + 3) & ~3)
        elif type_len <= 28:
            swap_payload(buf, i + 4, type_len * 4, fmts)
            i += 4 + type_len * 4
        elif type_len == 29:  # padding: array[0] is its length
            if delta == 0:
                break
            length = struct.unpack_from("<I", buf, i + 4)[0]
            swap(buf, i + 4, 4)
            i += 4 + length
        else:  # 30 time extend, 31 absolute timestamp
            swap(buf, i + 4, 4)
            i += 8
    return bytes(buf)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    shutil.copytree(src, dst)
    hp = open(os.path.join(src, "header_page")).read()
    long_size, subbuf = page_layout(hp)
    fmts = read_formats(src)
    for cpu in os.listdir(os.path.join(src, "per_cpu")):
        raw = os.path.join(src, "per_cpu", cpu, "trace_pipe_raw")
        data = open(raw, "rb").read()
        out = b"".join(swap_page(data[o:o + subbuf], long_size, fmts)
                       for o in range(0, len(data), subbuf))
        open(os.path.join(dst, "per_cpu", cpu, "trace_pipe_raw"), "wb").write(out)


if __name__ == "__main__":
    main()
