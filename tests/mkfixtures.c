// SPDX-License-Identifier: MIT
/*
 * mkfixtures: write the small committed kmemtrace fixtures of testdata/
 * from the event table below, byte by byte, in both byte orders: relay
 * captures (docs/formats.md §2.2) and ftrace-era tracer files (§2.5) of both
 * word sizes.
 *
 *   mkfixtures TESTDATA_DIR
 *
 * The figures these fixtures must give are worked out by hand in
 * tests/test_cli.c, from the table as written here, not computed from it.
 * Run `make fixtures` after changing this file and commit the result.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/bytes.h"

#define S1 0xffffffff81234567ULL /* kmalloc call site */
#define S2 0xffffffff81345678ULL /* kmem_cache_alloc call site */
#define S3 0xffffffff81456789ULL /* kmalloc call site */
#define SP 0xffffffff81600000ULL /* page allocation call site */
#define F1 0xffffffff81500000ULL /* free call site */
#define P1 0xffff888100001000ULL
#define P2 0xffff888100002000ULL
#define P3 0xffff888100003000ULL
#define P4 0xffff888100004000ULL
#define PG 0x0000000001000000ULL /* pfn 0x1000 << 12 */

struct rec {
	int seq, cpu, id, type;
	uint64_t site, ptr, req, alloc;
	int extra; /* feature bytes after the known part */
};

/*
 * kt-small: 16 records on 2 CPUs.  See test_cli.c for what each one does
 * to the figures.
 */
static const struct rec small[] = {
	{ 1, 0, 0, 0, S1, P1, 100, 128, 0 },  /* kmalloc                 */
	{ 2, 0, 0, 1, S2, P2, 200, 256, 0 },  /* kmem_cache_alloc        */
	{ 3, 1, 0, 0, S1, P3, 30, 32, 0 },    /* kmalloc                 */
	{ 4, 1, 1, 0, F1, P1, 0, 0, 0 },      /* kfree P1 on cpu1        */
	{ 5, 0, 1, 0, F1, P2, 0, 0, 0 },      /* kfree of a cache object */
	{ 6, 0, 0, 0, S3, P3, 60, 64, 0 },    /* P3 again while live     */
	{ 7, 1, 0, 0, S3, 0, 50, 64, 0 },     /* kmalloc failed: NULL    */
	{ 8, 1, 0, 0, S1, 0x10, 0, 0, 0 },    /* kmalloc(0): ZERO_SIZE   */
	{ 9, 0, 1, 0, F1, 0, 0, 0, 0 },       /* kfree(NULL)             */
	{ 10, 0, 1, 0, F1, P1, 0, 0, 0 },     /* kfree P1 again          */
	{ 11, 1, 1, 0, F1, P4, 0, 0, 0 },     /* kfree of unknown P4     */
	{ 12, 1, 0, 2, SP, PG, 4096, 4096, 0 }, /* page alloc            */
	{ 13, 0, 1, 2, F1, PG, 0, 0, 0 },     /* page free on cpu0       */
	{ 14, 0, 0, 1, S2, P2, 200, 256, 8 }, /* cache alloc + features  */
	{ 15, 1, 9, 0, 0, 0, 0, 0, 0 },       /* unknown event id 9      */
	{ 16, 1, 1, 1, F1, P3, 0, 0, 0 },     /* kmem_cache_free of P3   */
};

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

static void die(const char *what)
{
	fprintf(stderr, "mkfixtures: %s: %s\n", what, strerror(errno));
	exit(1);
}

static FILE *create(const char *dir, const char *name)
{
	char *path = NULL;
	FILE *f;

	path = xfmt(path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		die(path);
	free(path);
	return f;
}

static void mkdirs(const char *dir)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
}

static void text(const char *dir, const char *name, const char *s)
{
	FILE *f = create(dir, name);

	if (fputs(s, f) < 0 || fclose(f))
		die(name);
}

