// SPDX-License-Identifier: MIT
/*
 * The loader: writes one source in one transaction.  It is the sink a
 * decoder feeds; the analysis (analysis/analysis.h: call-site and string
 * ids, pairing, derived figures) runs on each event, each finished
 * lifetime and anomalous free goes to the row writer (writer.c), and the
 * ids and figures (stats.c) are written at commit.
 *
 * Nothing here is per-event SQL beyond one INSERT per row: dictionaries
 * and aggregates are hash maps, so ingest runs at SQLite's insert rate.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/analysis.h"
#include "db.h"
#include "sqlutil.h"
#include "stats.h"
#include "writer.h"

#define PROGRESS_EVERY (1u << 14) /* the CLI redraws at most 5 times a s */
#define WRITEBACK_EVERY (1u << 17) /* a multiple of PROGRESS_EVERY */

struct mdb_load {
	struct mdb_load_head h;   /* first: what every load keeps */
	struct mdb_writer *writer;  /* inserts rows on its own thread */
	struct mdb_sink sink;
	struct mdb_analysis an;
	struct mdb_writer_ranges ranges;
	int wb_fd;                /* the file the rows go to; -1 none */
	char hash[MDB_HASH_HEX];  /* a hash come late (mdb_load_hash()) */
};

static int load_nomem(struct mdb_load *l)
{
	return mdb_error_nomem(l->h.e);
}

/*
 * Early writeback.  The row writer's pages reach the kernel as it goes
 * (db.c keeps SQLite's page cache small), and COMMIT's fsync then waits
 * for all of them to be written out.  So this thread, which has time
 * while the writer thread works, asks the kernel to start writing them
 * (sync_file_range(SYNC_FILE_RANGE_WRITE): no wait, no promise; COMMIT
 * still syncs) every WRITEBACK_EVERY events and when the events end, so
 * that COMMIT finds most of them written.  The rows go to the
 * database file in a new database (rollback journal, db.c), else to its
 * write-ahead log.
 *
 * The descriptor is closed (load_free()) only once the source's
 * transaction has ended: closing any descriptor of a file drops the
 * process's POSIX locks on it, SQLite's included, and SQLite holds none
 * of a rollback-journal database outside a transaction.
 */
static void writeback_open(struct mdb_load *l)
{
	char *wal = NULL;

	l->wb_fd = -1;
#ifdef SYNC_FILE_RANGE_WRITE
	if (!l->h.db->path)
		return;
	if (l->h.db->fresh)
		l->wb_fd = open(l->h.db->path, O_RDONLY | O_CLOEXEC);
	else if (asprintf(&wal, "%s-wal", l->h.db->path) >= 0)
		l->wb_fd = open(wal, O_RDONLY | O_CLOEXEC);
	free(wal);
#endif
}

static void writeback_kick(struct mdb_load *l)
{
#ifdef SYNC_FILE_RANGE_WRITE
	if (l->wb_fd >= 0)
		sync_file_range(l->wb_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
	(void)l;
#endif
}

/* ---- rows ----------------------------------------------------------- */

static int load_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	struct mdb_load *l = ctx;

	return mdb_writer_lifetime(l->writer, lt, l->h.e);
}

static int load_bad_free(void *ctx, const struct mdb_free *f)
{
	struct mdb_load *l = ctx;

	return mdb_writer_bad_free(l->writer, f, l->h.e);
}

static int load_event(void *ctx, const struct mdb_event *ev)
{
	struct mdb_load *l = ctx;
	int ret;

	if ((l->an.events + 1) % PROGRESS_EVERY == 0) {
		if ((l->an.events + 1) % WRITEBACK_EVERY == 0)
			writeback_kick(l);
		if (l->h.opts.progress)
			l->h.opts.progress(l->h.opts.progress_ctx,
					   l->an.events + 1);
	}
	ret = mdb_analysis_event(&l->an, ev);
	if (ret == -MDB_E_NOMEM)
		return load_nomem(l);
	return ret;
}

static void load_ahead(void *ctx, const struct mdb_event *ev)
{
	struct mdb_load *l = ctx;

	mdb_analysis_ahead(&l->an, ev);
}

/* ---- begin / commit / abort ----------------------------------------- */

static void load_free(struct mdb_load *l)
{
	if (!l)
		return;
	if (l->wb_fd >= 0)
		close(l->wb_fd);
	mdb_analysis_release(&l->an);
	free(l);
}

void mdb_load_abort(struct mdb_load *l)
{
	if (!l)
		return;
	mdb_writer_cancel(l->writer);
	l->writer = NULL;
	mdb_db_exec(l->h.db, "ROLLBACK", NULL);
	load_free(l);
}

const struct mdb_sink *mdb_load_sink(struct mdb_load *l)
{
	return &l->sink;
}

