#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Re-encode a little-endian trace.dat as a big-endian machine writes it.

    tracedat_swap.py SRC DST

An independent encoder for tests/test_tracedat.c: it knows nothing of
memdb's reader.  It follows trace-cmd's file format (trace-cmd.dat.v6(5)
and trace-cmd.dat.v7(5)) and reads version 6, and version 7 whose
sections are not compressed ("none").  Every number of the file is
swapped in place, the layout unchanged: the endianness byte of the
initial format becomes 1, then the page size, the sizes and counts of
the header_page/header_event, ftrace and event format, kallsyms, printk
and saved command line parts (v7: each section header's id, flags,
string id and size; options sections chained by their DONE option), the
CPU count, the options (id, size, and the numbers of the options that
carry them: BUFFER, CPUCOUNT, TRACEID, TIME_SHIFT, GUEST, TSC2NSEC, the
v7 section offsets; an option of an id not known here is copied as it
is, with a warning), v6's flyrecord table (per CPU a u64 offset and size,
then the trace clock's u64 size) and every ring-buffer page, which
tests/tracefs_swap.py rewrites by the capture's own header_page and event
formats.  Strings and text are copied as they are.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracefs_swap  # noqa: E402

MAGIC = b"\x17\x08\x44tracing"
(DONE, DATE, CPUSTAT, BUFFER, TRACECLOCK, UNAME, HOOK, OFFSET, CPUCOUNT,
 VERSION, PROCMAPS, TRACEID, TIME_SHIFT, GUEST, TSC2NSEC, STRINGS,
 HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES,
 BUFFER_TEXT, BTF_FILE, LAST_BOOT_INFO, MODULES_FILE) = range(26)
TEXT_OPTIONS = (DATE, CPUSTAT, TRACECLOCK, UNAME, HOOK, OFFSET, VERSION,
                PROCMAPS, STRINGS, LAST_BOOT_INFO)
SECTION_OPTIONS = (HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS,
                   PRINTK, CMDLINES, BTF_FILE, MODULES_FILE)
FMT = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}


