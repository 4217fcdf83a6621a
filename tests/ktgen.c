// SPDX-License-Identifier: MIT
/*
 * ktgen: write a synthetic kmemtrace relay ABI v1 capture
 * (docs/formats.md §2.2) from a seed and a size, with a plain-text dump
 * of the same events for independent checks (awk, sqlite3), and a
 * manifest of what was planted.
 *
 *   ktgen [options] OUTDIR
 *
 * The simulation keeps a live set near --live objects at --sites call
 * sites (or at the addresses of --sites-file FILE, hex, one per line,
 * also used for the frees: the symbolize benchmark gives instruction
 * addresses of an ELF file); addresses come from a pool, so a freed address is reused and the
 * number of distinct addresses stays bounded whatever the length.  Every
 * ordinary allocation is freed on its own CPU with its own type, and the
 * live set is drained at the end, so the only anomalies in the capture
 * are the planted ones, in exactly the numbers asked for:
 *
 *   --leaks N --leak-sites S   N allocations never freed, at S sites
 *   --dup-frees N              a second FREE right after a FREE
 *   --cache-free-kmalloc N     kmalloc object freed by kmem_cache_free
 *   --kfree-cache N            kmem_cache object freed by kfree
 *   --unknown-frees N          FREE of an address never allocated
 *   --cross-cpu N              ordinary FREE on another CPU (ping-pong)
 *   --reuse N                  ALLOC of an address still live
 *   --null-allocs N            ALLOC returning NULL
 *   --zero-allocs N            kmalloc(0) returning ZERO_SIZE_PTR
 *   --null-frees N             kfree(NULL)
 *   --undersized N             bytes_alloc < bytes_req
 *   --unknown-records N        records with an unknown event id
 *   --feature-records N        records with 8 trailing feature bytes
 *   --pages PCT                PCT% of allocations are page allocations
 *
 * Dump: one line per event in global order,
 *   seq cpu A|F type call_site ptr bytes_req bytes_alloc gfp node
 * (seq is the unwrapped position memdb stores for relay; hex fields
 * without 0x; FREE lines carry '-' for the ALLOC-only fields).
 *
 * The same seeded sequence can be written in other forms (OUT is then a
 * file, not a directory):
 *   --format relay            kmemtrace relay per-CPU files (default)
 *   --format ftrace-text      ftrace text as `cat trace` prints it, call
 *                             sites as hex (the kernels before 5.4),
 *                             gfp_flags as %08x, _node events for nodes
 *   --format ftrace-text-sym  the same with call sites as %pS prints them
 *                             ("func+0xoff/0xsize", " [mod]" for module
 *                             code), symbolic gfp, name=, node=, as 6.18;
 *                             --kallsyms FILE writes a kallsyms whose
 *                             functions hold every call site
 *   --format ftrace-bin       the 2.6.30-2.6.34 kmemtrace tracer binary,
 *                             in --endian order, --word 8 (LP64) or 4
 *                             (ILP32), with --bin-prefix the 16-byte
 *                             ftrace "bin" prefix before each record
 * --word 4 makes every address 32-bit (in every form), as an ILP32
 * kernel's.  Text forms carry no call site for page events (the
 * tracepoints have none) and print unknown records as another event.
 * Timestamps are 1 s + 1 us per position.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/bytes.h"

#define KT_ALLOC 0
#define KT_FREE 1

struct obj {
	uint64_t ptr, req, alloc;
	uint64_t site;
	int type, cpu, slot;
};

enum out_format { OUT_RELAY, OUT_TEXT, OUT_TEXT_SYM, OUT_BIN };

struct gen {
	uint64_t rng;
	enum mdb_order order;
	enum out_format fmt;
	int word;          /* 8, or 4 for 32-bit addresses */
	int bin_prefix;
	int ncpus;
	FILE **cpu;
	FILE *out;         /* text and bin forms: the one output file */
	FILE *dump;
	uint64_t *blocks;  /* text-sym: 256-byte functions used, sorted */
	size_t nblocks, blocks_cap;
	uint32_t seq;      /* raw 32-bit seq_num of the next record */
	int64_t pos;       /* unwrapped position of the next record */
	uint64_t events;   /* events written (unknown records excluded) */
	/* live ordinary objects */
	struct obj *live;
	size_t nlive, cap;
	/* address pools */
	int *free_slots;
	size_t nfree, slots_cap;
	int nslots;
	int *free_pfns;
	size_t npfree, pfn_cap;
	int npfns;
	int nsites;
	uint64_t unknown_next;
	int feature_left;
};

