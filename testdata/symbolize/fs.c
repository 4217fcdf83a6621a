// SPDX-License-Identifier: MIT
/* The test kernel's "fs": callers of the allocators, one of them static. */
#include "kernel.h"

void *kmalloc_node(size_t size, int flags, int node);
void *kmem_cache_alloc_lru(size_t size, int flags);

void out_of_line(unsigned long v)
{
	sink ^= v;
}

static __attribute__((noinline)) void *alloc_inode(int n)
{
	void *p = kmem_cache_alloc_lru(64 + (size_t)n, 0);

	if (p)
		p = kmalloc_node(32, 4, n);
	return p;
}

static inline __attribute__((always_inline)) int
fill_block(unsigned long *blk, int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++) {
		blk[i] = mix((unsigned long)i, (unsigned long)n);
		s += (int)blk[i];
	}
	return s;
}

int ext_create(int n)
{
	unsigned long blk[8];
	void *p = alloc_inode(n);

	if (!p)
		return -12;
	{
		int s = fill_block(blk, n & 7);

		if (s > 100)
			out_of_line((unsigned long)s);
	}
	return (int)sink;
}