class Swapper:
    """The file's bytes, a position, and what the pages need."""

    def __init__(self, data):
        self.d = bytearray(data)
        self.pos = 0
        self.fmts = {}
        self.header_page = None
        self.buffers = []       # (page size, [(offset, size)])
        self.v6_instances = []  # v6 BUFFER options: their flyrecord tables

    def fail(self, what):
        raise SystemExit("%s: at offset %d" % (what, self.pos))

    def num(self, size):
        """The little-endian number at pos, swapped; pos after it."""
        if self.pos + size > len(self.d):
            self.fail("file cut short")
        at = self.pos
        v = struct.unpack_from(FMT[size], self.d, at)[0]
        self.d[at:at + size] = self.d[at:at + size][::-1]
        self.pos += size
        return v

    def cstr(self):
        end = self.d.find(b"\0", self.pos)
        if end < 0:
            self.fail("unterminated string")
        s = bytes(self.d[self.pos:end])
        self.pos = end + 1
        return s

    def tag(self, text):
        if self.d[self.pos:self.pos + len(text)] != text:
            self.fail("expected %r" % text)
        self.pos += len(text)

    def blob(self, size_bytes):
        """A size of @size_bytes bytes and the text after it."""
        n = self.num(size_bytes)
        s = bytes(self.d[self.pos:self.pos + n])
        self.pos += n
        return s

    # ---- the parts of the header (v6 in a row, v7 one a section) ----

    def header_info(self):
        self.tag(b"header_page\0")
        self.header_page = self.blob(8).decode()
        self.tag(b"header_event\0")
        self.blob(8)

    def formats(self, n):
        for _ in range(n):
            eid, fields = tracefs_swap.parse_format(self.blob(8).decode())
            self.fmts[eid] = fields

    def ftrace_events(self):
        self.formats(self.num(4))

    def event_formats(self):
        for _ in range(self.num(4)):
            self.cstr()
            self.formats(self.num(4))

    # ---- options ----

    def option(self, oid, size, v7):
        """Swap the numbers of the option at pos (@size bytes)."""
        end = self.pos + size
        if oid in TEXT_OPTIONS:
            pass
        elif oid == BUFFER and not v7:  # offset of its flyrecord table
            self.v6_instances.append(self.num(8))
        elif oid == BUFFER:
            self.num(8)
            self.cstr()
            self.cstr()
            page_size = self.num(4)
            cpus = []
            for _ in range(self.num(4)):
                self.num(4)
                cpus.append((self.num(8), self.num(8)))
            self.buffers.append((page_size, cpus))
        elif oid in (CPUCOUNT, TRACEID, DONE) or oid in SECTION_OPTIONS:
            self.num(size)
        elif oid == BUFFER_TEXT:
            self.num(8)
        elif oid == TSC2NSEC:  # mult, shift, offset
            self.num(4), self.num(4), self.num(8)
        elif oid == GUEST:  # name, trace id, CPUs: (cpu, host pid)
            self.cstr()
            self.num(8)
            for _ in range(self.num(4)):
                self.num(4), self.num(4)
        elif oid == TIME_SHIFT:
            self.time_shift(end)
        else:
            sys.stderr.write("tracedat_swap: option %d of %d bytes at %d "
                             "copied as it is\n" % (oid, size, self.pos))
        if self.pos > end:
            self.fail("option %d overruns its %d bytes" % (oid, size))
        self.pos = end

    def time_shift(self, end):
        """Peer trace id, flags, CPUs: count, then count times, offsets
        and scaling ratios; then, if there is room, each CPU's count
        fraction bits."""
        self.num(8)
        self.num(4)
        counts = [0] * self.num(4)
        for i in range(len(counts)):
            counts[i] = self.num(4)
            for _ in range(3 * counts[i]):
                self.num(8)
        for n in counts:
            for _ in range(n):
                if self.pos + 8 <= end:
                    self.num(8)

    def options(self, v7):
        """Options up to DONE: v6 a bare id 0, v7 one with the offset of
        the next options section."""
        while True:
            oid = self.num(2)
            if oid == DONE and not v7:
                return
            size = self.num(4)
            self.option(oid, size, v7)
            if oid == DONE:
                return

    # ---- CPU data ----

    def flyrecord_v6(self, cpus, pages):
        """@cpus (offset, size) pairs, then the trace clock "[name]"."""
        for _ in range(cpus):
            pages.append((self.num(8), self.num(8)))
        n = struct.unpack_from("<Q", self.d, self.pos)[0]
        clock = self.d[self.pos + 8:self.pos + 8 + n]
        if n and clock[:1] == b"[" and clock[-1:] == b"]":
            self.num(8)

    def pages(self):
        if self.header_page is None:
            self.fail("no header_page")
        long_size, _ = tracefs_swap.page_layout(self.header_page)
        for page_size, cpus in self.buffers:
            for off, size in cpus:
                if off + size > len(self.d) or size % page_size:
                    raise SystemExit("CPU data at %d of %d bytes: not whole "
                                     "pages in the file" % (off, size))
                for p in range(off, off + size, page_size):
                    self.d[p:p + page_size] = tracefs_swap.swap_page(
                        self.d[p:p + page_size], long_size, self.fmts)

    # ---- the two layouts ----

    def v6(self, page_size):
        self.header_info()
        self.ftrace_events()
        self.event_formats()
        self.blob(4)  # kallsyms
        self.blob(4)  # printk formats
        self.blob(8)  # saved command lines
        cpus = self.num(4)
        if self.d[self.pos:self.pos + 10] == b"options  \0":
            self.pos += 10
            self.options(False)
        if self.d[self.pos:self.pos + 10] == b"latency  \0":
            return
        self.tag(b"flyrecord\0")
        top = []
        self.flyrecord_v6(cpus, top)
        self.buffers.append((page_size, top))
        for off in self.v6_instances:
            self.pos = off
            self.tag(b"flyrecord\0")
            data = []
            self.flyrecord_v6(cpus, data)
            self.buffers.append((page_size, data))

    def v7(self):
        if self.cstr() != b"none":
            self.fail("compressed sections (only \"none\" is re-encoded)")
        self.cstr()
        self.num(8)  # the first options section
        parts = {HEADER_INFO: self.header_info,
                 FTRACE_EVENTS: self.ftrace_events,
                 EVENT_FORMATS: self.event_formats,
                 KALLSYMS: lambda: self.blob(4), PRINTK: lambda: self.blob(4),
                 CMDLINES: lambda: self.blob(8),
                 DONE: lambda: self.options(True)}
        # the sections one after the other, as libtracecmd finds the
        # strings section
        while self.pos < len(self.d):
            start = self.pos
            sid, flags = self.num(2), self.num(2)
            self.num(4)
            size = self.num(8)
            body = self.pos
            if flags & 1:
                self.fail("compressed section %d" % sid)
            if sid in parts:
                parts[sid]()
            elif sid not in (STRINGS, BUFFER, BUFFER_TEXT):
                sys.stderr.write("tracedat_swap: section %d at %d copied as "
                                 "it is\n" % (sid, start))
            if self.pos > body + size:
                self.fail("section %d at %d overruns its %d bytes" %
                          (sid, start, size))
            self.pos = body + size

    def run(self):
        self.tag(MAGIC)
        version = self.cstr()
        if self.d[self.pos] != 0:
            self.fail("not a little-endian file")
        self.d[self.pos] = 1
        self.pos += 2  # long size: one byte
        page_size = self.num(4)
        if version == b"6":
            self.v6(page_size)
        elif version == b"7":
            self.v7()
        else:
            self.fail("file version %r" % version)
        self.pages()
        return bytes(self.d)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    out = Swapper(data).run()
    open(sys.argv[2], "wb").write(out)


if __name__ == "__main__":
    main()