int mdb_load_begin(struct mdb_db *db, const char *path,
		   const struct mdb_source_meta *m,
		   const struct mdb_load_opts *opts, struct mdb_load **out,
		   struct mdb_load_result *res, struct mdb_error *e)
{
	struct mdb_analysis_out aout = { NULL, load_lifetime, load_bad_free };
	struct mdb_load *l;
	int ret;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return mdb_error_nomem(e);
	l->wb_fd = -1;
	aout.ctx = l;
	if (mdb_analysis_init(&l->an, m, &aout) < 0) {
		load_free(l);
		return mdb_error_nomem(e);
	}
	l->sink.ctx = l;
	l->sink.event = load_event;
	l->sink.ahead = load_ahead;

	ret = mdb_load_head_begin(&l->h, db, path, m, opts, res, e);
	if (ret != 0) {
		load_free(l);
		return ret;
	}
	writeback_open(l);
	ret = mdb_writer_start(&l->writer, db, l->h.source_id, e);
	if (ret < 0) {
		mdb_load_abort(l);
		return ret;
	}
	*out = l;
	return 0;
}

int mdb_load_hash(struct mdb_load *l, const char *hash, struct mdb_error *e)
{
	size_t n = strlen(hash);

	if (n >= sizeof(l->hash))
		return mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
				     "hash=%s", hash);
	memcpy(l->hash, hash, n + 1); /* written at commit */
	return 0;
}

static int write_dicts(struct mdb_load *l)
{
	sqlite3_stmt *site = NULL, *str = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(l->h.db->h,
			       "INSERT INTO site (source_id, id, addr, text) "
			       "VALUES (?1, ?2, ?3, ?4)", -1, &site, NULL) ||
	    sqlite3_prepare_v2(l->h.db->h,
			       "INSERT INTO str (source_id, id, text) "
			       "VALUES (?1, ?2, ?3)", -1, &str, NULL)) {
		ret = mdb_db_error(l->h.db, l->h.e, "cannot write to database");
		goto out;
	}
	sqlite3_bind_int64(site, 1, l->h.source_id);
	sqlite3_bind_int64(str, 1, l->h.source_id);
	for (uint32_t i = 0; i < l->an.nsites && ret >= 0; i++) {
		const struct mdb_site *s = &l->an.sites[i];

		sqlite3_bind_int64(site, 2, i + 1);
		bind_opt(site, 3, (int64_t)s->addr, !s->has_addr);
		if (s->text_id)
			sqlite3_bind_text(site, 4,
					  mdb_analysis_site_text(&l->an, s),
					  -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(site, 4);
		if (sqlite3_step(site) != SQLITE_DONE)
			ret = mdb_db_error(l->h.db, l->h.e,
					   "cannot write to database");
		sqlite3_reset(site);
	}
	for (size_t i = 0; i < l->an.strs.n && ret >= 0; i++) {
		sqlite3_bind_int64(str, 2, (int64_t)i + 1);
		sqlite3_bind_text(str, 3, l->an.strs.texts[i], -1,
				  SQLITE_STATIC);
		if (sqlite3_step(str) != SQLITE_DONE)
			ret = mdb_db_error(l->h.db, l->h.e,
					   "cannot write to database");
		sqlite3_reset(str);
	}
out:
	sqlite3_finalize(site);
	sqlite3_finalize(str);
	return ret;
}

/* The distinct stacks and their frames, pos 0 the innermost. */
static int write_stacks(struct mdb_load *l)
{
	const struct mdb_stacks *s = &l->an.stacks;
	sqlite3_stmt *stk = NULL, *fr = NULL;
	int ret = 0;

	if (!s->n)
		return 0;
	if (sqlite3_prepare_v2(l->h.db->h,
			       "INSERT INTO stack (source_id, id, hash, depth) "
			       "VALUES (?1, ?2, ?3, ?4)", -1, &stk, NULL) ||
	    sqlite3_prepare_v2(l->h.db->h,
			       "INSERT INTO stack_frame (source_id, stack_id, "
			       "pos, addr) VALUES (?1, ?2, ?3, ?4)", -1, &fr,
			       NULL)) {
		ret = mdb_db_error(l->h.db, l->h.e, "cannot write to database");
		goto out;
	}
	sqlite3_bind_int64(stk, 1, l->h.source_id);
	sqlite3_bind_int64(fr, 1, l->h.source_id);
	for (uint32_t i = 0; i < s->n && ret >= 0; i++) {
		sqlite3_bind_int64(stk, 2, i + 1);
		bind_u64(stk, 3, s->hash[i]);
		sqlite3_bind_int64(stk, 4, s->depth[i]);
		if (sqlite3_step(stk) != SQLITE_DONE)
			ret = mdb_db_error(l->h.db, l->h.e,
					   "cannot write to database");
		sqlite3_reset(stk);
		sqlite3_bind_int64(fr, 2, i + 1);
		for (uint32_t k = 0; k < s->depth[i] && ret >= 0; k++) {
			sqlite3_bind_int64(fr, 3, k);
			bind_u64(fr, 4, s->frames[s->start[i] + k]);
			if (sqlite3_step(fr) != SQLITE_DONE)
				ret = mdb_db_error(l->h.db, l->h.e,
						   "cannot write to database");
			sqlite3_reset(fr);
		}
	}
out:
	sqlite3_finalize(stk);
	sqlite3_finalize(fr);
	return ret;
}

