// SPDX-License-Identifier: MIT
/* The row-writer thread; see writer.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/event.h"
#include "sqlutil.h"
#include "writer.h"

#define BATCH_ROWS 4096
#define NBATCHES 8
#define ALLOC_COLS 22  /* bound per alloc row, after ?1 = source id */
#define MULTI_ROWS 32  /* rows per multi-row INSERT */

struct row {
	uint8_t is_free;
	union {
		struct mdb_lifetime lt;
		struct mdb_free f;
	} u;
};

struct batch {
	size_t n;
	struct row rows[BATCH_ROWS];
};

struct mdb_writer {
	struct mdb_db *db;
	sqlite3_stmt *ins_alloc, *ins_bad;
	sqlite3_stmt *ins_multi; /* MULTI_ROWS rows of ins_alloc at once */
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
};

/*
 * Bind lifetime @lt as row @k of the alloc insert: parameter ?1 is the
 * source id, row k's columns are ?(2 + 22k) .. ?(23 + 22k).
 */
static void bind_lifetime(sqlite3_stmt *st, int k, const struct mdb_lifetime *lt)
{
	int b = 1 + k * ALLOC_COLS, ended = lt->end_seq != MDB_NO_SEQ;
	int freed = lt->state == MDB_ST_FREED;

	sqlite3_bind_int64(st, b + 1, lt->seq);
	bind_opt(st, b + 2, lt->ts, lt->ts == MDB_NO_TS);
	sqlite3_bind_int64(st, b + 3, lt->cpu);
	sqlite3_bind_int64(st, b + 4, lt->type);
	sqlite3_bind_int64(st, b + 5, lt->site_id);
	bind_u64(st, b + 6, lt->ptr);
	bind_u64(st, b + 7, lt->bytes_req);
	bind_u64(st, b + 8, lt->bytes_alloc);
	bind_opt(st, b + 9, (int64_t)lt->gfp, lt->gfp == MDB_NO_GFP);
	bind_opt(st, b + 10, lt->gfp_id, !lt->gfp_id);
	sqlite3_bind_int64(st, b + 11, lt->node);
	bind_opt(st, b + 12, lt->cache_id, !lt->cache_id);
	sqlite3_bind_int64(st, b + 13, lt->state);
	bind_opt(st, b + 14, lt->end_seq, !ended);
	bind_opt(st, b + 15, lt->end_ts, !ended || lt->end_ts == MDB_NO_TS);
	bind_opt(st, b + 16, lt->free_cpu, !freed);
	bind_opt(st, b + 17, lt->free_site_id, !freed);
	bind_opt(st, b + 18, lt->free_type, !freed);
	bind_opt(st, b + 19, lt->pid, lt->pid == MDB_NO_PID);
	bind_opt(st, b + 20, lt->comm_id, !lt->comm_id);
	bind_opt(st, b + 21, lt->migratetype,
		 lt->migratetype == MDB_NO_MIGRATETYPE);
	bind_opt(st, b + 22, lt->stack_id, !lt->stack_id);
}

static void bind_bad_free(sqlite3_stmt *st, const struct mdb_free *f)
{
	sqlite3_bind_int64(st, 2, f->seq);
	bind_opt(st, 3, f->ts, f->ts == MDB_NO_TS);
	sqlite3_bind_int64(st, 4, f->cpu);
	sqlite3_bind_int64(st, 5, f->type);
	sqlite3_bind_int64(st, 6, f->site_id);
	bind_u64(st, 7, f->ptr);
	bind_opt(st, 8, f->cache_id, !f->cache_id);
	sqlite3_bind_int64(st, 9, f->class);
	bind_opt(st, 10, f->prev_seq, f->prev_seq == MDB_NO_SEQ);
	bind_opt(st, 11, f->pid, f->pid == MDB_NO_PID);
	bind_opt(st, 12, f->comm_id, !f->comm_id);
	bind_opt(st, 13, (int64_t)f->bytes, !f->bytes);
}

/* Run an insert of @nrows rows and extend the rowid range [*lo, *hi]. */
static int run_insert(struct mdb_writer *w, sqlite3_stmt *st, int nrows,
		      int64_t *lo, int64_t *hi)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(w->db, &w->err,
				    "cannot write to database");
	*hi = sqlite3_last_insert_rowid(w->db->h);
	if (!*lo)
		*lo = *hi - nrows + 1;
	return 0;
}

/*
 * Write a batch.  Runs of lifetimes go MULTI_ROWS at a time through one
 * multi-row INSERT, which saves SQLite's per-statement work (open the
 * table cursor, halt, reset) on all but one row in MULTI_ROWS.
 */
