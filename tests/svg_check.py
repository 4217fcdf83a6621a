#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of memdb's pictures, independent of memdb's C code.

  svg_check.py xml FILE                 FILE parses as XML (SVG or the page)
  svg_check.py bars SVG CSV COLUMN      each bar's tooltip and label equal
                                        CSV's COLUMN, row by row (labels
                                        with their thousands grouped)
  svg_check.py timeline SVG CSV         bucket tooltips equal the CSV rows;
                                        each y axis's top tick the first
                                        round step at or over the column's
                                        max (tests/page_check.py axes
                                        checks the rest of the axes)
  svg_check.py flame SVG FOLDED         total and root frames' bytes equal
                                        the folded lines' sums; boxes nest
  svg_check.py text SVG STRING          STRING is some text node, unescaped
  svg_check.py png FILE MIN             the PNG has at least MIN non-white
                                        pixels and 3 colours (not blank)
Prints what differs and exits 1 on a mismatch.
"""
import csv
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("svg_check: " + msg)
    sys.exit(1)


def svg(path):
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg":
        fail("%s: root is %s, not svg" % (path, root.tag))
    return root


def csv_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [r for r in rows if list(r.values())[0] != "total"]


def tips(root):
    """(rect, title text) of every rect with a tooltip, in order."""
    out = []
    for r in root.iter(NS + "rect"):
        t = r.find(NS + "title")
        if t is not None:
            out.append((r, t.text or ""))
    return out


def check_bars(path, csvp, col):
    root = svg(path)
    want = [int(r[col]) for r in csv_rows(csvp)]
    got = [int(t.rsplit("=", 1)[1]) for _, t in tips(root)
           if t.rsplit("=", 1)[0].endswith(": " + col)]
    if got != want:
        fail("bars %s: tooltips %s, CSV %s" % (col, got, want))
    labels = [int(t.text.replace(",", "")) for t in root.iter(NS + "text")
              if t.text and re.fullmatch(r"-?[0-9]{1,3}(,[0-9]{3})*",
                                         t.text)]
    if labels != want:
        fail("bars %s: labels %s, CSV %s" % (col, labels, want))
    print("bars: %d rows of %s agree" % (len(want), col))


def check_timeline(path, csvp):
    root = svg(path)
    rows = csv_rows(csvp)
    got = [dict(kv.split("=", 1) for kv in t.split(" ")) for _, t in
           tips(root)]
    if len(got) != len(rows):
        fail("timeline: %d tooltips, %d CSV rows" % (len(got), len(rows)))
    for g, r in zip(got, rows):
        if g != r:
            fail("timeline: tooltip %s, CSV %s" % (g, r))
    axes = [g for g in root.iter(NS + "g") if g.get("class") == "y-axis"]
    if len(axes) != 2:
        fail("timeline: %d y axes" % len(axes))
    for col, g in zip(("live_bytes", "allocs"), axes):
        m = max(int(r[col]) for r in rows)
        ticks = [int(t.text.replace(",", "")) for t in g.iter(NS + "text")]
        step = ticks[1] - ticks[0]
        if not ticks[-1] >= m > ticks[-1] - step and not (m == 0 and
                                                          ticks[-1] == 1):
            fail("timeline: %s axis %s, CSV max %d" % (col, ticks, m))
    print("timeline: %d buckets agree" % len(rows))


def box(rect, tip):
    name, rest = tip.rsplit(": bytes=", 1)
    return (name, int(rest.split(" ")[0]), float(rect.get("x")),
            float(rect.get("y")), float(rect.get("width")))


def check_flame(path, folded):
    root = svg(path)
    lines = [l.rsplit(" ", 1) for l in open(folded).read().splitlines()]
    total = sum(int(w) for _, w in lines)
    roots = {}
    for s, w in lines:
        r = s.split(";")[0]
        roots[r] = roots.get(r, 0) + int(w)
    head = [t.text for t in root.iter(NS + "text")
            if t.text and t.text.endswith(" stacks")]
    if head != ["%s bytes in %d stacks" % (format(total, ","), len(lines))]:
        fail("flame: header %s, folded total %d in %d" %
             (head, total, len(lines)))
    boxes = [box(r, t) for r, t in tips(root)]
    ymax = max(b[3] for b in boxes)
    got = {b[0]: b[1] for b in boxes if b[3] == ymax}
    if got != roots:
        fail("flame: root frames %s, folded %s" % (got, roots))
    # a box lies within one box of the level below it (root at bottom)
    for b in boxes:
        if b[3] == ymax:
            continue
        under = [u for u in boxes if abs(u[3] - b[3] - 17) < 0.01 and
                 u[2] - 0.01 <= b[2] and b[2] + b[4] <= u[2] + u[4] + 0.6
                 and b[1] <= u[1]]
        if not under:
            fail("flame: %s at y %.2f stands on nothing" % (b[0], b[3]))
    print("flame: %d boxes, %d bytes agree" % (len(boxes), total))


def check_text(path, s):
    root = svg(path)
    if not any(t.text == s for t in root.iter(NS + "text")) and \
       not any(t.endswith(s) or s + ":" in t for _, t in tips(root)):
        fail("text %r not found" % s)
    print("text: found %r" % s)


def _add(x, y, lo, hi):
    """Bytewise x + y (mod 256) of two rows read as integers: the low 7
    bits of each byte added (no carry out of the byte), the top bit
    xored (lo: 0x7f in each byte, hi: 0x80)."""
    return ((x & lo) + (y & lo)) ^ ((x ^ y) & hi)


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        fail("%s: PNG depth %d colour type %d not handled" %
             (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    # Sub and Up rows are undone on the whole row at once, a byte per
    # 8 bits of one integer (sums without carries from byte to byte);
    # Average and Paeth a byte at a time
    lo = int.from_bytes(b"\x7f" * stride, "little")
    every = int.from_bytes(b"\xff" * stride, "little")
    hi = every ^ lo
    prev, rows, at = bytes(stride), [], 0
    for _ in range(h):
        f, line = raw[at], raw[at + 1:at + 1 + stride]
        at += 1 + stride
        if f == 1:
            x, k = int.from_bytes(line, "little"), bpp
            while k < stride:
                x = _add(x, x << 8 * k & every, lo, hi)
                k *= 2
            line = x.to_bytes(stride, "little")
        elif f == 2:
            line = _add(int.from_bytes(line, "little"),
                        int.from_bytes(prev, "little"), lo,
                        hi).to_bytes(stride, "little")
        elif f == 3:
            line = bytearray(line)
            for i in range(bpp):
                line[i] = (line[i] + (prev[i] >> 1)) & 255
            for i in range(bpp, stride):
                line[i] = (line[i] + ((line[i - bpp] + prev[i]) >> 1)) \
                    & 255
            line = bytes(line)
        elif f == 4:
            line = bytearray(line)
            for i in range(bpp):
                line[i] = (line[i] + prev[i]) & 255
            for i in range(bpp, stride):
                a, b, c = line[i - bpp], prev[i], prev[i - bpp]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - c - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
            line = bytes(line)
        elif f:
            fail("%s: PNG filter %d" % (path, f))
        rows.append(line)
        prev = line
    px = b"".join(rows)
    return [px[i:i + 3] for i in range(0, len(px), bpp)]


def check_png(path, minimum):
    px = png_pixels(path)
    ink = [p for p in px if p != b"\xff\xff\xff"]
    colours = len(set(px))
    if len(ink) < minimum or colours < 3:
        fail("%s: blank: %d non-white pixels, %d colours" %
             (path, len(ink), colours))
    print("png: %d non-white pixels, %d colours" % (len(ink), colours))


def main(a):
    if a[0] == "xml":
        ET.parse(a[1])
        print("xml: ok")
    elif a[0] == "bars":
        check_bars(a[1], a[2], a[3])
    elif a[0] == "timeline":
        check_timeline(a[1], a[2])
    elif a[0] == "flame":
        check_flame(a[1], a[2])
    elif a[0] == "text":
        check_text(a[1], a[2])
    elif a[0] == "png":
        check_png(a[1], int(a[2]))
    else:
        fail("unknown check " + a[0])


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except ET.ParseError as err:
        fail("not XML: %s" % err)
