// SPDX-License-Identifier: MIT
/*
 * common/hugemem.h: arrays that grow from malloc()'s memory into
 * mappings of their own (MDB_HUGE_MIN and up) keep every element across
 * each step, come zeroed from mdb_huge_alloc() on both sides of the
 * bound, and free the way they were made (the sanitizer build, where
 * every array is malloc()'s, checks the same code for leaks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/hugemem.h"

struct elem {
	uint64_t a;
	uint32_t b;
};

/* Grow past the bound a few times over, checking every element each
 * time the array moves. */
static void test_grow(void **state)
{
	struct elem *arr = NULL;
	size_t cap = 0, n = 3 * MDB_HUGE_MIN / sizeof(struct elem) + 12345;
	size_t last_cap = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(MDB_HUGE_GROW(arr, i, cap, 1000), 0);
		assert_true(cap > i);
		if (cap != last_cap) {
			for (size_t j = 0; j < i; j++) {
				assert_int_equal(arr[j].a, j * 7919);
				assert_int_equal(arr[j].b, (uint32_t)j ^ 0x5a5a);
			}
			last_cap = cap;
		}
		arr[i].a = i * 7919;
		arr[i].b = (uint32_t)i ^ 0x5a5a;
	}
	for (size_t j = 0; j < n; j++)
		assert_int_equal(arr[j].a, j * 7919);
	/* room for n elements already: no step */
	assert_int_equal(MDB_HUGE_GROW(arr, n - 1, cap, 1000), 0);
	mdb_huge_free(arr, cap, sizeof(*arr));
}

/* Zeroed below and above the bound; a size that overflows is refused. */
static void test_alloc(void **state)
{
	const size_t sizes[] = { 0, 1, 4096, MDB_HUGE_MIN - 8, MDB_HUGE_MIN,
				 MDB_HUGE_MIN + 8, 5 * MDB_HUGE_MIN + 3 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k] / 8;
		uint64_t *p = mdb_huge_alloc(n, 8);
		uint64_t sum = 0;

		assert_non_null(p);
		for (size_t i = 0; i < n; i++)
			sum |= p[i];
		assert_int_equal(sum, 0);
		if (n)
			p[n - 1] = 1; /* the last element is writable */
		mdb_huge_free(p, n, 8);
	}
	assert_null(mdb_huge_alloc(SIZE_MAX / 4, 8));
	mdb_huge_free(NULL, 0, 8);
}

/* Overflow of the doubled capacity leaves the array as it was. */
static void test_overflow(void **state)
{
	uint64_t *arr = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(MDB_HUGE_GROW(arr, 0, cap, 4), 0);
	arr[3] = 42;
	cap = SIZE_MAX / 8 / 2 + 1; /* pretend: doubling overflows */
	assert_int_equal(MDB_HUGE_GROW(arr, cap, cap, 4), -1);
	assert_int_equal(arr[3], 42);
	mdb_huge_free(arr, 4, sizeof(*arr));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests_name("hugemem", tests, NULL, NULL);
}
