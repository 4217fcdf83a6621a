/* SPDX-License-Identifier: MIT */
/*
 * Standard input and compressed inputs (zstd, gzip, xz, told by their
 * magic, not by the file name): spooled, decompressed, to an unlinked
 * temporary file and mapped, so every decoder reads them as it reads a
 * plain file and formats that must seek can.
 */
#ifndef MDB_SPOOL_H
#define MDB_SPOOL_H

#include <stddef.h>

#include "../common/file.h"

enum mdb_compression {
	MDB_COMP_NONE = 0,
	MDB_COMP_ZSTD,
	MDB_COMP_GZIP,
	MDB_COMP_XZ,
};

/* The compression whose magic @buf starts with. */
enum mdb_compression mdb_compression_of(const void *buf, size_t len);

/*
 * Read @fd to its end (@name for messages), decompress it when it is
 * compressed (*@comp says how it was), and map the result in @m.  A
 * damaged or cut stream is an error naming the compressed byte offset.
 * When @keep is not NULL, *@keep is a descriptor of the spooled bytes
 * (for libraries that read a file themselves); the caller closes it.
 */
int mdb_spool_fd(int fd, const char *name, struct mdb_map *m,
		 enum mdb_compression *comp, int *keep, struct mdb_error *e);

/* The same for the regular file @path (a compressed one). */
int mdb_spool_path(const char *path, struct mdb_map *m,
		   enum mdb_compression *comp, int *keep, struct mdb_error *e);

/*
 * Map the regular file @path as mdb_map_file() does, decompressed first
 * when it is compressed (a kallsyms.zst, a System.map.gz).
 */
int mdb_map_decompressed(const char *path, struct mdb_map *m,
			 struct mdb_error *e);

#endif
