// SPDX-License-Identifier: MIT
/*
 * Snapshot decoders, driven with inline bytes and lines into an in-memory
 * sink: memstat streams in both byte orders and with maxcpus 1, 4 and 256
 * (figures worked out by hand, libmemstat's clamp and keg rule included),
 * header validation, /proc/allocinfo in every variant, humanized numbers,
 * vmstat -z / -m text and json, /proc/slabinfo, and the report parameter
 * scan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../ingest/snapshot.h"
#include "../ingest/text.h"
#include "../report/queries.h"

/* ---- an in-memory sink -------------------------------------------- */

#define MAXROWS 64

struct zrow {
	struct mdb_zone z;
	char name[64], sizes[64];
	int ncpus;
	struct mdb_zone_cpu cpu[8];
};

struct trow {
	struct mdb_tag t;
	char file[64], function[64], module[32], extra[64];
};

struct rec {
	struct zrow zones[MAXROWS];
	struct trow tags[MAXROWS];
	int nzones, ntags;
};

static void copy(char *dst, size_t len, struct mdb_str s)
{
	assert_true(s.len < len);
	if (s.len)
		memcpy(dst, s.p, s.len);
	dst[s.len] = '\0';
}

static int rec_zone(void *ctx, const struct mdb_zone *z)
{
	struct rec *r = ctx;
	struct zrow *row;

	assert_true(r->nzones < MAXROWS);
	row = &r->zones[r->nzones++];
	row->z = *z;
	row->ncpus = 0;
	copy(row->name, sizeof(row->name), z->name);
	copy(row->sizes, sizeof(row->sizes), z->sizes);
	return 0;
}

static int rec_cpu(void *ctx, const struct mdb_zone_cpu *c)
{
	struct rec *r = ctx;
	struct zrow *row = &r->zones[r->nzones - 1];

	assert_true(r->nzones > 0 && row->ncpus < 8);
	row->cpu[row->ncpus++] = *c;
	return 0;
}

static int rec_tag(void *ctx, const struct mdb_tag *t)
{
	struct rec *r = ctx;
	struct trow *row;

	assert_true(r->ntags < MAXROWS);
	row = &r->tags[r->ntags++];
	row->t = *t;
	copy(row->file, sizeof(row->file), t->file);
	copy(row->function, sizeof(row->function), t->function);
	copy(row->module, sizeof(row->module), t->module);
	copy(row->extra, sizeof(row->extra), t->extra);
	return 0;
}

static struct rec *decode(mdb_snap_decode_fn fn, const void *buf, size_t len,
			  struct mdb_snap_info *info, struct mdb_error *e,
			  int *ret)
{
	struct rec *r = calloc(1, sizeof(*r));
	struct mdb_snap_sink sink = { .ctx = r, .zone = rec_zone,
				      .zone_cpu = rec_cpu, .tag = rec_tag };

	assert_non_null(r);
	mdb_error_clear(e);
	*ret = fn(buf, len, "in", &sink, info, e);
	return r;
}

/* Decode text that must be accepted. */
static struct rec *decode_ok(mdb_snap_decode_fn fn, const char *text,
			     struct mdb_snap_info *info)
{
	struct mdb_error e;
	int ret;
	struct rec *r = decode(fn, text, strlen(text), info, &e, &ret);

	if (ret)
		fail_msg("decode failed: %s %s line=%lld", e.msg, e.detail,
			 (long long)e.line);
	return r;
}

/* Decode @text that must be refused with @code at @line; @detail_has
 * must appear in the detail. */
static void decode_bad(mdb_snap_decode_fn fn, const char *text, int code,
		       int64_t line, const char *detail_has)
{
	struct mdb_snap_info info;
	struct mdb_error e;
	int ret;
	struct rec *r = decode(fn, text, strlen(text), &info, &e, &ret);

	assert_int_equal(ret, -code);
	assert_int_equal(e.code, code);
	assert_int_equal(e.line, line);
	if (!strstr(e.detail, detail_has))
		fail_msg("detail '%s' lacks '%s'", e.detail, detail_has);
	assert_string_equal(e.file, "in");
	free(r);
}

/* ---- memstat streams ------------------------------------------------ */

#define LE32(v) (uint8_t)(v), (uint8_t)((v) >> 8), (uint8_t)((v) >> 16), \
		(uint8_t)((v) >> 24)
#define BE32(v) (uint8_t)((v) >> 24), (uint8_t)((v) >> 16), \
		(uint8_t)((v) >> 8), (uint8_t)(v)
#define LE64(v) LE32((uint32_t)(v)), LE32((uint32_t)((uint64_t)(v) >> 32))
#define BE64(v) BE32((uint32_t)((uint64_t)(v) >> 32)), BE32((uint32_t)(v))
#define Z4 0, 0, 0, 0
#define Z8 Z4, Z4
#define Z16 Z8, Z8

/*
 * vm.zone_stats with maxcpus 1 and three zones sharing one keg story:
 *   "mbuf"         primary:   allocs 1000 + cpu 150, frees 900 + cpu 50,
 *                  cache 12, zone_free 10, keg_free 50
 *     -> used 1150 - 950 = 200, free 12 + 10 + 50 = 72, requests 1150,
 *        bytes 200 x 256 = 51200
 *   "mbuf_packet"  secondary (flags 1) on the same keg: allocs 500 + 40,
 *                  frees 480 + 40, cache 4, zone_free 4, keg_free 50
 *     -> used 540 - 520 = 20, free 4 + 4 = 8 (keg not counted again),
 *        requests 540, bytes 5120, fails 2
 *   "64 pcpu"      allocs 10 + 5 = 15, frees 12 + 6 = 18: more frees than
 *                  allocations -> requests raised to 18, used 0, bytes 0,
 *                  free 1 + 0 + 3 = 4
 */
