/* SPDX-License-Identifier: MIT */
/* The vmcore row of the format table (ingest/input.c). */
#ifndef MDB_VMINPUT_H
#define MDB_VMINPUT_H

#include "../input.h"

#define VM_FORMAT "vmcore"

int vm_probe(const void *buf, size_t len);
int vm_input_open(const char *path, struct mdb_map *map, int fd,
		  const struct mdb_ingest_opts *o, struct mdb_input **out,
		  struct mdb_error *e);

#endif
