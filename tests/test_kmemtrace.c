// SPDX-License-Identifier: MIT
/*
 * kmemtrace relay ABI v1 decoder: records from inline bytes in both byte
 * orders, skipping, corruption with offsets, byte-order detection, and
 * the seq_num merge with wraparound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../ingest/trace/kmemtrace.h"

/* ALLOC, kmalloc, seq 7: little-endian. */
static const uint8_t alloc_le[48] = {
	0x00,                                           /* event_id ALLOC */
	0x00,                                           /* type_id kmalloc */
	0x30, 0x00,                                     /* event_size 48 */
	0x07, 0x00, 0x00, 0x00,                         /* seq_num 7 */
	0x67, 0x45, 0x23, 0x81, 0xff, 0xff, 0xff, 0xff, /* call_site */
	0x00, 0x10, 0x00, 0x00, 0x81, 0x88, 0xff, 0xff, /* ptr */
	0x64, 0, 0, 0, 0, 0, 0, 0,                      /* bytes_req 100 */
	0x80, 0, 0, 0, 0, 0, 0, 0,                      /* bytes_alloc 128 */
	0xc0, 0x0c, 0x00, 0x00,                         /* gfp 0xcc0 */
	0xff, 0xff, 0xff, 0xff,                         /* node -1 */
};

/* The same ALLOC, big-endian. */
static const uint8_t alloc_be[48] = {
	0x00,                                           /* event_id ALLOC */
	0x00,                                           /* type_id kmalloc */
	0x00, 0x30,                                     /* event_size 48 */
	0x00, 0x00, 0x00, 0x07,                         /* seq_num 7 */
	0xff, 0xff, 0xff, 0xff, 0x81, 0x23, 0x45, 0x67, /* call_site */
	0xff, 0xff, 0x88, 0x81, 0x00, 0x00, 0x10, 0x00, /* ptr */
	0, 0, 0, 0, 0, 0, 0, 0x64,                      /* bytes_req 100 */
	0, 0, 0, 0, 0, 0, 0, 0x80,                      /* bytes_alloc 128 */
	0x00, 0x00, 0x0c, 0xc0,                         /* gfp 0xcc0 */
	0xff, 0xff, 0xff, 0xff,                         /* node -1 */
};

/* FREE, kmem_cache, seq 8, with 4 feature bytes: little-endian. */
static const uint8_t free_le[28] = {
	0x01,                                           /* event_id FREE */
	0x01,                                           /* type_id cache */
	0x1c, 0x00,                                     /* event_size 28 */
	0x08, 0x00, 0x00, 0x00,                         /* seq_num 8 */
	0x00, 0x00, 0x50, 0x81, 0xff, 0xff, 0xff, 0xff, /* call_site */
	0x00, 0x10, 0x00, 0x00, 0x81, 0x88, 0xff, 0xff, /* ptr */
	0x04, 0x00, 0x01, 0x00,                         /* feature */
};

/* The same FREE, big-endian. */
static const uint8_t free_be[28] = {
	0x01,                                           /* event_id FREE */
	0x01,                                           /* type_id cache */
	0x00, 0x1c,                                     /* event_size 28 */
	0x00, 0x00, 0x00, 0x08,                         /* seq_num 8 */
	0xff, 0xff, 0xff, 0xff, 0x81, 0x50, 0x00, 0x00, /* call_site */
	0xff, 0xff, 0x88, 0x81, 0x00, 0x00, 0x10, 0x00, /* ptr */
	0x00, 0x04, 0x01, 0x00,                         /* feature */
};

static void check_pair(const uint8_t *a, const uint8_t *f, enum mdb_order o)
{
	uint8_t buf[76];
	struct kt_stream s;
	struct kt_record r;
	struct mdb_error e;

	memcpy(buf, a, 48);
	memcpy(buf + 48, f, 28);
	mdb_kt_stream_init(&s, "cpu0", 0, buf, sizeof(buf), o);

	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 1);
	assert_int_equal(r.ev.kind, MDB_EV_ALLOC);
	assert_int_equal(r.ev.type, MDB_TYPE_KMALLOC);
	assert_int_equal(r.raw_seq, 7);
	assert_int_equal(r.ev.call_site, 0xffffffff81234567ULL);
	assert_int_equal(r.ev.ptr, 0xffff888100001000ULL);
	assert_int_equal(r.ev.bytes_req, 100);
	assert_int_equal(r.ev.bytes_alloc, 128);
	assert_int_equal(r.ev.gfp, 0xcc0);
	assert_int_equal(r.ev.node, -1);
	assert_int_equal(r.off, 0);

	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 1);
	assert_int_equal(r.ev.kind, MDB_EV_FREE);
	assert_int_equal(r.ev.type, MDB_TYPE_CACHE);
	assert_int_equal(r.raw_seq, 8);
	assert_int_equal(r.ev.call_site, 0xffffffff81500000ULL);
	assert_int_equal(r.ev.ptr, 0xffff888100001000ULL);
	assert_int_equal(r.off, 48);
	assert_int_equal(s.feature_bytes, 4);

	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 0);
}

