// SPDX-License-Identifier: MIT
/*
 * Alloc/free pairing (docs/design.md §4.3): every rule on hand-made
 * event sequences, checked against outcomes written out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../analysis/pair.h"
#include "../ingest/event.h"

struct out {
	struct mdb_lifetime lt[32];
	struct mdb_free bf[32];
	int nlt, nbf;
	long total; /* lifetimes seen, kept or not */
};

static int on_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	struct out *o = ctx;

	o->total++;
	if (o->nlt < 32)
		o->lt[o->nlt++] = *lt;
	return 0;
}

static int on_bad_free(void *ctx, const struct mdb_free *f)
{
	struct out *o = ctx;

	assert_true(o->nbf < 32);
	o->bf[o->nbf++] = *f;
	return 0;
}

static struct mdb_pair pair;
static struct out out;

static int setup(void **state)
{
	struct mdb_pair_ops ops = { &out, on_lifetime, on_bad_free };

	(void)state;
	memset(&out, 0, sizeof(out));
	mdb_pair_init(&pair, &ops);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mdb_pair_release(&pair);
	return 0;
}

static void alloc(int64_t seq, int cpu, int type, uint64_t ptr, uint64_t req,
		  uint64_t size)
{
	struct mdb_lifetime lt = {
		.seq = seq, .ts = MDB_NO_TS, .ptr = ptr, .bytes_req = req,
		.bytes_alloc = size, .gfp = 0, .site_id = 1, .cpu = cpu,
		.node = -1, .type = (uint8_t)type,
	};

	assert_int_equal(mdb_pair_alloc(&pair, &lt), 0);
}

static void release(int64_t seq, int cpu, int type, uint64_t ptr)
{
	struct mdb_free f = {
		.seq = seq, .ts = MDB_NO_TS, .ptr = ptr, .site_id = 2,
		.cpu = cpu, .type = (uint8_t)type,
	};

	assert_int_equal(mdb_pair_free(&pair, &f), 0);
}

#define A 0xffff888100001000ULL
#define B 0xffff888100002000ULL

/* ALLOC then FREE on another CPU: one freed lifetime. */
static void test_alloc_free(void **state)
{
	(void)state;
	alloc(1, 0, MDB_TYPE_KMALLOC, A, 100, 128);
	release(2, 1, MDB_TYPE_KMALLOC, A);
	assert_int_equal(out.nlt, 1);
	assert_int_equal(out.lt[0].state, MDB_ST_FREED);
	assert_int_equal(out.lt[0].seq, 1);
	assert_int_equal(out.lt[0].end_seq, 2);
	assert_int_equal(out.lt[0].free_cpu, 1);
	assert_int_equal(out.lt[0].free_site_id, 2);
	assert_int_equal(out.lt[0].free_type, MDB_TYPE_KMALLOC);
	assert_int_equal(mdb_pair_live(&pair), 0);
}

/* NULL and ZERO_SIZE_PTR results never enter the live map. */
static void test_null_and_zero_size(void **state)
{
	(void)state;
	alloc(1, 0, MDB_TYPE_KMALLOC, 0, 64, 64);
	alloc(2, 0, MDB_TYPE_KMALLOC, 0x10, 0, 0);
	assert_int_equal(out.nlt, 2);
	assert_int_equal(out.lt[0].state, MDB_ST_FAILED);
	assert_int_equal(out.lt[1].state, MDB_ST_ZERO);
	assert_int_equal(out.lt[1].end_seq, MDB_NO_SEQ);
	assert_int_equal(mdb_pair_live(&pair), 0);
	/* kfree(ZERO_SIZE_PTR) and kfree(NULL): NULL frees */
	release(3, 0, MDB_TYPE_KMALLOC, 0x10);
	release(4, 0, MDB_TYPE_KMALLOC, 0);
	assert_int_equal(out.nbf, 2);
	assert_int_equal(out.bf[0].class, MDB_FREE_NULL);
	assert_int_equal(out.bf[1].class, MDB_FREE_NULL);
}

