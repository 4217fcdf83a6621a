// SPDX-License-Identifier: MIT
/* The test kernel's "mm": allocation entry points calling inlines. */
#include "kernel.h"

volatile unsigned long sink;
static unsigned char heap[4096];
static unsigned long heap_top;

void *slab_alloc(size_t size, int flags)
{
	void *p;

	if (heap_top + size > sizeof(heap)) {
		out_of_line(size);
		return 0;
	}
	p = &heap[heap_top];
	heap_top += (size + 7) & ~7UL;
	if (flags & 4) {
		unsigned long i;

		for (i = 0; i < size; i++)
			((unsigned char *)p)[i] = 0;
	}
	return p;
}

void *kmalloc_node(size_t size, int flags, int node)
{
	void *p = alloc_hooked(size, flags);

	if (node >= 0)
		sink += (unsigned long)node;
	return p;
}

void *kmem_cache_alloc_lru(size_t size, int flags)
{
	void *p = alloc_hooked(size, flags | 1);

	if (!p)
		p = alloc_hooked(size / 2, flags);
	return p;
}

/* An alias: same address and size as kmem_cache_alloc_lru; weak, so the
 * symbolizer must prefer the strong name. */
void *kmem_cache_alloc(size_t size, int flags)
	__attribute__((weak, alias("kmem_cache_alloc_lru")));
