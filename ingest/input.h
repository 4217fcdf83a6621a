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

/*
 * ftrace kmem text (formats.md 2): a trace text file, or a capture
 * directory holding one (and, optionally, the boot's kallsyms).  Returns
 * like kt_input_open().
 */
int ft_input_open(const char *path, const struct mdb_ingest_opts *o,
		  struct mdb_input **in, struct mdb_error *e);

/*
 * ftrace-era kmemtrace binary (formats.md 1.2): one file of records of
 * either word size and byte order.  Returns like kt_input_open().
 */
int ktf_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e);

/* Fill m->kernel_release from a kernel-release file in @dir, if any. */
void mdb_read_release(const char *dir, struct mdb_source_meta *m);

struct mdb_map;

/*
 * The content hash of a one-file source: XXH3-128 of @tag (the format
 * name) and the bytes of @m, as hex in m->hash.  Reads in steps of @step
 * bytes and releases each step's pages once hashed.
 */
int mdb_hash_map(const char *tag, struct mdb_map *map, size_t step,
		 struct mdb_source_meta *m, struct mdb_error *e);

/* A decoder's progress callback that releases a struct mdb_map's pages. */
void mdb_map_done_cb(void *map, size_t off);

#endif
