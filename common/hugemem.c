// SPDX-License-Identifier: MIT
/* Large growing arrays in mappings of their own; see hugemem.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "grow.h"
#include "hugemem.h"

#if defined(__SANITIZE_ADDRESS__)
#define HUGE_MAPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define HUGE_MAPS 0
#endif
#endif
#if !defined(HUGE_MAPS)
#if defined(MREMAP_MAYMOVE)
#define HUGE_MAPS 1
#else
#define HUGE_MAPS 0
#endif
#endif

#if HUGE_MAPS
/* Does an array of @bytes live in a mapping of its own? */
static int mapped(size_t bytes)
{
	return bytes >= MDB_HUGE_MIN;
}

#define HUGE_ALIGN ((uintptr_t)2 << 20)

/* The length of the mapping of an array of @bytes: whole huge pages. */
static size_t map_len(size_t bytes)
{
	size_t len = (bytes + HUGE_ALIGN - 1) & ~(size_t)(HUGE_ALIGN - 1);

	return len < bytes ? bytes : len;
}

/*
 * A zeroed mapping of @bytes starting on a 2 MiB boundary (where a huge
 * page can back it from the start), or NULL.
 */
static void *map_new(size_t bytes)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096, end;
	size_t len;
	uint8_t *p, *a;

	bytes = map_len(bytes);
	len = bytes + HUGE_ALIGN;
	if (len < bytes)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)p + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	/* from a + bytes rounded up to a page to the end of the mapping */
	end = ((uintptr_t)a + bytes + page - 1) & ~(page - 1);
	if (end < (uintptr_t)p + len)
		munmap((void *)end, (uintptr_t)p + len - end);
#ifdef MADV_HUGEPAGE
	/* only advice: without huge pages the array works the same */
	madvise(a, bytes, MADV_HUGEPAGE);
#endif
	return a;
}
#endif

/* Resize the array at @p from @old to @bytes (> @old); NULL on ENOMEM. */
static void *resize(void *p, size_t old, size_t bytes)
{
#if HUGE_MAPS
	void *n;

	if (mapped(old)) {
		n = mremap(p, map_len(old), map_len(bytes), MREMAP_MAYMOVE);
		return n == MAP_FAILED ? NULL : n;
	}
	if (mapped(bytes)) {
		n = map_new(bytes);
		if (n && old)
			memcpy(n, p, old);
		if (n)
			free(p);
		return n;
	}
#endif
	return mdb_grow_realloc(p, old, bytes);
}

int mdb_huge_grow(void **arr, size_t *cap, size_t n, size_t elem,
		  size_t first)
{
	return mdb_grow_by(arr, cap, n, elem, first, resize);
}

void *mdb_huge_alloc(size_t n, size_t elem)
{
	size_t bytes;

	if (elem && n > SIZE_MAX / elem)
		return NULL;
	bytes = n * elem;
	if (!bytes)
		bytes = 1;
#if HUGE_MAPS
	if (mapped(bytes))
		return map_new(bytes);
#endif
	return calloc(1, bytes);
}

void mdb_huge_free(void *arr, size_t cap, size_t elem)
{
	if (!arr)
		return;
#if HUGE_MAPS
	if (mapped(cap * elem)) {
		munmap(arr, map_len(cap * elem));
		return;
	}
#else
	(void)cap;
	(void)elem;
#endif
	free(arr);
}