static void test_records_le(void **state)
{
	(void)state;
	check_pair(alloc_le, free_le, MDB_ORDER_LITTLE);
}

static void test_records_be(void **state)
{
	(void)state;
	check_pair(alloc_be, free_be, MDB_ORDER_BIG);
}

static void test_unknown_id_skipped(void **state)
{
	uint8_t buf[24 + 48];
	struct kt_stream s;
	struct kt_record r;
	struct mdb_error e;

	(void)state;
	memset(buf, 0, 24);
	buf[0] = 9;    /* event_id 9: unknown */
	buf[2] = 24;   /* event_size 24 (LE) */
	buf[4] = 6;    /* seq 6 */
	memcpy(buf + 24, alloc_le, 48);
	mdb_kt_stream_init(&s, "cpu0", 0, buf, sizeof(buf), MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 2);
	assert_int_equal(r.raw_seq, 6);
	assert_int_equal(s.unknown, 1);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 1);
	assert_int_equal(r.raw_seq, 7);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 0);

	/* an unknown type id is skipped the same way */
	buf[0] = 0;
	buf[1] = 3;
	mdb_kt_stream_init(&s, "cpu0", 0, buf, sizeof(buf), MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 2);
}

static void test_truncated(void **state)
{
	struct kt_stream s;
	struct kt_record r;
	struct mdb_error e;
	uint8_t buf[48 + 10];

	(void)state;
	/* a whole record, then 10 bytes */
	memcpy(buf, alloc_le, 48);
	memcpy(buf + 48, alloc_le, 10);
	mdb_kt_stream_init(&s, "cpu3", 3, buf, sizeof(buf), MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), 1);
	mdb_error_clear(&e);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), -MDB_E_TRUNCATED);
	assert_string_equal(e.file, "cpu3");
	assert_int_equal(e.offset, 48);
	assert_string_equal(e.detail, "need=24 have=10");

	/* a header whose event_size runs past the end */
	mdb_kt_stream_init(&s, "cpu3", 3, alloc_le, 40, MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), -MDB_E_TRUNCATED);
	assert_int_equal(e.offset, 0);
	assert_string_equal(e.detail, "event_size=48 have=40");
}

static void test_event_size_too_small(void **state)
{
	uint8_t buf[48];
	struct kt_stream s;
	struct kt_record r;
	struct mdb_error e;

	(void)state;
	memcpy(buf, alloc_le, 48);
	buf[2] = 16; /* below the 24-byte header */
	mdb_kt_stream_init(&s, "cpu0", 0, buf, 48, MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), -MDB_E_CORRUPT);
	assert_string_equal(e.msg, "event_size smaller than the record header");
	assert_int_equal(e.offset, 0);

	buf[2] = 24; /* an ALLOC cannot fit in 24 bytes */
	mdb_kt_stream_init(&s, "cpu0", 0, buf, 48, MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_stream_next(&s, &r, &e), -MDB_E_CORRUPT);
	assert_string_equal(e.msg, "event_size smaller than an alloc record");
	assert_string_equal(e.detail, "event_size=24 min=48");
}

