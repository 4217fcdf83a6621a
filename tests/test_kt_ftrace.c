// SPDX-License-Identifier: MIT
/*
 * The ftrace-era kmemtrace binary decoder (ingest/trace/kt_ftrace.c): inline
 * records of both word sizes in both byte orders, with and without the
 * ftrace "bin" prefix, decode to the values written in them; the layout
 * is detected; unknown ids are skipped; corruption names its offset;
 * relay records and text are not taken for this format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../common/bytes.h"
#include "../ingest/trace/kt_ftrace.h"

/* LP64 little-endian, written out byte by byte. */
static const uint8_t lp64_le[] = {
	/* ALLOC: kmalloc */
	0x00,                                           /* event_id ALLOC */
	0x00,                                           /* type_id kmalloc */
	0x38, 0x00,                                     /* event_size 56 */
	0x01, 0x00, 0x00, 0x00,                         /* cpu 1 */
	0x00, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00, /* ts 1000000000 */
	0x67, 0x45, 0x23, 0x81, 0xff, 0xff, 0xff, 0xff, /* call_site */
	0x00, 0x10, 0x00, 0x00, 0x81, 0x88, 0xff, 0xff, /* ptr */
	0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* bytes_req 100 */
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* bytes_alloc 128 */
	0xc0, 0x0c, 0x00, 0x00,                         /* gfp 0xcc0 */
	0xff, 0xff, 0xff, 0xff,                         /* node -1 */
	/* an unknown event id: skipped, takes a position */
	0x07, 0x00, 0x20, 0x00,                         /* id 7, size 32 */
	0x00, 0x00, 0x00, 0x00,                         /* cpu 0 */
	0x01, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00, /* ts */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* FREE: kmem_cache_free */
	0x01,                                           /* event_id FREE */
	0x01,                                           /* type_id cache */
	0x20, 0x00,                                     /* event_size 32 */
	0x00, 0x00, 0x00, 0x00,                         /* cpu 0 */
	0xe8, 0xcd, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00, /* ts 1000001000 */
	0x00, 0x00, 0x50, 0x81, 0xff, 0xff, 0xff, 0xff, /* call_site */
	0x00, 0x10, 0x00, 0x00, 0x81, 0x88, 0xff, 0xff, /* ptr */
};

/* ILP32 little-endian. */
static const uint8_t ilp32_le[] = {
	/* ALLOC: kmem_cache_alloc */
	0x00, 0x01, 0x28, 0x00,         /* ALLOC, cache, event_size 40 */
	0x02, 0x00, 0x00, 0x00,         /* cpu 2 */
	0x00, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00, /* ts 1000000000 */
	0x67, 0x45, 0x23, 0xc1,         /* call_site 0xc1234567 */
	0x00, 0x20, 0x00, 0xf5,         /* ptr 0xf5002000 */
	0xc0, 0x00, 0x00, 0x00,         /* bytes_req 192 */
	0x00, 0x01, 0x00, 0x00,         /* bytes_alloc 256 */
	0xd0, 0x00, 0x00, 0x00,         /* gfp 0xd0 */
	0x00, 0x00, 0x00, 0x00,         /* node 0 */
	/* FREE: kfree */
	0x01, 0x00, 0x18, 0x00,         /* FREE, kmalloc, event_size 24 */
	0x03, 0x00, 0x00, 0x00,         /* cpu 3 */
	0xe8, 0xcd, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00, /* ts 1000001000 */
	0x00, 0x00, 0x50, 0xc1,         /* call_site 0xc1500000 */
	0x00, 0x20, 0x00, 0xf5,         /* ptr 0xf5002000 */
};

/*
 * The same records in another byte order, or behind "bin" prefixes:
 * each field is reversed in place, the prefix (int pid, int cpu, u64 ts)
 * built from the record's own cpu and ts.
 */
