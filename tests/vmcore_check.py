#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare what memdb read out of a kernel core dump with the guest's own
/proc files printed just before the dump (testdata/vmcore/NAME.proc,
sections between '@@MEMDB-VMCORE BEGIN FILE' and '@@MEMDB-VMCORE END FILE').

    vmcore_check.py slab NAME.proc ZONES.csv
        ZONES.csv: name,active_objs,num_objs,objsize,objperslab,
                   pagesperslab,num_slabs (memdb sql --format csv)
        every /proc/slabinfo row must equal the dump's row of that name
    vmcore_check.py buddy NAME.proc BUDDY.csv
        BUDDY.csv: node,zone,order,migratetype,blocks
        /proc/buddyinfo: blocks summed over migratetypes per node, zone,
        order; /proc/pagetypeinfo: per migratetype
    vmcore_check.py crash KMEM-S.txt ROWS.csv
        KMEM-S.txt: what crash's 'kmem -s' printed (CACHE OBJSIZE
        ALLOCATED TOTAL SLABS SSIZE NAME); ROWS.csv: name,object_size,
        allocated,total,slabs
        every cache crash lists must have those four figures
    vmcore_check.py drgn DRGN.txt ROWS.csv
        DRGN.txt: 'name object_size allocated' lines of
        tests/vmcore_drgn_slab.py; ROWS.csv: name,object_size,allocated
    vmcore_check.py zoneinfo NAME.proc COUNTERS.csv
        COUNTERS.csv: node,zone,name,value of the zone-scope counters;
        every 'nr_*' line of a zone in /proc/zoneinfo must be equal but
        the LRU ones (nr_zone_*_anon, *_file): the guest's LRU lists
        move after it read zoneinfo (pagevecs drained, pages aged)
        without any allocation, so those may differ by a few pages
    vmcore_check.py events NAME.proc GLOBAL.csv
        GLOBAL.csv: name,value of the global counters; the event counters
        of /proc/vmstat (from pgpgin on, but 'nr_unstable 0', a constant
        line the kernel adds) must be the dump's rows, equal but pgfault
        and pgalloc_*: after the cat of /proc/vmstat the guest's shell
        went on reading four /proc files with builtins until the dump,
        and on both boots took one page fault that allocated one page
        (pgfault and pgalloc_dma32 +1, nothing else moved): those may be
        ahead in the dump by at most 1, never behind (events only grow)
    vmcore_check.py crashf KMEM-F.txt BUDDY.csv
        KMEM-F.txt: what crash's 'kmem -f' printed (per zone, one AREA
        row per order and migratetype list: BLOCKS, PAGES); per node,
        zone and order, the blocks of the lists (as a sorted list: crash
        does not name the migratetype) must be the dump's
