// SPDX-License-Identifier: MIT
/* Flat u64 -> u64 hash map; see u64map.h. */
#include <stdlib.h>
#include <string.h>

#include "hugemem.h"
#include "u64map.h"

void mdb_u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void mdb_u64map_release(struct u64map *m)
{
	mdb_huge_free(m->slots, m->slots ? m->mask + 1 : 0, sizeof(*m->slots));
	mdb_u64map_init(m);
}

static int u64map_grow(struct u64map *m)
{
	size_t ncap = m->slots ? (m->mask + 1) * 2 : 64;
	struct u64map_slot *ns, *old = m->slots;
	size_t oldcap = m->slots ? m->mask + 1 : 0;

	if (ncap > SIZE_MAX / sizeof(*ns))
		return -1;
	ns = mdb_huge_alloc(ncap, sizeof(*ns));
	if (!ns)
		return -1;
	m->slots = ns;
	m->mask = ncap - 1;
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].key)
			continue;
		j = u64map_mix(old[i].key) & m->mask;
		while (ns[j].key)
			j = (j + 1) & m->mask;
		ns[j] = old[i];
	}
	mdb_huge_free(old, oldcap, sizeof(*old));
	return 0;
}

uint64_t *mdb_u64map_get(struct u64map *m, uint64_t key)
{
	size_t i;

	if (!key)
		return m->has_zero ? &m->zero_val : NULL;
	if (!m->slots)
		return NULL;
	for (i = u64map_mix(key) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return &m->slots[i].val;
	return NULL;
}

uint64_t *mdb_u64map_put(struct u64map *m, uint64_t key, uint64_t init,
			 int *added)
{
	size_t i;

	if (added)
		*added = 0;
	if (!key) {
		if (!m->has_zero) {
			m->has_zero = 1;
			m->zero_val = init;
			if (added)
				*added = 1;
		}
		return &m->zero_val;
	}
	/* keep the load factor at or below 1/2 */
	if (!m->slots || (m->count + 1) * 2 > m->mask + 1)
		if (u64map_grow(m))
			return NULL;
	for (i = u64map_mix(key) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return &m->slots[i].val;
	m->slots[i].key = key;
	m->slots[i].val = init;
	m->count++;
	if (added)
		*added = 1;
	return &m->slots[i].val;
}

int mdb_u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;

	if (!key) {
		int had = m->has_zero;

		m->has_zero = 0;
		return had;
	}
	if (!m->slots)
		return 0;
	for (i = u64map_mix(key) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			break;
	if (!m->slots[i].key)
		return 0;
	/*
	 * Backward-shift deletion: move later members of the probe run into
	 * the hole when their home slot does not lie cyclically in (i, j].
	 */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & m->mask;
		if (!m->slots[j].key)
			break;
		home = u64map_mix(m->slots[j].key) & m->mask;
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].key = 0;
	m->slots[i].val = 0;
	m->count--;
	return 1;
}