static size_t convert(const uint8_t *in, size_t len, int word, int to_be,
		      int prefix, uint8_t *out)
{
	static const int lp64[] = { 1, 1, 2, 4, 8, 8, 8, 8, 8, 4, 4, 0 };
	static const int ilp32[] = { 1, 1, 2, 4, 8, 4, 4, 4, 4, 4, 4, 0 };
	const int *f = word == 8 ? lp64 : ilp32;
	size_t off = 0, o = 0;

	while (off < len) {
		unsigned size = get_le16(in + off + 2);
		size_t p = 0;

		if (prefix) {
			put_u32(out + o, 4242, to_be ? MDB_ORDER_BIG :
						       MDB_ORDER_LITTLE);
			put_u32(out + o + 4, get_le32(in + off + 4),
				to_be ? MDB_ORDER_BIG : MDB_ORDER_LITTLE);
			put_u64(out + o + 8, get_le64(in + off + 8),
				to_be ? MDB_ORDER_BIG : MDB_ORDER_LITTLE);
			o += KTF_PREFIX;
		}
		for (int i = 0; f[i] && p < size; p += (size_t)f[i], i++)
			for (int b = 0; b < f[i]; b++)
				out[o + p + (size_t)b] =
					in[off + p + (size_t)(to_be ?
							      f[i] - 1 - b : b)];
		memcpy(out + o + p, in + off + p, size - p);
		off += size;
		o += size;
	}
	return o;
}

struct rec {
	struct mdb_event ev[8];
	int n;
};

static int rec_event(void *ctx, const struct mdb_event *ev)
{
	struct rec *r = ctx;

	assert_true(r->n < 8);
	r->ev[r->n++] = *ev;
	return 0;
}

static int decode(const uint8_t *buf, size_t len, struct rec *r,
		  struct mdb_decode_stats *st, struct mdb_error *e,
		  struct ktf_layout *l)
{
	struct mdb_decode_opts o;
	struct mdb_sink sink = { r, rec_event, NULL };

	memset(r, 0, sizeof(*r));
	if (mdb_ktf_detect(buf, len, MDB_ORDER_UNKNOWN, l))
		return 1;
	mdb_decode_opts_init(&o, "bin");
	o.priv = l;
	return mdb_ktf_decode(buf, len, &o, &sink, st, e);
}

static void check_lp64(const struct rec *r, const struct mdb_decode_stats *st)
{
	assert_int_equal(r->n, 2);
	assert_int_equal(r->ev[0].seq, 1);
	assert_int_equal(r->ev[0].kind, MDB_EV_ALLOC);
	assert_int_equal(r->ev[0].type, MDB_TYPE_KMALLOC);
	assert_int_equal(r->ev[0].cpu, 1);
	assert_int_equal(r->ev[0].ts, 1000000000);
	assert_int_equal(r->ev[0].call_site, 0xffffffff81234567ULL);
	assert_int_equal(r->ev[0].ptr, 0xffff888100001000ULL);
	assert_int_equal(r->ev[0].bytes_req, 100);
	assert_int_equal(r->ev[0].bytes_alloc, 128);
	assert_int_equal(r->ev[0].gfp, 0xcc0);
	assert_int_equal(r->ev[0].node, -1);
	assert_int_equal(r->ev[1].seq, 3);
	assert_int_equal(r->ev[1].kind, MDB_EV_FREE);
	assert_int_equal(r->ev[1].type, MDB_TYPE_CACHE);
	assert_int_equal(r->ev[1].cpu, 0);
	assert_int_equal(r->ev[1].ts, 1000001000);
	assert_int_equal(r->ev[1].call_site, 0xffffffff81500000ULL);
	assert_int_equal(r->ev[1].ptr, 0xffff888100001000ULL);
	assert_int_equal(st->records, 3);
	assert_int_equal(st->events, 2);
	assert_int_equal(st->unknown, 1);
	assert_int_equal(st->ncpus, 2);
}

static void check_ilp32(const struct rec *r)
{
	assert_int_equal(r->n, 2);
	assert_int_equal(r->ev[0].type, MDB_TYPE_CACHE);
	assert_int_equal(r->ev[0].cpu, 2);
	assert_int_equal(r->ev[0].call_site, 0xc1234567);
	assert_int_equal(r->ev[0].ptr, 0xf5002000);
	assert_int_equal(r->ev[0].bytes_req, 192);
	assert_int_equal(r->ev[0].bytes_alloc, 256);
	assert_int_equal(r->ev[0].gfp, 0xd0);
	assert_int_equal(r->ev[0].node, 0);
	assert_int_equal(r->ev[1].kind, MDB_EV_FREE);
	assert_int_equal(r->ev[1].cpu, 3);
	assert_int_equal(r->ev[1].ts, 1000001000);
	assert_int_equal(r->ev[1].call_site, 0xc1500000);
	assert_int_equal(r->ev[1].ptr, 0xf5002000);
}

