// SPDX-License-Identifier: MIT
/* The row-writer thread; see writer.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/event.h"
#include "packcol.h"
#include "sqlutil.h"
#include "writer.h"

#define BATCH_ROWS 4096 /* lifetimes per batch */
#define BATCH_BAD 1024  /* anomalous frees per batch */
#define NBATCHES 8
#define ALLOC_COLS 22  /* bound per alloc row, after ?1 = source id */
#define BAD_COLS 12    /* bound per bad_free row, after ?1 */
#define MULTI_ROWS 32  /* rows per multi-row INSERT */

/*
 * A batch holds lifetimes and anomalous frees apart: each table's rows
 * keep their order, and runs of MULTI_ROWS rows of one table are not
 * broken by a row of the other (a bad free every few allocations would
 * otherwise send most rows through the one-row inserts).
 */
struct batch {
	size_t nlt, nbad;
	struct mdb_lifetime lt[BATCH_ROWS];
	struct mdb_free bad[BATCH_BAD];
};

/*
 * A statement with what its parameters hold.  sqlite3_reset() keeps the
 * bindings, and a column often holds what it held in the statement
 * before (NULLs of fields the capture lacks, the CPU, the task, the
 * type): such a parameter is not bound again.  Binding goes through
 * SQLite's API call, unbind and type checks, a compare does not.
 */
struct bound {
	int64_t v;
	int null;
};

struct stmt {
	sqlite3_stmt *st;
	struct bound *val;      /* by parameter number */
};

static inline void bset(struct stmt *s, int i, int64_t v, int null)
{
	struct bound *b = &s->val[i];

	if (null) {
		if (!b->null)
			sqlite3_bind_null(s->st, i);
		b->null = 1;
	} else if (b->null || b->v != v) {
		sqlite3_bind_int64(s->st, i, v);
		b->v = v;
		b->null = 0;
	}
}

/* One table's inserts: a row at a time, or MULTI_ROWS at once. */
struct ins {
	struct stmt one, multi;
	void (*bind)(struct stmt *s, int k, const void *row); /* row k */
	size_t row_size;
	int64_t *lo, *hi;       /* rowid range written */
};

struct mdb_writer {
	struct mdb_db *db;
	struct ins alloc, bad;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* a batch became full, free, or stop */
	struct batch *all[NBATCHES];
	struct batch *full[NBATCHES]; /* FIFO of batches to write */
	size_t full_head, nfull;
	struct batch *spare[NBATCHES]; /* batches the producer may fill */
	size_t nspare;
	struct batch *cur;      /* being filled by the producer */
	int stop;               /* producer is done (or gave up) */
	int cancel;             /* drop what is queued */
	int failed;             /* the writer hit an error: see err */
	struct mdb_error err;
	struct mdb_writer_ranges r;
	/* packed columns (db/packcol.h), when asked: the rows of the block
	 * being filled, the blob, its insert; pack 0 again if a column
	 * cannot be packed (then none is kept: see mdb_writer_finish) */
	int pack;
	struct mdb_pc_block *pc;
	uint8_t *pc_buf;
	int64_t pc_blk;
	sqlite3_stmt *pc_ins;
};

/*
 * Bind lifetime @lt as row @k of the alloc insert: parameter ?1 is the
 * source id, row k's columns are ?(2 + 22k) .. ?(23 + 22k).
 */
