// SPDX-License-Identifier: MIT
/* The content hash of a source (hash.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "hash.h"

struct mdb_hasher {
	XXH3_state_t *state;
};

struct mdb_hasher *mdb_hash_begin(const char *tag, struct mdb_error *e)
{
	struct mdb_hasher *h = calloc(1, sizeof(*h));

	if (h && !(h->state = XXH3_createState())) {
		free(h);
		h = NULL;
	}
	if (!h) {
		mdb_error_nomem(e);
		return NULL;
	}
	XXH3_128bits_reset(h->state);
	XXH3_128bits_update(h->state, tag, strlen(tag));
	return h;
}

void mdb_hash_update(struct mdb_hasher *h, const void *buf, size_t len)
{
	if (len)
		XXH3_128bits_update(h->state, buf, len);
}

void mdb_hash_map(struct mdb_hasher *h, struct mdb_map *map, size_t step)
{
	struct mdb_cursor c;

	mdb_cursor_init(&c, map->data, map->len);
	while (mdb_cursor_left(&c)) {
		size_t n = mdb_cursor_left(&c) < step ? mdb_cursor_left(&c) :
							 step;

		mdb_hash_update(h, mdb_cursor_peek(&c, n), n);
		(void)mdb_cursor_skip(&c, n);
		mdb_map_done(map, mdb_cursor_off(&c));
	}
}

void mdb_hash_end(struct mdb_hasher *h, struct mdb_source_meta *m)
{
	XXH128_hash_t v = XXH3_128bits_digest(h->state);

	snprintf(m->hash, sizeof(m->hash), "%016" PRIx64 "%016" PRIx64,
		 (uint64_t)v.high64, (uint64_t)v.low64);
	XXH3_freeState(h->state);
	free(h);
}
