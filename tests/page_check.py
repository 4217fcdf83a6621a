#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of memdb html's page and the pictures' axes and script,
independent of memdb's C code (tests/test_html_page.c).

  page_check.py table PAGE SECTION CSV  the first table of SECTION (its
                                        h2 id) holds CSV's rows, integers
                                        grouped (not ids, pids, CPUs,
                                        positions, years), REAL with 3
                                        decimals (within 0.0005 of CSV's)
  page_check.py notshown PAGE S=N ...   section S says "not shown" N times
                                        (any other section 0 times)
  page_check.py axes SVG CSV            the timeline's axes: round ticks,
                                        each mark where its figures put it
  page_check.py match DOM FOLDED RE     the flame graph's "matched" line
                                        (DOM: chromium --dump-dom) gives
                                        the bytes of the folded stacks with
                                        a frame RE matches (Python's re:
                                        the test's expressions mean the
                                        same in JavaScript)
  page_check.py zoom DOM SVG ID         in DOM, frame ID of SVG fills the
                                        width, its ancestors stay, its
                                        descendants scale, the rest hidden
  page_check.py frameid SVG NAME        prints the id of the widest frame
                                        called NAME
  page_check.py pngdiff A B MIN         at least MIN pixels differ
  page_check.py pngcolour PNG R,G,B MIN MAX
                                        MIN to MAX pixels of that colour
Prints what it found; exits 1 with what differs.
"""
import csv
import html.parser
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ in tests/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg_check import NS, fail, png_pixels  # noqa: E402

PLAIN = ("seq", "id", "pid", "tid", "tgid", "cpu", "cpus", "node", "line",
         "ts", "source", "pos", "order", "bucket", "pfn", "at", "year")


def plain(col):
    return any(col == p or col.endswith("_" + p) for p in PLAIN)


class Page(html.parser.HTMLParser):
    """Sections (h2 id) with their tables (rows of cells) and text."""

    def __init__(self):
        super().__init__()
        self.sections, self.cur, self.cell = {}, None, None
        self.svg = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2":
            self.cur = {"tables": [], "text": ""}
            self.sections[a.get("id")] = self.cur
        elif tag == "svg":
            self.svg += 1
        elif self.cur is None or self.svg:
            return
        elif tag == "table":
            self.cur["tables"].append([])
        elif tag == "tr":
            self.cur["tables"][-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg -= 1
        elif tag in ("td", "th") and self.cell is not None and not self.svg:
            self.cur["tables"][-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        elif self.cur is not None and not self.svg:
            self.cur["text"] += data


def page(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    return p.sections


def want_cell(col, v, got):
    """Does page cell @got show CSV value @v of column @col right?"""
    if re.fullmatch(r"-?[0-9]+", v):
        return got == (v if plain(col) else format(int(v), ","))
    if re.fullmatch(r"-?[0-9]+\.[0-9]+", v):
        return (re.fullmatch(r"-?[0-9]+\.[0-9]{3}", got) is not None and
                abs(float(got) - float(v)) <= 0.0005 + 1e-9)
    return got == v


def check_table(path, section, csvp):
    s = page(path).get(section)
    if s is None or not s["tables"]:
        fail("table: no table in section %s" % section)
    got = s["tables"][0]
    with open(csvp, newline="") as f:
        want = list(csv.reader(f))
    if got[0] != want[0]:
        fail("table %s: header %s, CSV %s" % (section, got[0], want[0]))
    if len(got) != len(want):
        fail("table %s: %d rows, CSV %d" % (section, len(got), len(want)))
    grouped = 0
    for g, w in zip(got[1:], want[1:]):
        for col, gv, wv in zip(want[0], g, w):
            if not want_cell(col, wv, gv):
                fail("table %s: %s: %r for CSV's %r" % (section, col, gv,
                                                          wv))
            grouped += "," in gv
    print("table %s: %d rows agree, %d figures grouped" %
          (section, len(got) - 1, grouped))


def check_notshown(path, counts):
    want = dict((k, int(v)) for k, v in (c.split("=") for c in counts))
    for name, s in page(path).items():
        n = s["text"].count("not shown")
        if n != want.get(name, 0):
            fail("notshown: section %s says it %d times, want %d: %r" %
                 (name, n, want.get(name, 0), s["text"].strip()))
    print("notshown: %s" % " ".join(counts))


def nice(step):
    """Is @step 1, 2, 2.5 or 5 times a power of ten?"""
    m = step
    while m >= 10:
        m /= 10
    while m < 1:
        m *= 10
    return any(abs(m - n) < 1e-6 for n in (1, 2, 2.5, 5, 10))


def ticks(group):
    """(value, y, x) of the ticks of an axis group: its labels, each with
    the place of its tick mark (a line 4 long)."""
    marks = [ln for ln in group.iter(NS + "line")
             if abs(float(ln.get("x2")) - float(ln.get("x1")) +
                    float(ln.get("y2")) - float(ln.get("y1")) - 4) < 0.01]
    labels = list(group.iter(NS + "text"))
    if len(marks) == 2 * len(labels):  # the x axis: a mark on each panel
        marks = marks[::2]
    if len(marks) != len(labels):
        fail("axes: %d tick marks for %d labels" % (len(marks), len(labels)))
    return [(float(t.text.replace(",", "")), float(m.get("y1")),
             float(m.get("x1"))) for t, m in zip(labels, marks)]


def even_steps(vals, what, least=4):
    steps = [b - a for a, b in zip(vals, vals[1:])]
    if len(vals) < least:
        fail("axes: %s has %d ticks: %s" % (what, len(vals), vals))
    step = min(steps)
    if not nice(step) or any(abs(s / step - round(s / step)) > 1e-6 or
                             s <= 0 for s in steps):
        fail("axes: %s ticks %s are not round steps" % (what, vals))
    if any(abs(v / step - round(v / step)) > 1e-6 for v in vals):
        fail("axes: %s ticks %s are not multiples of %g" % (what, vals,
                                                            step))
    return step


def check_axes(path, csvp):
    root = ET.parse(path).getroot()
    with open(csvp, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["bucket"] != "total"]
    groups = {}
    for g in root.iter(NS + "g"):
        groups.setdefault(g.get("class"), []).append(g)
    # the plot's extent: its longest horizontal axis line
    axis = max((ln for ln in root.iter(NS + "line")
                if ln.get("y1") == ln.get("y2") and
                ln.get("stroke") == "#333333"),
               key=lambda ln: float(ln.get("x2")) - float(ln.get("x1")))
    x0, x1 = float(axis.get("x1")), float(axis.get("x2"))
    poly = [tuple(map(float, p.split(","))) for p in
            root.find(NS + "polyline").get("points").split()]
    bars = [r for r in root.iter(NS + "rect") if r.get("fill") == "#d9612b"]
    if len(poly) != len(rows) or len(bars) != len(rows):
        fail("axes: %d points, %d bars, %d rows" % (len(poly), len(bars),
                                                     len(rows)))
    # y: from 0 by round steps up to the first step at or over the max;
    # each point and bar at its figure on that scale
    for g, col, marks in zip(groups["y-axis"], ("live_bytes", "allocs"),
                             ([p[1] for p in poly],
                              [float(b.get("y")) for b in bars])):
        t = ticks(g)
        vals = [v for v, _, _ in t]
        top = max(int(r[col]) for r in rows)
        # counts: 0, 1, 2 are the only round ticks up to 2
        step = even_steps(vals, col, 4 if top > 2 else 2)
        if vals[0] != 0 or vals[-1] < top or vals[-1] - step >= max(top, 1):
            fail("axes: %s ticks %s for a maximum of %d" % (col, vals, top))
        (v0, y0, _), (v1, y1, _) = t[0], t[-1]
        for r, y in zip(rows, marks):
            want = y0 + (y1 - y0) * (int(r[col]) - v0) / (v1 - v0)
            if abs(y - want) > 0.6:
                fail("axes: %s=%s drawn at y %.2f, its tick scale says "
                     "%.2f" % (col, r[col], y, want))
    # x: round ticks where the buckets' times or events put them
    t = ticks(groups["x-axis"][0])
    vals = [v for v, _, _ in t]
    even_steps(vals, "x axis")
    kids = list(root)
    name = kids[kids.index(groups["x-axis"][0]) + 1].text
    n, w = len(rows), x1 - x0
    if name == "time since the first event (s)":
        t0 = float(rows[0]["from_s"])
        span = float(rows[-1]["to_s"]) - t0
        b = int(rows[-1]["bucket"]) + 1
        for v, _, x in t:
            if abs(x - (x0 + w * v / span)) > 1:
                fail("axes: %g s at x %.2f, not %.2f" %
                     (v, x, x0 + w * v / span))
        for r, p, bar in zip(rows, poly, bars):
            c, end = int(r["bucket"]), float(r["to_s"]) - t0
            # bucket c of b holds what ended from c/b to (c+1)/b of the
            # span (times: 6 decimals)
            if not c * span / b - 2e-6 <= end <= (c + 1) * span / b + 2e-6:
                fail("axes: bucket %d ends at %.6f s, outside its column"
                     % (c, end))
            if abs(float(bar.get("x")) - 1 - (x0 + w * c / b)) > 0.02:
                fail("axes: bucket %d's bar at x %s" % (c, bar.get("x")))
            if abs(p[0] - (x0 + w * end / span)) > 0.6:
                fail("axes: bucket %d's point at x %.2f, its end %.6f s"
                     % (c, p[0], end))
    elif name == "events since the start of the trace":
        for v, _, x in t:
            r = next(i for i, row in enumerate(rows)
                     if int(row["from_seq"]) - 1 <= v <= int(row["to_seq"]))
            if not (x0 + w * r / n - 0.6 <= x <= x0 + w * (r + 1) / n + 0.6):
                fail("axes: event %g at x %.2f, outside bucket %d" %
                     (v, x, r))
    else:
        fail("axes: the x axis is called %r" % name)
    print("axes: %s, %d x ticks %s; y ticks agree" % (name, len(vals),
                                                      vals))


def check_match(dom, folded, regex):
    m = re.search(r'class="fg-match"[^>]*>([^<]*)<', open(dom).read())
    total = hit = 0
    for line in open(folded).read().splitlines():
        stack, w = line.rsplit(" ", 1)
        total += int(w)
        if any(re.search(regex, f) for f in stack.split(";")):
            hit += int(w)
    want = "matched %.2f%% of the bytes (%s of %s)" % (
        100.0 * hit / total, format(hit, ","), format(total, ","))
    if not m or m.group(1) != want:
        fail("match %r: page says %r, folded %r" %
             (regex, m and m.group(1), want))
    print("match: %s" % want)


def frames(root):
    """id -> (depth, x, bytes, rect, g) of the flame graph's boxes."""
    out = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "f":
            out[g.get("id")] = (int(g.get("data-d")), int(g.get("data-x")),
                                int(g.get("data-b")), g.find(NS + "rect"),
                                g)
    return out


def check_zoom(dom, svgp, fid):
    root = ET.parse(svgp).getroot()
    before, after = frames(root), frames(ET.parse(dom).getroot())
    d, x, b, r, _ = before[fid]
    # the graph's width: the picture's, less the margin on either side
    left = min(float(f[3].get("x")) for f in before.values())
    full = float(root.get("width")) - 2 * left
    shown = hidden = 0
    for k, (fd, fx, fb, _, _) in before.items():
        ar, ag = after[k][3], after[k][4]
        gone = "none" in (ag.get("style") or "")
        ax, aw = float(ar.get("x")), float(ar.get("width"))
        if fd < d and fx <= x and fx + fb >= x + b:  # an ancestor
            want = (left, full - 0.5)
        elif fd >= d and x <= fx and fx + fb <= x + b:  # it or under it
            want = (left + full * (fx - x) / b, full * fb / b - 0.5)
        else:
            want = None
        if want is None and not gone:
            fail("zoom %s: frame %s still shown" % (fid, k))
        if want and (gone or abs(ax - want[0]) > 0.02 or
                     abs(aw - max(want[1], 0)) > 0.02):
            fail("zoom %s: frame %s at x %.2f width %.2f, want %.2f %.2f"
                 % (fid, k, ax, aw, want[0], want[1]))
        shown += want is not None
        hidden += want is None
    print("zoom %s: %d frames shown, %d hidden" % (fid, shown, hidden))


def frame_id(svgp, name):
    f = [(b, k) for k, (_, _, b, r, _) in frames(ET.parse(svgp).getroot())
         .items() if r.find(NS + "title").text.startswith(name + ": bytes=")]
    if not f:
        fail("frameid: no frame called %s" % name)
    print(max(f)[1])


def check_pngdiff(a, b, minimum):
    pa, pb = png_pixels(a), png_pixels(b)
    n = sum(x != y for x, y in zip(pa, pb)) + abs(len(pa) - len(pb))
    if n < minimum:
        fail("pngdiff: %d pixels differ, want %d" % (n, minimum))
    print("pngdiff: %d pixels differ" % n)


def check_colour(path, rgb, lo, hi):
    want = bytes(int(c) for c in rgb.split(","))
    n = sum(p == want for p in png_pixels(path))
    if not lo <= n <= hi:
        fail("pngcolour: %d pixels of %s, want %d to %d" % (n, rgb, lo, hi))
    print("pngcolour: %d pixels of %s" % (n, rgb))


def main(a):
    if a[0] == "table":
        check_table(a[1], a[2], a[3])
    elif a[0] == "notshown":
        check_notshown(a[1], a[2:])
    elif a[0] == "axes":
        check_axes(a[1], a[2])
    elif a[0] == "match":
        check_match(a[1], a[2], a[3])
    elif a[0] == "zoom":
        check_zoom(a[1], a[2], a[3])
    elif a[0] == "frameid":
        frame_id(a[1], a[2])
    elif a[0] == "pngdiff":
        check_pngdiff(a[1], a[2], int(a[3]))
    elif a[0] == "pngcolour":
        check_colour(a[1], a[2], int(a[3]), int(a[4]))
    else:
        fail("unknown check " + a[0])


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except ET.ParseError as err:
        fail("not XML: %s" % err)
