/* SPDX-License-Identifier: MIT */
/*
 * The kmemtrace relay format's openers (kt_capture.c): a capture
 * directory of per-CPU files merged in seq_num order, and a lone per-CPU
 * file through the one-file opener.
 */
#ifndef MDB_KT_CAPTURE_H
#define MDB_KT_CAPTURE_H

#include <stddef.h>

#include "../decode.h"
#include "../ingest.h"

struct mdb_input;

/* Does directory @dir hold a relay per-CPU file (cpuN or cpuN.out)? */
int mdb_kt_is_capture(const char *dir);

/*
 * Open relay capture directory @path as one source: 0 and *@in, 1 when
 * it holds no per-CPU file, or <0.
 */
int mdb_kt_input_open(const char *path, const struct mdb_ingest_opts *o,
		      struct mdb_input **in, struct mdb_error *e);

/* Is the last component of @path a relay per-CPU file's name: cpuN or
 * cpuN.out, alone or after a prefix ending in a separator (host-cpu0)? */
int mdb_kt_is_cpu_file(const char *path);

/*
 * A lone kmemtrace relay per-CPU file, through the one-file opener: its
 * CPU (cpuN name, else --cpu, else 0), its capture's abi_version, its byte
 * order (the format row's describe()).
 */
int mdb_kt_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		    struct mdb_source_meta *m, struct mdb_error *e);

#endif
