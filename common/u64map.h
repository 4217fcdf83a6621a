/* SPDX-License-Identifier: MIT */
/*
 * An open-addressing hash map from 64-bit keys to 64-bit values.
 *
 * Used on the per-event path of ingest (live pointers, call-site and
 * cache dictionaries), so it is flat: one array of {key, value} slots,
 * linear probing, backward-shift deletion (no tombstones, so lookups stay
 * short however many inserts and deletes a long trace makes).  Memory is
 * proportional to the number of keys present, at most twice that rounded
 * up to a power of two.
 */
#ifndef MDB_U64MAP_H
#define MDB_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#include "prefetch.h"

struct u64map_slot {
	uint64_t key;
	uint64_t val;
};

struct u64map {
	struct u64map_slot *slots; /* key 0 marks an empty slot */
	size_t mask;               /* capacity - 1; capacity is a power of 2 */
	size_t count;              /* keys stored, excluding key 0 */
	int has_zero;              /* key 0 lives outside the table */
	uint64_t zero_val;
};

/* The 64-bit finaliser of MurmurHash3: cheap and mixes every key bit. */
static inline uint64_t u64map_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* Ask the cache for @key's first slot, ahead of a get or put of it. */
static inline void u64map_prefetch(const struct u64map *m, uint64_t key)
{
	if (m->slots)
		mdb_prefetch(&m->slots[u64map_mix(key) & m->mask]);
}

void mdb_u64map_init(struct u64map *m);
void mdb_u64map_release(struct u64map *m);

/* Pointer to the value of @key, or NULL when absent. */
uint64_t *mdb_u64map_get(struct u64map *m, uint64_t key);

/*
 * Pointer to the value of @key, inserting it with value @init when absent
 * (*@added tells which, when not NULL).  NULL only when out of memory.
 * The pointer is valid until the next insert or delete.
 */
uint64_t *mdb_u64map_put(struct u64map *m, uint64_t key, uint64_t init,
			 int *added);

/* Remove @key; returns 1 when it was present. */
int mdb_u64map_del(struct u64map *m, uint64_t key);

static inline size_t u64map_count(const struct u64map *m)
{
	return m->count + (size_t)m->has_zero;
}

#endif
