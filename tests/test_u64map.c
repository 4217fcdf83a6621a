// SPDX-License-Identifier: MIT
/*
 * The flat hash map against a plain array model, through random inserts
 * and deletes (backward-shift deletion is where such maps go wrong).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/u64map.h"

#define NKEYS 4096

static void test_model(void **state)
{
	static uint64_t model[NKEYS]; /* value+1 per key index, 0 = absent */
	struct u64map m;
	uint64_t x = 12345;
	size_t present = 0;

	(void)state;
	memset(model, 0, sizeof(model));
	mdb_u64map_init(&m);
	for (int step = 0; step < 200000; step++) {
		uint64_t k, *v;
		size_t i;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		i = (size_t)(x % NKEYS);
		/* keys clustered so probe runs wrap and collide; key 0 too */
		k = (uint64_t)i * 0x100000000ULL;
		if (x >> 60 < 9) {
			int added;

			v = mdb_u64map_put(&m, k, 0, &added);
			assert_non_null(v);
			assert_int_equal(added, model[i] == 0);
			*v = (uint64_t)step;
			if (!model[i])
				present++;
			model[i] = (uint64_t)step + 1;
		} else {
			assert_int_equal(mdb_u64map_del(&m, k), model[i] != 0);
			if (model[i])
				present--;
			model[i] = 0;
		}
		if (step % 997 == 0)
			for (size_t j = 0; j < NKEYS; j++) {
				v = mdb_u64map_get(&m, (uint64_t)j * 0x100000000ULL);
				if (model[j]) {
					assert_non_null(v);
					assert_int_equal(*v, model[j] - 1);
				} else {
					assert_null(v);
				}
			}
		assert_int_equal(u64map_count(&m), present);
	}
	mdb_u64map_release(&m);
}

/*
 * A map large enough that its slots live in a mapping of their own
 * (common/hugemem.h: a million keys, 2^21 slots of 16 bytes): every key
 * found with its value after each step, then deleted.
 */
static void test_large(void **state)
{
	const uint64_t n = 1000000;
	struct u64map m;

	(void)state;
	mdb_u64map_init(&m);
	for (uint64_t k = 1; k <= n; k++) {
		int added;
		uint64_t *v = mdb_u64map_put(&m, k * 0x9e3779b97f4a7c15ULL, 0,
					     &added);

		assert_non_null(v);
		assert_true(added);
		*v = k;
	}
	assert_int_equal(u64map_count(&m), n);
	for (uint64_t k = 1; k <= n; k++) {
		uint64_t *v = mdb_u64map_get(&m, k * 0x9e3779b97f4a7c15ULL);

		assert_non_null(v);
		assert_int_equal(*v, k);
	}
	for (uint64_t k = 1; k <= n; k += 2)
		assert_true(mdb_u64map_del(&m, k * 0x9e3779b97f4a7c15ULL));
	for (uint64_t k = 1; k <= n; k++)
		assert_int_equal(mdb_u64map_get(&m, k * 0x9e3779b97f4a7c15ULL) !=
				 NULL, k % 2 == 0);
	mdb_u64map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests_name("u64map", tests, NULL, NULL);
}
