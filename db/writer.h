/* SPDX-License-Identifier: MIT */
/*
 * The writer: a thread that packs allocation lifetimes and bad frees
 * into blocks (db/packcol.h) and inserts them into alloc_blk and
 * bad_free_blk while the decoder and the pairing run on the caller's
 * thread (two cores).
 *
 * Rows travel in fixed batches through a small queue; memory is bounded
 * by the queue, not by the input.  The SQLite connection is used only by
 * the writer thread between mdb_writer_start() and mdb_writer_finish() or
 * mdb_writer_cancel(), never by two threads at once.
 */
#ifndef MDB_WRITER_H
#define MDB_WRITER_H

#include "db.h"
#include "../analysis/pair.h"

struct mdb_writer;

/* alloc_*: the alloc ids of the lifetimes written, bad_*: bad_free's
 * ids (0 when none) */
struct mdb_writer_ranges {
	int64_t alloc_lo, alloc_hi, bad_lo, bad_hi;
};

/* Prepare the inserts of @source_id's lifetimes and bad frees (blocks
 * of alloc_blk and bad_free_blk, db/allocvt.c) and start the thread. */
int mdb_writer_start(struct mdb_writer **w, struct mdb_db *db,
		     int64_t source_id, struct mdb_error *e);

/* Queue a row; fails only when the writer has failed (@e filled). */
int mdb_writer_lifetime(struct mdb_writer *w, const struct mdb_lifetime *lt,
			struct mdb_error *e);
int mdb_writer_bad_free(struct mdb_writer *w, const struct mdb_free *f,
			struct mdb_error *e);

/* Write what is queued, stop the thread, free @w; report its first error. */
int mdb_writer_finish(struct mdb_writer *w, struct mdb_writer_ranges *r,
		      struct mdb_error *e);

/* Stop the thread and drop what is queued; free @w. */
void mdb_writer_cancel(struct mdb_writer *w);

#endif
