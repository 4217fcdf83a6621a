/* SPDX-License-Identifier: MIT */
/*
 * Private to ingest/: the format table (formats.c).  One row a format:
 * how to recognise it, how to read it, and every property of it the rest
 * of memdb asks about, so that no code outside the table tests a format's
 * name.
 */
#ifndef MDB_FORMATS_H
#define MDB_FORMATS_H

#include <stddef.h>

#include "../common/file.h"
#include "decode.h"
#include "ingest.h"
#include "snapshot.h"

struct mdb_input;

/* Bytes of an input looked at to tell text from binary. */
#define MDB_TEXT_PROBE_BYTES 4096

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

/* One row of the format table. */
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
	 * (trace.dat, core dumps): @map holds the (decompressed) bytes,
	 * taken over; @fd reads the same bytes (a spool, or the file),
	 * borrowed.
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
	/*
	 * Capture directories: does directory @dir hold this format's
	 * capture?  Asked in table order, before the directory is searched
	 * for a trace text file; the row's open() reads it.
	 */
	int (*is_capture)(const char *dir);
	/* A directory this format's own tool writes that memdb does not
	 * read: <0 with @e saying why, else 0.  Asked of every directory. */
	int (*refuse_dir)(const char *dir, struct mdb_error *e);
	/* Bytes no probe claims are this format's when the file's name says
	 * so (a relay per-CPU file's cpuN); not asked of standard input. */
	int (*claims_name)(const char *path);
	/* Its producers trace every slab allocation path on kernels before
	 * this release (mdb_format_all_paths_before()); { 0, 0 }: never. */
	struct mdb_kernel_version all_paths_before;
	unsigned flags;
	const char *empty_hint; /* events: what to do when none were found */
	const char *help;       /* what it is, for 'memdb ingest --help' */
};

#define MDB_FMT_KSYMS 1u    /* resolves symbolic call sites with kallsyms */
#define MDB_FMT_SNAPSHOT 2u /* an open_file format that is a snapshot */
/* No magic: bytes mdb_looks_like() names are neither this format's nor
 * those of any row after it, however they happen to read. */
#define MDB_FMT_NO_MAGIC 4u
/* A capture directory's trace text file is read as this format, unless
 * --format names another. */
#define MDB_FMT_DIR_TEXT 8u
/* Decoding costs about what the sink does with the events: the decoder
 * and the sink run on two threads (ingest/relay.c).  Set where that was
 * measured to pay (bench/README.md); a format whose records cost little
 * to decode is faster without the hand-over. */
#define MDB_FMT_RELAY 16u

/* The row of format @name, or NULL. */
const struct mdb_format *mdb_format_find(const char *name);

/* The rows in detection order: *@n of them. */
const struct mdb_format *mdb_format_table(size_t *n);

#endif