#define UMA_STREAM(W32, W64) {                                            \
	W32(1), W32(1), W32(3), W32(0), /* version 1, maxcpus 1, count 3 */ \
	'm', 'b', 'u', 'f', Z4, Z8, Z16,         /* name[32] */             \
	W32(7), W32(256), W32(256), W32(0),      /* align size rsize maxpg */\
	W32(0), W32(1), W32(50), W32(10),        /* limit pages keg zone */ \
	W32(16), W32(0),                         /* bucketsize flags */     \
	W64(1000), W64(900), W64(0), W64(0),     /* allocs frees fails sl. */\
	W64(3), W64(0),                          /* xdomain reserved */     \
	W64(150), W64(50), W64(12), Z8, Z16, Z16, /* cpu0 allocs frees cache*/\
	'm', 'b', 'u', 'f', '_', 'p', 'a', 'c', 'k', 'e', 't', 0,           \
	Z4, Z16,                                 /* name "mbuf_packet" */   \
	W32(7), W32(256), W32(256), W32(0),                                 \
	W32(0), W32(1), W32(50), W32(4),         /* keg_free 50, zone 4 */  \
	W32(16), W32(1),                         /* flags 1: secondary */   \
	W64(500), W64(480), W64(2), W64(0),      /* fails 2 */              \
	W64(0), W64(0),                                                     \
	W64(40), W64(40), W64(4), Z8, Z16, Z16,  /* cpu0 */                 \
	'6', '4', ' ', 'p', 'c', 'p', 'u', 0, Z8, Z16, /* "64 pcpu" */      \
	W32(7), W32(8), W32(8), W32(0),                                     \
	W32(0), W32(1), W32(3), W32(0),          /* keg_free 3 */           \
	W32(16), W32(0),                                                    \
	W64(10), W64(12), W64(0), W64(0),                                   \
	W64(0), W64(0),                                                     \
	W64(5), W64(6), W64(1), Z8, Z16, Z16,    /* cpu0 */                 \
}

static const uint8_t uma_le[] = UMA_STREAM(LE32, LE64);
static const uint8_t uma_be[] = UMA_STREAM(BE32, BE64);

static void check_uma(const struct rec *r, int ncpus_rows)
{
	const struct mdb_zone *z;

	assert_int_equal(r->nzones, 3);
	z = &r->zones[0].z;
	assert_string_equal(r->zones[0].name, "mbuf");
	assert_int_equal(z->kind, MDB_ZONE_UMA);
	assert_int_equal(z->v[MDB_ZC_SIZE], 256);
	assert_int_equal(z->v[MDB_ZC_LIMIT], 0);
	assert_int_equal(z->v[MDB_ZC_USED], 200);
	assert_int_equal(z->v[MDB_ZC_FREE], 72);
	assert_int_equal(z->v[MDB_ZC_REQUESTS], 1150);
	assert_int_equal(z->v[MDB_ZC_FREES], 950);
	assert_int_equal(z->v[MDB_ZC_XDOMAIN], 3);
	assert_int_equal(z->v[MDB_ZC_BYTES], 51200);
	assert_int_equal(z->v[MDB_ZC_KEG_FREE], 50);
	assert_int_equal(z->v[MDB_ZC_ZONE_FLAGS], 0);
	assert_int_equal(z->v[MDB_ZC_SIZEMASK], MDB_NA);
	assert_int_equal(z->v[MDB_ZC_NUM_OBJS], MDB_NA);

	z = &r->zones[1].z;
	assert_string_equal(r->zones[1].name, "mbuf_packet");
	assert_int_equal(z->v[MDB_ZC_USED], 20);
	assert_int_equal(z->v[MDB_ZC_FREE], 8);
	assert_int_equal(z->v[MDB_ZC_REQUESTS], 540);
	assert_int_equal(z->v[MDB_ZC_FAILS], 2);
	assert_int_equal(z->v[MDB_ZC_BYTES], 5120);
	assert_int_equal(z->v[MDB_ZC_KEG_FREE], 50); /* as read */
	assert_int_equal(z->v[MDB_ZC_ZONE_FLAGS], 1);

	z = &r->zones[2].z;
	assert_string_equal(r->zones[2].name, "64 pcpu");
	assert_int_equal(z->v[MDB_ZC_REQUESTS], 18);
	assert_int_equal(z->v[MDB_ZC_FREES], 18);
	assert_int_equal(z->v[MDB_ZC_USED], 0);
	assert_int_equal(z->v[MDB_ZC_BYTES], 0);
	assert_int_equal(z->v[MDB_ZC_FREE], 4);
	for (int i = 0; i < 3; i++)
		assert_int_equal(r->zones[i].ncpus, ncpus_rows);
}

static void test_uma_inline(void **state)
{
	struct mdb_snap_info info;
	struct mdb_error e;
	enum mdb_order o;
	uint32_t v, m, c;
	struct rec *r;
	int ret;

	(void)state;
	assert_int_equal(sizeof(uma_le), 16 + 3 * (120 + 64));
	assert_true(mdb_memstat_header(uma_le, sizeof(uma_le), &o, &v, &m, &c));
	assert_int_equal(o, MDB_ORDER_LITTLE);
	assert_true(mdb_memstat_header(uma_be, sizeof(uma_be), &o, &v, &m, &c));
	assert_int_equal(o, MDB_ORDER_BIG);
	assert_int_equal(m, 1);
	assert_int_equal(c, 3);
	assert_true(mdb_memstat_uma_probe(uma_le, sizeof(uma_le)));
	assert_false(mdb_memstat_malloc_probe(uma_le, sizeof(uma_le)));
	assert_true(mdb_memstat_uma_probe(uma_be, sizeof(uma_be)));

	r = decode(mdb_memstat_uma_decode, uma_le, sizeof(uma_le), &info, &e,
		   &ret);
	assert_int_equal(ret, 0);
	check_uma(r, 1);
	assert_string_equal(info.version, "1");
	assert_int_equal(info.zones, 3);
	/* cpu 0 of mbuf as read */
	assert_int_equal(r->zones[0].cpu[0].cpu, 0);
	assert_int_equal(r->zones[0].cpu[0].allocs, 150);
	assert_int_equal(r->zones[0].cpu[0].frees, 50);
	assert_int_equal(r->zones[0].cpu[0].cache_free, 12);
	assert_int_equal(r->zones[0].cpu[0].mem_alloced, MDB_NA);
	free(r);
	r = decode(mdb_memstat_uma_decode, uma_be, sizeof(uma_be), &info, &e,
		   &ret);
	assert_int_equal(ret, 0);
	check_uma(r, 1);
	free(r);
}

/*
 * The same three zones with maxcpus N: the per-CPU figures split between
 * CPU 0 and CPU N-1 (mbuf: 100 + 50 allocs, 30 + 20 frees, 5 + 7 cache),
 * the CPUs between idle.  Sums, hence figures, are those of the inline
 * stream; idle CPUs give no per-CPU rows.
 */
