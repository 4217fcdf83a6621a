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
	u64map_init(&m);
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

			v = u64map_put(&m, k, 0, &added);
			assert_non_null(v);
			assert_int_equal(added, model[i] == 0);
			*v = (uint64_t)step;
			if (!model[i])
				present++;
			model[i] = (uint64_t)step + 1;
		} else {
			assert_int_equal(u64map_del(&m, k), model[i] != 0);
			if (model[i])
				present--;
			model[i] = 0;
		}
		if (step % 997 == 0)
			for (size_t j = 0; j < NKEYS; j++) {
				v = u64map_get(&m, (uint64_t)j * 0x100000000ULL);
				if (model[j]) {
					assert_non_null(v);
					assert_int_equal(*v, model[j] - 1);
				} else {
					assert_null(v);
				}
			}
		assert_int_equal(u64map_count(&m), present);
	}
	u64map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests_name("u64map", tests, NULL, NULL);
}
