/* SPDX-License-Identifier: MIT */
/*
 * mdb_prefetch(): ask the CPU for the cache line at @p ahead of its use.
 * Only a hint: @p need not be valid (a prefetch never faults), and the
 * program's results never depend on it.
 */
#ifndef MDB_PREFETCH_H
#define MDB_PREFETCH_H

static inline void mdb_prefetch(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	/* GCC 12 at -O2 drops some __builtin_prefetch() calls as dead */
	__asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p);
#endif
}

#endif
