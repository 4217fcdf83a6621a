#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Re-encode a little-endian perf.data file as the big-endian file a
big-endian machine would have written for the same events.

Independent of memdb's decoder: written from perf's
tools/perf/Documentation/perf.data-file-format.txt and the kernel's
perf_event.h.  The tracepoint payloads are swapped field by field as the
event formats of the file's own tracing data describe them (parsed here
from their text, not by libtraceevent).

Kept: the attributes and their ids, the tracing data (HEADER_TRACING_DATA),
the NUMA topology (HEADER_NUMA_TOPOLOGY: u32 nr, then per node u32 node,
u64 mem_total, u64 mem_free and its CPU list as a perf string, u32
length and that many NUL-padded bytes; tools/perf/util/header.c
write_numa_topology) and the samples, lost, lost-samples, comm and fork
records, in file order (comm and fork with their trailing sample_id
fields, when the attributes have sample_id_all).  Dropped: every other
record (mmap, id index ...) and feature, which memdb does not read; the
trailing sample_id of lost records is dropped too.  The attribute flag
bits are reversed, as the ABI lays out bit-fields on a big-endian
machine.

usage: perf_to_be.py IN OUT [--little] [--samples N] [--numa MAP]
  --little     write little-endian instead (the same subset of records)
  --samples N  keep only the first N samples (small fuzz seeds)
  --numa MAP   write this NUMA topology instead of the file's: nodes as
               NODE:CPULIST separated by spaces ("0:0 1:1-3"; "" none)
  --numa-nr N  ... saying it has N nodes, whatever MAP holds (corrupt)
