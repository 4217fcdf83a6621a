// SPDX-License-Identifier: MIT
/* A test kernel module: a relocatable object with DWARF, its functions in
 * .text and one in .text.unlikely, with inlines from kernel.h. */
#include "kernel.h"

static int counter;

int testmod_init(void)
{
	void *p = alloc_hooked(128, 1);

	counter++;
	return p ? 0 : -12;
}

__attribute__((cold, noinline)) void testmod_slow(int n)
{
	out_of_line((unsigned long)n);
	alloc_hooked(16, n);
}

void *testmod_get(int n)
{
	if (n > 3)
		testmod_slow(n);
	return alloc_hooked((size_t)n * 8, 0);
}