static uint8_t *build_uma(uint32_t maxcpus, enum mdb_order o, size_t *len)
{
	static const struct {
		const char *name;
		uint32_t size, keg_free, zone_free, flags;
		uint64_t allocs, frees, fails, xdomain;
		uint64_t ca[2], cf[2], cc[2];
	} z[3] = {
		{ "mbuf", 256, 50, 10, 0, 1000, 900, 0, 3,
		  { 100, 50 }, { 30, 20 }, { 5, 7 } },
		{ "mbuf_packet", 256, 50, 4, 1, 500, 480, 2, 0,
		  { 40, 0 }, { 35, 5 }, { 3, 1 } },
		{ "64 pcpu", 8, 3, 0, 0, 10, 12, 0, 0,
		  { 5, 0 }, { 4, 2 }, { 1, 0 } },
	};
	size_t rec = 120 + 64 * (size_t)maxcpus;
	uint8_t *b = calloc(1, 16 + 3 * rec), *p;

	assert_non_null(b);
	put_u32(b, 1, o);
	put_u32(b + 4, maxcpus, o);
	put_u32(b + 8, 3, o);
	for (int i = 0; i < 3; i++) {
		p = b + 16 + (size_t)i * rec;
		memcpy(p, z[i].name, strlen(z[i].name));
		put_u32(p + 32, 7, o);
		put_u32(p + 36, z[i].size, o);
		put_u32(p + 40, z[i].size, o);
		put_u32(p + 52, 1, o);   /* pages */
		put_u32(p + 56, z[i].keg_free, o);
		put_u32(p + 60, z[i].zone_free, o);
		put_u32(p + 64, 16, o);  /* bucketsize */
		put_u32(p + 68, z[i].flags, o);
		put_u64(p + 72, z[i].allocs, o);
		put_u64(p + 80, z[i].frees, o);
		put_u64(p + 88, z[i].fails, o);
		put_u64(p + 104, z[i].xdomain, o);
		for (int s = 0; s < 2; s++) {
			uint8_t *c = p + 120 + 64 * (s ? maxcpus - 1 : 0);

			put_u64(c, get_u64(c, o) + z[i].ca[s], o);
			put_u64(c + 8, get_u64(c + 8, o) + z[i].cf[s], o);
			put_u64(c + 16, get_u64(c + 16, o) + z[i].cc[s], o);
		}
	}
	*len = 16 + 3 * rec;
	return b;
}

static void test_uma_maxcpus(void **state)
{
	static const uint32_t cpus[] = { 1, 4, 256 };
	struct mdb_snap_info info;
	struct mdb_error e;
	struct rec *r;
	int ret;

	(void)state;
	for (int b = 0; b < 2; b++) {
		enum mdb_order o = b ? MDB_ORDER_BIG : MDB_ORDER_LITTLE;

		for (int i = 0; i < 3; i++) {
			size_t len;
			uint8_t *buf = build_uma(cpus[i], o, &len);

			assert_true(mdb_memstat_uma_probe(buf, len));
			r = decode(mdb_memstat_uma_decode, buf, len, &info,
				   &e, &ret);
			assert_int_equal(ret, 0);
			/* one CPU: one row; else CPU 0 and the last, except
			 * where the last has nothing (mbuf_packet's allocs 0,
			 * frees 5, cache 1 still count) */
			check_uma(r, cpus[i] == 1 ? 1 : 2);
			if (cpus[i] > 1)
				assert_int_equal(r->zones[0].cpu[1].cpu,
						 (int)cpus[i] - 1);
			if (cpus[i] == 1)
				assert_memory_equal(buf, b ? uma_be : uma_le,
						    len);
			free(r);
			free(buf);
		}
	}
}

/*
 * kern.malloc_stats, maxcpus 2, two types:
 *   "devbuf"  cpu0: memalloced 40960, memfreed 4096, numallocs 100,
 *             numfrees 10, sizes 0x3; cpu1: 8192, 0, 20, 0, 0x10
 *     -> bytes 49152 - 4096 = 45056, used 110, requests 120, mask 0x13
 *   "ifaddr"  cpu0: 100, 300, 1, 3; cpu1 nothing: more freed than
 *             allocated (no clamp in libmemstat's malloc figures)
 *     -> bytes 100 - 300 = -200, used 1 - 3 = -2
 */
#define MALLOC_STREAM(W32, W64) {                                        \
	W32(1), W32(2), W32(2), W32(0), /* version 1, maxcpus 2, count 2 */ \
	'd', 'e', 'v', 'b', 'u', 'f', 0, 0, Z8, Z16, /* name[32] */        \
	W64(40960), W64(4096), W64(100), W64(10), /* cpu0 */               \
	W64(0x3), Z8, Z16,                        /* size mask, reserved */ \
	W64(8192), W64(0), W64(20), W64(0),       /* cpu1 */               \
	W64(0x10), Z8, Z16,                                                 \
	'i', 'f', 'a', 'd', 'd', 'r', 0, 0, Z8, Z16,                        \
	W64(100), W64(300), W64(1), W64(3), W64(0x1), Z8, Z16, /* cpu0 */  \
	Z16, Z16, Z16, Z16,                                    /* cpu1 */  \
}

static const uint8_t malloc_le[] = MALLOC_STREAM(LE32, LE64);
static const uint8_t malloc_be[] = MALLOC_STREAM(BE32, BE64);

static void test_malloc_inline(void **state)
{
	const uint8_t *bufs[2] = { malloc_le, malloc_be };
	struct mdb_snap_info info;
	struct mdb_error e;
	struct rec *r;
	int ret;

	(void)state;
	assert_int_equal(sizeof(malloc_le), 16 + 2 * (32 + 2 * 64));
	for (int b = 0; b < 2; b++) {
		const struct mdb_zone *z;

		assert_true(mdb_memstat_malloc_probe(bufs[b],
						     sizeof(malloc_le)));
		assert_false(mdb_memstat_uma_probe(bufs[b],
						   sizeof(malloc_le)));
		r = decode(mdb_memstat_malloc_decode, bufs[b],
			   sizeof(malloc_le), &info, &e, &ret);
		assert_int_equal(ret, 0);
		assert_int_equal(r->nzones, 2);
		z = &r->zones[0].z;
		assert_string_equal(r->zones[0].name, "devbuf");
		assert_int_equal(z->kind, MDB_ZONE_MALLOC);
		assert_int_equal(z->v[MDB_ZC_BYTES], 45056);
		assert_int_equal(z->v[MDB_ZC_USED], 110);
		assert_int_equal(z->v[MDB_ZC_REQUESTS], 120);
		assert_int_equal(z->v[MDB_ZC_FREES], 10);
		assert_int_equal(z->v[MDB_ZC_SIZEMASK], 0x13);
		assert_int_equal(z->v[MDB_ZC_SIZE], MDB_NA);
		assert_int_equal(z->v[MDB_ZC_FREE], MDB_NA);
		assert_int_equal(r->zones[0].ncpus, 2);
		assert_int_equal(r->zones[0].cpu[1].mem_alloced, 8192);
		assert_int_equal(r->zones[0].cpu[1].sizemask, 0x10);
		assert_int_equal(r->zones[0].cpu[1].cache_free, MDB_NA);
		z = &r->zones[1].z;
		assert_int_equal(z->v[MDB_ZC_BYTES], -200);
		assert_int_equal(z->v[MDB_ZC_USED], -2);
		assert_int_equal(r->zones[1].ncpus, 1); /* cpu1 idle */
		free(r);
	}
}

