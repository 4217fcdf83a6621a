/* SPDX-License-Identifier: MIT */
/*
 * Private to ingest/: the format table and the openers behind struct
 * mdb_input.
 *
 * Every input is opened by one of two openers:
 *  - the one-file opener of input.c: map the file, run the format's
 *    describe(), load kallsyms when the format resolves symbolic call
 *    sites, hash the bytes once, and decode the mapping with the format's
 *    pure decoder while releasing the pages already read;
 *  - the capture-directory opener of capture.c: a directory is one
 *    capture; its files say which format it holds (cpuN files: a
 *    kmemtrace relay capture, merged by kt_capture.c; one trace text file:
 *    handed to the one-file opener with the directory's extras).
 */
#ifndef MDB_INPUT_PRIV_H
#define MDB_INPUT_PRIV_H

#include "../common/file.h"
#include "decode.h"
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
	/* mdb_input_prepare() and mdb_input_meta()'s wait; may be NULL */
	int (*prepare)(struct mdb_input *in, struct mdb_error *e);
	void (*wait)(struct mdb_input *in);
};

struct mdb_input {
	const struct mdb_input_ops *ops;
	struct mdb_source_meta meta;
	void *priv;
	/* for progress: bytes to read (0: unknown) and read so far, kept
	 * by the opener from its decoders' done() calls */
	uint64_t size, done;
	/* the hash goes on past mdb_input_prepare() (rounds) */
	int late_hash;
};

/*
 * What the first bytes of an input say beyond its rows, for the source
 * table (byte order, word size, CPUs, hashed pointers); it may also settle
 * decode options the bytes decide (a detected byte order, the CPU of a
 * per-CPU file).  Returns 0, 1 when the bytes are not this format after
 * all (a forced byte order that does not fit), or a negative MDB_E_* code.
 */
typedef int (*mdb_describe_fn)(const void *buf, size_t len,
			       struct mdb_decode_opts *o,
			       struct mdb_source_meta *m, struct mdb_error *e);

/* One row of the format table (input.c). */
struct mdb_format {
	const char *name;   /* as --format takes it; NULL: a refusal */
	mdb_probe_fn probe; /* one-file formats: recognise the bytes */
	mdb_decode_fn decode;           /* event traces */
	mdb_snap_decode_fn decode_snap; /* statistics snapshots */
	mdb_describe_fn describe;       /* may be NULL */
	/*
	 * Formats that open the path themselves (several files merged):
	 * 0 and *@in, 1 when @path is not theirs, or <0.
	 */
	int (*open)(const char *path, const struct mdb_ingest_opts *o,
		    struct mdb_input **in, struct mdb_error *e);
	/*
	 * One-file formats a library reads from a seekable descriptor
	 * (trace.dat): @map holds the (decompressed) bytes, taken over;
	 * @fd reads the same bytes (a spool, or the file), borrowed.
	 */
	int (*open_file)(const char *path, struct mdb_map *map, int fd,
			 const struct mdb_ingest_opts *o,
			 struct mdb_input **in, struct mdb_error *e);
	/*
	 * One-file formats that read all their input before the first event
	 * (perf.data sorts it): that reading on its own, for
	 * mdb_input_prepare(); its *@state reaches decode as the options'
	 * prepared, and unprepare() frees one decode never got.
	 */
	int (*prepare)(const void *buf, size_t len,
		       const struct mdb_decode_opts *o, void **state,
		       struct mdb_error *e);
	void (*unprepare)(void *state);
	unsigned flags;
	const char *empty_hint; /* events: what to do when none were found */
	const char *help;       /* what it is, for 'memdb ingest --help' */
};

#define MDB_FMT_KSYMS 1u /* resolves symbolic call sites with kallsyms */
#define MDB_FMT_SNAPSHOT 2u /* an open_file format that is a snapshot */

/* The row of format @name, or NULL. */
const struct mdb_format *mdb_format_find(const char *name);

/*
 * The one-file opener: @f reads @path, whose bytes @map holds (taken
 * over: unmapped on failure too).  @dir, when not NULL, is the capture
 * directory the file came from: its kernel-release, kallsyms and the
 * files kept for symbolize come with the source.  Returns 0, 1 when
 * describe() says the file is not @f's, or <0.
 */
int mdb_file_open(const char *path, const struct mdb_format *f,
		  struct mdb_map *map, const char *dir,
		  const struct mdb_ingest_opts *o, struct mdb_input **in,
		  struct mdb_error *e);

/*
 * The capture-directory opener (capture.c).  @only, when not NULL, is the
 * format --format named.  Returns like struct mdb_format.open.
 */
int mdb_capture_open(const char *dir, const struct mdb_format *only,
		     const struct mdb_ingest_opts *o, struct mdb_input **in,
		     struct mdb_error *e);

/*
 * kmemtrace relay capture directory: its per-CPU files merged in seq_num
 * order (kt_capture.c).  Returns like struct mdb_format.open.
 */
int kt_input_open(const char *path, const struct mdb_ingest_opts *o,
		  struct mdb_input **in, struct mdb_error *e);

/* Is the last component of @path a relay per-CPU file's name: cpuN or
 * cpuN.out, alone or after a prefix ending in a separator (host-cpu0)? */
int kt_is_cpu_file(const char *path);

/*
 * A lone kmemtrace relay per-CPU file, through the one-file opener: its
 * CPU (cpuN name, else --cpu, else 0), its capture's abi_version, its byte
 * order (kt_capture.c).
 */
int kt_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		struct mdb_source_meta *m, struct mdb_error *e);

/* What unknown binary bytes look like ("an ELF file"), or NULL. */
const char *mdb_looks_like(const void *buf, size_t len);

/* perf.data's header to the source table (trace/perf_input.c). */
int perf_input_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
			struct mdb_source_meta *m, struct mdb_error *e);

/* A `perf record --threads` directory is refused: <0, else 0. */
int perf_threads_dir(const char *dir, struct mdb_error *e);

/* Fill m->kernel_release from a kernel-release file in @dir, if any;
 * <0 only for a link out of @dir (mdb_capture_file()). */
int mdb_read_release(const char *dir, struct mdb_source_meta *m,
		     struct mdb_error *e);

/*
 * The content hash of a source: XXH3-128 of the format name, then the
 * event or row data, as hex in m->hash.  One implementation for every
 * opener; mdb_hash_map() releases each step's pages once hashed.
 */
struct mdb_hasher;
struct mdb_hasher *mdb_hash_begin(const char *tag, struct mdb_error *e);
void mdb_hash_update(struct mdb_hasher *h, const void *buf, size_t len);
void mdb_hash_map(struct mdb_hasher *h, struct mdb_map *map, size_t step);
void mdb_hash_end(struct mdb_hasher *h, struct mdb_source_meta *m);

#define MDB_RELEASE_STEP (16u << 20) /* bytes read between page releases */

#endif
