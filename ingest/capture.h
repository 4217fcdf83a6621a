/* SPDX-License-Identifier: MIT */
/*
 * The capture-directory opener (capture.c): a directory is one capture,
 * and its files say which format it holds.
 */
#ifndef MDB_CAPTURE_H
#define MDB_CAPTURE_H

#include "formats.h"
#include "ingest.h"

struct mdb_input;

/*
 * Open capture directory @dir as one source.  @only, when not NULL, is
 * the format --format named.  Returns 0 and *@in, 1 when @dir holds no
 * capture memdb reads (of @only), or <0.
 */
int mdb_capture_open(const char *dir, const struct mdb_format *only,
		     const struct mdb_ingest_opts *o, struct mdb_input **in,
		     struct mdb_error *e);

#endif