static void expect_stream_error(const uint8_t *buf, size_t len,
				mdb_snap_decode_fn fn, int code,
				int64_t offset, const char *detail)
{
	struct mdb_snap_info info;
	struct mdb_error e;
	int ret;
	struct rec *r = decode(fn, buf, len, &info, &e, &ret);

	assert_int_equal(ret, -code);
	assert_int_equal(e.offset, offset);
	assert_int_equal(e.line, -1);
	assert_string_equal(e.detail, detail);
	assert_int_equal(r->nzones, 0); /* nothing before validation */
	free(r);
}

static void test_memstat_errors(void **state)
{
	uint8_t buf[sizeof(uma_le) + 8];

	(void)state;
	/* shorter than the header */
	expect_stream_error(uma_le, 9, mdb_memstat_uma_decode,
			    MDB_E_TRUNCATED, 0, "need=16 have=9");
	/* a record cut short: the third of 184 bytes has 100 */
	expect_stream_error(uma_le, 16 + 2 * 184 + 100,
			    mdb_memstat_uma_decode, MDB_E_TRUNCATED, 384,
			    "need=184 have=100");
	/* count 3 but two whole records */
	expect_stream_error(uma_le, 16 + 2 * 184, mdb_memstat_uma_decode,
			    MDB_E_CORRUPT, 8, "count=3 records=2 maxcpus=1");
	/* bytes after the last record */
	memcpy(buf, uma_le, sizeof(uma_le));
	memset(buf + sizeof(uma_le), 0, 8);
	expect_stream_error(buf, sizeof(buf), mdb_memstat_uma_decode,
			    MDB_E_CORRUPT, 568, "count=3 extra=8");
	/* version 2, in either order */
	memcpy(buf, uma_le, sizeof(uma_le));
	buf[0] = 2;
	expect_stream_error(buf, sizeof(uma_le), mdb_memstat_uma_decode,
			    MDB_E_VERSION, 0, "version=2 supported=1");
	memcpy(buf, malloc_be, sizeof(malloc_be));
	buf[3] = 2;
	expect_stream_error(buf, sizeof(malloc_be), mdb_memstat_malloc_decode,
			    MDB_E_VERSION, 0, "version=2 supported=1");
	/* count 0 */
	memcpy(buf, uma_le, 16);
	buf[8] = 0;
	expect_stream_error(buf, 16, mdb_memstat_uma_decode, MDB_E_EMPTY, 8,
			    "count=0");
	/* not a header: maxcpus 0, a non-zero pad, a version in both bytes */
	memcpy(buf, uma_le, 16);
	buf[4] = 0;
	assert_false(mdb_memstat_uma_probe(buf, sizeof(uma_le)));
	memcpy(buf, uma_le, 16);
	buf[12] = 1;
	assert_false(mdb_memstat_uma_probe(buf, sizeof(uma_le)));
	memcpy(buf, uma_le, 16);
	buf[3] = 1;
	assert_false(mdb_memstat_uma_probe(buf, sizeof(uma_le)));
	expect_stream_error(buf, sizeof(uma_le), mdb_memstat_uma_decode,
			    MDB_E_FORMAT, 0, "");
	/* a big-endian kmemtrace page ALLOC, call_site 0, seq 1: its
	 * event_size (48) sits where the version byte would */
	{
		static const uint8_t kt[96] = {
			0, 2, 0, 48, 0, 0, 0, 1, /* ALLOC page, 48, seq 1 */
		};

		assert_false(mdb_memstat_uma_probe(kt, sizeof(kt)));
		assert_false(mdb_memstat_malloc_probe(kt, sizeof(kt)));
	}
	/* a damaged stream whose first name is not one */
	memcpy(buf, uma_le, sizeof(uma_le));
	buf[16] = 1;
	assert_false(mdb_memstat_uma_probe(buf, 100));
	assert_false(mdb_memstat_malloc_probe(buf, 100));
}

/* ---- humanized numbers ---------------------------------------------- */

static int64_t human(const char *s, int *approx)
{
	int64_t v = -1;

	*approx = 0;
	if (mdb_parse_human(mdb_str_make(s, strlen(s)), &v, approx) < 0)
		return INT64_MIN;
	return v;
}

static void test_humanized(void **state)
{
	int a;

	(void)state;
	assert_int_equal(human("512", &a), 512);
	assert_int_equal(a, 0);
	assert_int_equal(human("-128", &a), -128);
	/* 2.8 x 1024^2 = 2936012.8 -> 2936013 */
	assert_int_equal(human("2.8M", &a), 2936013);
	assert_int_equal(a, 1);
	assert_int_equal(human("-2.8M", &a), -2936013);
	assert_int_equal(human("13M", &a), 13631488);
	assert_int_equal(a, 1);
	assert_int_equal(human("4.0K", &a), 4096);
	assert_int_equal(human("1.5Ki", &a), 1536);
	assert_int_equal(human("12k", &a), 12288);
	assert_int_equal(human("122M", &a), 127926272);
	assert_int_equal(human("3.4G", &a), 3650722202); /* 3650722201.6 */
	assert_int_equal(human("7E", &a), 8070450532247928832LL);
	assert_int_equal(human("9223372036854775807", &a), INT64_MAX);
	assert_int_equal(human("9223372036854775808", &a), INT64_MIN);
	assert_int_equal(human("8E", &a), INT64_MIN);  /* 2^63 */
	assert_int_equal(human("1.5", &a), INT64_MIN); /* no unit */
	assert_int_equal(human("12X", &a), INT64_MIN);
	assert_int_equal(human("M", &a), INT64_MIN);
	assert_int_equal(human("1.M", &a), INT64_MIN);
	assert_int_equal(human("", &a), INT64_MIN);
	assert_int_equal(human("1.0000000001K", &a), INT64_MIN);
}

/* ---- /proc/allocinfo ------------------------------------------------ */

