/* SPDX-License-Identifier: MIT */
/*
 * The public face of ingest/: open a path as one source (detecting its
 * format), describe it, and decode it into a sink.
 *
 * Opening maps the files, hashes the event data (so a caller can tell a
 * re-ingest of identical bytes before decoding) and validates headers;
 * decoding streams events in the source's global order.
 */
#ifndef MDB_INGEST_H
#define MDB_INGEST_H

#include <stdint.h>

#include "../common/bytes.h"
#include "../common/error.h"
#include "event.h"

struct mdb_ingest_opts {
	enum mdb_order order; /* forced byte order; UNKNOWN = detect */
	int abi;              /* forced ABI version; 0 = as the capture says */
	int cpu;              /* CPU of a lone per-CPU file; -1 = from name */
	const char *format;   /* read as this format (mdb_input_formats());
			       * NULL = detect */
	const char *kallsyms; /* kallsyms of the traced boot, for symbolic
			       * call sites in text; NULL = the capture's */
	uint64_t page_size;   /* bytes per page of page events; 0 = 4096 */
	int strict;           /* a malformed text line is an error */
	/*
	 * Called for what a decoder skips but the user should hear about
	 * (the first malformed lines, call sites kallsyms cannot resolve);
	 * @w->msg says what, file and line where.  May be NULL.
	 */
	void (*warn)(void *ctx, const struct mdb_error *w);
	void *warn_ctx;
};

#define MDB_HASH_HEX 33 /* 128-bit content hash as hex, with NUL */

/* What is known of a source's origin; stored in the source table. */
struct mdb_source_meta {
	const char *format;     /* "kmemtrace-relay", ... */
	int abi_version;        /* version the data was read as; -1 n/a */
	enum mdb_order order;   /* byte order of binary data */
	int word_size;          /* producer word size in bytes; 0 unknown */
	int ncpus;              /* per-CPU files, or CPUs seen */
	int64_t overruns;       /* producer's overrun count; -1 unknown */
	int hashed_ptrs;        /* pointers are hashed (%p), not addresses */
	char hash[MDB_HASH_HEX];
	uint64_t data_bytes;    /* bytes of event data */
	char kernel_release[128];
	char notes[512];        /* remarks for report headers, "" if none */
	/* what mdb_decode_stats.unknown counts, for messages; NULL =
	 * "records with unknown event or type ids" */
	const char *unknown_what;
};

struct mdb_input;

void mdb_ingest_opts_init(struct mdb_ingest_opts *o);

/* Names of the formats memdb reads, in detection order, NULL-terminated. */
const char *const *mdb_input_formats(void);

/* Open @path as one source; *@in is NULL on failure. */
int mdb_input_open(const char *path, const struct mdb_ingest_opts *o,
		   struct mdb_input **in, struct mdb_error *e);

const struct mdb_source_meta *mdb_input_meta(const struct mdb_input *in);

/* Decode every event into @sink, in global order; fills @st. */
int mdb_input_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e);

void mdb_input_close(struct mdb_input *in);

#endif