/* ALLOC of a live address: the earlier one ends as free not traced. */
static void test_free_not_traced(void **state)
{
	(void)state;
	alloc(1, 0, MDB_TYPE_CACHE, A, 24, 32);
	alloc(5, 1, MDB_TYPE_CACHE, A, 24, 32);
	assert_int_equal(out.nlt, 1);
	assert_int_equal(out.lt[0].seq, 1);
	assert_int_equal(out.lt[0].state, MDB_ST_NOT_TRACED);
	assert_int_equal(out.lt[0].end_seq, 5);
	assert_int_equal(out.lt[0].free_cpu, -1);
	assert_int_equal(out.lt[0].free_type, -1);
	release(6, 1, MDB_TYPE_CACHE, A);
	assert_int_equal(out.nlt, 2);
	assert_int_equal(out.lt[1].seq, 5);
	assert_int_equal(out.lt[1].state, MDB_ST_FREED);
}

/* Type mismatches end the allocation and keep both types. */
static void test_mismatch(void **state)
{
	(void)state;
	alloc(1, 0, MDB_TYPE_KMALLOC, A, 8, 8);
	alloc(2, 0, MDB_TYPE_CACHE, B, 8, 8);
	release(3, 0, MDB_TYPE_CACHE, A);   /* kmem_cache_free(kmalloc obj) */
	release(4, 0, MDB_TYPE_KMALLOC, B); /* kfree(cache obj) */
	assert_int_equal(out.nlt, 2);
	assert_int_equal(out.lt[0].type, MDB_TYPE_KMALLOC);
	assert_int_equal(out.lt[0].free_type, MDB_TYPE_CACHE);
	assert_int_equal(out.lt[1].type, MDB_TYPE_CACHE);
	assert_int_equal(out.lt[1].free_type, MDB_TYPE_KMALLOC);
	assert_int_equal(out.nbf, 0);
}

/*
 * Unknown and duplicate frees where every allocation path is traced
 * (kmemtrace era): a traced allocation freed twice is a duplicate free;
 * a free of an address never allocated leaves no mark, so freeing it
 * again is another unknown free.
 */
static void test_bad_frees(void **state)
{
	(void)state;
	mdb_pair_set_all_traced(&pair, 1);
	release(1, 0, MDB_TYPE_KMALLOC, B);  /* never seen: unknown */
	alloc(2, 0, MDB_TYPE_KMALLOC, A, 8, 8);
	release(3, 0, MDB_TYPE_KMALLOC, A);
	release(4, 1, MDB_TYPE_KMALLOC, A);  /* duplicate of 3 */
	release(5, 1, MDB_TYPE_KMALLOC, A);  /* duplicate of 4 */
	release(6, 0, MDB_TYPE_KMALLOC, B);  /* B never allocated: unknown */
	assert_int_equal(out.nbf, 4);
	assert_int_equal(out.bf[0].class, MDB_FREE_UNKNOWN);
	assert_int_equal(out.bf[0].prev_seq, MDB_NO_SEQ);
	assert_int_equal(out.bf[1].class, MDB_FREE_DUPLICATE);
	assert_int_equal(out.bf[1].prev_seq, 3);
	assert_int_equal(out.bf[2].class, MDB_FREE_DUPLICATE);
	assert_int_equal(out.bf[2].prev_seq, 4);
	assert_int_equal(out.bf[3].class, MDB_FREE_UNKNOWN);
	assert_int_equal(out.bf[3].prev_seq, MDB_NO_SEQ);
	/* allocated again: a free is good again */
	alloc(7, 0, MDB_TYPE_KMALLOC, A, 8, 8);
	release(8, 0, MDB_TYPE_KMALLOC, A);
	assert_int_equal(out.nbf, 4);
	assert_int_equal(out.lt[out.nlt - 1].state, MDB_ST_FREED);
	/* B allocated after its unknown frees pairs as usual, and a second
	 * free of it is then a duplicate */
	alloc(9, 0, MDB_TYPE_CACHE, B, 8, 8);
	release(10, 0, MDB_TYPE_CACHE, B);
	release(11, 1, MDB_TYPE_CACHE, B);
	assert_int_equal(out.lt[out.nlt - 1].seq, 9);
	assert_int_equal(out.lt[out.nlt - 1].end_seq, 10);
	assert_int_equal(out.nbf, 5);
	assert_int_equal(out.bf[4].class, MDB_FREE_DUPLICATE);
	assert_int_equal(out.bf[4].prev_seq, 10);
}