static void test_allocinfo_v1(void **state)
{
	static const char text[] =
		"allocinfo - version: 1.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        4096        1 mm/percpu.c:2976 func:pcpu_embed_first_chunk \n"
		"       12288        3 drivers/foo/bar.c:20 [foomod] func:foo_start \n"
		"        -128        2 lib/t.c:7 func:neg \r\n"
		"\n";
	struct mdb_snap_info info;
	struct rec *r;

	(void)state;
	assert_true(mdb_allocinfo_probe(text, sizeof(text) - 1));
	r = decode_ok(mdb_allocinfo_decode, text, &info);
	assert_string_equal(info.version, "1.0");
	assert_int_equal(info.tags, 3);
	assert_int_equal(info.records, 6);
	assert_int_equal(r->ntags, 3);
	assert_int_equal(r->tags[0].t.bytes, 4096);
	assert_int_equal(r->tags[0].t.calls, 1);
	assert_string_equal(r->tags[0].file, "mm/percpu.c");
	assert_int_equal(r->tags[0].t.src_line, 2976);
	assert_string_equal(r->tags[0].function, "pcpu_embed_first_chunk");
	assert_string_equal(r->tags[0].module, "");
	assert_string_equal(r->tags[0].extra, "");
	assert_int_equal(r->tags[0].t.line, 3);
	assert_int_equal(r->tags[0].t.accurate, 1);
	assert_int_equal(r->tags[0].t.approx, 0);
	assert_string_equal(r->tags[1].module, "foomod");
	assert_string_equal(r->tags[1].function, "foo_start");
	assert_int_equal(r->tags[1].t.bytes, 12288);
	assert_int_equal(r->tags[2].t.bytes, -128); /* signed */
	assert_int_equal(r->tags[2].t.line, 5);
	free(r);
}

static void test_allocinfo_v2(void **state)
{
	static const char text[] =
		"allocinfo - version: 2.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        8192        2 fs/xfs/xfs_mount.c:87 [xfs] func:xfs_uuid_mount accurate:no \n"
		"         640       10 kernel/fork.c:307 func:alloc_thread_stack_node accurate:no note:x \n"
		"          64        1 a/b.c:1 func:f accurate:yes \n";
	struct mdb_snap_info info;
	struct rec *r;

	(void)state;
	r = decode_ok(mdb_allocinfo_decode, text, &info);
	assert_string_equal(info.version, "2.0");
	assert_int_equal(info.inaccurate, 2);
	assert_int_equal(r->tags[0].t.accurate, 0);
	assert_string_equal(r->tags[0].module, "xfs");
	assert_string_equal(r->tags[0].extra, "accurate:no");
	assert_string_equal(r->tags[1].extra, "accurate:no note:x");
	assert_int_equal(r->tags[2].t.accurate, 1);
	free(r);
	/* any minor version of a known major */
	free(decode_ok(mdb_allocinfo_decode,
		       "allocinfo - version: 2.7\n1 1 a.c:1 func:f\n", &info));
	assert_string_equal(info.version, "2.7");
}

static void test_allocinfo_headerless_humanized(void **state)
{
	/* seed 004: sort -g /proc/allocinfo | tail | numfmt --to=iec */
	static const char text[] =
		"2.8M 22648 fs/kernfs/dir.c:615 func:__kernfs_new_node\n"
		"4.0M 1010 drivers/staging/ctagmod/ctagmod.c:20 [ctagmod] func:ctagmod_start\n"
		"122M 31168 mm/page_ext.c:270 func:alloc_page_ext\n";
	struct mdb_snap_info info;
	struct rec *r;

	(void)state;
	assert_true(mdb_allocinfo_probe(text, sizeof(text) - 1));
	r = decode_ok(mdb_allocinfo_decode, text, &info);
	assert_string_equal(info.version, "");
	assert_int_equal(info.approx, 3);
	assert_int_equal(r->tags[0].t.bytes, 2936013);
	assert_int_equal(r->tags[0].t.calls, 22648);
	assert_int_equal(r->tags[0].t.approx, 1);
	assert_int_equal(r->tags[1].t.bytes, 4194304);
	assert_string_equal(r->tags[1].module, "ctagmod");
	assert_int_equal(r->tags[2].t.bytes, 127926272);
	free(r);
	/* plain numbers without a header */
	r = decode_ok(mdb_allocinfo_decode,
		      "     3932160      960 mm/filemap.c:1919 func:__filemap_get_folio \n",
		      &info);
	assert_int_equal(r->tags[0].t.approx, 0);
	assert_int_equal(r->tags[0].t.bytes, 3932160);
	free(r);
}

static void test_allocinfo_errors(void **state)
{
	(void)state;
	decode_bad(mdb_allocinfo_decode,
		   "allocinfo - version: 3.0\n1 1 a.c:1 func:f\n",
		   MDB_E_VERSION, 1, "version=3.0 supported=1.x,2.x");
	decode_bad(mdb_allocinfo_decode, "allocinfo - version: two\n",
		   MDB_E_CORRUPT, 1, "version='two'");
	decode_bad(mdb_allocinfo_decode,
		   "allocinfo - version: 1.0\n1 1 a.c:1 func:f\n"
		   "12x 1 a.c:2 func:g\n", MDB_E_CORRUPT, 3,
		   "expected=size got='12x'");
	decode_bad(mdb_allocinfo_decode, "1 -1 a.c:1 func:f\n",
		   MDB_E_CORRUPT, 1, "expected=calls got='-1'");
	decode_bad(mdb_allocinfo_decode, "1 1 a.c func:f\n", MDB_E_CORRUPT,
		   1, "expected=file:line got='a.c'");
	decode_bad(mdb_allocinfo_decode, "1 1 a.c:x func:f\n", MDB_E_CORRUPT,
		   1, "expected=file:line");
	decode_bad(mdb_allocinfo_decode, "1 1 a.c:1 [m] f\n", MDB_E_CORRUPT,
		   1, "expected=func:NAME got='f'");
	decode_bad(mdb_allocinfo_decode, "1 1 a.c:1\n", MDB_E_CORRUPT, 1,
		   "expected=func:NAME got=''");
	decode_bad(mdb_allocinfo_decode, "1 1 a.c:1 func:f 7\n",
		   MDB_E_CORRUPT, 1, "expected=key:value got='7'");
	decode_bad(mdb_allocinfo_decode, "1 1 a.c:1 func:f\n1 1 a",
		   MDB_E_CORRUPT, 2, "expected=file:line got='a'");
	decode_bad(mdb_allocinfo_decode,
		   "1 1 a.c:1 func:f\nallocinfo - version: 1.0\n",
		   MDB_E_CORRUPT, 2, "expected=size");
	decode_bad(mdb_allocinfo_decode, "allocinfo - version: 1.0\n#\n",
		   MDB_E_EMPTY, -1, "lines=2");
	{
		static const char nul[] = "1 1 a.c:1 func:f\n1 1 a.c\0:2 func:g\n";
		struct mdb_snap_info info;
		struct mdb_error e;
		int ret;
		struct rec *r = decode(mdb_allocinfo_decode, nul,
				       sizeof(nul) - 1, &info, &e, &ret);

		assert_int_equal(ret, -MDB_E_CORRUPT);
		assert_int_equal(e.line, 2);
		free(r);
	}
	assert_false(mdb_allocinfo_probe("hello world\n", 12));
	assert_false(mdb_allocinfo_probe("", 0));
}

/* ---- vmstat text ---------------------------------------------------- */

