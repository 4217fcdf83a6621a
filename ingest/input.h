/* SPDX-License-Identifier: MIT */
/*
 * Private to ingest/: struct mdb_input, the one interface every source is
 * read through, whichever opener made it:
 *  - the one-file opener (onefile.c): a mapped file and a format's pure
 *    decoder, "bytes in, records out";
 *  - a format's own opener (the row's open_file() or open() in
 *    formats.c): a library-backed reader (trace.dat through libtracecmd,
 *    core dumps through libkdumpfile) or a capture directory of several
 *    files (a kmemtrace relay capture, a tracefs copy).
 * See docs/design.md §2.1.
 */
#ifndef MDB_INPUT_PRIV_H
#define MDB_INPUT_PRIV_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/file.h"
#include "decode.h"
#include "ingest.h"
#include "snapshot.h"

struct mdb_input;

struct mdb_input_ops {
	/* event traces */
	int (*decode)(struct mdb_input *in, const struct mdb_sink *sink,
		      struct mdb_decode_stats *st, struct mdb_error *e);
	/* statistics snapshots */
	int (*decode_snap)(struct mdb_input *in,
			   const struct mdb_snap_sink *sink,
			   struct mdb_snap_info *info, struct mdb_error *e);
	void (*close)(struct mdb_input *in);
	/* mdb_input_prepare() and mdb_input_meta()'s wait; may be NULL */
	int (*prepare)(struct mdb_input *in, struct mdb_error *e);
	void (*wait)(struct mdb_input *in);
};

struct mdb_input {
	const struct mdb_input_ops *ops;
	struct mdb_source_meta meta;
	void *priv;
	/* for progress: bytes to read (0: unknown) and read so far, kept
	 * by the opener from its decoders' done() calls; done is written
	 * on the decoding thread and may be read on the sink's (relay.h) */
	uint64_t size;
	_Atomic uint64_t done;
	/* the hash goes on past mdb_input_prepare() (rounds) */
	int late_hash;
};

/* Progress: @in has read @n bytes more (on the decoding thread, the one
 * writer of done: no read-modify-write needed). */
static inline void mdb_input_advance(struct mdb_input *in, uint64_t n)
{
	atomic_store_explicit(&in->done, atomic_load_explicit(&in->done,
			      memory_order_relaxed) + n, memory_order_relaxed);
}

/*
 * The first step of an opener handed @path mapped in @map: a zeroed input
 * *@in and the opener's zeroed private state, a @type (returned), whose
 * members path and map get a copy of @path and take @map over.  Out of
 * memory: NULL with nothing kept, @map unmapped and @e set for @path.
 */
#define MDB_INPUT_ALLOC(type, p, m, in, e)                                  \
	((type *)mdb_input_alloc((p), (m), sizeof(type),                    \
				 offsetof(type, path), offsetof(type, map), \
				 (in), (e)))
void *mdb_input_alloc(const char *path, struct mdb_map *map, size_t size,
		      size_t path_at, size_t map_at, struct mdb_input **in,
		      struct mdb_error *e);

#define MDB_RELEASE_STEP (16u << 20) /* bytes read between page releases */

#endif
