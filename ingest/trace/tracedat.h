/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd's trace.dat, file versions 6 and 7 (zstd-compressed sections
 * included), read through libtracecmd after memdb has checked its
 * structure; see tracedat.c and docs/formats.md §6.2.
 */
#ifndef MDB_TRACEDAT_H
#define MDB_TRACEDAT_H

#include <stddef.h>

#include "../../common/file.h"
#include "../ingest.h"

struct mdb_input;

/* Do @buf's first bytes carry the trace.dat magic? */
int mdb_tdat_probe(const void *buf, size_t len);

/*
 * Open @path, whose (decompressed) bytes @map holds (taken over) and
 * which @fd reads (borrowed: a seekable descriptor of the same bytes),
 * as one source.  Returns 0 and *@in, or <0.
 */
int mdb_tdat_input_open(const char *path, struct mdb_map *map, int fd,
			const struct mdb_ingest_opts *o, struct mdb_input **in,
			struct mdb_error *e);

#endif
