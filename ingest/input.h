/* SPDX-License-Identifier: MIT */
/* Private to ingest/: the per-format operations behind struct mdb_input. */
#ifndef MDB_INPUT_PRIV_H
#define MDB_INPUT_PRIV_H

#include "ingest.h"

struct mdb_input;

struct mdb_input_ops {
	int (*decode)(struct mdb_input *in, const struct mdb_sink *sink,
		      struct mdb_decode_stats *st, struct mdb_error *e);
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

#endif