"""
import re
import struct
import sys

S = {"IP": 1 << 0, "TID": 1 << 1, "TIME": 1 << 2, "ADDR": 1 << 3,
     "READ": 1 << 4, "CALLCHAIN": 1 << 5, "ID": 1 << 6, "CPU": 1 << 7,
     "PERIOD": 1 << 8, "STREAM_ID": 1 << 9, "RAW": 1 << 10,
     "IDENTIFIER": 1 << 16}
KNOWN = sum(S.values())


def u(fmt, b, off):
    return struct.unpack_from("<" + fmt, b, off)


OUT = ">"


def be(fmt, *v):
    return struct.pack(OUT + fmt, *v)


def swap_attr(a):
    """perf_event_attr (a.size bytes) to big-endian."""
    # u32 type, u32 size, u64 config, period, sample_type, read_format,
    # u64 flags (bit-field), u32 wakeup, u32 bp_type, u64 config1,
    # config2, branch_sample_type, regs_user, u32 stack_user, s32 clockid,
    # u64 regs_intr, u32 aux_watermark, u16 max_stack, u16 res,
    # u32 aux_sample_size, u32 res, u64 sig_data, u64 config3
    layout = "IIQQQQQIIQQQQIIQIHHIIQQ"
    out = b""
    off = 0
    for f in layout:
        n = struct.calcsize(f)
        if off + n > len(a):
            break
        (v,) = u(f, a, off)
        if off == 40 and OUT == ">":  # the flags bit-field: bit 0 becomes the top bit
            v = int("{:064b}".format(v)[::-1], 2)
        out += be(f, v)
        off += n
    return out + a[off:]


def parse_formats(fmt_texts):
    """event id -> list of (offset, size, element size) to swap."""
    ids = {}
    for t in fmt_texts:
        m = re.search(r"^ID: (\d+)", t, re.M)
        if not m:
            continue
        fields = []
        for f in re.finditer(r"field:([^;]*);\s*offset:(\d+);\s*size:(\d+);",
                             t):
            decl, off, size = f.group(1), int(f.group(2)), int(f.group(3))
            if "__data_loc" in decl or "__rel_loc" in decl:
                fields.append((off, size, 4))
                continue
            arr = re.search(r"\[(\d*)\]\s*$", decl)
            if arr:
                n = int(arr.group(1)) if arr.group(1) else 0
                elem = size // n if n else 1
            else:
                elem = size
            if elem in (2, 4, 8):
                fields.append((off, size, elem))
        ids[int(m.group(1))] = fields
    return ids


def swap_tracing(b):
    """The tracing data to big-endian; returns (bytes, event formats)."""
    out = bytearray()
    p = 10
    assert b[:10] == b"\x17\x08\x44tracing"
    z = b.index(b"\0", p)
    version = b[p:z].decode()
    out += b[:z + 1]
    p = z + 1
    out += bytes([int(OUT == ">"), b[p + 1]])
    out += be("I", u("I", b, p + 2)[0])
    p += 6
    formats = []

    def sized(w, keep=None):
        nonlocal p, out
        f = "Q" if w == 8 else "I"
        (n,) = u(f, b, p)
        out += be(f, n)
        data = b[p + w:p + w + n]
        out += data
        p += w + n
        if keep is not None:
            keep.append(data.decode("ascii", "replace"))

    for name in (b"header_page\0", b"header_event\0"):
        assert b[p:p + len(name)] == name
        out += name
        p += len(name)
        sized(8)
    (n,) = u("I", b, p)
    out += be("I", n)
    p += 4
    for _ in range(n):
        sized(8)
    (nsys,) = u("I", b, p)
    out += be("I", nsys)
    p += 4
    for _ in range(nsys):
        z = b.index(b"\0", p)
        out += b[p:z + 1]
        p = z + 1
        (nev,) = u("I", b, p)
        out += be("I", nev)
        p += 4
        for _ in range(nev):
            sized(8, formats)
    sized(4)  # kallsyms
    sized(4)  # ftrace_printk
    if float(version) >= 0.6 and p + 8 <= len(b):
        sized(8)  # saved_cmdlines
    out += b[p:]
    return bytes(out), formats


def swap_raw(raw, fields):
    r = bytearray(raw)
    for off, size, elem in fields:
        f = {2: "H", 4: "I", 8: "Q"}[elem]
        for o in range(off, off + size, elem):
            if o + elem <= len(r):
                (v,) = u(f, raw, o)
                r[o:o + elem] = be(f, v)
    return bytes(r)


def swap_sample(b, off, size, st, rf, formats):
    p = off + 8
    out = b""
    for bit, f in ((S["IDENTIFIER"], "Q"), (S["IP"], "Q"), (S["TID"], "II"),
                   (S["TIME"], "Q"), (S["ADDR"], "Q"), (S["ID"], "Q"),
                   (S["STREAM_ID"], "Q"), (S["CPU"], "II"),
                   (S["PERIOD"], "Q")):
        if st & bit:
            out += be(f, *u(f, b, p))
            p += struct.calcsize(f)
    if st & S["READ"]:
        raise SystemExit("PERF_SAMPLE_READ not handled")
    if st & S["CALLCHAIN"]:
        (nr,) = u("Q", b, p)
        out += be("Q", nr)
        for i in range(nr):
            out += be("Q", u("Q", b, p + 8 + 8 * i)[0])
        p += 8 + 8 * nr
    if st & S["RAW"]:
        (n,) = u("I", b, p)
        raw = b[p + 4:p + 4 + n]
        (etype,) = u("H", raw, 0)
        out += be("I", n) + swap_raw(raw, formats.get(etype, []))
        p += 4 + n
    if st & ~KNOWN:
        raise SystemExit("sample_type bits not handled: %#x" % st)
    assert p == off + size, (p, off, size)
    return out


SID = ((S["TID"], "II"), (S["TIME"], "Q"), (S["ID"], "Q"),
       (S["STREAM_ID"], "Q"), (S["CPU"], "II"), (S["IDENTIFIER"], "Q"))


def sid_size(st):
    return sum(struct.calcsize(f) for bit, f in SID if st & bit)


def swap_sid(b, p, st):
    """The sample_id fields ending a non-sample record, at p."""
    out = b""
    for bit, f in SID:
        if st & bit:
            out += be(f, *u(f, b, p))
            p += struct.calcsize(f)
    return out


def swap_task(b, p, size, sid_st):
    """PERF_RECORD_COMM (3) or FORK (7): the body after the header."""
    t, = u("I", b, p)
    n = sid_size(sid_st) if sid_st is not None else 0
    end = p + size - n
    if t == 3:
        body = be("II", *u("II", b, p + 8)) + b[p + 16:end]
    else:
        body = be("IIIIQ", *u("IIIIQ", b, p + 8))
    if sid_st is not None:
        body += swap_sid(b, end, sid_st)
    return body


FEAT_TRACING_DATA, FEAT_NUMA_TOPOLOGY = 1, 14


def perf_string(text):
    """A perf string: u32 length, then the text NUL-padded to 64."""
    raw = text.encode() + b"\0"
    raw += bytes(-len(raw) % 64)
    return be("I", len(raw)) + raw


def swap_numa(b):
    """The NUMA topology section to the output's byte order."""
    (nr,) = u("I", b, 0)
    out, p = be("I", nr), 4
    for _ in range(nr):
        node, total, free, n = u("IQQI", b, p)
        p += struct.calcsize("<IQQI")
        text = b[p:p + n].split(b"\0")[0].decode()
        out += be("IQQ", node, total, free) + perf_string(text)
        p += n
    return out


def make_numa(spec, nr=None):
    """A NUMA topology section of NODE:CPULIST words."""
    nodes = [w.split(":") for w in spec.split()]
    out = be("I", len(nodes) if nr is None else nr)
    for node, cpus in nodes:
        out += be("IQQ", int(node), 1 << 30, 1 << 29) + perf_string(cpus)
    return out


