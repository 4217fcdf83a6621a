/* SPDX-License-Identifier: MIT */
/*
 * Large arrays that grow, each in a mapping of its own: mremap() grows
 * one without copying it, and the mapping asks for transparent huge
 * pages (madvise MADV_HUGEPAGE), so filling it takes one page fault per
 * 2 MiB instead of one per 4 KiB.  perf.data's pass one fills a 40 MB
 * index of its samples before anything else can start: its page faults
 * were a third of that pass.  Arrays smaller than MDB_HUGE_MIN bytes,
 * systems without mremap() and sanitizer builds (whose checks cover
 * malloc()'s memory only) use realloc() and free().
 */
#ifndef MDB_HUGEMEM_H
#define MDB_HUGEMEM_H

#include <stddef.h>

#define MDB_HUGE_MIN ((size_t)1 << 20)

/*
 * Make room for element @n of the array *@arr of capacity *@cap
 * elements of @elem bytes, doubling it when full (the first time:
 * @first elements).  Returns 0, or -1 on ENOMEM or overflow with the
 * array unchanged.  Free with mdb_huge_free() and the same @cap, @elem.
 */
int mdb_huge_grow(void **arr, size_t *cap, size_t n, size_t elem,
		  size_t first);

/* A zeroed array of @n elements of @elem bytes for mdb_huge_free();
 * NULL on ENOMEM or overflow. */
void *mdb_huge_alloc(size_t n, size_t elem);

void mdb_huge_free(void *arr, size_t cap, size_t elem);

#define MDB_HUGE_GROW(arr, n, cap, first) \
	mdb_huge_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)), (first))

#endif