static void test_detect(void **state)
{
	struct kt_stream s[2];
	enum mdb_order o = MDB_ORDER_UNKNOWN;
	struct mdb_error e;
	uint8_t both[76];
	static const char text[] = "not a kmemtrace file at all, just text\n";

	(void)state;
	memcpy(both, alloc_le, 48);
	memcpy(both + 48, free_le, 28);
	mdb_kt_stream_init(&s[0], "cpu0", 0, both, sizeof(both),
			   MDB_ORDER_UNKNOWN);
	mdb_kt_stream_init(&s[1], "cpu1", 1, NULL, 0, MDB_ORDER_UNKNOWN);
	assert_int_equal(mdb_kt_detect_order(s, 2, &o, &e), 0);
	assert_int_equal(o, MDB_ORDER_LITTLE);

	memcpy(both, alloc_be, 48);
	memcpy(both + 48, free_be, 28);
	assert_int_equal(mdb_kt_detect_order(s, 2, &o, &e), 0);
	assert_int_equal(o, MDB_ORDER_BIG);

	/* one lone FREE record: 24 reads 0x1800 the other way round */
	mdb_kt_stream_init(&s[0], "cpu0", 0, free_be, 24, MDB_ORDER_UNKNOWN);
	s[0].len = 24;
	{
		uint8_t one[24];

		memcpy(one, free_be, 24);
		one[3] = 24; /* event_size 24, big-endian */
		mdb_kt_stream_init(&s[0], "cpu0", 0, one, 24, MDB_ORDER_UNKNOWN);
		assert_int_equal(mdb_kt_detect_order(s, 1, &o, &e), 0);
		assert_int_equal(o, MDB_ORDER_BIG);
	}

	mdb_kt_stream_init(&s[0], "junk", 0, text, sizeof(text) - 1,
			   MDB_ORDER_UNKNOWN);
	assert_int_equal(mdb_kt_detect_order(s, 1, &o, &e), -MDB_E_FORMAT);
	assert_string_equal(e.file, "junk");
	assert_int_equal(e.offset, 0);
}

/* Ambiguous data: a record whose event_size reads 0x3030 either way
 * inside a file large enough to hold it. */
static void test_detect_ambiguous(void **state)
{
	static uint8_t buf[0x3030];
	struct kt_stream s;
	enum mdb_order o;
	struct mdb_error e;

	(void)state;
	memset(buf, 0, sizeof(buf));
	buf[2] = 0x30;
	buf[3] = 0x30; /* event_size 0x3030 in both orders */
	buf[4] = 1;    /* seq */
	mdb_kt_stream_init(&s, "cpu0", 0, buf, sizeof(buf), MDB_ORDER_UNKNOWN);
	assert_int_equal(mdb_kt_detect_order(&s, 1, &o, &e), -MDB_E_ENDIAN);
	assert_non_null(strstr(e.hint, "--endian"));
}

/* An in-memory sink collecting seq and kind of each event. */
struct collect {
	int64_t seq[16];
	uint64_t ptr[16];
	int kind[16];
	int n;
};

static int collect_event(void *ctx, const struct mdb_event *ev)
{
	struct collect *c = ctx;

	assert_true(c->n < 16);
	c->seq[c->n] = ev->seq;
	c->ptr[c->n] = ev->ptr;
	c->kind[c->n] = ev->kind;
	c->n++;
	return 0;
}

static void put_rec(uint8_t *b, int id, uint32_t seq, uint64_t ptr,
		    enum mdb_order o)
{
	memset(b, 0, id ? 24 : 48);
	b[0] = (uint8_t)id;
	put_u16(b + 2, id ? 24 : 48, o);
	put_u32(b + 4, seq, o);
	put_u64(b + 16, ptr, o);
	if (!id) {
		put_u64(b + 24, 8, o);
		put_u64(b + 32, 8, o);
	}
}

/*
 * Wraparound: cpu0 holds seq 0x7ffffffe (ALLOC P) and 0x7fffffff;
 * cpu1 holds 0x80000000 (FREE P) and 0x80000001.  A signed comparison
 * would put the FREE first; serial arithmetic keeps it after.
 */
static void test_merge_wrap(void **state)
{
	uint8_t c0[96], c1[48];
	struct kt_stream s[2];
	struct collect col = { 0 };
	struct mdb_sink sink = { &col, collect_event, NULL };
	struct mdb_decode_stats st;
	struct mdb_error e;

	(void)state;
	put_rec(c0, 0, 0x7ffffffe, 0x1000, MDB_ORDER_LITTLE);
	put_rec(c0 + 48, 0, 0x7fffffff, 0x2000, MDB_ORDER_LITTLE);
	put_rec(c1, 1, 0x80000000, 0x1000, MDB_ORDER_LITTLE);
	put_rec(c1 + 24, 1, 0x80000001, 0x2000, MDB_ORDER_LITTLE);
	mdb_kt_stream_init(&s[0], "cpu0", 0, c0, 96, MDB_ORDER_LITTLE);
	mdb_kt_stream_init(&s[1], "cpu1", 1, c1, 48, MDB_ORDER_LITTLE);
	assert_int_equal(mdb_kt_merge(s, 2, &sink, &st, &e), 0);
	assert_int_equal(col.n, 4);
	assert_int_equal(col.kind[0], MDB_EV_ALLOC);
	assert_int_equal(col.kind[1], MDB_EV_ALLOC);
	assert_int_equal(col.kind[2], MDB_EV_FREE);
	assert_int_equal(col.ptr[2], 0x1000);
	/* positions are the seq numbers unwrapped to 64 bits */
	assert_int_equal(col.seq[0], 0x7ffffffeLL);
	assert_int_equal(col.seq[3], 0x80000001LL);
	assert_int_equal(st.seq_missing, 0);
	assert_int_equal(st.seq_disorder, 0);
}