def main():
    global OUT
    args = sys.argv[1:]
    keep = None
    numa = nr = None
    if "--numa-nr" in args:
        i = args.index("--numa-nr")
        nr = int(args[i + 1])
        del args[i:i + 2]
    if "--numa" in args:
        i = args.index("--numa")
        numa = args[i + 1]
        del args[i:i + 2]
    if "--little" in args:
        OUT = "<"
        args.remove("--little")
    if "--samples" in args:
        i = args.index("--samples")
        keep = int(args[i + 1])
        del args[i:i + 2]
    b = open(args[0], "rb").read()
    assert b[:8] == b"PERFILE2" and u("Q", b, 8)[0] == 104
    attr_size, aoff, asize, doff, dsize = u("QQQQQ", b, 16)
    feats = u("QQQQ", b, 72)
    # the tracing data: the first feature section after the data
    assert feats[0] & 2, "no tracing data"
    toff, tsize = u("QQ", b, doff + dsize)
    tracing, fmts = swap_tracing(b[toff:toff + tsize])
    formats = parse_formats(fmts)
    # the NUMA topology: its section is after those of the lower bits
    numa_sec = None
    if numa is not None:
        numa_sec = make_numa(numa, nr) if numa.strip() else None
    elif feats[0] >> FEAT_NUMA_TOPOLOGY & 1:
        k = bin(feats[0] & ((1 << FEAT_NUMA_TOPOLOGY) - 1)).count("1")
        noff, nsize = u("QQ", b, doff + dsize + 16 * k)
        numa_sec = swap_numa(b[noff:noff + nsize])

    attrs, ids_of, st_of_id = [], [], {}
    for i in range(asize // attr_size):
        a = b[aoff + i * attr_size:aoff + (i + 1) * attr_size]
        ioff, isize = u("QQ", a, attr_size - 16)
        ids = [u("Q", b, ioff + 8 * k)[0] for k in range(isize // 8)]
        st, rf = u("QQ", a, 24)
        for x in ids:
            st_of_id[x] = (st, rf)
        attrs.append(swap_attr(a[:attr_size - 16]))
        ids_of.append(ids)
    one = None if len(attrs) > 1 else u("QQ", b, aoff + 24)
    # sample_id_all (flags bit 18) of the first attribute: other records
    # end with its sample_id fields
    flags0, = u("Q", b, aoff + 40)
    sid_st = u("Q", b, aoff + 24)[0] if flags0 >> 18 & 1 else None

    data = bytearray()
    p, end = doff, doff + dsize
    while p < end:
        t, misc, size = u("IHH", b, p)
        if t == 9 and keep is not None and keep <= 0:
            pass
        elif t == 9:
            keep = keep - 1 if keep is not None else None
            st, rf = one or st_of_id[u("Q", b, p + 8)[0]]
            body = swap_sample(b, p, size, st, rf, formats)
            data += be("IHH", t, misc, 8 + len(body)) + body
        elif t == 2:
            data += be("IHHQQ", t, misc, 24, *u("QQ", b, p + 8))
        elif t == 13:
            data += be("IHHQ", t, misc, 16, u("Q", b, p + 8)[0])
        elif t in (3, 7):
            body = swap_task(b, p, size, sid_st)
            data += be("IHH", t, misc, 8 + len(body)) + body
        p += size

    out = bytearray(104)
    ids_at = []
    for ids in ids_of:
        ids_at.append((len(out), 8 * len(ids)))
        out += b"".join(be("Q", x) for x in ids)
    new_aoff = len(out)
    for a, (io, isz) in zip(attrs, ids_at):
        out += a + be("QQ", io, isz)
    new_doff = len(out)
    out += data
    sections = [tracing] + ([numa_sec] if numa_sec is not None else [])
    feat_tab = len(out)
    out += bytes(16 * len(sections))
    for i, sec in enumerate(sections):
        out[feat_tab + 16 * i:feat_tab + 16 * (i + 1)] = \
            be("QQ", len(out), len(sec))
        out += sec
    bits = 1 << FEAT_TRACING_DATA
    if numa_sec is not None:
        bits |= 1 << FEAT_NUMA_TOPOLOGY
    out[0:104] = ((b"2ELIFREP" if OUT == ">" else b"PERFILE2") + be("QQ", 104, attr_size) +
                  be("QQ", new_aoff, len(attrs) * attr_size) +
                  be("QQ", new_doff, len(data)) + be("QQ", 0, 0) +
                  be("QQQQ", bits, 0, 0, 0))
    open(args[1], "wb").write(out)


main()
