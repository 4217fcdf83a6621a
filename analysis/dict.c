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
	u64map_release(&d->map);
	memset(d, 0, sizeof(*d));
}

uint32_t mdb_dict_id(struct mdb_dict *d, const struct mdb_str *s, int *added)
{
	uint64_t key = XXH3_64bits(s->p, s->len);

	*added = 0;
	for (;; key++) {
		uint64_t *v = u64map_get(&d->map, key);
		const char *t;

		if (!v)
			break;
		t = d->texts[*v - 1];
		if (strlen(t) == s->len && !memcmp(t, s->p, s->len))
			return (uint32_t)*v;
	}
	if (MDB_GROW(d->texts, d->n, d->cap, 64))
		return 0;
	d->texts[d->n] = strndup(s->p, s->len);
	if (!d->texts[d->n])
		return 0;
	if (!u64map_put(&d->map, key, d->n + 1, NULL)) {
		free(d->texts[d->n]);
		return 0;
	}
	d->n++;
	*added = 1;
	return (uint32_t)d->n;
}
