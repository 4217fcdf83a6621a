// SPDX-License-Identifier: MIT
/* The string dictionary; see dict.h. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../common/grow.h"
#include "dict.h"

void mdb_dict_release(struct mdb_dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->texts[i]);
	free(d->texts);
	free(d->lens);
	mdb_u64map_release(&d->map);
	memset(d, 0, sizeof(*d));
}

/* The hint slot of @s: its length and three of its bytes. */
static size_t hint_slot(const struct mdb_str *s)
{
	const unsigned char *p = (const unsigned char *)s->p;
	size_t n = s->len;

	if (!n)
		return 0;
	return (n * 31 + p[0] * 7u + p[n - 1] * 13u + p[n / 2]) &
	       (MDB_DICT_HINTS - 1);
}

/* Is texts[@id - 1] the text of @s? */
static int same(const struct mdb_dict *d, uint32_t id, const struct mdb_str *s)
{
	return d->lens[id - 1] == s->len &&
	       !memcmp(d->texts[id - 1], s->p, s->len);
}

static uint32_t dict_add(struct mdb_dict *d, const struct mdb_str *s,
			 uint64_t key)
{
	if (MDB_GROW(d->texts, d->n, d->cap, 64) ||
	    MDB_GROW(d->lens, d->n, d->lens_cap, 64))
		return 0;
	d->texts[d->n] = strndup(s->p, s->len);
	if (!d->texts[d->n])
		return 0;
	if (!mdb_u64map_put(&d->map, key, d->n + 1, NULL)) {
		free(d->texts[d->n]);
		return 0;
	}
	d->lens[d->n] = strlen(d->texts[d->n]);
	return (uint32_t)++d->n;
}

uint32_t mdb_dict_id(struct mdb_dict *d, const struct mdb_str *s, int *added)
{
	size_t h = hint_slot(s);
	uint64_t key;
	uint32_t id = d->hint[h];

	*added = 0;
	if (id && same(d, id, s))
		return id;
	key = XXH3_64bits(s->p, s->len);
	for (;; key++) {
		uint64_t *v = mdb_u64map_get(&d->map, key);

		if (!v)
			break;
		if (same(d, (uint32_t)*v, s)) {
			d->hint[h] = (uint32_t)*v;
			return (uint32_t)*v;
		}
	}
	id = dict_add(d, s, key);
	if (id) {
		*added = 1;
		d->hint[h] = id;
	}
	return id;
}