/* Gaps in seq_num (lost events) and interleaving of three CPUs. */
static void test_merge_gaps(void **state)
{
	uint8_t c0[48 * 2], c1[48 * 2], c2[48];
	struct kt_stream s[3];
	struct collect col = { 0 };
	struct mdb_sink sink = { &col, collect_event, NULL };
	struct mdb_decode_stats st;
	struct mdb_error e;

	(void)state;
	put_rec(c0, 0, 1, 0x1000, MDB_ORDER_BIG);
	put_rec(c0 + 48, 0, 5, 0x5000, MDB_ORDER_BIG);
	put_rec(c1, 0, 2, 0x2000, MDB_ORDER_BIG);
	put_rec(c1 + 48, 0, 9, 0x9000, MDB_ORDER_BIG);
	put_rec(c2, 0, 3, 0x3000, MDB_ORDER_BIG);
	mdb_kt_stream_init(&s[0], "cpu0", 0, c0, sizeof(c0), MDB_ORDER_BIG);
	mdb_kt_stream_init(&s[1], "cpu1", 1, c1, sizeof(c1), MDB_ORDER_BIG);
	mdb_kt_stream_init(&s[2], "cpu2", 2, c2, sizeof(c2), MDB_ORDER_BIG);
	assert_int_equal(mdb_kt_merge(s, 3, &sink, &st, &e), 0);
	assert_int_equal(col.n, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(col.ptr[i], (uint64_t)col.seq[i] << 12);
	/* 4, 6, 7, 8 never seen */
	assert_int_equal(st.seq_missing, 4);
	assert_int_equal(st.first_seq, 1);
	assert_int_equal(st.last_seq, 9);
}

/*
 * The one decoder shape over a lone per-CPU file, in both byte orders:
 * the order is detected, the CPU comes from the options, and the hand
 * fixture above decodes to the values written in it.
 */
static void test_decode_shape(void **state)
{
	static const uint8_t *const allocs[2] = { alloc_le, alloc_be };
	static const uint8_t *const frees[2] = { free_le, free_be };

	(void)state;
	for (int i = 0; i < 2; i++) {
		uint8_t buf[76];
		struct collect col = { 0 };
		struct mdb_sink sink = { &col, collect_event, NULL };
		struct mdb_decode_opts o;
		struct mdb_decode_stats st;
		struct mdb_error e;

		memcpy(buf, allocs[i], 48);
		memcpy(buf + 48, frees[i], 28);
		mdb_decode_opts_init(&o, "cpu3");
		o.cpu = 3;
		assert_int_equal(mdb_kt_decode(buf, sizeof(buf), &o, &sink, &st,
					       &e), 0);
		assert_int_equal(col.n, 2);
		assert_int_equal(col.kind[0], MDB_EV_ALLOC);
		assert_int_equal(col.kind[1], MDB_EV_FREE);
		assert_int_equal(col.ptr[0], 0xffff888100001000ULL);
		assert_int_equal(col.ptr[1], 0xffff888100001000ULL);
		assert_int_equal(col.seq[0], 7);
		assert_int_equal(col.seq[1], 8);
		assert_int_equal(st.feature_bytes, 4);
		/* cut inside the FREE: an error at its offset */
		assert_true(mdb_kt_decode(buf, 70, &o, &sink, &st, &e) < 0);
		assert_int_equal(e.offset, 48);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_le),
		cmocka_unit_test(test_records_be),
		cmocka_unit_test(test_unknown_id_skipped),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_event_size_too_small),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_detect_ambiguous),
		cmocka_unit_test(test_merge_wrap),
		cmocka_unit_test(test_merge_gaps),
		cmocka_unit_test(test_decode_shape),
	};

	return cmocka_run_group_tests_name("kmemtrace relay decoder", tests,
					   NULL, NULL);
}
