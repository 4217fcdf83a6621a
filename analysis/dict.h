/* SPDX-License-Identifier: MIT */
/*
 * A string dictionary: text -> small id (from 1), texts kept so a hash
 * collision is told apart by comparing them.  Used by the analysis for
 * call sites and cache names, and by the snapshot loader for zone names.
 */
#ifndef MDB_DICT_H
#define MDB_DICT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/u64map.h"
#include "../ingest/event.h"

#define MDB_DICT_HINTS 64

struct mdb_dict {
	struct u64map map; /* XXH3 of the text (probed on collision) -> id */
	char **texts;      /* texts[id - 1] */
	size_t *lens;      /* strlen(texts[id - 1]) */
	size_t n, cap, lens_cap;
	/* ids of texts seen lately, by a cheap hash of the text: an event's
	 * cache name or task is most often one of a few */
	uint32_t hint[MDB_DICT_HINTS];
};

/* Free everything; @d is empty (and usable) afterwards. */
void mdb_dict_release(struct mdb_dict *d);

/* Id of @s in @d, adding it (*@added = 1) when new; 0 on ENOMEM. */
uint32_t mdb_dict_id(struct mdb_dict *d, const struct mdb_str *s, int *added);

#endif