static void test_vmstat_z_variants(void **state)
{
	static const char *const texts[] = {
		/* newest header, no blank line */
		"ITEM                   SIZE  LIMIT     USED     FREE      REQ     FAIL SLEEP XDOM\n"
		"UMA Kegs:               384,      0,     174,       0,     174,   0,   0,   0\n"
		"128 Bucket:            1024,      0,     138,      89,    2105,10295,   0,   7\n",
		/* FAILSLEEP XDOMAIN, then a blank line */
		"ITEM                   SIZE  LIMIT     USED     FREE      REQ     FAILSLEEP XDOMAIN\n"
		"\n"
		"UMA Kegs:               384,      0,     174,       0,     174,   0,   0,   0\n"
		"128 Bucket:            1024,      0,     138,      89,    2105,10295,   0,   7\n",
		/* a pasted excerpt */
		"UMA Kegs:               384,      0,     174,       0,     174,   0,   0,   0\n"
		"128 Bucket:            1024,      0,     138,      89,    2105,10295,   0,   7\n",
	};
	struct mdb_snap_info info;
	struct rec *r;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		const struct mdb_zone *z;

		assert_true(mdb_vmstat_z_probe(texts[i], strlen(texts[i])));
		assert_false(mdb_vmstat_m_probe(texts[i], strlen(texts[i])));
		r = decode_ok(mdb_vmstat_z_decode, texts[i], &info);
		assert_int_equal(r->nzones, 2);
		assert_string_equal(r->zones[0].name, "UMA Kegs");
		z = &r->zones[1].z;
		assert_string_equal(r->zones[1].name, "128 Bucket");
		assert_int_equal(z->kind, MDB_ZONE_UMA);
		assert_int_equal(z->v[MDB_ZC_SIZE], 1024);
		assert_int_equal(z->v[MDB_ZC_LIMIT], 0);
		assert_int_equal(z->v[MDB_ZC_USED], 138);
		assert_int_equal(z->v[MDB_ZC_FREE], 89);
		assert_int_equal(z->v[MDB_ZC_REQUESTS], 2105);
		assert_int_equal(z->v[MDB_ZC_FAILS], 10295);
		assert_int_equal(z->v[MDB_ZC_SLEEPS], 0);
		assert_int_equal(z->v[MDB_ZC_XDOMAIN], 7);
		assert_int_equal(z->v[MDB_ZC_BYTES], 138 * 1024);
		assert_int_equal(z->v[MDB_ZC_FREES], MDB_NA);
		assert_int_equal(z->approx, 0);
		free(r);
	}
	/* no cross-domain column; the FreeBSD 7 header (REQUESTS
	 * FAILURES); humanized figures */
	r = decode_ok(mdb_vmstat_z_decode,
		      "ITEM SIZE LIMIT USED FREE REQ FAIL SLEEP\n"
		      "a: 1, 2, 3, 4, 5, 6, 7\n", &info);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_SLEEPS], 7);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_XDOMAIN], MDB_NA);
	free(r);
	r = decode_ok(mdb_vmstat_z_decode,
		      "ITEM            SIZE     LIMIT      USED      FREE  REQUESTS  FAILURES\n\n"
		      "UMA Kegs:        128,        0,       90,        0,       90,        0\n",
		      &info);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_FAILS], 0);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_SLEEPS], MDB_NA);
	free(r);
	r = decode_ok(mdb_vmstat_z_decode,
		      "mbuf_cluster:          2048, 254392,    1.2K,     500,    3.4M,   0,   0,   0\n",
		      &info);
	/* 1.2 x 1024 = 1228.8 -> 1229; 3.4 x 1024^2 = 3565158.4 */
	assert_int_equal(r->zones[0].z.v[MDB_ZC_USED], 1229);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_REQUESTS], 3565158);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_BYTES], 1229 * 2048);
	assert_int_equal(r->zones[0].z.approx, 1);
	assert_int_equal(info.approx, 1);
	free(r);
	/* repeated names keep their order; a name with a colon */
	r = decode_ok(mdb_vmstat_z_decode,
		      "vm pgcache: 4096, 0, 1, 2, 3, 0, 0, 0\n"
		      "vm pgcache: 4096, 0, 4, 5, 6, 0, 0, 1\n"
		      "a:b: 1, 0, 1, 0, 1, 0, 0, 0\n", &info);
	assert_int_equal(r->nzones, 3);
	assert_int_equal(r->zones[1].z.v[MDB_ZC_USED], 4);
	assert_int_equal(r->zones[1].z.line, 2);
	assert_string_equal(r->zones[2].name, "a:b");
	free(r);
}

static void test_vmstat_z_errors(void **state)
{
	(void)state;
	decode_bad(mdb_vmstat_z_decode,
		   "ITEM SIZE LIMIT USED FREE REQ FAIL SLEEP XDOM\n"
		   "a: 1, 2, 3, 4, 5, 6, 7\n", MDB_E_CORRUPT, 2,
		   "expected=8 numbers");
	decode_bad(mdb_vmstat_z_decode, "a: 1, 2, 3, 4, 5, 6, x, 8\n",
		   MDB_E_CORRUPT, 1, "expected=number got='x'");
	decode_bad(mdb_vmstat_z_decode,
		   "a: 1, 2, 3, 4, 5, 6, 7, 8\nb 1, 2\n", MDB_E_CORRUPT, 2,
		   "expected=NAME:");
	decode_bad(mdb_vmstat_z_decode,
		   "a: 1, 2, 3, 4, 5, 6, 7, 8\nb: 1, 2, 3, 4, 5, 6, 7,\n",
		   MDB_E_CORRUPT, 2, "expected=numbers");
	decode_bad(mdb_vmstat_z_decode, "ITEM SIZE WHAT\n", MDB_E_CORRUPT,
		   1, "expected=header word got='WHAT'");
	decode_bad(mdb_vmstat_z_decode, "ITEM SIZE LIMIT\n\n",
		   MDB_E_EMPTY, -1, "lines=2");
	assert_false(mdb_vmstat_z_probe("a: b, c\n", 8));
}

