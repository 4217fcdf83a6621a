/* SPDX-License-Identifier: MIT */
/*
 * Thin wrappers that turn a path into bytes.  Decoders take (buf, len);
 * only these helpers touch the file system.
 */
#ifndef MDB_FILE_H
#define MDB_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct mdb_map {
	const uint8_t *data; /* NULL for an empty file */
	size_t len;
	int mapped;          /* 1 when data comes from mmap(2) */
};

/* Map @path read-only (empty files give data NULL, len 0). */
int mdb_map_file(const char *path, struct mdb_map *m, struct mdb_error *e);
void mdb_unmap(struct mdb_map *m);

/*
 * Tell the kernel bytes [0, @upto) of a mapping will not be read again, so
 * they stop counting in the process's resident set (they stay in the page
 * cache).  Keeps memory bounded by what is being read, not by file sizes.
 */
void mdb_map_done(struct mdb_map *m, size_t upto);

/*
 * Read a small text file (at most @max bytes) into a NUL-terminated
 * malloc'ed buffer; longer files are an error naming @path.
 */
int mdb_read_small(const char *path, size_t max, char **out, size_t *len,
		   struct mdb_error *e);

/* Join @dir and @name with a '/' into a malloc'ed string (NULL on ENOMEM). */
char *mdb_path_join(const char *dir, const char *name);

#endif
