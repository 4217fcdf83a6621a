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
	struct ins bad;
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
	/* the lifetimes as blocks of packed columns (db/packcol.h): the
	 * rows of the block being filled, the blob, the insert into
	 * alloc_blk, the id its next row gets */
	struct mdb_pc_block *pc;
	uint8_t *pc_buf;
	sqlite3_stmt *blk_ins;
	int64_t next_id;
};

/* Bind bad_free row @k: ?(2 + 12k) .. ?(13 + 12k), ?1 the source. */
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

/* Run insert @st, its blob ?3 the @n bytes of pc_buf. */
static int insert_blob(struct mdb_writer *w, sqlite3_stmt *st, size_t n)
{
	int rc;

	sqlite3_bind_blob(st, 3, w->pc_buf, (int)n, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(w->db, &w->err,
				    "cannot write to database");
	return 0;
}

/* Bind the time range of @b's allocations that have a time (its zone
 * map, db/schema-12.sql) to ?4 and ?5, NULL when none has, and the
 * states and types they have to ?6 (alloc_blk.kinds). */
static void bind_zone(sqlite3_stmt *st, const struct mdb_pc_block *b)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, kinds = 0;

	for (size_t i = 0; i < b->rows; i++) {
		int64_t t = b->v[MDB_PC_TS][i];
		int64_t state = b->v[MDB_PC_STATE][i];
		int64_t type = b->v[MDB_PC_TYPE][i];

		if (state >= 0 && state < 8)
			kinds |= (int64_t)1 << state;
		if (type >= 0 && type < 8)
			kinds |= (int64_t)1 << (8 + type);
		if (b->null[MDB_PC_TS][i])
			continue;
		if (t < lo)
			lo = t;
		if (t > hi)
			hi = t;
	}
	sqlite3_bind_int64(st, 6, kinds);
	if (lo > hi) {
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
	} else {
		sqlite3_bind_int64(st, 4, lo);
		sqlite3_bind_int64(st, 5, hi);
	}
}

/* Write the block being filled, if it has rows, into alloc_blk: its id
 * the last alloc id it holds. */
static int pack_flush(struct mdb_writer *w)
{
	size_t n, rows = w->pc->rows;
	int64_t last = w->next_id + (int64_t)rows - 1;

	if (!rows)
		return 0;
	bind_zone(w->blk_ins, w->pc);
	n = mdb_pc_pack(w->pc, w->pc_buf);
	w->pc->rows = 0;
	sqlite3_bind_int64(w->blk_ins, 1, last);
	if (insert_blob(w, w->blk_ins, n) < 0)
		return -1;
	if (!w->r.alloc_lo)
		w->r.alloc_lo = w->next_id;
	w->r.alloc_hi = last;
	w->next_id = last + 1;
	return 0;
}

/* The lifetimes of @b into the packed blocks, MDB_PC_ROWS a block. */
static int pack_rows(struct mdb_writer *w, const struct batch *b)
{
	for (size_t i = 0; i < b->nlt; i++) {
		mdb_pc_add(w->pc, &b->lt[i]);
		if (w->pc->rows == MDB_PC_ROWS && pack_flush(w) < 0)
			return -1;
	}
	return 0;
}

/*
 * Write a batch: its lifetimes into blocks, its bad frees as rows.  A
 * multi-row INSERT saves SQLite's per-statement work (open the table
 * cursor, halt, reset) on all but one row in MULTI_ROWS.
 */
static int write_batch(struct mdb_writer *w, const struct batch *b)
{
	if (pack_rows(w, b) < 0)
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

/* The insert of bad frees: the columns as bind_bad_free() binds them. */
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
		return mdb_error_nomem(e);
	rc = sqlite3_prepare_v2(w->db->h, sql, n, &s->st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return mdb_db_error(w->db, e, "cannot write to database");
	sqlite3_bind_int64(s->st, 1, source_id);
	/* every parameter starts out NULL */
	s->val = malloc((size_t)(2 + nrows * ncols) * sizeof(*s->val));
	if (!s->val)
		return mdb_error_nomem(e);
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

/*
 * The inserts the writer runs, and the first alloc id: the ids of the
 * database's blocks end at the largest block id (db/allocvt.c).
 */
static int prepare_all(struct mdb_writer *w, int64_t source_id,
		       struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	w->bad = (struct ins){ .bind = bind_bad_free,
			       .row_size = sizeof(struct mdb_free),
			       .lo = &w->r.bad_lo, .hi = &w->r.bad_hi };
	if (prepare_ins(w, &w->bad, bad_insert, BAD_COLS, source_id, e) < 0)
		return -MDB_E_DB;
	w->pc = malloc(sizeof(*w->pc));
	w->pc_buf = malloc(MDB_PC_MAX_BYTES);
	if (!w->pc || !w->pc_buf)
		return mdb_error_nomem(e);
	w->pc->rows = 0;
	if (sqlite3_prepare_v2(w->db->h, "SELECT coalesce(max(id), 0) + 1 "
			       "FROM alloc_blk", -1, &st, NULL) != SQLITE_OK ||
	    (rc = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return mdb_db_error(w->db, e, "cannot read the database");
	}
	w->next_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(w->db->h, "INSERT INTO alloc_blk (id, "
			       "source_id, data, min_ts, max_ts, kinds) VALUES "
			       "(?, ?, ?, ?, ?, ?)", -1,
			       &w->blk_ins, NULL) != SQLITE_OK)
		return mdb_db_error(w->db, e, "cannot write to database");
	sqlite3_bind_int64(w->blk_ins, 2, source_id);
	return 0;
}

static void finalize(struct stmt *s)
{
	sqlite3_finalize(s->st);
	free(s->val);
	*s = (struct stmt){ NULL, NULL };
}

static void finalize_all(struct mdb_writer *w)
{
	sqlite3_finalize(w->blk_ins);
	w->blk_ins = NULL;
	free(w->pc);
	free(w->pc_buf);
	w->pc = NULL;
	w->pc_buf = NULL;
	finalize(&w->bad.one);
	finalize(&w->bad.multi);
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
	return mdb_error_nomem(e);
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