static void test_vmstat_m_variants(void **state)
{
	static const char *const texts[] = {
		"         Type InUse MemUse HighUse Requests  Size(s)\n"
		"       devbuf   110    44K       -      120  16,32,256\n"
		"CAM dev queue     5     1K       -        5  64\n"
		"         temp     1   977K       -        4  \n",
		"         Type InUse MemUse Requests  Size(s)\n"
		"       devbuf   110    44K      120  16,32,256\n"
		"CAM dev queue     5     1K        5  64\n"
		"         temp     1   977K        4  \n",
		/* excerpts without the header, both KiB layouts */
		"       devbuf   110    44K       -      120  16,32,256\n"
		"CAM dev queue     5     1K       -        5  64\n"
		"         temp     1   977K       -        4  \n",
		"       devbuf   110    44K      120  16,32,256\n"
		"CAM dev queue     5     1K        5  64\n"
		"         temp     1   977K        4\n",
	};
	struct mdb_snap_info info;
	struct rec *r;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_true(mdb_vmstat_m_probe(texts[i], strlen(texts[i])));
		assert_false(mdb_vmstat_z_probe(texts[i], strlen(texts[i])));
		r = decode_ok(mdb_vmstat_m_decode, texts[i], &info);
		assert_int_equal(r->nzones, 3);
		assert_string_equal(r->zones[0].name, "devbuf");
		assert_int_equal(r->zones[0].z.kind, MDB_ZONE_MALLOC);
		assert_int_equal(r->zones[0].z.v[MDB_ZC_USED], 110);
		assert_int_equal(r->zones[0].z.v[MDB_ZC_BYTES], 44 * 1024);
		assert_int_equal(r->zones[0].z.v[MDB_ZC_REQUESTS], 120);
		assert_int_equal(r->zones[0].z.approx, 1);
		assert_string_equal(r->zones[0].sizes, "16,32,256");
		assert_string_equal(r->zones[1].name, "CAM dev queue");
		assert_string_equal(r->zones[1].sizes, "64");
		assert_int_equal(r->zones[1].z.v[MDB_ZC_BYTES], 1024);
		assert_string_equal(r->zones[2].name, "temp");
		assert_string_equal(r->zones[2].sizes, "");
		assert_int_equal(r->zones[2].z.v[MDB_ZC_BYTES], 977 * 1024);
		assert_int_equal(r->zones[2].z.v[MDB_ZC_USED], 1);
		free(r);
	}
	/* newest layout: memory in bytes, exact */
	r = decode_ok(mdb_vmstat_m_decode,
		      "         Type   Use   Memory      Req Size(s)\n"
		      "       devbuf   110    45056      120 16,32,256\n"
		      "         temp     1  1000000        4\n", &info);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_BYTES], 45056);
	assert_int_equal(r->zones[0].z.approx, 0);
	assert_int_equal(r->zones[1].z.v[MDB_ZC_BYTES], 1000000);
	assert_string_equal(r->zones[1].sizes, "");
	free(r);
	/* one file holding both sections (vmstat -m -z) */
	r = decode_ok(mdb_vmstat_m_decode,
		      "         Type InUse MemUse Requests  Size(s)\n"
		      "       devbuf   110    44K      120  16\n"
		      "\n"
		      "ITEM SIZE LIMIT USED FREE REQ FAIL SLEEP XDOM\n"
		      "mbuf: 256, 0, 200, 72, 1150, 0, 0, 3\n", &info);
	assert_int_equal(r->nzones, 2);
	assert_int_equal(r->zones[0].z.kind, MDB_ZONE_MALLOC);
	assert_int_equal(r->zones[1].z.kind, MDB_ZONE_UMA);
	free(r);
	decode_bad(mdb_vmstat_m_decode,
		   "         Type InUse MemUse Requests  Size(s)\n"
		   "       devbuf   110    44      120  16\n",
		   MDB_E_CORRUPT, 2, "expected=TYPE and columns");
}

/* ---- vmstat --libxo json -------------------------------------------- */

static void test_vmstat_json(void **state)
{
	static const char plain[] =
		"{\"__version\": \"1\", \"memory-zone-statistics\": {\"zone\": "
		"[{\"name\":\"UMA Kegs\",\"size\":384,\"limit\":0,\"used\":174,"
		"\"free\":0,\"requests\":174,\"fail\":0,\"sleep\":0,"
		"\"xdomain\":0}, {\"name\":\"vm pgcache\",\"size\":4096,"
		"\"limit\":0,\"used\":10,\"free\":18,\"requests\":3000,"
		"\"fail\":0,\"sleep\":0,\"xdomain\":7}]}}";
	static const char wrapped[] =
		"{\"__version\": \"2\", \"vmstat\": {\"malloc-statistics\": "
		"{\"memory\": [{\"type\":\"devbuf\",\"in-use\":110,"
		"\"memory-use\":44,\"high-use\":\"-\",\"requests\":120,"
		"\"size\":[16,32,256]}, {\"type\":\"temp\",\"in-use\":1,"
		"\"memory-use\":977,\"requests\":4,\"size\":[]}]}}}";
	struct mdb_snap_info info;
	struct rec *r;

	(void)state;
	assert_true(mdb_vmstat_json_probe(" \n{", 3));
	r = decode_ok(mdb_vmstat_json_decode, plain, &info);
	assert_string_equal(info.version, "1");
	assert_int_equal(r->nzones, 2);
	assert_string_equal(r->zones[1].name, "vm pgcache");
	assert_int_equal(r->zones[1].z.v[MDB_ZC_FREE], 18);
	assert_int_equal(r->zones[1].z.v[MDB_ZC_XDOMAIN], 7);
	assert_int_equal(r->zones[1].z.v[MDB_ZC_BYTES], 40960);
	assert_int_equal(r->zones[1].z.line, -1);
	free(r);
	r = decode_ok(mdb_vmstat_json_decode, wrapped, &info);
	assert_string_equal(info.version, "2");
	assert_int_equal(r->nzones, 2);
	assert_int_equal(r->zones[0].z.kind, MDB_ZONE_MALLOC);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_BYTES], 44 * 1024);
	assert_int_equal(r->zones[0].z.approx, 1);
	assert_string_equal(r->zones[0].sizes, "16,32,256");
	assert_string_equal(r->zones[1].sizes, "");
	free(r);

	decode_bad(mdb_vmstat_json_decode, "{\"a\": 1, \"b\": [}", MDB_E_CORRUPT,
		   1, "column=");
	decode_bad(mdb_vmstat_json_decode,
		   "{\"interrupt-statistics\": {}}", MDB_E_FORMAT, -1,
		   "keys='interrupt-statistics'");
	decode_bad(mdb_vmstat_json_decode, "[1, 2]", MDB_E_FORMAT, -1,
		   "(not an object)");
	decode_bad(mdb_vmstat_json_decode,
		   "{\"memory-zone-statistics\": {\"zone\": {}}}",
		   MDB_E_FORMAT, -1, "at=memory-zone-statistics.zone "
		   "expected=array");
	decode_bad(mdb_vmstat_json_decode,
		   "{\"memory-zone-statistics\": {\"zone\": [{\"size\": 1}]}}",
		   MDB_E_FORMAT, -1,
		   "at=memory-zone-statistics.zone[0].name expected=string");
	decode_bad(mdb_vmstat_json_decode,
		   "{\"memory-zone-statistics\": {\"zone\": [{\"name\": \"a\","
		   " \"used\": -1}]}}", MDB_E_FORMAT, -1,
		   "at=memory-zone-statistics.zone[0].used expected=count");
	decode_bad(mdb_vmstat_json_decode,
		   "{\"malloc-statistics\": {\"memory\": [{\"type\": \"a\","
		   " \"size\": [\"x\"]}]}}", MDB_E_FORMAT, -1,
		   "at=malloc-statistics.memory[0].size expected=array of "
		   "sizes");
	decode_bad(mdb_vmstat_json_decode,
		   "{\"memory-zone-statistics\": {\"zone\": []}}",
		   MDB_E_EMPTY, -1, "");
	decode_bad(mdb_vmstat_json_decode, "", MDB_E_EMPTY, -1, "");
	decode_bad(mdb_allocinfo_decode, "", MDB_E_EMPTY, -1, "lines=0");
}