static uint64_t rnd(struct gen *g)
{
	/* splitmix64 */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rndn(struct gen *g, uint64_t n)
{
	return n ? rnd(g) % n : 0;
}

/* printf into a new malloc'ed string (no path length limit), freeing
 * @old. */
static char *xfmt(char *old, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *xfmt(char *old, const char *fmt, ...)
{
	va_list ap;
	char *s;

	free(old);
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	va_end(ap);
	return s;
}

static void die(const char *msg)
{
	fprintf(stderr, "ktgen: %s\n", msg);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* --sites-file: ordinary call sites read from a file instead */
static uint64_t *file_sites;
/* 32-bit runs (--word 4) keep the low half of every kernel address. */
static int word_size = 8;

static uint64_t kaddr(uint64_t a)
{
	return word_size == 4 ? (uint32_t)a : a;
}

/* Ordinary call sites: even ids kmalloc, odd ids kmem_cache. */
static uint64_t site_addr(int i)
{
	if (file_sites)
		return file_sites[i];
	return kaddr(0xffffffff81100000ULL + (uint64_t)i * 0x1a0 + 0x3b);
}

/* Hex addresses, one per line (0x optional); returns how many. */
static int read_sites(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[128];
	int n = 0, cap = 0;

	if (!f)
		die("cannot open the sites file");
	while (fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t v = strtoull(line, &end, 16);

		if (end == line)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			file_sites = xrealloc(file_sites,
					      (size_t)cap * sizeof(*file_sites));
		}
		file_sites[n++] = v;
	}
	fclose(f);
	return n;
}

static int site_type(int i)
{
	return i & 1;
}

static uint64_t leak_site_addr(int i)
{
	return kaddr(0xffffffff82200000ULL + (uint64_t)i * 0x40 + 0x1c);
}

static const uint64_t kmalloc_sizes[] = { 8, 16, 32, 64, 96, 128, 192, 256,
					  512, 1024, 2048, 4096, 8192 };

/* Requested and allocated size for an allocation at site @i. */
static void site_size(struct gen *g, int i, uint64_t *req, uint64_t *alloc)
{
	if (site_type(i) == 1) {
		/* a cache: fixed object size, request a little below */
		uint64_t obj = 24 + (uint64_t)(i * 37 % 40) * 16;

		*alloc = obj;
		*req = obj - (uint64_t)(i % 3) * 8;
		return;
	}
	*req = 1 + rndn(g, 64 << (i % 7));
	for (size_t k = 0; k < sizeof(kmalloc_sizes) / sizeof(kmalloc_sizes[0]);
	     k++)
		if (kmalloc_sizes[k] >= *req) {
			*alloc = kmalloc_sizes[k];
			return;
		}
	*alloc = (*req + 4095) & ~4095ULL;
}

static void put_relay(struct gen *g, int cpu, int id, int type,
		      uint64_t site, uint64_t ptr, uint64_t req, uint64_t alloc,
		      uint32_t gfp, int32_t node, int extra)
{
	uint8_t b[64];
	size_t size = (id == KT_ALLOC ? 48 : 24) + (size_t)extra;

	memset(b, 0, sizeof(b));
	b[0] = (uint8_t)id;
	b[1] = (uint8_t)type;
	put_u16(b + 2, (uint16_t)size, g->order);
	put_u32(b + 4, g->seq, g->order);
	put_u64(b + 8, site, g->order);
	put_u64(b + 16, ptr, g->order);
	if (id == KT_ALLOC) {
		put_u64(b + 24, req, g->order);
		put_u64(b + 32, alloc, g->order);
		put_u32(b + 40, gfp, g->order);
		put_u32(b + 44, (uint32_t)node, g->order);
	}
	if (extra) {
		/* one feature: u16 size, u8 id, data */
		put_u16(b + size - (size_t)extra, (uint16_t)extra, g->order);
		b[size - (size_t)extra + 2] = 0x7f;
	}
	if (fwrite(b, 1, size, g->cpu[cpu]) != size)
		die("write failed");
}

/* Nanoseconds of the record at position @pos: 1 s + 1 us per position. */
static uint64_t pos_ns(int64_t pos)
{
	return 1000000000ULL + (uint64_t)pos * 1000;
}

/* The ftrace-era kmemtrace tracer record (docs/formats.md §2.5). */
static void put_bin(struct gen *g, int cpu, int id, int type, uint64_t site,
		    uint64_t ptr, uint64_t req, uint64_t alloc, uint32_t gfp,
		    int32_t node, int extra)
{
	uint8_t b[128];
	int w8 = g->word == 8;
	size_t pre = g->bin_prefix ? 16 : 0, hdr = w8 ? 32 : 24;
	size_t size = (id == KT_ALLOC ? (w8 ? 56 : 40) : hdr) + (size_t)extra;
	uint8_t *r = b + pre;
	uint64_t ts = pos_ns(g->pos);

	memset(b, 0, sizeof(b));
	if (pre) {
		put_u32(b, (uint32_t)(1000 + g->pos % 97), g->order);
		put_u32(b + 4, (uint32_t)cpu, g->order);
		put_u64(b + 8, ts, g->order);
	}
	r[0] = (uint8_t)id;
	r[1] = (uint8_t)type;
	put_u16(r + 2, (uint16_t)size, g->order);
	put_u32(r + 4, (uint32_t)cpu, g->order);
	put_u64(r + 8, ts, g->order);
	if (w8) {
		put_u64(r + 16, site, g->order);
		put_u64(r + 24, ptr, g->order);
	} else {
		put_u32(r + 16, (uint32_t)site, g->order);
		put_u32(r + 20, (uint32_t)ptr, g->order);
	}
	if (id == KT_ALLOC) {
		if (w8) {
			put_u64(r + 32, req, g->order);
			put_u64(r + 40, alloc, g->order);
		} else {
			put_u32(r + 24, (uint32_t)req, g->order);
			put_u32(r + 28, (uint32_t)alloc, g->order);
		}
		put_u32(r + (w8 ? 48 : 32), gfp, g->order);
		put_u32(r + (w8 ? 52 : 36), (uint32_t)node, g->order);
	}
	if (fwrite(b, 1, pre + size, g->out) != pre + size)
		die("write failed");
}

/* ---- text forms ------------------------------------------------------ */

/* Record that the 256-byte function holding @a is used (text-sym). */
static void note_block(struct gen *g, uint64_t a)
{
	uint64_t b = a & ~(uint64_t)0xff;
	size_t lo = 0, hi = g->nblocks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->blocks[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->nblocks && g->blocks[lo] == b)
		return;
	if (g->nblocks == g->blocks_cap) {
		g->blocks_cap = g->blocks_cap ? g->blocks_cap * 2 : 256;
		g->blocks = xrealloc(g->blocks, g->blocks_cap * sizeof(b));
	}
	memmove(g->blocks + lo + 1, g->blocks + lo,
		(g->nblocks - lo) * sizeof(b));
	g->blocks[lo] = b;
	g->nblocks++;
}

/* Module code: the leak sites' range, printed with " [ktgen_mod]". */
static int in_module(uint64_t a)
{
	return ((uint32_t)a & 0xff000000u) == 0x82000000u;
}

/* call_site as the form prints it: %lx, or %pS of a 256-byte function. */
static void text_site(struct gen *g, char *buf, size_t len, uint64_t a)
{
	if (g->fmt != OUT_TEXT_SYM) {
		snprintf(buf, len, "%" PRIx64, a);
		return;
	}
	note_block(g, a);
	snprintf(buf, len, "ktgen_%" PRIx64 "+0x%" PRIx64 "/0x100%s", a >> 8,
		 a & 0xff, in_module(a) ? " [ktgen_mod]" : "");
}

static const char *const comms[] = { "kworker/u8:2", "Web Content",
				     "gen-worker-3", "tar" };

/* The line prefix of `cat trace` (6.x: tgid-less, 5 flag columns). */
static void text_prefix(struct gen *g, int cpu)
{
	uint64_t ns = pos_ns(g->pos);

	fprintf(g->out, "%16s-%-7d [%03d] ..... %5" PRIu64 ".%06" PRIu64 ": ",
		comms[g->pos % 4], (int)(1000 + g->pos % 97), cpu,
		ns / 1000000000, ns % 1000000000 / 1000);
}

static void text_gfp(struct gen *g, char *buf, size_t len, uint32_t gfp)
{
	if (g->fmt != OUT_TEXT_SYM)
		snprintf(buf, len, "%08x", gfp);
	else if (gfp == 0xcc0)
		snprintf(buf, len, "GFP_KERNEL");
	else
		snprintf(buf, len, "GFP_KERNEL|0x%x", gfp & ~0xcc0u);
}

static void put_text(struct gen *g, int cpu, int id, int type, uint64_t site,
		     uint64_t ptr, uint64_t req, uint64_t alloc, uint32_t gfp,
		     int32_t node)
{
	int sym = g->fmt == OUT_TEXT_SYM, pw = g->word * 2;
	char cs[128], gf[64];

	text_prefix(g, cpu);
	text_gfp(g, gf, sizeof(gf), gfp);
	if (type == 2) {
		uint64_t pfn = ptr >> 12;
		uint64_t page = kaddr(0xffffea0000000000ULL) + pfn * 64;
		int order = 0;

		while (id == KT_ALLOC && (4096ULL << order) < alloc)
			order++;
		/* pfn: %lu before 5.14, 0x%lx since */
		snprintf(cs, sizeof(cs), sym ? "0x%" PRIx64 : "%" PRIu64, pfn);
		if (id == KT_ALLOC)
			fprintf(g->out, "mm_page_alloc: page=%0*" PRIx64
				" pfn=%s order=%d migratetype=0 gfp_flags=%s\n",
				pw, page, cs, order, gf);
		else
			fprintf(g->out, "%s: page=%0*" PRIx64 " pfn=%s "
				"order=0\n", sym ? "mm_page_free" :
				"mm_page_free_direct", pw, page, cs);
		return;
	}
	text_site(g, cs, sizeof(cs), site);
	if (id == KT_FREE) {
		fprintf(g->out, "%s: call_site=%s ptr=%0*" PRIx64 "%s\n",
			type ? "kmem_cache_free" : "kfree", cs, pw, ptr,
			type && sym ? " name=ktgen" : "");
		return;
	}
	if (sym) {
		char name[40] = "";

		if (type)
			snprintf(name, sizeof(name), " name=kt-%" PRIu64, alloc);
		fprintf(g->out, "%s: call_site=%s ptr=%0*" PRIx64 "%s "
			"bytes_req=%" PRIu64 " bytes_alloc=%" PRIu64
			" gfp_flags=%s node=%d accounted=false\n",
			type ? "kmem_cache_alloc" : "kmalloc", cs, pw, ptr,
			name, req, alloc, gf, (int)node);
		return;
	}
	fprintf(g->out, "%s%s: call_site=%s ptr=%0*" PRIx64 " bytes_req=%"
		PRIu64 " bytes_alloc=%" PRIu64 " gfp_flags=%s", type ?
		"kmem_cache_alloc" : "kmalloc", node >= 0 ? "_node" : "", cs,
		pw, ptr, req, alloc, gf);
	if (node >= 0)
		fprintf(g->out, " node=%d", (int)node);
	fputc('\n', g->out);
}

/* Write the functions the text-sym calls sites name, in address order,
 * each 0x100 bytes long (a data symbol closes any gap). */
static void write_kallsyms(struct gen *g, const char *path)
{
	FILE *f = fopen(path, "w");
	int pw = g->word * 2;

	if (!f)
		die("cannot create the kallsyms");
	if (g->nblocks)
		fprintf(f, "%0*" PRIx64 " T _stext\n", pw,
			g->blocks[0] - 0x100);
	for (size_t i = 0; i < g->nblocks; i++) {
		uint64_t b = g->blocks[i];

		fprintf(f, "%0*" PRIx64 " t ktgen_%" PRIx64 "%s\n", pw, b,
			b >> 8, in_module(b) ? "\t[ktgen_mod]" : "");
		if (i + 1 == g->nblocks || g->blocks[i + 1] != b + 0x100)
			fprintf(f, "%0*" PRIx64 " d ktgen_pad_%" PRIx64 "\n",
				pw, b + 0x100, b >> 8);
	}
	if (fclose(f))
		die("write failed");
}

static void put_rec(struct gen *g, int cpu, int id, int type, uint64_t site,
		    uint64_t ptr, uint64_t req, uint64_t alloc, uint32_t gfp,
		    int32_t node, int extra)
{
	switch (g->fmt) {
	case OUT_RELAY:
		put_relay(g, cpu, id, type, site, ptr, req, alloc, gfp, node,
			  extra);
		break;
	case OUT_BIN:
		put_bin(g, cpu, id, type, site, ptr, req, alloc, gfp, node,
			extra);
		break;
	default:
		put_text(g, cpu, id, type, site, ptr, req, alloc, gfp, node);
		break;
	}
	g->seq++;
	g->pos++;
}

static int take_feature(struct gen *g)
{
	if (g->feature_left > 0 && rndn(g, 4) == 0) {
		g->feature_left--;
		return 8;
	}
	return 0;
}

static void emit_alloc(struct gen *g, int cpu, int type, uint64_t site,
		       uint64_t ptr, uint64_t req, uint64_t alloc)
{
	uint32_t gfp = type == 2 ? 0x400cc0 : 0xcc0;
	int32_t node = (g->pos % 7) == 0 ? (int32_t)(g->pos % 2) : -1;

	if (g->dump)
		fprintf(g->dump,
			"%" PRId64 " %d A %d %" PRIx64 " %" PRIx64 " %" PRIu64
			" %" PRIu64 " %x %d\n", g->pos, cpu, type, site, ptr,
			req, alloc, gfp, node);
	put_rec(g, cpu, KT_ALLOC, type, site, ptr, req, alloc, gfp, node,
		take_feature(g));
	g->events++;
}

static void emit_free(struct gen *g, int cpu, int type, uint64_t site,
		      uint64_t ptr)
{
	if (g->dump)
		fprintf(g->dump, "%" PRId64 " %d F %d %" PRIx64 " %" PRIx64
			" - - - -\n", g->pos, cpu, type, site, ptr);
	put_rec(g, cpu, KT_FREE, type, site, ptr, 0, 0, 0, 0,
		take_feature(g));
	g->events++;
}

static uint64_t slot_ptr(int slot)
{
	/* 8 KiB apart, so every size class fits */
	if (word_size == 4) {
		if (slot >= 0x1f800)
			die("--word 4: live set too large for 32-bit addresses");
		return 0xc1000000ULL + (uint64_t)slot * 0x2000;
	}
	return 0xffff888100000000ULL + (uint64_t)slot * 0x2000;
}

static int slot_get(struct gen *g)
{
	if (g->nfree)
		return g->free_slots[--g->nfree];
	return g->nslots++;
}

static void slot_put(struct gen *g, int slot)
{
	if (g->nfree == g->slots_cap) {
		g->slots_cap = g->slots_cap ? g->slots_cap * 2 : 1024;
		g->free_slots = xrealloc(g->free_slots,
					 g->slots_cap * sizeof(int));
	}
	g->free_slots[g->nfree++] = slot;
}

static int pfn_get(struct gen *g)
{
	if (g->npfree)
		return g->free_pfns[--g->npfree];
	return g->npfns++;
}

static void pfn_put(struct gen *g, int pfn)
{
	if (g->npfree == g->pfn_cap) {
		g->pfn_cap = g->pfn_cap ? g->pfn_cap * 2 : 1024;
		g->free_pfns = xrealloc(g->free_pfns, g->pfn_cap * sizeof(int));
	}
	g->free_pfns[g->npfree++] = pfn;
}

static void live_add(struct gen *g, const struct obj *o)
{
	if (g->nlive == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->live = xrealloc(g->live, g->cap * sizeof(*g->live));
	}
	g->live[g->nlive++] = *o;
}

static struct obj live_take(struct gen *g, size_t i)
{
	struct obj o = g->live[i];

	g->live[i] = g->live[--g->nlive];
	return o;
}

/* A new ordinary allocation (slab or page), added to the live set. */
static void do_alloc(struct gen *g, int pages_pct)
{
	struct obj o = { 0 };

	o.cpu = (int)rndn(g, (uint64_t)g->ncpus);
	if ((int)rndn(g, 100) < pages_pct) {
		int order = (int)rndn(g, 4);

		o.type = 2;
		o.slot = pfn_get(g);
		/* pfns 16 apart so orders up to 3 never overlap */
		if (word_size == 4 && o.slot >= 0xf000)
			die("--word 4: too many pages for 32-bit addresses");
		o.ptr = ((uint64_t)(word_size == 4 ? 0x10000 : 0x100000) +
			 (uint64_t)o.slot * 16) << 12;
		o.req = o.alloc = 4096ULL << order;
		o.site = kaddr(0xffffffff81300000ULL + (uint64_t)order * 0x80 +
			       0x11);
	} else {
		int s = (int)rndn(g, (uint64_t)g->nsites);

		o.type = site_type(s);
		o.site = site_addr(s);
		o.slot = slot_get(g);
		o.ptr = slot_ptr(o.slot);
		site_size(g, s, &o.req, &o.alloc);
	}
	emit_alloc(g, o.cpu, o.type, o.site, o.ptr, o.req, o.alloc);
	live_add(g, &o);
}

static void release(struct gen *g, const struct obj *o)
{
	if (o->type == 2)
		pfn_put(g, o->slot);
	else
		slot_put(g, o->slot);
}

/* Free site: the allocation site plus a little, like a real kfree caller */
static uint64_t free_site(const struct obj *o)
{
	/* with --sites-file the trace's call sites are the file's alone */
	return file_sites ? o->site : o->site + 0x80000;
}

/* Kinds of planted anomaly. */
enum plant {
	P_LEAK, P_DUP, P_CFK, P_KFC, P_UNKNOWN, P_CROSS, P_REUSE, P_NULLA,
	P_ZERO, P_NULLF, P_UNDER, P_UNKREC, P__N
};

static const char *const plant_name[P__N] = {
	"leaks", "dup_frees", "cache_free_kmalloc", "kfree_cache",
	"unknown_frees", "cross_cpu", "reuse", "null_allocs", "zero_allocs",
	"null_frees", "undersized", "unknown_records",
};

struct plan {
	int64_t at;   /* main-loop step to plant at */
	enum plant kind;
};

static int plan_cmp(const void *a, const void *b)
{
	const struct plan *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* Find a live slab object of @type (-1 any slab); -1 if none in a few tries */
static long find_live(struct gen *g, int type)
{
	for (int t = 0; t < 64 && g->nlive; t++) {
		size_t i = (size_t)rndn(g, g->nlive);

		if (g->live[i].type == 2)
			continue;
		if (type < 0 || g->live[i].type == type)
			return (long)i;
	}
	for (size_t i = 0; i < g->nlive; i++)
		if (g->live[i].type != 2 && (type < 0 || g->live[i].type == type))
			return (long)i;
	return -1;
}

/* A record with an unknown event id; in text, another event. */
static void put_unknown(struct gen *g, int cpu)
{
	uint8_t b[64] = { 0 };
	size_t pre = g->bin_prefix ? 16 : 0, size = g->word == 4 ? 24 : 32;

	switch (g->fmt) {
	case OUT_RELAY:
		b[0] = 7; /* no such event id */
		put_u16(b + 2, 24, g->order);
		put_u32(b + 4, g->seq, g->order);
		if (fwrite(b, 1, 24, g->cpu[cpu]) != 24)
			die("write failed");
		break;
	case OUT_BIN:
		if (pre) {
			put_u32(b + 4, (uint32_t)cpu, g->order);
			put_u64(b + 8, pos_ns(g->pos), g->order);
		}
		b[pre] = 7;
		put_u16(b + pre + 2, (uint16_t)size, g->order);
		put_u32(b + pre + 4, (uint32_t)cpu, g->order);
		put_u64(b + pre + 8, pos_ns(g->pos), g->order);
		if (fwrite(b, 1, pre + size, g->out) != pre + size)
			die("write failed");
		break;
	default:
		text_prefix(g, cpu);
		fprintf(g->out, "sched_wakeup: comm=tar pid=%d prio=120 "
			"target_cpu=%03d\n", (int)(1000 + g->pos % 97), cpu);
		break;
	}
	g->seq++;
	g->pos++;
}

static uint64_t leak_bytes_total;
static uint64_t *leak_count_by_site, *leak_bytes_by_site;

/* Plant one anomaly; returns 0 when it cannot be planted right now. */
static int plant(struct gen *g, enum plant k, int nleak_sites)
{
	int cpu = (int)rndn(g, (uint64_t)g->ncpus);
	long i;
	struct obj o;

	switch (k) {
	case P_LEAK: {
		int s = (int)rndn(g, (uint64_t)nleak_sites);
		uint64_t req = 100 + (uint64_t)s * 10, alloc = 128 +
						      (uint64_t)s * 16;

		o.slot = slot_get(g);
		emit_alloc(g, cpu, 0, leak_site_addr(s), slot_ptr(o.slot), req,
			   alloc);
		leak_count_by_site[s]++;
		leak_bytes_by_site[s] += alloc;
		leak_bytes_total += alloc;
		return 1;
	}
	case P_DUP:
	case P_CFK:
	case P_KFC:
	case P_CROSS:
		i = find_live(g, k == P_CFK ? 0 : k == P_KFC ? 1 : -1);
		if (i < 0)
			return 0;
		o = live_take(g, (size_t)i);
		if (k == P_CROSS) {
			int other = (o.cpu + 1 +
				     (int)rndn(g, (uint64_t)g->ncpus - 1)) %
				    g->ncpus;

			emit_free(g, other, o.type, free_site(&o), o.ptr);
		} else if (k == P_CFK || k == P_KFC) {
			emit_free(g, o.cpu, !o.type, free_site(&o), o.ptr);
		} else {
			emit_free(g, o.cpu, o.type, free_site(&o), o.ptr);
			emit_free(g, o.cpu, o.type, free_site(&o) + 4, o.ptr);
		}
		release(g, &o);
		return 1;
	case P_UNKNOWN:
		emit_free(g, cpu, 0, kaddr(0xffffffff81f00000ULL + 0x21),
			  kaddr(0xffff8881dead0000ULL) + g->unknown_next++ * 64);
		return 1;
	case P_REUSE: {
		struct obj n;

		i = find_live(g, -1);
		if (i < 0)
			return 0;
		/* the old object's free is never traced: a new ALLOC of the
		 * same address replaces it in the live set */
		n = g->live[i];
		n.cpu = cpu;
		emit_alloc(g, n.cpu, n.type, n.site, n.ptr, n.req, n.alloc);
		g->live[i] = n;
		return 1;
	}
	case P_NULLA:
		emit_alloc(g, cpu, 0, site_addr(0), 0, 64, 64);
		return 1;
	case P_ZERO:
		emit_alloc(g, cpu, 0, site_addr(2), 0x10, 0, 0);
		return 1;
	case P_NULLF:
		emit_free(g, cpu, 0, kaddr(0xffffffff81f10000ULL + 0x33), 0);
		return 1;
	case P_UNDER:
		o.cpu = cpu;
		o.type = 0;
		o.site = kaddr(0xffffffff81f20000ULL + 0x44);
		o.slot = slot_get(g);
		o.ptr = slot_ptr(o.slot);
		o.req = 200;
		o.alloc = 192;
		emit_alloc(g, o.cpu, 0, o.site, o.ptr, o.req, o.alloc);
		live_add(g, &o);
		return 1;
	case P_UNKREC:
		put_unknown(g, cpu);
		return 1;
	default:
		return 1;
	}
}

static const char usage[] =
"usage: ktgen [--seed N] [--events N] [--cpus N] [--endian little|big]\n"
"             [--live N] [--sites N] [--seq-start N] [--overruns N]\n"
"             [--abi N] [--dump FILE] [--manifest FILE] [--sites-file F]\n"
"             [plant options]\n"
"             [--format relay|ftrace-text|ftrace-text-sym|ftrace-bin]\n"
"             [--word 4|8] [--bin-prefix] [--kallsyms FILE] OUT\n"
"see the comment at the top of tests/ktgen.c\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", 1, NULL, 's' },    { "events", 1, NULL, 'n' },
		{ "cpus", 1, NULL, 'c' },    { "endian", 1, NULL, 'e' },
		{ "live", 1, NULL, 'l' },    { "sites", 1, NULL, 'S' },
		{ "sites-file", 1, NULL, 'T' },
		{ "seq-start", 1, NULL, 'q' }, { "overruns", 1, NULL, 'o' },
		{ "abi", 1, NULL, 'a' },     { "dump", 1, NULL, 'd' },
		{ "manifest", 1, NULL, 'm' }, { "pages", 1, NULL, 'p' },
		{ "leak-sites", 1, NULL, 'L' },
		{ "feature-records", 1, NULL, 'F' },
		{ "out-suffix", 1, NULL, 'x' },
		{ "format", 1, NULL, 'f' },   { "word", 1, NULL, 'w' },
		{ "bin-prefix", 0, NULL, 'b' }, { "kallsyms", 1, NULL, 'k' },
		{ "leaks", 1, NULL, 1000 + P_LEAK },
		{ "dup-frees", 1, NULL, 1000 + P_DUP },
		{ "cache-free-kmalloc", 1, NULL, 1000 + P_CFK },
		{ "kfree-cache", 1, NULL, 1000 + P_KFC },
		{ "unknown-frees", 1, NULL, 1000 + P_UNKNOWN },
		{ "cross-cpu", 1, NULL, 1000 + P_CROSS },
		{ "reuse", 1, NULL, 1000 + P_REUSE },
		{ "null-allocs", 1, NULL, 1000 + P_NULLA },
		{ "zero-allocs", 1, NULL, 1000 + P_ZERO },
		{ "null-frees", 1, NULL, 1000 + P_NULLF },
		{ "undersized", 1, NULL, 1000 + P_UNDER },
		{ "unknown-records", 1, NULL, 1000 + P_UNKREC },
		{ "help", 0, NULL, 'h' },    { NULL, 0, NULL, 0 },
	};
	struct gen g = { 0 };
	uint64_t seed = 1, events = 10000, live_target = 1000;
	long counts[P__N] = { 0 };
	int64_t overruns = -1, abi = 1;
	int pages_pct = 0, nleak_sites = 4, c;
	const char *dump = NULL, *manifest = NULL, *suffix = ".out", *dir;
	const char *ksyms = NULL;
	uint32_t seq_start = 1;
	struct plan *plans = NULL;
	size_t nplans = 0, next = 0;
	int64_t step = 0, main_steps;

	g.order = MDB_ORDER_LITTLE;
	g.fmt = OUT_RELAY;
	g.word = 8;
	g.ncpus = 4;
	g.nsites = 64;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c >= 1000 && c < 1000 + P__N) {
			counts[c - 1000] = strtol(optarg, NULL, 0);
			continue;
		}
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': events = strtoull(optarg, NULL, 0); break;
		case 'c': g.ncpus = atoi(optarg); break;
		case 'e':
			g.order = strcmp(optarg, "big") ? MDB_ORDER_LITTLE :
							 MDB_ORDER_BIG;
			break;
		case 'l': live_target = strtoull(optarg, NULL, 0); break;
		case 'S': g.nsites = atoi(optarg); break;
		case 'T': g.nsites = read_sites(optarg); break;
		case 'q': seq_start = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': overruns = strtoll(optarg, NULL, 0); break;
		case 'a': abi = strtoll(optarg, NULL, 0); break;
		case 'd': dump = optarg; break;
		case 'm': manifest = optarg; break;
		case 'p': pages_pct = atoi(optarg); break;
		case 'L': nleak_sites = atoi(optarg); break;
		case 'F': g.feature_left = atoi(optarg); break;
		case 'x': suffix = optarg; break;
		case 'f':
			if (!strcmp(optarg, "relay"))
				g.fmt = OUT_RELAY;
			else if (!strcmp(optarg, "ftrace-text"))
				g.fmt = OUT_TEXT;
			else if (!strcmp(optarg, "ftrace-text-sym"))
				g.fmt = OUT_TEXT_SYM;
			else if (!strcmp(optarg, "ftrace-bin"))
				g.fmt = OUT_BIN;
			else
				g.fmt = -1;
			break;
		case 'w': g.word = atoi(optarg); break;
		case 'b': g.bin_prefix = 1; break;
		case 'k': ksyms = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind + 1 != argc || g.ncpus < 1 || g.nsites < 4 ||
	    nleak_sites < 1 || (int)g.fmt < 0 ||
	    (g.word != 4 && g.word != 8) ||
	    (ksyms && g.fmt != OUT_TEXT_SYM)) {
		fputs(usage, stderr);
		return 2;
	}
	word_size = g.word;
	dir = argv[optind];
	if (g.fmt != OUT_RELAY) {
		g.out = fopen(dir, "wb");
		if (!g.out)
			die("cannot create OUT");
		setvbuf(g.out, NULL, _IOFBF, 1 << 16);
		if (g.fmt != OUT_BIN)
			fprintf(g.out, "# tracer: nop\n#\n#           TASK-PID"
				"     CPU#  |||||  TIMESTAMP  FUNCTION\n#     "
				"         | |         |   |||||     |         "
				"|\n");
	} else if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		die("cannot create OUTDIR");
	}
	g.rng = seed;
	g.seq = seq_start;
	g.pos = seq_start; /* memdb's position: the unwrapped seq */
	g.cpu = calloc((size_t)g.ncpus, sizeof(FILE *));
	leak_count_by_site = calloc((size_t)nleak_sites, sizeof(uint64_t));
	leak_bytes_by_site = calloc((size_t)nleak_sites, sizeof(uint64_t));
	if (!g.cpu || !leak_count_by_site || !leak_bytes_by_site)
		die("out of memory");
	for (int i = 0; i < g.ncpus && g.fmt == OUT_RELAY; i++) {
		char *path = NULL;

		path = xfmt(path, "%s/cpu%d%s", dir, i, suffix);
		g.cpu[i] = fopen(path, "wb");
		free(path);
		if (!g.cpu[i])
			die("cannot create a per-CPU file");
		setvbuf(g.cpu[i], NULL, _IOFBF, 1 << 16);
	}
	if (dump) {
		g.dump = fopen(dump, "w");
		if (!g.dump)
			die("cannot create the dump");
		setvbuf(g.dump, NULL, _IOFBF, 1 << 16);
	}

	/* schedule the plants over the first 90% of the main loop */
	main_steps = (int64_t)(events > live_target ? events - live_target :
						      events / 2);
	for (int k = 0; k < P__N; k++)
		for (long n = 0; n < counts[k]; n++) {
			if (nplans % 1024 == 0)
				plans = xrealloc(plans, (nplans + 1024) *
							      sizeof(*plans));
			plans[nplans].at = (int64_t)rndn(&g,
				(uint64_t)(main_steps * 9 / 10 + 1));
			plans[nplans].kind = (enum plant)k;
			nplans++;
		}
	if (nplans)
		qsort(plans, nplans, sizeof(*plans), plan_cmp);

	while (g.events + g.nlive < events || next < nplans) {
		int want_alloc;

		while (next < nplans && plans[next].at <= step) {
			if (!plant(&g, plans[next].kind, nleak_sites))
				break; /* retry on a later step */
			next++;
		}
		want_alloc = g.nlive < live_target ? rndn(&g, 10) < 6 :
						     rndn(&g, 10) < 4;
		if (want_alloc || !g.nlive) {
			do_alloc(&g, pages_pct);
		} else {
			struct obj o = live_take(&g, (size_t)rndn(&g, g.nlive));

			emit_free(&g, o.cpu, o.type, free_site(&o), o.ptr);
			release(&g, &o);
		}
		step++;
	}
	/* drain: free every ordinary object, so only leaks stay live */
	while (g.nlive) {
		struct obj o = live_take(&g, g.nlive - 1);

		emit_free(&g, o.cpu, o.type, free_site(&o), o.ptr);
		release(&g, &o);
	}

	for (int i = 0; i < g.ncpus && g.fmt == OUT_RELAY; i++)
		if (fclose(g.cpu[i]))
			die("write failed");
	if (g.out && fclose(g.out))
		die("write failed");
	if (g.dump && fclose(g.dump))
		die("write failed");
	if (ksyms)
		write_kallsyms(&g, ksyms);
	if (g.fmt == OUT_RELAY) {
		char *path = NULL;
		FILE *f;

		path = xfmt(path, "%s/abi_version", dir);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%" PRId64 "\n", abi) < 0 || fclose(f))
			die("cannot write abi_version");
		if (overruns >= 0) {
			path = xfmt(path, "%s/total_overruns", dir);
			f = fopen(path, "w");
			if (!f || fprintf(f, "%" PRId64 "\n", overruns) < 0 ||
			    fclose(f))
				die("cannot write total_overruns");
		}
		free(path);
	}
	if (manifest) {
		FILE *f = fopen(manifest, "w");

		if (!f)
			die("cannot create the manifest");
		fprintf(f, "events=%" PRIu64 "\n", g.events);
		fprintf(f, "first_seq=%" PRIu32 "\n", seq_start);
		fprintf(f, "last_pos=%" PRId64 "\n", g.pos - 1);
		for (int k = 0; k < P__N; k++)
			fprintf(f, "%s=%ld\n", plant_name[k], counts[k]);
		fprintf(f, "leak_bytes=%" PRIu64 "\n", leak_bytes_total);
		for (int s = 0; s < nleak_sites; s++)
			fprintf(f, "leak_site=0x%" PRIx64 " %" PRIu64 " %" PRIu64
				"\n", leak_site_addr(s), leak_count_by_site[s],
				leak_bytes_by_site[s]);
		fprintf(f, "distinct_slots=%d\n", g.nslots);
		if (fclose(f))
			die("write failed");
	}
	free(plans);
	free(g.live);
	free(g.free_slots);
	free(g.free_pfns);
	free(g.cpu);
	free(g.blocks);
	free(leak_count_by_site);
	free(leak_bytes_by_site);
	return 0;
}