static int write_counts(struct mdb_load *l, const struct mdb_decode_stats *d)
{
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(l->h.db->h,
			       "UPDATE source SET records = ?2, events = ?3, "
			       "unknown = ?4, feature_bytes = ?5, "
			       "malformed = ?6, lost_events = ?7, "
			       "seq_missing = ?8, seq_disorder = ?9, "
			       "first_seq = ?10, last_seq = ?11, "
			       "first_ts = ?12, last_ts = ?13, "
			       "alloc_lo = ?14, alloc_hi = ?15, "
			       "bad_lo = ?16, bad_hi = ?17, allocations = ?18, "
			       "bad_frees = ?19, ncpus = coalesce(?20, ncpus), "
			       "perf_frees = ?21, perf_freed_bytes = ?22, "
			       "perf_pingpong = ?23 WHERE id = ?1",
			       -1, &st, NULL))
		return mdb_db_error(l->h.db, l->h.e, "cannot write to database");
	sqlite3_bind_int64(st, 1, l->h.source_id);
	bind_u64(st, 2, d->records);
	bind_u64(st, 3, d->events);
	bind_u64(st, 4, d->unknown);
	bind_u64(st, 5, d->feature_bytes);
	bind_u64(st, 6, d->malformed);
	bind_u64(st, 7, d->lost_events);
	bind_u64(st, 8, d->seq_missing);
	bind_u64(st, 9, d->seq_disorder);
	bind_opt(st, 10, d->first_seq, !d->events);
	bind_opt(st, 11, d->last_seq, !d->events);
	bind_opt(st, 12, l->an.first_ts, l->an.first_ts == MDB_NO_TS);
	bind_opt(st, 13, l->an.last_ts, l->an.last_ts == MDB_NO_TS);
	bind_opt(st, 14, l->ranges.alloc_lo, !l->ranges.alloc_lo);
	bind_opt(st, 15, l->ranges.alloc_hi, !l->ranges.alloc_lo);
	bind_opt(st, 16, l->ranges.bad_lo, !l->ranges.bad_lo);
	bind_opt(st, 17, l->ranges.bad_hi, !l->ranges.bad_lo);
	bind_u64(st, 18, l->an.rows);
	bind_u64(st, 19, l->an.bad_rows);
	/* formats that learn their CPUs only by reading (text) */
	bind_opt(st, 20, d->ncpus, d->ncpus <= 0);
	/* what perf kmem counts beyond memdb's frees (db/schema-10.sql) */
	bind_u64(st, 21, l->an.perf_frees);
	bind_u64(st, 22, l->an.perf_bytes);
	bind_u64(st, 23, l->an.perf_pingpong);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = mdb_db_error(l->h.db, l->h.e, "cannot write to database");
	sqlite3_finalize(st);
	return ret;
}

int mdb_load_commit(struct mdb_load *l, const struct mdb_decode_stats *st,
		    struct mdb_load_result *res, struct mdb_error *e)
{
	int ret;

	l->h.e = e;
	writeback_kick(l);
	ret = mdb_analysis_finish(&l->an);
	if (ret == -MDB_E_NOMEM)
		ret = load_nomem(l);
	if (ret >= 0) {
		/* the connection is ours again once the writer has stopped */
		ret = mdb_writer_finish(l->writer, &l->ranges, e);
		l->writer = NULL;
	}
	if (ret >= 0 && l->hash[0])
		ret = mdb_source_hash(l->h.db, l->h.source_id, l->hash, e);
	if (ret >= 0)
		ret = write_dicts(l);
	if (ret >= 0)
		ret = write_stacks(l);
	if (ret >= 0)
		ret = mdb_stats_write(l->an.stats, l->h.db->h, l->h.source_id,
				      e);
	if (ret >= 0)
		ret = write_counts(l, st);
	if (ret < 0) {
		mdb_load_abort(l);
		return ret;
	}
	ret = mdb_load_head_commit(&l->h, res, e);
	if (ret < 0) {
		load_free(l);
		return ret;
	}
	res->allocations = l->an.rows;
	res->bad_frees = l->an.bad_rows;
	res->live = l->an.live_end;
	load_free(l);
	return 0;
}
