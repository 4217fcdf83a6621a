/* SPDX-License-Identifier: MIT */
/* The vmcore row of the format table (ingest/formats.c). */
#ifndef MDB_VMINPUT_H
#define MDB_VMINPUT_H

#include <stdint.h>

#include "../input.h"

#define VM_FORMAT "vmcore"

struct vm_ctx;

int mdb_vm_probe(const void *buf, size_t len);

/*
 * The rows of the dump @c reads into @sink, counted in @info: a zone row
 * per slab cache, the buddy free lists, the counters (with alloc_tags
 * and alloc_tags_skipped when the kernel has alloc tags), a tag row per
 * readable vmlinux alloc tag.  0, or <0 with @e filled.
 */
int mdb_vm_decode_walks(const struct vm_ctx *c, const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e);
int mdb_vm_input_open(const char *path, struct mdb_map *map, int fd,
		      const struct mdb_ingest_opts *o, struct mdb_input **out,
		      struct mdb_error *e);

#endif
