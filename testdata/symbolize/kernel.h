/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the test kernel (see README.md): static inlines that gcc -O2
 * inlines into their callers, two levels deep, so the symbolizer's inline
 * chains are exercised.
 */
#ifndef TESTK_KERNEL_H
#define TESTK_KERNEL_H

typedef unsigned long size_t;

extern volatile unsigned long sink;
void *slab_alloc(size_t size, int flags);
void out_of_line(unsigned long v);

static inline __attribute__((always_inline)) unsigned long
mix(unsigned long a, unsigned long b)
{
	sink += a;
	return a * 31 + b;
}

static inline __attribute__((always_inline)) void *
alloc_hooked(size_t size, int flags)
{
	unsigned long h = mix(size, (unsigned long)flags);

	if (h & 1)
		out_of_line(h);
	return slab_alloc(size + (h & 7), flags);
}

#endif