/*
 * Every allocation path traced, but positions missing between the two
 * frees (lost events, unknown records, a lone per-CPU file): the missing
 * event may be the allocation, so the second free is only a suspect.
 */
static void test_duplicate_needs_every_event(void **state)
{
	(void)state;
	mdb_pair_set_all_traced(&pair, 1);
	alloc(1, 0, MDB_TYPE_KMALLOC, A, 8, 8);
	alloc(2, 0, MDB_TYPE_KMALLOC, B, 8, 8);
	release(3, 0, MDB_TYPE_KMALLOC, A);
	release(4, 0, MDB_TYPE_KMALLOC, B);
	release(7, 0, MDB_TYPE_KMALLOC, A);  /* 5 and 6 missing: suspect */
	release(8, 0, MDB_TYPE_KMALLOC, A);  /* nothing missing since 7 */
	release(9, 0, MDB_TYPE_KMALLOC, B);  /* 5 and 6 lie between 4 and 9 */
	assert_int_equal(out.nbf, 3);
	assert_int_equal(out.bf[0].class, MDB_FREE_DUPLICATE_SUSPECT);
	assert_int_equal(out.bf[0].prev_seq, 3);
	assert_int_equal(out.bf[1].class, MDB_FREE_DUPLICATE);
	assert_int_equal(out.bf[1].prev_seq, 7);
	assert_int_equal(out.bf[2].class, MDB_FREE_DUPLICATE_SUSPECT);
	/* a gap before the allocation does not matter */
	alloc(20, 0, MDB_TYPE_CACHE, A, 8, 8);
	release(21, 0, MDB_TYPE_CACHE, A);
	release(22, 0, MDB_TYPE_CACHE, A);
	assert_int_equal(out.nbf, 4);
	assert_int_equal(out.bf[3].class, MDB_FREE_DUPLICATE);
	/* NULL frees and failed allocations are events too */
	alloc(23, 0, MDB_TYPE_CACHE, B, 8, 8);
	release(24, 0, MDB_TYPE_CACHE, B);
	alloc(25, 0, MDB_TYPE_CACHE, 0, 8, 8);
	release(26, 0, MDB_TYPE_CACHE, 0);
	release(27, 0, MDB_TYPE_CACHE, B);
	assert_int_equal(out.nbf, 6);
	assert_int_equal(out.bf[5].class, MDB_FREE_DUPLICATE);
	assert_int_equal(out.bf[5].prev_seq, 24);
}

/*
 * The default, for kernels with untraced allocation paths: the second
 * free of a freed allocation is a suspect, not a duplicate.
 */
static void test_suspect_frees(void **state)
{
	(void)state;
	release(1, 0, MDB_TYPE_CACHE, B);  /* unknown */
	release(2, 1, MDB_TYPE_CACHE, B);  /* unknown again */
	alloc(3, 0, MDB_TYPE_CACHE, A, 8, 8);
	release(4, 0, MDB_TYPE_CACHE, A);
	release(5, 1, MDB_TYPE_CACHE, A);  /* suspect, after 4 */
	release(6, 1, MDB_TYPE_CACHE, A);  /* suspect, after 5 */
	release(7, 1, MDB_TYPE_CACHE, 0);  /* NULL */
	assert_int_equal(out.nbf, 5);
	assert_int_equal(out.bf[0].class, MDB_FREE_UNKNOWN);
	assert_int_equal(out.bf[1].class, MDB_FREE_UNKNOWN);
	assert_int_equal(out.bf[1].prev_seq, MDB_NO_SEQ);
	assert_int_equal(out.bf[2].class, MDB_FREE_DUPLICATE_SUSPECT);
	assert_int_equal(out.bf[2].prev_seq, 4);
	assert_int_equal(out.bf[3].class, MDB_FREE_DUPLICATE_SUSPECT);
	assert_int_equal(out.bf[3].prev_seq, 5);
	assert_int_equal(out.bf[4].class, MDB_FREE_NULL);
	/* pages follow the same rule in their own key space */
	alloc(8, 0, MDB_TYPE_PAGE, A, 4096, 4096);
	release(9, 0, MDB_TYPE_PAGE, A);
	release(10, 0, MDB_TYPE_PAGE, A);
	assert_int_equal(out.nbf, 6);
	assert_int_equal(out.bf[5].class, MDB_FREE_DUPLICATE_SUSPECT);
	assert_int_equal(out.bf[5].prev_seq, 9);
}