/* ---- /proc/slabinfo -------------------------------------------------- */

static void test_slabinfo(void **state)
{
	static const char text[] =
		"slabinfo - version: 2.1\n"
		"# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n"
		"kmalloc-64         12288  12288     64   64    1 : tunables    0    0    0 : slabdata    192    192      0\n"
		"request_sock_subflow_v6      0      0    392   20    2 : tunables    0    0    0 : slabdata      0      0      0\n"
		"bio-184               86    189    192   21    1 : tunables    0    0    0 : slabdata      9      9      0\n";
	struct mdb_snap_info info;
	const struct mdb_zone *z;
	struct rec *r;

	(void)state;
	assert_true(mdb_slabinfo_probe(text, sizeof(text) - 1));
	r = decode_ok(mdb_slabinfo_decode, text, &info);
	assert_string_equal(info.version, "2.1");
	assert_int_equal(r->nzones, 3);
	assert_string_equal(r->zones[1].name, "request_sock_subflow_v6");
	z = &r->zones[2].z;
	assert_int_equal(z->kind, MDB_ZONE_SLAB);
	assert_int_equal(z->v[MDB_ZC_ACTIVE_OBJS], 86);
	assert_int_equal(z->v[MDB_ZC_NUM_OBJS], 189);
	assert_int_equal(z->v[MDB_ZC_OBJSIZE], 192);
	assert_int_equal(z->v[MDB_ZC_OBJPERSLAB], 21);
	assert_int_equal(z->v[MDB_ZC_PAGESPERSLAB], 1);
	assert_int_equal(z->v[MDB_ZC_ACTIVE_SLABS], 9);
	assert_int_equal(z->v[MDB_ZC_NUM_SLABS], 9);
	assert_int_equal(z->v[MDB_ZC_USED], 86);
	assert_int_equal(z->v[MDB_ZC_FREE], 189 - 86);
	assert_int_equal(z->v[MDB_ZC_SIZE], 192);
	assert_int_equal(z->v[MDB_ZC_BYTES], 189 * 192);
	assert_int_equal(z->v[MDB_ZC_REQUESTS], MDB_NA);
	assert_int_equal(z->line, 5);
	free(r);
	/* without the header lines; a debugging kernel's extra section */
	r = decode_ok(mdb_slabinfo_decode,
		      "kmalloc-64 1 2 64 64 1 : tunables 0 0 0 : slabdata 1 1 0 "
		      ": globalstat 1 2 3\n", &info);
	assert_int_equal(r->zones[0].z.v[MDB_ZC_NUM_OBJS], 2);
	assert_string_equal(info.version, "");
	free(r);
	decode_bad(mdb_slabinfo_decode, "slabinfo - version: 1.1\n",
		   MDB_E_VERSION, 1, "version=1.1 supported=2.x");
	decode_bad(mdb_slabinfo_decode,
		   "slabinfo - version: 2.1\nkmalloc-64 1 2 64 64 1\n",
		   MDB_E_CORRUPT, 2, "expected=: tunables");
	decode_bad(mdb_slabinfo_decode,
		   "k 1 2 64 64 1 : tunables 0 0 0 : slabdata 1 x 0\n",
		   MDB_E_CORRUPT, 1, "expected=number got='x'");
	decode_bad(mdb_slabinfo_decode,
		   "k 1 2 64 64 1 : tunables 0 0 0 : slabdata 1 1\n",
		   MDB_E_CORRUPT, 1, "expected=9 columns");
	decode_bad(mdb_slabinfo_decode,
		   "k 1 2 64 64 1 : tunables 0 0 0 : slabdata 1 1 0 junk\n",
		   MDB_E_CORRUPT, 1, "expected=: section got='junk'");
	assert_false(mdb_slabinfo_probe("# just a comment\n", 17));
}

/* ---- report parameters ---------------------------------------------- */

static void test_query_uses(void **state)
{
	struct mdb_query q = { "t",
			       "-- :by in a comment\n"
			       "/* :sort too */ SELECT ':from', \":to\" "
			       "FROM x WHERE a = :src_lo AND b = :top_n "
			       "LIMIT :top;" };

	(void)state;
	assert_true(mdb_query_uses(&q, ":src_lo"));
	assert_true(mdb_query_uses(&q, ":top"));
	assert_true(mdb_query_uses(&q, ":top_n"));
	assert_false(mdb_query_uses(&q, ":by"));
	assert_false(mdb_query_uses(&q, ":sort"));
	assert_false(mdb_query_uses(&q, ":from"));
	assert_false(mdb_query_uses(&q, ":to"));
	assert_false(mdb_query_uses(&q, ":src"));
	assert_true(mdb_query_uses(mdb_query_find("growth"), ":from"));
	assert_true(mdb_query_uses(mdb_query_find("allocinfo"), ":by"));
	assert_false(mdb_query_uses(mdb_query_find("zones"), ":by"));
	assert_false(mdb_query_uses(mdb_query_find("fragmentation"),
				    ":sort"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uma_inline),
		cmocka_unit_test(test_uma_maxcpus),
		cmocka_unit_test(test_malloc_inline),
		cmocka_unit_test(test_memstat_errors),
		cmocka_unit_test(test_humanized),
		cmocka_unit_test(test_allocinfo_v1),
		cmocka_unit_test(test_allocinfo_v2),
		cmocka_unit_test(test_allocinfo_headerless_humanized),
		cmocka_unit_test(test_allocinfo_errors),
		cmocka_unit_test(test_vmstat_z_variants),
		cmocka_unit_test(test_vmstat_z_errors),
		cmocka_unit_test(test_vmstat_m_variants),
		cmocka_unit_test(test_vmstat_json),
		cmocka_unit_test(test_slabinfo),
		cmocka_unit_test(test_query_uses),
	};

	return cmocka_run_group_tests_name("snapshot decoders", tests, NULL,
					   NULL);
}