/* One record; event_size is @size_override when not 0. */
static size_t encode(uint8_t *b, const struct rec *r, enum mdb_order o,
		     unsigned size_override)
{
	size_t size = (r->id == 0 ? 48 : 24) + (size_t)r->extra;

	memset(b, 0, 64);
	b[0] = (uint8_t)r->id;
	b[1] = (uint8_t)r->type;
	put_u16(b + 2, (uint16_t)(size_override ? size_override : size), o);
	put_u32(b + 4, (uint32_t)r->seq, o);
	put_u64(b + 8, r->site, o);
	put_u64(b + 16, r->ptr, o);
	if (r->id == 0) {
		put_u64(b + 24, r->req, o);
		put_u64(b + 32, r->alloc, o);
		put_u32(b + 40, 0xcc0, o);          /* GFP_KERNEL */
		put_u32(b + 44, (uint32_t)-1, o);   /* node -1 */
	}
	if (r->extra) {
		put_u16(b + size - (size_t)r->extra, (uint16_t)r->extra, o);
		b[size - (size_t)r->extra + 2] = 1; /* feature id */
	}
	return size;
}

static void write_capture(const char *dir, const struct rec *recs, size_t n,
			  int ncpus, enum mdb_order o, const char *suffix)
{
	mkdirs(dir);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		char name[32];
		FILE *f;

		snprintf(name, sizeof(name), "cpu%d%s", cpu, suffix);
		f = create(dir, name);
		for (size_t i = 0; i < n; i++) {
			uint8_t b[64];
			size_t size;

			if (recs[i].cpu != cpu)
				continue;
			size = encode(b, &recs[i], o, 0);
			if (fwrite(b, 1, size, f) != size)
				die(name);
		}
		if (fclose(f))
			die(name);
	}
	text(dir, "abi_version", "1\n");
	text(dir, "total_overruns", "0\n");
}

/*
 * One record of the ftrace-era kmemtrace tracer (docs/formats.md §2.5), word
 * size 8 (LP64) or 4 (ILP32, addresses cut to 32 bits), timestamp 1 s
 * plus 1 us per seq; with @prefix, the 16-byte "bin" prefix (pid, cpu,
 * timestamp) first.  Unknown event ids take the header size.  The tracer
 * wrote fixed-size records, so the table's feature bytes are left out.
 */
static size_t encode_ktf(uint8_t *b, const struct rec *r, enum mdb_order o,
			 int word, int prefix, unsigned size_override)
{
	int w8 = word == 8;
	size_t pre = prefix ? 16 : 0, hdr = w8 ? 32 : 24;
	size_t size = r->id == 0 ? (w8 ? 56 : 40) : hdr;
	uint64_t ts = 1000000000ULL + (uint64_t)r->seq * 1000;
	uint8_t *p = b + pre;

	memset(b, 0, 96);
	if (prefix) {
		put_u32(b, 4000 + (uint32_t)r->seq, o);   /* pid */
		put_u32(b + 4, (uint32_t)r->cpu, o);
		put_u64(b + 8, ts, o);
	}
	p[0] = (uint8_t)r->id;
	p[1] = (uint8_t)r->type;
	put_u16(p + 2, (uint16_t)(size_override ? size_override : size), o);
	put_u32(p + 4, (uint32_t)r->cpu, o);
	put_u64(p + 8, ts, o);
	if (w8) {
		put_u64(p + 16, r->site, o);
		put_u64(p + 24, r->ptr, o);
	} else {
		put_u32(p + 16, (uint32_t)r->site, o);
		put_u32(p + 20, (uint32_t)r->ptr, o);
	}
	if (r->id == 0) {
		if (w8) {
			put_u64(p + 32, r->req, o);
			put_u64(p + 40, r->alloc, o);
		} else {
			put_u32(p + 24, (uint32_t)r->req, o);
			put_u32(p + 28, (uint32_t)r->alloc, o);
		}
		put_u32(p + (w8 ? 48 : 32), 0xcc0, o);        /* GFP_KERNEL */
		put_u32(p + (w8 ? 52 : 36), (uint32_t)-1, o); /* node -1 */
	}
	return pre + size;
}

