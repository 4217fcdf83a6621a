/* SPDX-License-Identifier: MIT */
/*
 * The one shape of every event decoder.
 *
 * A decoder is a pure function of a byte buffer: it reads @buf through the
 * checked cursor of common/bytes.h, hands struct mdb_event values to @sink
 * in the source's global order (docs/design.md §4.2), fills
 * @st, and never opens files, prints or touches SQLite.  Everything that
 * is not bytes (the input's name for messages, a forced byte order, the
 * kallsyms of the traced boot, how to release pages already read) comes
 * in struct mdb_decode_opts, so the one-file opener of ingest/onefile.c
 * can drive any decoder, and tests and fuzz harnesses call the same
 * function.
 *
 * Adding an event format: one decoder file under ingest/trace/ exporting
 * an mdb_decode_fn (and an mdb_probe_fn), plus one row in the format
 * table of ingest/formats.c (docs/design.md §2.3).
 */
#ifndef MDB_DECODE_H
#define MDB_DECODE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/bytes.h"
#include "../common/error.h"
#include "event.h"

struct kallsyms;

struct mdb_decode_opts {
	const char *name;        /* the input's name, for messages */
	enum mdb_order order;    /* forced byte order; UNKNOWN = detect */
	int abi;                 /* forced ABI version; 0 = as the data says */
	int cpu;                 /* CPU of a one-CPU input; -1 unknown */
	int strict;              /* a malformed record or line is an error */
	uint64_t page_size;      /* bytes per page of page events; 0 = 4096 */
	const struct kallsyms *ksyms; /* resolves symbolic call sites; NULL */
	/* what a decoder skips but the user should hear about */
	void (*warn)(void *ctx, const struct mdb_error *w);
	void *warn_ctx;
	/*
	 * Called with the offset read so far each time another @done_step
	 * bytes have been consumed, so the opener can release the pages of
	 * a mapping (or report progress).  May be NULL.
	 */
	void (*done)(void *ctx, size_t off);
	void *done_ctx;
	size_t done_step;
	/*
	 * Decoders that do not read in one pass (perf.data sorts its records
	 * before emitting them) store here how far they are, in bytes of
	 * the input (a share of its length), for progress.  May be NULL.
	 */
	_Atomic uint64_t *progress;
	int stream;              /* read from standard input: no directory */
	/*
	 * Decoders that sort (perf.data) may emit as they read, in the
	 * file's own rounds, where the caller can start over: they return
	 * -MDB_E_ORDER when the file breaks that order, and the events
	 * emitted so far must be dropped and the input decoded again
	 * without it (ingest/onefile.c clears it then).
	 */
	int rounds;
	/* format-specific settings the opener learnt while probing */
	const void *priv;
	/* what the format's prepare() read (ingest/formats.h), the decoder's
	 * to use and free; NULL: the decoder reads it all itself */
	void *prepared;
};

void mdb_decode_opts_init(struct mdb_decode_opts *o, const char *name);

/*
 * Every event decoder.  Returns 0, or a negative MDB_E_* code with @e
 * naming the input, the byte offset (binary) or line (text), and what was
 * wrong.
 */
typedef int (*mdb_decode_fn)(const void *buf, size_t len,
			     const struct mdb_decode_opts *o,
			     const struct mdb_sink *sink,
			     struct mdb_decode_stats *st, struct mdb_error *e);

/*
 * Every probe, events and snapshots alike: does @buf (the first bytes of
 * an input, possibly all of it) look like this format?  1 yes, 0 no.
 */
typedef int (*mdb_probe_fn)(const void *buf, size_t len);

#endif
