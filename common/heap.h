/* SPDX-License-Identifier: MIT */
/*
 * Binary min-heaps, as the k-way merges of trace streams keep them: the
 * sift-down step, defined per element type so that the comparison is
 * inlined (the merges run it once per event).
 */
#ifndef MDB_HEAP_H
#define MDB_HEAP_H

#include <stddef.h>

/*
 * Define "static void NAME(C ctx, T *h, size_t n, size_t i)": move h[i]
 * down the heap h[0..n) while a child comes before it, BEFORE(ctx, a, b)
 * saying whether element *a comes before element *b.
 */
#define MDB_HEAP_SIFT_DOWN(NAME, T, C, BEFORE)                              \
static void NAME(C ctx, T *h, size_t n, size_t i)                           \
{                                                                           \
	for (;;) {                                                          \
		size_t l = 2 * i + 1, m = i;                                \
		T t;                                                        \
                                                                            \
		if (l < n && BEFORE(ctx, &h[l], &h[m]))                     \
			m = l;                                              \
		if (l + 1 < n && BEFORE(ctx, &h[l + 1], &h[m]))             \
			m = l + 1;                                          \
		if (m == i)                                                 \
			return;                                             \
		t = h[i];                                                   \
		h[i] = h[m];                                                \
		h[m] = t;                                                   \
		i = m;                                                      \
	}                                                                   \
}

#endif