static void write_ktf(const char *path, const struct rec *recs, size_t n,
		      enum mdb_order o, int word, int prefix)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		die(path);
	for (size_t i = 0; i < n; i++) {
		uint8_t b[96];
		size_t size = encode_ktf(b, &recs[i], o, word, prefix, 0);

		if (fwrite(b, 1, size, f) != size)
			die(path);
	}
	if (fclose(f))
		die(path);
}

/* Five good LP64 records, then @tail bytes of an ALLOC whose event_size
 * is @size (0: its own). */
static void write_ktf_broken(const char *path, size_t tail, unsigned size)
{
	uint8_t kb[96];
	FILE *f;

	write_ktf(path, small, 5, MDB_ORDER_LITTLE, 8, 0);
	f = fopen(path, "ab");
	if (!f)
		die(path);
	encode_ktf(kb, &small[5], MDB_ORDER_LITTLE, 8, 0, size);
	if (fwrite(kb, 1, tail, f) != tail || fclose(f))
		die(path);
}

int main(int argc, char **argv)
{
	char *d = NULL;
	uint8_t b[64];
	size_t n;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: mkfixtures TESTDATA_DIR\n");
		return 2;
	}
	d = xfmt(d, "%s/succeed", argv[1]);
	mkdirs(d);
	d = xfmt(d, "%s/fail", argv[1]);
	mkdirs(d);

	d = xfmt(d, "%s/succeed/kt-small-le", argv[1]);
	write_capture(d, small, sizeof(small) / sizeof(small[0]), 2,
		      MDB_ORDER_LITTLE, ".out");
	d = xfmt(d, "%s/succeed/kt-small-be", argv[1]);
	write_capture(d, small, sizeof(small) / sizeof(small[0]), 2,
		      MDB_ORDER_BIG, ".out");
	/* the same, debugfs names, plus an idle CPU's empty file */
	d = xfmt(d, "%s/succeed/kt-small-idle-cpu", argv[1]);
	write_capture(d, small, sizeof(small) / sizeof(small[0]), 3,
		      MDB_ORDER_LITTLE, "");

	/* wraparound: an alloc just before INT32_MAX on cpu0, its free
	 * after the wrap on cpu1; a signed merge would put the free first */
	{
		static const struct rec wrap[] = {
			{ 0x7ffffffe, 0, 0, 0, S1, P1, 100, 128, 0 },
			{ 0x7fffffff, 0, 0, 0, S1, P2, 10, 16, 0 },
			{ (int)0x80000000, 1, 1, 0, F1, P1, 0, 0, 0 },
			{ (int)0x80000001, 1, 1, 0, F1, P2, 0, 0, 0 },
		};

		d = xfmt(d, "%s/succeed/kt-wrap", argv[1]);
		write_capture(d, wrap, 4, 2, MDB_ORDER_BIG, "");
	}

	/* the same records from the ftrace-era kmemtrace tracer, one file */
	{
		static const struct {
			const char *name;
			enum mdb_order o;
			int word, prefix;
		} ktf[] = {
			{ "ktf-small-lp64-le.bin", MDB_ORDER_LITTLE, 8, 0 },
			{ "ktf-small-lp64-be.bin", MDB_ORDER_BIG, 8, 0 },
			{ "ktf-small-ilp32-le.bin", MDB_ORDER_LITTLE, 4, 0 },
			{ "ktf-small-ilp32-be.bin", MDB_ORDER_BIG, 4, 0 },
			{ "ktf-small-lp64-le-prefix.bin", MDB_ORDER_LITTLE, 8,
			  1 },
			{ "ktf-small-ilp32-be-prefix.bin", MDB_ORDER_BIG, 4,
			  1 },
		};

		for (size_t i = 0; i < sizeof(ktf) / sizeof(ktf[0]); i++) {
			d = xfmt(d, "%s/succeed/%s", argv[1],
				 ktf[i].name);
			write_ktf(d, small, sizeof(small) / sizeof(small[0]),
				  ktf[i].o, ktf[i].word, ktf[i].prefix);
		}
	}

	/* ---- failures: each dir has its expected message in NAME.err */

	/* ftrace-era tracer file: five records, then 40 bytes of an ALLOC */
	d = xfmt(d, "%s/fail/ktf-truncated.bin", argv[1]);
	write_ktf_broken(d, 40, 0);
	/* ... or an ALLOC whose event_size (32) cannot hold it */
	d = xfmt(d, "%s/fail/ktf-short-alloc.bin", argv[1]);
	write_ktf_broken(d, 32, 32);

	/* ... or 300 good ALLOCs (more than detection walks), then one on
	 * CPU 0x7fffffff (a review finding: signed overflow counting CPUs) */
	{
		struct rec many[301];

		for (int i = 0; i < 301; i++) {
			many[i] = small[0];
			many[i].seq = i + 1;
			many[i].ptr = P1 + (uint64_t)i * 64;
		}
		many[300].cpu = 0x7fffffff;
		d = xfmt(d, "%s/fail/ktf-cpu-out-of-range.bin",
			 argv[1]);
		write_ktf(d, many, 301, MDB_ORDER_LITTLE, 8, 0);
	}

	/* a complete ALLOC, then 20 bytes of the next record */
	d = xfmt(d, "%s/fail/truncated-record", argv[1]);
	mkdirs(d);
	f = create(d, "cpu0");
	n = encode(b, &small[0], MDB_ORDER_LITTLE, 0);
	fwrite(b, 1, n, f);
	encode(b, &small[1], MDB_ORDER_LITTLE, 0);
	fwrite(b, 1, 20, f);
	if (fclose(f))
		die("truncated-record");
	text(d, "abi_version", "1\n");

	/* a good record, then one whose event_size (16) is below 24 */
	d = xfmt(d, "%s/fail/event-size-too-small", argv[1]);
	mkdirs(d);
	f = create(d, "cpu0");
	n = encode(b, &small[0], MDB_ORDER_LITTLE, 0);
	fwrite(b, 1, n, f);
	n = encode(b, &small[3], MDB_ORDER_LITTLE, 16);
	fwrite(b, 1, 24, f);
	if (fclose(f))
		die("event-size-too-small");

	/* an ALLOC whose event_size (24) has no room for its fields */
	d = xfmt(d, "%s/fail/alloc-too-short", argv[1]);
	mkdirs(d);
	f = create(d, "cpu0");
	n = encode(b, &small[0], MDB_ORDER_LITTLE, 0);
	fwrite(b, 1, n, f);
	encode(b, &small[1], MDB_ORDER_LITTLE, 24);
	fwrite(b, 1, 48, f);
	if (fclose(f))
		die("alloc-too-short");

	/* a capture from a kernel with an ABI memdb does not know */
	d = xfmt(d, "%s/fail/abi-version-2", argv[1]);
	write_capture(d, small, 4, 1, MDB_ORDER_LITTLE, "");
	text(d, "abi_version", "2\n");

	/* not kmemtrace at all */
	d = xfmt(d, "%s/fail/not-kmemtrace", argv[1]);
	mkdirs(d);
	text(d, "cpu0", "This is a text file, not a kmemtrace capture.\n"
			"It is long enough to hold a record header.\n");

	/* a lone empty per-CPU file */
	d = xfmt(d, "%s/fail", argv[1]);
	text(d, "empty-cpu0.out", "");

	/* a capture directory whose per-CPU files are all empty */
	d = xfmt(d, "%s/fail/all-cpus-idle", argv[1]);
	mkdirs(d);
	text(d, "cpu0", "");
	text(d, "cpu1", "");
	text(d, "abi_version", "1\n");

	/* a total_overruns that is not a number */
	d = xfmt(d, "%s/fail/bad-overruns", argv[1]);
	write_capture(d, small, 4, 1, MDB_ORDER_LITTLE, "");
	text(d, "total_overruns", "lots\n");
	free(d);
	return 0;
}