/* Both word sizes, both byte orders, with and without the prefix. */
static void test_layouts(void **state)
{
	uint8_t buf[512];
	struct rec r;
	struct mdb_decode_stats st;
	struct mdb_error e;
	struct ktf_layout l;

	(void)state;
	for (int word = 4; word <= 8; word += 4)
		for (int be = 0; be < 2; be++)
			for (int prefix = 0; prefix < 2; prefix++) {
				const uint8_t *in = word == 8 ? lp64_le :
								ilp32_le;
				size_t len = word == 8 ? sizeof(lp64_le) :
							 sizeof(ilp32_le);

				len = convert(in, len, word, be, prefix, buf);
				assert_int_equal(decode(buf, len, &r, &st, &e,
							&l), 0);
				assert_int_equal(l.word, word);
				assert_int_equal(l.prefix, prefix);
				assert_int_equal(l.order, be ? MDB_ORDER_BIG :
							       MDB_ORDER_LITTLE);
				if (word == 8)
					check_lp64(&r, &st);
				else
					check_ilp32(&r);
			}
}

/* The converter is the identity on the hand-written bytes. */
static void test_convert_identity(void **state)
{
	uint8_t buf[512];

	(void)state;
	assert_int_equal(convert(lp64_le, sizeof(lp64_le), 8, 0, 0, buf),
			 sizeof(lp64_le));
	assert_memory_equal(buf, lp64_le, sizeof(lp64_le));
}

/* A record cut short, or too small, after good ones: file offset. */
static void test_corrupt(void **state)
{
	uint8_t buf[1024];
	struct rec r;
	struct mdb_decode_stats st;
	struct mdb_error e;
	struct ktf_layout l;
	size_t n = 0;

	(void)state;
	/* four ALLOC+unknown+FREE groups, then a cut ALLOC */
	for (int i = 0; i < 4; i++, n += sizeof(lp64_le))
		memcpy(buf + n, lp64_le, sizeof(lp64_le));
	memcpy(buf + n, lp64_le, 40);
	assert_int_equal(decode(buf, n + 40, &r, &st, &e, &l),
			 -MDB_E_TRUNCATED);
	assert_int_equal(e.offset, (int64_t)n);
	assert_string_equal(e.detail, "event_size=56 have=40");

	/* an ALLOC whose event_size (32) cannot hold it */
	memcpy(buf + n, lp64_le, 56);
	put_le16(buf + n + 2, 32);
	assert_int_equal(decode(buf, n + 56, &r, &st, &e, &l),
			 -MDB_E_CORRUPT);
	assert_int_equal(e.offset, (int64_t)n);
	assert_string_equal(e.msg, "event_size smaller than an alloc record");
	assert_string_equal(e.detail, "event_size=32 min=56");
}

/* Relay records (ALLOC 48 bytes), text, and noise are not this format. */
static void test_not_this_format(void **state)
{
	uint8_t relay[72] = { 0 };
	static const char text[] = "            bash-1  [000] 1.0: kfree: "
				   "call_site=1 ptr=0\n";
	struct ktf_layout l;

	(void)state;
	relay[2] = 48;          /* ALLOC, event_size 48 */
	relay[4] = 1;           /* seq 1 */
	relay[48] = 1;          /* FREE */
	relay[50] = 24;
	relay[52] = 2;
	assert_int_equal(mdb_ktf_detect(relay, sizeof(relay), MDB_ORDER_UNKNOWN,
					&l), 1);
	assert_int_equal(mdb_ktf_detect(text, sizeof(text) - 1, MDB_ORDER_UNKNOWN,
					&l), 1);
	assert_int_equal(mdb_ktf_detect(lp64_le, 10, MDB_ORDER_UNKNOWN, &l), 1);
	/* a forced byte order that does not fit */
	assert_int_equal(mdb_ktf_detect(lp64_le, sizeof(lp64_le), MDB_ORDER_BIG,
					&l), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convert_identity),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_not_this_format),
	};

	return cmocka_run_group_tests_name("ftrace-era kmemtrace binary",
					   tests, NULL, NULL);
}