static void bind_lifetime(struct stmt *s, int k, const void *row)
{
	const struct mdb_lifetime *lt = row;
	int b = 1 + k * ALLOC_COLS, ended = lt->end_seq != MDB_NO_SEQ;
	int freed = lt->state == MDB_ST_FREED;

	bset(s, b + 1, lt->seq, 0);
	bset(s, b + 2, lt->ts, lt->ts == MDB_NO_TS);
	bset(s, b + 3, lt->cpu, 0);
	bset(s, b + 4, lt->type, 0);
	bset(s, b + 5, lt->site_id, 0);
	bset(s, b + 6, (int64_t)lt->ptr, 0);
	bset(s, b + 7, (int64_t)lt->bytes_req, 0);
	bset(s, b + 8, (int64_t)lt->bytes_alloc, 0);
	bset(s, b + 9, (int64_t)lt->gfp, lt->gfp == MDB_NO_GFP);
	bset(s, b + 10, lt->gfp_id, !lt->gfp_id);
	bset(s, b + 11, lt->node, 0);
	bset(s, b + 12, lt->cache_id, !lt->cache_id);
	bset(s, b + 13, lt->state, 0);
	bset(s, b + 14, lt->end_seq, !ended);
	bset(s, b + 15, lt->end_ts, !ended || lt->end_ts == MDB_NO_TS);
	bset(s, b + 16, lt->free_cpu, !freed);
	bset(s, b + 17, lt->free_site_id, !freed);
	bset(s, b + 18, lt->free_type, !freed);
	bset(s, b + 19, lt->pid, lt->pid == MDB_NO_PID);
	bset(s, b + 20, lt->comm_id, !lt->comm_id);
	bset(s, b + 21, lt->migratetype, lt->migratetype == MDB_NO_MIGRATETYPE);
	bset(s, b + 22, lt->stack_id, !lt->stack_id);
}

/* The same for bad_free row @k: ?(2 + 12k) .. ?(13 + 12k). */
static void bind_bad_free(struct stmt *s, int k, const void *row)
{
	const struct mdb_free *f = row;
	int b = 1 + k * BAD_COLS;

	bset(s, b + 1, f->seq, 0);
	bset(s, b + 2, f->ts, f->ts == MDB_NO_TS);
	bset(s, b + 3, f->cpu, 0);
	bset(s, b + 4, f->type, 0);
	bset(s, b + 5, f->site_id, 0);
	bset(s, b + 6, (int64_t)f->ptr, 0);
	bset(s, b + 7, f->cache_id, !f->cache_id);
	bset(s, b + 8, f->class, 0);
	bset(s, b + 9, f->prev_seq, f->prev_seq == MDB_NO_SEQ);
	bset(s, b + 10, f->pid, f->pid == MDB_NO_PID);
	bset(s, b + 11, f->comm_id, !f->comm_id);
	bset(s, b + 12, (int64_t)f->bytes, !f->bytes);
}

/* Run an insert of @nrows rows and extend the rowid range of @in. */
static int run_insert(struct mdb_writer *w, const struct ins *in,
		      sqlite3_stmt *st, int nrows)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st); /* keeps the bindings */
	if (rc != SQLITE_DONE)
		return mdb_db_error(w->db, &w->err,
				    "cannot write to database");
	*in->hi = sqlite3_last_insert_rowid(w->db->h);
	if (!*in->lo)
		*in->lo = *in->hi - nrows + 1;
	return 0;
}

/* Write @n rows of @in's table, MULTI_ROWS at a time, the rest singly. */
static int write_rows(struct mdb_writer *w, struct ins *in,
		      const void *rows, size_t n)
{
	size_t i = 0;

	while (i < n) {
		int k = n - i >= MULTI_ROWS ? MULTI_ROWS : 1;
		struct stmt *s = k == 1 ? &in->one : &in->multi;

		for (int j = 0; j < k; j++)
			in->bind(s, j, (const char *)rows +
				       (i + (size_t)j) * in->row_size);
		if (run_insert(w, in, s->st, k) < 0)
			return -1;
		i += (size_t)k;
	}
	return 0;
}

