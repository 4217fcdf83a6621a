/* SPDX-License-Identifier: MIT */
/*
 * The one-file opener (onefile.c): map the file, run the format's
 * describe(), load kallsyms when the format resolves symbolic call sites,
 * hash the bytes once, and decode the mapping with the format's pure
 * decoder while releasing the pages already read.
 */
#ifndef MDB_ONEFILE_H
#define MDB_ONEFILE_H

#include "../common/file.h"
#include "formats.h"
#include "ingest.h"

struct mdb_input;

/*
 * Open @path as format @f, whose bytes @map holds (taken over: unmapped
 * on failure too).  @dir, when not NULL, is the capture directory the
 * file came from: its kernel-release, kallsyms and the files kept for
 * symbolize come with the source.  Returns 0, 1 when describe() says the
 * file is not @f's, or <0.
 */
int mdb_file_open(const char *path, const struct mdb_format *f,
		  struct mdb_map *map, const char *dir,
		  const struct mdb_ingest_opts *o, struct mdb_input **in,
		  struct mdb_error *e);

#endif