/* Which sources trace every allocation path. */
static void test_all_traced(void **state)
{
	(void)state;
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay", NULL), 1);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay", ""), 1);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-ftrace", "2.6.30"), 1);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay",
					     "2.6.29-rc3"), 1);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay", "4.1.52"), 1);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay", "3"), 1);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay", "junk"), 1);
	/* converted from a kernel with kmem_cache_alloc_bulk() */
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay", "4.2.0"), 0);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-relay",
					     "6.18.44-fc-v657"), 0);
	assert_int_equal(mdb_pair_all_traced("kmemtrace-ftrace", "10.1"), 0);
	/* ftrace and perf text: untraced paths on every kernel we read */
	assert_int_equal(mdb_pair_all_traced("ftrace-text", NULL), 0);
	assert_int_equal(mdb_pair_all_traced("ftrace-text", "2.6.32"), 0);
	assert_int_equal(mdb_pair_all_traced(NULL, NULL), 0);
}

/* Page events have their own key space. */
static void test_page_key_space(void **state)
{
	(void)state;
	alloc(1, 0, MDB_TYPE_PAGE, A, 4096, 4096);
	alloc(2, 0, MDB_TYPE_KMALLOC, A, 8, 8); /* not a reuse of the page */
	assert_int_equal(out.nlt, 0);
	release(3, 0, MDB_TYPE_KMALLOC, A);
	assert_int_equal(out.nlt, 1);
	assert_int_equal(out.lt[0].type, MDB_TYPE_KMALLOC);
	release(4, 0, MDB_TYPE_PAGE, A);
	assert_int_equal(out.nlt, 2);
	assert_int_equal(out.lt[1].type, MDB_TYPE_PAGE);
	assert_int_equal(out.nbf, 0);
}

/* Live at the end come out at finish, in seq order. */
static void test_finish(void **state)
{
	(void)state;
	alloc(10, 0, MDB_TYPE_KMALLOC, B, 8, 8);
	alloc(11, 0, MDB_TYPE_KMALLOC, A, 8, 8);
	alloc(12, 0, MDB_TYPE_KMALLOC, A + 64, 8, 8);
	release(13, 0, MDB_TYPE_KMALLOC, A);
	assert_int_equal(mdb_pair_live(&pair), 2);
	assert_int_equal(mdb_pair_finish(&pair), 0);
	assert_int_equal(out.nlt, 3);
	assert_int_equal(out.lt[1].seq, 10);
	assert_int_equal(out.lt[1].state, MDB_ST_LIVE);
	assert_int_equal(out.lt[2].seq, 12);
	assert_int_equal(out.lt[2].end_seq, MDB_NO_SEQ);
}

/* 50 rounds of 1000 addresses: pool slots are reused, nothing leaks. */
static void test_many(void **state)
{
	int64_t seq = 1;

	(void)state;
	for (int round = 0; round < 50; round++) {
		for (uint64_t i = 0; i < 1000; i++)
			alloc(seq++, 0, MDB_TYPE_KMALLOC, A + i * 64, 8, 8);
		for (uint64_t i = 0; i < 1000; i++)
			release(seq++, 0, MDB_TYPE_KMALLOC, A + i * 64);
	}
	assert_int_equal(out.total, 50000);
	assert_int_equal(out.nbf, 0);
	assert_int_equal(mdb_pair_live(&pair), 0);
	assert_true(pair.pool_cap <= 1024);
	assert_int_equal(u64map_count(&pair.slab), 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_alloc_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_and_zero_size, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_free_not_traced, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_frees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suspect_frees, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_duplicate_needs_every_event, setup, teardown),
		cmocka_unit_test(test_all_traced),
		cmocka_unit_test_setup_teardown(test_page_key_space, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_finish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	};

	return cmocka_run_group_tests_name("alloc/free pairing", tests, NULL,
					   NULL);
}
