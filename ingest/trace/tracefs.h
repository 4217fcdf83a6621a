/* SPDX-License-Identifier: MIT */
/*
 * A copy of tracefs (header_page or events/header_page,
 * events/kmem/EVENT/format, per_cpu/cpuN/trace_pipe_raw), as `memdb
 * record` writes it or `cp -r` of tracefs gives it; see tracefs.c and
 * docs/formats.md §6.3.
 */
#ifndef MDB_TRACEFS_H
#define MDB_TRACEFS_H

#include "../ingest.h"

struct mdb_input;

/* Does directory @dir hold a tracefs copy? */
int mdb_tfs_is_capture(const char *dir);

/* Open it as one source: 0 and *@in, 1 when @dir is not one, or <0. */
int mdb_tfs_input_open(const char *dir, const struct mdb_ingest_opts *o,
		       struct mdb_input **in, struct mdb_error *e);

#endif
