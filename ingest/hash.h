/* SPDX-License-Identifier: MIT */
/*
 * The content hash of a source: XXH3-128 of the format name, then the
 * event or row data, as hex in m->hash.  One implementation for every
 * opener (the one-file opener, the capture directories, the
 * library-backed readers).
 */
#ifndef MDB_HASH_H
#define MDB_HASH_H

#include <stddef.h>

#include "../common/file.h"
#include "ingest.h"

struct mdb_hasher;

/* A hash begun with @tag (the format name); NULL with @e set. */
struct mdb_hasher *mdb_hash_begin(const char *tag, struct mdb_error *e);
void mdb_hash_update(struct mdb_hasher *h, const void *buf, size_t len);
/* The whole of @map, releasing each @step bytes' pages once hashed. */
void mdb_hash_map(struct mdb_hasher *h, struct mdb_map *map, size_t step);
/* The digest into m->hash; frees @h. */
void mdb_hash_end(struct mdb_hasher *h, struct mdb_source_meta *m);

#endif