static int write_batch(struct mdb_writer *w, const struct batch *b)
{
	struct mdb_writer_ranges *r = &w->r;
	size_t i = 0;

	while (i < b->n) {
		size_t run = 0;

		while (i + run < b->n && !b->rows[i + run].is_free &&
		       run < MULTI_ROWS)
			run++;
		if (run == MULTI_ROWS) {
			for (size_t k = 0; k < run; k++)
				bind_lifetime(w->ins_multi, (int)k,
					      &b->rows[i + k].u.lt);
			if (run_insert(w, w->ins_multi, MULTI_ROWS,
				       &r->alloc_lo, &r->alloc_hi) < 0)
				return -1;
			i += run;
		} else if (run) {
			bind_lifetime(w->ins_alloc, 0, &b->rows[i].u.lt);
			if (run_insert(w, w->ins_alloc, 1, &r->alloc_lo,
				       &r->alloc_hi) < 0)
				return -1;
			i++;
		} else {
			bind_bad_free(w->ins_bad, &b->rows[i].u.f);
			if (run_insert(w, w->ins_bad, 1, &r->bad_lo,
				       &r->bad_hi) < 0)
				return -1;
			i++;
		}
	}
	return 0;
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
			return NULL;
		}
		b = w->full[w->full_head];
		w->full_head = (w->full_head + 1) % NBATCHES;
		w->nfull--;
		pthread_mutex_unlock(&w->mu);

		failed = write_batch(w, b) < 0;
		b->n = 0;

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
 * The inserts, defined once: alloc rows (one, or MULTI_ROWS at a time,
 * both built by prepare_alloc()) and bad_free rows.
 */
#define ALLOC_INSERT "INSERT INTO alloc (source_id, seq, ts, cpu, type, " \
		     "site_id, ptr, bytes_req, bytes_alloc, gfp, gfp_id, "  \
		     "node, cache_id, state, end_seq, end_ts, free_cpu, "  \
		     "free_site_id, free_type, pid, comm_id, migratetype, " \
		     "stack_id) VALUES "
#define BAD_INSERT "INSERT INTO bad_free (source_id, seq, ts, cpu, type, " \
		   "site_id, ptr, cache_id, class, prev_seq, pid, comm_id, " \
		   "bytes) VALUES "                                          \
		   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"

/*
 * Prepare the insert of @nrows alloc rows, bind_lifetime()'s layout:
 * VALUES (?1, ?2, ... ?23), (?1, ?24, ...), ..., with ?1 = @source_id.
 */
static int prepare_alloc(struct mdb_writer *w, int nrows, int64_t source_id,
			 sqlite3_stmt **st, struct mdb_error *e)
{
	size_t cap = sizeof(ALLOC_INSERT) + (size_t)nrows *
		     (ALLOC_COLS + 1) * 8;
	char *sql = malloc(cap);
	size_t n;
	int rc;

	if (!sql)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	n = (size_t)snprintf(sql, cap, "%s", ALLOC_INSERT);
	for (int k = 0; k < nrows; k++) {
		n += (size_t)snprintf(sql + n, cap - n, "%s(?1", k ? ", " : "");
		for (int c = 0; c < ALLOC_COLS; c++)
			n += (size_t)snprintf(sql + n, cap - n, ", ?%d",
					      2 + k * ALLOC_COLS + c);
		n += (size_t)snprintf(sql + n, cap - n, ")");
	}
	rc = sqlite3_prepare_v2(w->db->h, sql, (int)n, st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return mdb_db_error(w->db, e, "cannot write to database");
	sqlite3_bind_int64(*st, 1, source_id);
	return 0;
}

/* The three inserts the writer runs. */
static int prepare_all(struct mdb_writer *w, int64_t source_id,
		       struct mdb_error *e)
{
	int ret = prepare_alloc(w, 1, source_id, &w->ins_alloc, e);

	if (ret >= 0)
		ret = prepare_alloc(w, MULTI_ROWS, source_id, &w->ins_multi,
				    e);
	if (ret < 0)
		return ret;
	if (sqlite3_prepare_v2(w->db->h, BAD_INSERT, -1, &w->ins_bad, NULL))
		return mdb_db_error(w->db, e, "cannot write to database");
	sqlite3_bind_int64(w->ins_bad, 1, source_id);
	return 0;
}

static void finalize_all(struct mdb_writer *w)
{
	sqlite3_finalize(w->ins_alloc);
	sqlite3_finalize(w->ins_multi);
	sqlite3_finalize(w->ins_bad);
	w->ins_alloc = w->ins_multi = w->ins_bad = NULL;
}

int mdb_writer_start(struct mdb_writer **out, struct mdb_db *db,
		     int64_t source_id, struct mdb_error *e)
{
	struct mdb_writer *w = calloc(1, sizeof(*w));
	int ret;

	*out = NULL;
	if (!w)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
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
		w->all[i]->n = 0;
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

static inline struct row *writer_slot(struct mdb_writer *w,
				      struct mdb_error *e, int *ret)
{
	*ret = 0;
	if (w->cur->n == BATCH_ROWS) {
		*ret = writer_push(w, e);
		if (*ret < 0)
			return NULL;
	}
	return &w->cur->rows[w->cur->n++];
}

int mdb_writer_lifetime(struct mdb_writer *w, const struct mdb_lifetime *lt,
			struct mdb_error *e)
{
	int ret;
	struct row *r = writer_slot(w, e, &ret);

	if (!r)
		return ret;
	r->is_free = 0;
	r->u.lt = *lt;
	return 0;
}

int mdb_writer_bad_free(struct mdb_writer *w, const struct mdb_free *f,
			struct mdb_error *e)
{
	int ret;
	struct row *r = writer_slot(w, e, &ret);

	if (!r)
		return ret;
	r->is_free = 1;
	r->u.f = *f;
	return 0;
}

static void writer_stop(struct mdb_writer *w, int cancel)
{
	pthread_mutex_lock(&w->mu);
	if (!cancel && w->cur && w->cur->n && !w->failed) {
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
