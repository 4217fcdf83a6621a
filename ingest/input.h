/* SPDX-License-Identifier: MIT */
/* Private to ingest/: the per-format operations behind struct mdb_input. */
#ifndef MDB_INPUT_PRIV_H
#define MDB_INPUT_PRIV_H

#include "../common/file.h"
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
};

struct mdb_input {
	const struct mdb_input_ops *ops;
	struct mdb_source_meta meta;
	void *priv;
};

/*
 * kmemtrace relay capture: a directory of per-CPU files or one file.
 * Returns 0 and *@in on success, 1 when @path does not look like a relay
 * capture at all (so the caller can try other formats), <0 on error.
 */
int kt_input_open(const char *path, const struct mdb_ingest_opts *o,
		  struct mdb_input **in, struct mdb_error *e);

/*
 * A one-file snapshot of format @format, read by @decode: takes over the
 * mapping @map (which it unmaps, also on failure) and hashes it.
 * @describe, when not NULL, fills what the header says into the meta.
 */
int snap_input_open(const char *path, const char *format,
		    mdb_snap_decode_fn decode,
		    void (*describe)(const void *buf, size_t len,
				     struct mdb_source_meta *m),
		    struct mdb_map *map, struct mdb_input **in,
		    struct mdb_error *e);

#endif
