// SPDX-License-Identifier: MIT
/* The row-writer thread; see writer.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/queue.h"
#include "../ingest/event.h"
#include "packcol.h"
#include "writer.h"

#define BATCH_ROWS 4096 /* lifetimes per batch */
#define BATCH_BAD 1024  /* anomalous frees per batch */
#define NBATCHES 8

/* A batch holds lifetimes and anomalous frees apart: each kind goes to
 * its own blocks. */
struct batch {
	size_t nlt, nbad;
	struct mdb_lifetime lt[BATCH_ROWS];
	struct mdb_free bad[BATCH_BAD];
};

/*
 * One kind of row as blocks of packed columns (db/packcol.h): the rows
 * of the block being filled, the insert into its table of blocks, the
 * id its next row gets, the id range written.
 */
struct blocks {
	struct mdb_pc_block *pc;
	sqlite3_stmt *ins;
	int64_t next_id;
	int64_t *lo, *hi;
};

struct mdb_writer {
	struct mdb_db *db;
	pthread_t thread;
	struct mdb_queue q;     /* batches to the thread */
	struct batch *all[NBATCHES];
	struct batch *cur;      /* being filled by the producer */
	int cancel;             /* drop what is queued */
	int failed;             /* the writer hit an error: see err */
	struct mdb_error err;
	struct mdb_writer_ranges r;
	struct blocks lt, bad;  /* alloc_blk, bad_free_blk */
	uint8_t *pc_buf;        /* a packed blob */
};

/* Bind @lo and @hi to ?@col and ?@col + 1, NULL both when @lo > @hi
 * (no row had a value). */
static void bind_range(sqlite3_stmt *st, int col, int64_t lo, int64_t hi)
{
	if (lo > hi) {
		sqlite3_bind_null(st, col);
		sqlite3_bind_null(st, col + 1);
	} else {
		sqlite3_bind_int64(st, col, lo);
		sqlite3_bind_int64(st, col + 1, hi);
	}
}

/* Bind the time range of @b's rows that have a time (its zone map,
 * db/schema-12.sql) to ?4 and ?5, NULL when none has, the states (bad
 * frees: classes) and types they have to ?6 (kinds), and their range of
 * positions to ?7 and ?8 (db/schema-14.sql). */
static void bind_zone(sqlite3_stmt *st, const struct mdb_pc_block *b)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, kinds = 0;
	int64_t slo = INT64_MAX, shi = INT64_MIN;

	for (size_t i = 0; i < b->rows; i++) {
		int64_t t = b->v[MDB_PC_TS][i], seq = b->v[MDB_PC_SEQ][i];
		int64_t state = b->v[MDB_PC_STATE][i];
		int64_t type = b->v[MDB_PC_TYPE][i];

		if (state >= 0 && state < 8)
			kinds |= (int64_t)1 << state;
		if (type >= 0 && type < 8)
			kinds |= (int64_t)1 << (8 + type);
		if (!b->null[MDB_PC_SEQ][i]) {
			slo = seq < slo ? seq : slo;
			shi = seq > shi ? seq : shi;
		}
		if (!b->null[MDB_PC_TS][i]) {
			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
	}
	bind_range(st, 4, lo, hi);
	sqlite3_bind_int64(st, 6, kinds);
	bind_range(st, 7, slo, shi);
}

/* Write @k's block being filled, if it has rows: its id the last id it
 * holds. */
