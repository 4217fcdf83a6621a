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

/* realloc() with the old size the other resizers need. */
static inline void *mdb_grow_realloc(void *p, size_t old, size_t bytes)
{
	(void)old;
	return realloc(p, bytes);
}

/* mdb_grow_() with @resize moving the array from its old size to its
 * new one (NULL: ENOMEM, the array left as it was). */
static inline int mdb_grow_by(void **arr, size_t *cap, size_t n,
			      size_t elem, size_t first,
			      void *(*resize)(void *p, size_t old,
					      size_t bytes))
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	if (ncap < *cap || !elem || ncap > SIZE_MAX / elem)
		return -1;
	p = resize(*arr, *cap * elem, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

/*
 * Make room for element @n of the array *@arr of capacity *@cap (elements
 * of @elem bytes): when full, double it (the first time: @first).
 * Returns 0, or -1 on ENOMEM or overflow with the array unchanged.
 */
static inline int mdb_grow_(void **arr, size_t *cap, size_t n, size_t elem,
			    size_t first)
{
	return mdb_grow_by(arr, cap, n, elem, first, mdb_grow_realloc);
}

#define MDB_GROW(arr, n, cap, first) \
	mdb_grow_((void **)&(arr), &(cap), (n), sizeof(*(arr)), (first))

#endif