Prints one line per mismatch and exits 1 when there is any.
"""
import csv
import sys


def section(path, name):
	out, on = [], False
	for line in open(path, errors="replace"):
		line = line.rstrip("\r\n")
		if line == "@@MEMDB-VMCORE BEGIN " + name:
			on = True
		elif line == "@@MEMDB-VMCORE END " + name:
			return out
		elif on:
			out.append(line)
	sys.exit("vmcore_check: no section %s in %s" % (name, path))


def slab(proc, rows):
	got = {}
	for r in csv.reader(open(rows)):
		if r and r[0] != "name":
			got[r[0]] = [int(x) for x in r[1:7]]
	bad = n = 0
	for line in section(proc, "/proc/slabinfo"):
		if line.startswith("slabinfo") or line.startswith("#"):
			continue
		f = line.split()
		name = f[0]
		want = [int(f[i]) for i in (1, 2, 3, 4, 5)] + [int(f[14])]
		n += 1
		if name not in got:
			print("slab %s: not in the dump's rows" % name)
			bad += 1
		elif got[name] != want:
			print("slab %s: /proc/slabinfo %s, dump %s" %
			      (name, want, got[name]))
			bad += 1
	if n == 0 or len(got) != n:
		print("slab: /proc/slabinfo has %d caches, the dump %d" %
		      (n, len(got)))
		bad += 1
	return bad


def buddy(proc, rows):
	blocks, by_mt = {}, {}
	for r in csv.reader(open(rows)):
		if not r or r[0] == "node":
			continue
		node, zone, order, mt, b = int(r[0]), r[1], int(r[2]), r[3], \
			int(r[4])
		k = (node, zone, order)
		blocks[k] = blocks.get(k, 0) + b
		by_mt[(node, zone, mt, order)] = b
	bad = 0
	seen = set()
	for line in section(proc, "/proc/buddyinfo"):
		f = line.replace(",", " ").split()
		node, zone = int(f[1]), f[3]
		for order, v in enumerate(f[4:]):
			seen.add((node, zone, order))
			if blocks.get((node, zone, order)) != int(v):
				print("buddy node %d %s order %d: buddyinfo %s, "
				      "dump %s" % (node, zone, order, v,
						   blocks.get((node, zone, order))))
				bad += 1
	if seen != set(blocks):
		print("buddy: zones and orders differ: %s" %
		      sorted(set(blocks) ^ seen))
		bad += 1
	for line in section(proc, "/proc/pagetypeinfo"):
		f = line.replace(",", " ").split()
		if len(f) < 7 or f[0] != "Node" or f[4] != "type":
			continue
		node, zone, mt = int(f[1]), f[3], f[5]
		for order, v in enumerate(f[6:]):
			if by_mt.get((node, zone, mt, order)) != int(v):
				print("pagetype node %d %s %s order %d: %s, "
				      "dump %s" % (node, zone, mt, order, v,
						   by_mt.get((node, zone, mt,
							      order))))
				bad += 1
	return bad


def crash(kmem, rows):
	got = {}
	for r in csv.reader(open(rows)):
		if r and r[0] != "name":
			got[r[0]] = [int(x) for x in r[1:5]]
	bad = n = 0
	on = False
	for line in open(kmem, errors="replace"):
		f = line.split()
		if f[:2] == ["CACHE", "OBJSIZE"]:
			on = True
			continue
		if not on or len(f) != 7 or not f[1].isdigit():
			continue
		n += 1
		want = [int(x) for x in f[1:5]]
		if got.get(f[6]) != want:
			print("crash %s: kmem -s %s, dump %s" %
			      (f[6], want, got.get(f[6])))
			bad += 1
	if n == 0 or n != len(got):
		print("crash: kmem -s lists %d caches, the dump %d" %
		      (n, len(got)))
		bad += 1
	return bad


def drgn(ref, rows):
	got = {}
	for r in csv.reader(open(rows)):
		if r and r[0] != "name":
			got[r[0]] = [int(x) for x in r[1:3]]
	bad = n = 0
	for line in open(ref):
		f = line.split()
		if len(f) != 3:
			continue
		n += 1
		want = [int(f[1]), int(f[2])]
		if got.get(f[0]) != want:
			print("drgn %s: %s, dump %s" % (f[0], want, got.get(f[0])))
			bad += 1
	if n == 0 or n != len(got):
		print("drgn: %d caches, the dump %d" % (n, len(got)))
		bad += 1
	return bad


def zoneinfo(proc, rows):
	got = {}
	for r in csv.reader(open(rows)):
		if r and r[0] != "node":
			got[(int(r[0]), r[1], r[2])] = int(r[3])
	bad = n = 0
	node = zone = None
	for line in section(proc, "/proc/zoneinfo"):
		f = line.replace(",", " ").split()
		if f[:1] == ["Node"] and len(f) == 4:
			node, zone = int(f[1]), f[3]
		elif f[:1] == ["per-node"] or f[:1] == ["pages"]:
			continue
		elif len(f) == 2 and f[0].startswith("nr_") and \
				not f[0].endswith("_anon") and \
				not f[0].endswith("_file") and \
				(node, zone, f[0]) in got:
			n += 1
			if got[(node, zone, f[0])] != int(f[1]):
				print("zoneinfo node %d %s %s: %s, dump %d" %
				      (node, zone, f[0], f[1],
				       got[(node, zone, f[0])]))
				bad += 1
	if n == 0:
		print("zoneinfo: no zone counter compared")
		bad += 1
	return bad


def events(proc, rows):
	got = {}
	for r in csv.reader(open(rows)):
		if r and r[0] != "name":
			got[r[0]] = int(r[1])
	want, on = {}, False
	for line in section(proc, "/proc/vmstat"):
		f = line.split()
		on = on or f[0] == "pgpgin"
		if on and f[0] != "nr_unstable":
			want[f[0]] = int(f[1])
	bad = 0
	for name, v in want.items():
		d = got[name] - v if name in got else None
		slack = 1 if name == "pgfault" or \
			name.startswith("pgalloc_") else 0
		if d is None or d < 0 or d > slack:
			print("vmstat %s: /proc/vmstat %d, dump %s" %
			      (name, v, got.get(name)))
			bad += 1
	if len(want) < 50:
		print("vmstat: only %d event counters in /proc/vmstat" %
		      len(want))
		bad += 1
	return bad


def crashf(kmem, rows):
	got, want = {}, {}
	for r in csv.reader(open(rows)):
		if r and r[0] != "node":
			k = (int(r[0]), r[1], int(r[2]))
			got.setdefault(k, []).append(int(r[4]))
	node, zone, head = 0, None, False
	for line in open(kmem, errors="replace"):
		f = line.split()
		if f[:1] == ["NODE"]:
			head = "node"
		elif head == "node" and len(f) == 1 and f[0].isdigit():
			node, head = int(f[0]), False
		elif f[:2] == ["ZONE", "NAME"]:
			head = "zone"
		elif head == "zone" and len(f) >= 2:
			zone, head = f[1], False
		elif len(f) == 5 and f[0].isdigit() and zone:
			want.setdefault((node, zone, int(f[0])), []).append(
				int(f[3]))
	bad = 0
	for k in sorted(set(got) | set(want)):
		if k not in want and not any(got[k]):
			continue	# a zone crash skips: no pages
		if sorted(got.get(k, [])) != sorted(want.get(k, [])):
			print("kmem -f node %d %s order %d: %s, dump %s" %
			      (k + (want.get(k), got.get(k))))
			bad += 1
	if not want:
		print("kmem -f: no AREA row read")
		bad += 1
	return bad


def main():
	modes = {"slab": slab, "buddy": buddy, "crash": crash, "drgn": drgn,
		 "zoneinfo": zoneinfo, "crashf": crashf, "events": events}
	if len(sys.argv) != 4 or sys.argv[1] not in modes:
		sys.exit(__doc__)
	sys.exit(1 if modes[sys.argv[1]](sys.argv[2], sys.argv[3]) else 0)


main()
