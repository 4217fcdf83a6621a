/* SPDX-License-Identifier: MIT */
/* What the perf.data row of the format table adds to its decoder
 * (perf_input.c). */
#ifndef MDB_PERF_INPUT_H
#define MDB_PERF_INPUT_H

#include <stddef.h>

#include "../decode.h"
#include "../ingest.h"

/* perf.data's header to the source table (the row's describe()). */
int mdb_perf_input_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
			    struct mdb_source_meta *m, struct mdb_error *e);

/* A `perf record --threads` directory is refused: <0, else 0. */
int mdb_perf_threads_dir(const char *dir, struct mdb_error *e);

#endif
