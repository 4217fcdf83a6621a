#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Copy a little-endian perf.data (file mode), moving one record back in
time: the first sample (with --comm: the first COMM record, whose time
is in its trailing sample_id fields) after the ROUND-th
PERF_RECORD_FINISHED_ROUND gets the time of the file's earliest sample.  Such a file breaks the
promise of its finished rounds (no event older than the round before
comes after a round's end), as perf warns "Timestamp below last
timeslice flush": memdb's round-by-round reading must notice it and
read the file again in two passes.

Independent of memdb's decoder: written from perf's
tools/perf/Documentation/perf.data-file-format.txt and the kernel's
perf_event.h (the sample fields before TIME: IDENTIFIER, IP, TID; the
sample_id fields after it: ID, STREAM_ID, CPU, IDENTIFIER).

usage: perf_retime.py [--comm] IN OUT [ROUND]     (ROUND: 3)
prints the record's offset, its old and its new time
"""
import struct
import sys

S_IP, S_TID, S_TIME, S_IDENTIFIER = 1 << 0, 1 << 1, 1 << 2, 1 << 16
S_ID, S_CPU, S_STREAM_ID = 1 << 6, 1 << 7, 1 << 9
SAMPLE_ID_ALL = 1 << 18  # bit of the attribute's flags
REC_COMM, REC_SAMPLE, REC_FINISHED_ROUND = 3, 9, 68


def main():
    args = sys.argv[1:]
    comm = args[:1] == ["--comm"]
    if comm:
        args = args[1:]
    src, dst = args[0], args[1]
    want_round = int(args[2]) if len(args) > 2 else 3
    b = bytearray(open(src, "rb").read())
    if b[:8] != b"PERFILE2":
        sys.exit("not a little-endian perf.data in file mode")
    attr_size, = struct.unpack_from("<Q", b, 16)
    attrs_off, attrs_size, data_off, data_size = struct.unpack_from(
        "<QQQQ", b, 24)
    types = set()
    for a in range(attrs_off, attrs_off + attrs_size, attr_size):
        # sample_type: the fields up to TIME are what matters
        types.add(struct.unpack_from("<Q", b, a + 24)[0] &
                  (S_IDENTIFIER | S_IP | S_TID | S_TIME))
    if len(types) != 1:
        sys.exit("attributes whose samples place TIME differently")
    st = types.pop()
    if not st & S_TIME:
        sys.exit("samples without time")
    tpos = 8 * (bool(st & S_IDENTIFIER) + bool(st & S_IP) +
                bool(st & S_TID))
    # a COMM record's time: this far before its end (sample_id_all)
    st0, flags0 = struct.unpack_from("<Q", b, attrs_off + 24)[0], \
        struct.unpack_from("<Q", b, attrs_off + 40)[0]
    if comm and not flags0 & SAMPLE_ID_ALL:
        sys.exit("records without sample_id_all: no time")
    ctail = 8 + 8 * bin(st0 & (S_ID | S_STREAM_ID | S_CPU |
                                S_IDENTIFIER)).count("1")

    samples, rounds, target = [], 0, None
    off, end = data_off, data_off + data_size
    while off + 8 <= end:
        rtype, _misc, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            sys.exit("record of size %d at %d" % (size, off))
        if rtype == REC_FINISHED_ROUND:
            rounds += 1
        elif rtype == REC_SAMPLE:
            at = off + 8 + tpos
            samples.append(at)
            if rounds >= want_round and target is None and not comm:
                target = (off, at)
        elif rtype == REC_COMM and comm:
            if rounds >= want_round and target is None:
                target = (off, off + size - ctail)
        off += size
    if target is None:
        sys.exit("no %s after round %d (%d rounds)" %
                 ("comm record" if comm else "sample", want_round, rounds))
    first = min(struct.unpack_from("<Q", b, at)[0] for at in samples)
    old, = struct.unpack_from("<Q", b, target[1])
    struct.pack_into("<Q", b, target[1], first)
    open(dst, "wb").write(b)
    print(target[0], old, first)


main()