/* Write the packed block being filled, if it has rows. */
static int pack_flush(struct mdb_writer *w)
{
	size_t n;
	int rc;

	if (!w->pack || !w->pc->rows)
		return 0;
	n = mdb_pc_pack(w->pc, w->pc_buf);
	w->pc->rows = 0;
	if (!n) {
		w->pack = 0;
		return 0;
	}
	sqlite3_bind_int64(w->pc_ins, 2, w->pc_blk++);
	sqlite3_bind_blob(w->pc_ins, 3, w->pc_buf, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(w->pc_ins);
	sqlite3_reset(w->pc_ins);
	if (rc != SQLITE_DONE)
		return mdb_db_error(w->db, &w->err,
				    "cannot write to database");
	w->r.col_hi = sqlite3_last_insert_rowid(w->db->h);
	if (!w->r.col_lo)
		w->r.col_lo = w->r.col_hi;
	return 0;
}

/* The lifetimes of @b into the packed blocks, MDB_PC_ROWS a block. */
static int pack_rows(struct mdb_writer *w, const struct batch *b)
{
	for (size_t i = 0; i < b->nlt && w->pack; i++) {
		mdb_pc_add(w->pc, &b->lt[i]);
		if (w->pc->rows == MDB_PC_ROWS && pack_flush(w) < 0)
			return -1;
	}
	return 0;
}

/*
 * Write a batch.  A multi-row INSERT saves SQLite's per-statement work
 * (open the table cursor, halt, reset) on all but one row in MULTI_ROWS.
 */
static int write_batch(struct mdb_writer *w, const struct batch *b)
{
	if (write_rows(w, &w->alloc, b->lt, b->nlt) < 0)
		return -1;
	if (w->pack && pack_rows(w, b) < 0)
		return -1;
	return write_rows(w, &w->bad, b->bad, b->nbad);
}

static void *writer_main(void *arg)
{
	struct mdb_writer *w = arg;

	for (;;) {
		struct batch *b;
		int failed = 0;

		pthread_mutex_lock(&w->mu);
		while (!w->nfull && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->nfull || w->cancel) {
			pthread_mutex_unlock(&w->mu);
			if (!w->cancel && pack_flush(w) < 0) {
				pthread_mutex_lock(&w->mu);
				w->failed = 1;
				pthread_mutex_unlock(&w->mu);
			}
			return NULL;
		}
		b = w->full[w->full_head];
		w->full_head = (w->full_head + 1) % NBATCHES;
		w->nfull--;
		pthread_mutex_unlock(&w->mu);

		failed = write_batch(w, b) < 0;
		b->nlt = b->nbad = 0;

		pthread_mutex_lock(&w->mu);
		w->spare[w->nspare++] = b;
		if (failed)
			w->failed = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		if (failed)
			return NULL;
	}
}

/*
 * The inserts, defined once: the columns of each table, bound as
 * bind_lifetime() and bind_bad_free() lay them out.
 */
static const char alloc_insert[] =
	"INSERT OR FAIL INTO alloc (source_id, seq, ts, cpu, type, site_id, "
	"ptr, "
	"bytes_req, bytes_alloc, gfp, gfp_id, node, cache_id, state, end_seq, "
	"end_ts, free_cpu, free_site_id, free_type, pid, comm_id, migratetype, "
	"stack_id) VALUES ";
static const char bad_insert[] =
	"INSERT OR FAIL INTO bad_free (source_id, seq, ts, cpu, type, "
	"site_id, ptr, "
	"cache_id, class, prev_seq, pid, comm_id, bytes) VALUES ";

/*
 * Prepare the insert of @nrows rows of @ncols bound columns each
 * (mdb_sql_rows(): row k's columns are parameters 2 + k * @ncols ..
 * 1 + (k + 1) * @ncols), with ?1 bound to @source_id.
 */
static int prepare_rows(struct mdb_writer *w, const char *head, int ncols,
			int nrows, int64_t source_id, struct stmt *s,
			struct mdb_error *e)
{
	int n, rc;
	char *sql = mdb_sql_rows(head, nrows, ncols, &n);

	if (!sql)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	rc = sqlite3_prepare_v2(w->db->h, sql, n, &s->st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return mdb_db_error(w->db, e, "cannot write to database");
	sqlite3_bind_int64(s->st, 1, source_id);
	/* every parameter starts out NULL */
	s->val = malloc((size_t)(2 + nrows * ncols) * sizeof(*s->val));
	if (!s->val)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	for (int i = 0; i < 2 + nrows * ncols; i++)
		s->val[i] = (struct bound){ 0, 1 };
	return 0;
}

static int prepare_ins(struct mdb_writer *w, struct ins *in, const char *head,
		       int ncols, int64_t source_id, struct mdb_error *e)
{
	int ret = prepare_rows(w, head, ncols, 1, source_id, &in->one, e);

	if (ret < 0)
		return ret;
	return prepare_rows(w, head, ncols, MULTI_ROWS, source_id, &in->multi,
			    e);
}

/* The four inserts the writer runs. */
static int prepare_all(struct mdb_writer *w, int64_t source_id,
		       struct mdb_error *e)
{
	w->alloc = (struct ins){ .bind = bind_lifetime,
				 .row_size = sizeof(struct mdb_lifetime),
				 .lo = &w->r.alloc_lo, .hi = &w->r.alloc_hi };
	w->bad = (struct ins){ .bind = bind_bad_free,
			       .row_size = sizeof(struct mdb_free),
			       .lo = &w->r.bad_lo, .hi = &w->r.bad_hi };
	if (prepare_ins(w, &w->alloc, alloc_insert, ALLOC_COLS, source_id,
			e) < 0)
		return -MDB_E_DB;
	return prepare_ins(w, &w->bad, bad_insert, BAD_COLS, source_id, e);
}

static void finalize(struct stmt *s)
{
	sqlite3_finalize(s->st);
	free(s->val);
	*s = (struct stmt){ NULL, NULL };
}

static void finalize_all(struct mdb_writer *w)
{
	sqlite3_finalize(w->pc_ins);
	w->pc_ins = NULL;
	free(w->pc);
	free(w->pc_buf);
	w->pc = NULL;
	w->pc_buf = NULL;
	finalize(&w->alloc.one);
	finalize(&w->alloc.multi);
	finalize(&w->bad.one);
	finalize(&w->bad.multi);
}

int mdb_writer_start(struct mdb_writer **out, struct mdb_db *db,
		     int64_t source_id, int pack, struct mdb_error *e)
{
	struct mdb_writer *w = calloc(1, sizeof(*w));
	int ret;

	*out = NULL;
	if (!w)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	w->db = db;
	mdb_error_clear(&w->err);
	ret = prepare_all(w, source_id, e);
	if (!ret && pack) {
		w->pack = 1;
		w->pc = malloc(sizeof(*w->pc));
		w->pc_buf = malloc(MDB_PC_MAX_BYTES);
		if (!w->pc || !w->pc_buf) {
			ret = mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1,
					    NULL);
		} else if (sqlite3_prepare_v2(db->h, "INSERT INTO slice_col "
					      "(source_id, blk, data) VALUES "
					      "(?, ?, ?)", -1, &w->pc_ins,
					      NULL) != SQLITE_OK) {
			ret = mdb_db_error(db, e, "cannot write to database");
		} else {
			w->pc->rows = 0;
			sqlite3_bind_int64(w->pc_ins, 1, source_id);
		}
	}
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
	w->cur = w->all[0];
	for (int i = 1; i < NBATCHES; i++)
		w->spare[w->nspare++] = w->all[i];
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		goto nomem;
	}
	*out = w;
	return 0;
nomem:
	for (int i = 0; i < NBATCHES; i++)
		free(w->all[i]);
	finalize_all(w);
	free(w);
	return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
}

/* Hand the current batch to the thread and take a spare one. */
static int writer_push(struct mdb_writer *w, struct mdb_error *e)
{
	pthread_mutex_lock(&w->mu);
	w->full[(w->full_head + w->nfull) % NBATCHES] = w->cur;
	w->nfull++;
	w->cur = NULL;
	pthread_cond_broadcast(&w->cv);
	while (!w->nspare && !w->failed)
		pthread_cond_wait(&w->cv, &w->mu);
	if (w->failed) {
		pthread_mutex_unlock(&w->mu);
		*e = w->err;
		return -MDB_E_DB;
	}
	w->cur = w->spare[--w->nspare];
	pthread_mutex_unlock(&w->mu);
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
	pthread_mutex_lock(&w->mu);
	if (!cancel && w->cur && (w->cur->nlt || w->cur->nbad) &&
	    !w->failed) {
		w->full[(w->full_head + w->nfull) % NBATCHES] = w->cur;
		w->nfull++;
		w->cur = NULL;
	}
	w->stop = 1;
	w->cancel = cancel;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
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
	r->col_whole = w->pack;
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