static int pack_flush(struct mdb_writer *w, struct blocks *k)
{
	size_t n, rows = k->pc->rows;
	int64_t last = k->next_id + (int64_t)rows - 1;
	int rc;

	if (!rows)
		return 0;
	bind_zone(k->ins, k->pc);
	n = mdb_pc_pack(k->pc, w->pc_buf);
	k->pc->rows = 0;
	sqlite3_bind_int64(k->ins, 1, last);
	sqlite3_bind_blob(k->ins, 3, w->pc_buf, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(k->ins);
	sqlite3_reset(k->ins);
	if (rc != SQLITE_DONE)
		return mdb_db_error(w->db, &w->err,
				    "cannot write to database");
	if (!*k->lo)
		*k->lo = k->next_id;
	*k->hi = last;
	k->next_id = last + 1;
	return 0;
}

/* Write a batch: its lifetimes and its bad frees into their blocks,
 * MDB_PC_ROWS a block. */
static int write_batch(struct mdb_writer *w, const struct batch *b)
{
	for (size_t i = 0; i < b->nlt; i++) {
		mdb_pc_add(w->lt.pc, &b->lt[i]);
		if (w->lt.pc->rows == MDB_PC_ROWS && pack_flush(w, &w->lt) < 0)
			return -1;
	}
	for (size_t i = 0; i < b->nbad; i++) {
		mdb_pc_add_free(w->bad.pc, &b->bad[i]);
		if (w->bad.pc->rows == MDB_PC_ROWS &&
		    pack_flush(w, &w->bad) < 0)
			return -1;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct mdb_writer *w = arg;
	struct batch *b;

	while ((b = mdb_queue_take(&w->q))) {
		int failed = write_batch(w, b) < 0;

		b->nlt = b->nbad = 0;
		if (failed) {
			w->failed = 1;
			mdb_queue_fail(&w->q);
			return NULL;
		}
		mdb_queue_give(&w->q, b);
	}
	/* the producer is done: the blocks being filled, unless it gave
	 * up */
	if (!w->cancel && (pack_flush(w, &w->lt) < 0 ||
			   pack_flush(w, &w->bad) < 0))
		w->failed = 1;
	return NULL;
}

/*
 * Prepare the writing of @k's blocks into table @table for @source_id:
 * the ids of the database's blocks end at the largest block id
 * (db/allocvt.c).
 */
static int prepare_blocks(struct mdb_writer *w, struct blocks *k,
			  const char *table, int64_t source_id,
			  struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	char *sql;
	int rc;

	k->pc = malloc(sizeof(*k->pc));
	if (!k->pc)
		return mdb_error_nomem(e);
	mdb_pc_block_init(k->pc);
	sql = sqlite3_mprintf("SELECT coalesce(max(id), 0) + 1 FROM %s",
			      table);
	if (!sql)
		return mdb_error_nomem(e);
	rc = sqlite3_prepare_v2(w->db->h, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return mdb_db_error(w->db, e, "cannot read the database");
	}
	k->next_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sql = sqlite3_mprintf("INSERT INTO %s (id, source_id, data, min_ts, "
			      "max_ts, kinds, min_seq, max_seq) VALUES "
			      "(?, ?, ?, ?, ?, ?, ?, ?)", table);
	if (!sql)
		return mdb_error_nomem(e);
	rc = sqlite3_prepare_v2(w->db->h, sql, -1, &k->ins, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return mdb_db_error(w->db, e, "cannot write to database");
	sqlite3_bind_int64(k->ins, 2, source_id);
	return 0;
}

static int prepare_all(struct mdb_writer *w, int64_t source_id,
		       struct mdb_error *e)
{
	int ret;

	w->lt.lo = &w->r.alloc_lo;
	w->lt.hi = &w->r.alloc_hi;
	w->bad.lo = &w->r.bad_lo;
	w->bad.hi = &w->r.bad_hi;
	w->pc_buf = malloc(MDB_PC_MAX_BYTES);
	if (!w->pc_buf)
		return mdb_error_nomem(e);
	ret = prepare_blocks(w, &w->lt, "alloc_blk", source_id, e);
	if (ret < 0)
		return ret;
	return prepare_blocks(w, &w->bad, "bad_free_blk", source_id, e);
}

static void finalize_all(struct mdb_writer *w)
{
	struct blocks *all[] = { &w->lt, &w->bad };

	for (int i = 0; i < 2; i++) {
		sqlite3_finalize(all[i]->ins);
		mdb_pc_block_done(all[i]->pc);
		free(all[i]->pc);
		all[i]->ins = NULL;
		all[i]->pc = NULL;
	}
	free(w->pc_buf);
	w->pc_buf = NULL;
}

int mdb_writer_start(struct mdb_writer **out, struct mdb_db *db,
		     int64_t source_id, struct mdb_error *e)
{
	struct mdb_writer *w = calloc(1, sizeof(*w));
	int ret;

	*out = NULL;
	if (!w)
		return mdb_error_nomem(e);
	w->db = db;
	mdb_error_clear(&w->err);
	ret = prepare_all(w, source_id, e);
	if (ret < 0) {
		finalize_all(w);
		free(w);
		return ret;
	}
	for (int i = 0; i < NBATCHES; i++) {
		w->all[i] = malloc(sizeof(struct batch));
		if (!w->all[i])
			goto nomem;
		w->all[i]->nlt = w->all[i]->nbad = 0;
	}
	mdb_queue_init(&w->q);
	w->cur = w->all[0];
	for (int i = 1; i < NBATCHES; i++)
		mdb_queue_give(&w->q, w->all[i]);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		mdb_queue_destroy(&w->q);
		goto nomem;
	}
	*out = w;
	return 0;
nomem:
	for (int i = 0; i < NBATCHES; i++)
		free(w->all[i]);
	finalize_all(w);
	free(w);
	return mdb_error_nomem(e);
}

/* Hand the current batch to the thread and take a spare one. */
static int writer_push(struct mdb_writer *w, struct mdb_error *e)
{
	w->cur = mdb_queue_swap(&w->q, w->cur);
	if (!w->cur) {
		*e = w->err;   /* written before the thread said it failed */
		return -MDB_E_DB;
	}
	return 0;
}

/* Room for one more row: hand a full batch over first. */
static inline int writer_room(struct mdb_writer *w, int full,
			      struct mdb_error *e)
{
	return full ? writer_push(w, e) : 0;
}

int mdb_writer_lifetime(struct mdb_writer *w, const struct mdb_lifetime *lt,
			struct mdb_error *e)
{
	int ret = writer_room(w, w->cur->nlt == BATCH_ROWS, e);

	if (ret < 0)
		return ret;
	w->cur->lt[w->cur->nlt++] = *lt;
	return 0;
}

int mdb_writer_bad_free(struct mdb_writer *w, const struct mdb_free *f,
			struct mdb_error *e)
{
	int ret = writer_room(w, w->cur->nbad == BATCH_BAD, e);

	if (ret < 0)
		return ret;
	w->cur->bad[w->cur->nbad++] = *f;
	return 0;
}

static void writer_stop(struct mdb_writer *w, int cancel)
{
	w->cancel = cancel;
	mdb_queue_end(&w->q, w->cur && (w->cur->nlt || w->cur->nbad) ?
		      w->cur : NULL, cancel);
	pthread_join(w->thread, NULL);
	mdb_queue_destroy(&w->q);
	for (int i = 0; i < NBATCHES; i++)
		free(w->all[i]);
	finalize_all(w);
}

int mdb_writer_finish(struct mdb_writer *w, struct mdb_writer_ranges *r,
		      struct mdb_error *e)
{
	int ret = 0;

	writer_stop(w, 0);
	if (w->failed) {
		*e = w->err;
		ret = -MDB_E_DB;
	}
	*r = w->r;
	free(w);
	return ret;
}

void mdb_writer_cancel(struct mdb_writer *w)
{
	if (!w)
		return;
	writer_stop(w, 1);
	free(w);
}
