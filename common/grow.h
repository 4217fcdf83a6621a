/* SPDX-License-Identifier: MIT */
/*
 * Growing arrays: the one realloc-doubling step every table of memdb
 * takes before it appends an element.
 */
#ifndef MDB_GROW_H
#define MDB_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make room for element @n of the array *@arr of capacity *@cap (elements
 * of @elem bytes): when full, double it (the first time: @first).
 * Returns 0, or -1 on ENOMEM or overflow with the array unchanged.
 */
static inline int mdb_grow_(void **arr, size_t *cap, size_t n, size_t elem,
			    size_t first)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	if (ncap < *cap || ncap > SIZE_MAX / elem)
		return -1;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define MDB_GROW(arr, n, cap, first) \
	mdb_grow_((void **)&(arr), &(cap), (n), sizeof(*(arr)), (first))

#endif
