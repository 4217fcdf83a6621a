// SPDX-License-Identifier: MIT
/* Writing the derived figures; see stats.h and analysis/stats.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../ingest/event.h"
#include "sqlutil.h"
#include "stats.h"

/* One table being written: its INSERT, with ?1 the source id. */
struct table_writer {
	sqlite3 *db;
	sqlite3_stmt *st;
	struct mdb_error *e;
};

static int tw_error(struct table_writer *w)
{
	mdb_error_set(w->e, MDB_E_DB, NULL, -1, -1, "%s",
		      sqlite3_errmsg(w->db));
	mdb_error_msg(w->e, "cannot write to database");
	return -MDB_E_DB;
}

/* Run the bound row. */
static int tw_step(struct table_writer *w)
{
	int rc = sqlite3_step(w->st);

	sqlite3_reset(w->st);
	return rc == SQLITE_DONE ? 0 : tw_error(w);
}

static void bind_figs(sqlite3_stmt *st, int col, const struct mdb_figs *f)
{
	const uint64_t v[] = { f->hits, f->bytes_req, f->bytes_alloc,
			       f->failed, f->zero_size, f->freed,
			       f->freed_bytes, f->pingpong, f->not_traced,
			       f->live, f->live_bytes, f->mismatched };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		bind_u64(st, col + (int)i, v[i]);
}

#define FIGS_COLS "hits, bytes_req, bytes_alloc, failed, zero_size, " \
		  "freed, freed_bytes, pingpong, not_traced, live, "  \
		  "live_bytes, mismatched"
#define FIGS_VALS "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"

static int write_sites(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < s->sites.n; i++) {
		const struct mdb_frow *r = &s->sites.rows[i];

		sqlite3_bind_int64(w->st, 2, r->k.site_id);
		sqlite3_bind_int64(w->st, 3, r->k.type);
		sqlite3_bind_int64(w->st, 4, r->k.cache_id);
		bind_figs(w->st, 5, &r->f);
		ret = tw_step(w);
	}
	return ret;
}

static int write_caches(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < s->caches.n; i++) {
		const struct mdb_frow *r = &s->caches.rows[i];

		sqlite3_bind_int64(w->st, 2, r->k.type);
		sqlite3_bind_int64(w->st, 3, r->k.cache_id);
		bind_u64(w->st, 4, r->k.obj_size);
		bind_figs(w->st, 5, &r->f);
		ret = tw_step(w);
	}
	return ret;
}

static int write_pingpong(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < s->pingpong.n; i++) {
		const struct mdb_frow *r = &s->pingpong.rows[i];

		sqlite3_bind_int64(w->st, 2, r->k.site_id);
		sqlite3_bind_int64(w->st, 3, r->k.type);
		sqlite3_bind_int64(w->st, 4, r->k.cpu);
		sqlite3_bind_int64(w->st, 5, r->k.free_cpu);
		bind_u64(w->st, 6, r->f.hits);
		bind_u64(w->st, 7, r->f.bytes_alloc);
		ret = tw_step(w);
	}
	return ret;
}

static int write_nodes(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < s->nodes.n; i++) {
		const struct mdb_frow *r = &s->nodes.rows[i];

		sqlite3_bind_int64(w->st, 2, r->k.type);
		sqlite3_bind_int64(w->st, 3, r->k.cpu);
		sqlite3_bind_int64(w->st, 4, r->k.node);
		bind_u64(w->st, 5, r->f.hits);
		ret = tw_step(w);
	}
	return ret;
}

static int write_anomaly(struct table_writer *w, int cls, int page,
			 const struct mdb_anom *a)
{
	char ex[MDB_EXAMPLES * 24] = "";
	size_t n = 0;

	for (int i = 0; i < a->nex; i++)
		n += (size_t)snprintf(ex + n, sizeof(ex) - n, "%s%lld",
				      i ? " " : "", (long long)a->seq[i]);
	sqlite3_bind_int(w->st, 2, cls);
	sqlite3_bind_int(w->st, 3, page);
	bind_u64(w->st, 4, a->count);
	bind_u64(w->st, 5, a->bytes);
	sqlite3_bind_int64(w->st, 6, a->seq[0]);
	sqlite3_bind_int64(w->st, 7, a->cpu[0]);
	sqlite3_bind_int64(w->st, 8, a->site[0]);
	sqlite3_bind_text(w->st, 9, ex, -1, SQLITE_TRANSIENT);
	return tw_step(w);
}

static int write_anomalies(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (int c = 1; !ret && c < MDB_AN__COUNT; c++)
		for (int p = 0; !ret && p < 2; p++)
			if (s->anom[c][p].count)
				ret = write_anomaly(w, c, p, &s->anom[c][p]);
	return ret;
}

/* ---- many rows, MULTI_ROWS at once -------------------------------- */

#define MULTI_ROWS 32 /* rows per multi-row INSERT, as db/writer.c's */
#define MW_COLS 9     /* columns at most, after the source id */

/*
 * A table written MULTI_ROWS rows per INSERT (SQLite's per-statement
 * work paid once for them), the rest one at a time: rows are kept until
 * a statement's worth is there.
 */
struct multi_writer {
	struct table_writer *w;
	sqlite3_stmt *one, *multi;
	int ncols, k;                   /* columns; rows kept */
	int64_t v[MULTI_ROWS][MW_COLS];
	unsigned null[MULTI_ROWS];      /* bit c: column c is NULL */
};

/*
 * "INSERT INTO @table (source_id, @cols) VALUES (?1, ?, ...), ..." for
 * @rows rows of @ncols columns after ?1 (the source id), so that row k's
 * columns are parameters 2 + k * @ncols .. 1 + (k + 1) * @ncols; NULL on
 * ENOMEM.  The columns are written "?", not "?N": SQLite numbers a "?"
 * one past the largest number so far, which gives the same numbers, and
 * it keeps only "?N" parameters in a list that each further "?N" is
 * looked up in at prepare time, which grows with the square of their
 * number.
 */
static char *multi_sql(const char *table, const char *cols, int ncols,
		       int rows)
{
	char *head = sqlite3_mprintf("INSERT INTO %s (source_id, %s) VALUES ",
				     table, cols);
	size_t cap, n;
	char *s;

	if (!head)
		return NULL;
	cap = strlen(head) + 1 + (size_t)rows * ((size_t)ncols + 2) * 3;
	s = malloc(cap);
	if (s) {
		n = (size_t)snprintf(s, cap, "%s", head);
		for (int k = 0; k < rows; k++) {
			n += (size_t)snprintf(s + n, cap - n, "%s(?1",
					      k ? ", " : "");
			for (int c = 0; c < ncols; c++) {
				memcpy(s + n, ", ?", 3);
				n += 3;
			}
			s[n++] = ')';
			s[n] = '\0';
		}
	}
	sqlite3_free(head);
	return s;
}

static int mw_open(struct multi_writer *m, struct table_writer *w,
		   int64_t source_id, const char *table, const char *cols,
		   int ncols)
{
	char *one = multi_sql(table, cols, ncols, 1);
	char *multi = multi_sql(table, cols, ncols, MULTI_ROWS);
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->w = w;
	m->ncols = ncols;
	if (!one || !multi) {
		ret = mdb_error_nomem(w->e);
	} else if (sqlite3_prepare_v2(w->db, one, -1, &m->one, NULL) ||
		   sqlite3_prepare_v2(w->db, multi, -1, &m->multi, NULL)) {
		ret = tw_error(w);
	} else {
		sqlite3_bind_int64(m->one, 1, source_id);
		sqlite3_bind_int64(m->multi, 1, source_id);
	}
	free(one);
	free(multi);
	return ret;
}

static void mw_close(struct multi_writer *m)
{
	sqlite3_finalize(m->one);
	sqlite3_finalize(m->multi);
	m->one = m->multi = NULL;
}

/* Insert rows [0, @rows) of those kept with @st. */
static int mw_step(struct multi_writer *m, sqlite3_stmt *st, int rows)
{
	int rc;

	for (int k = 0; k < rows; k++)
		for (int c = 0; c < m->ncols; c++)
			bind_opt(st, 2 + k * m->ncols + c, m->v[k][c],
				 m->null[k] >> c & 1);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return tw_error(m->w);
	return 0;
}

/* Keep the row of columns @v (NULL where bit c of @null is set). */
static int mw_row(struct multi_writer *m, const int64_t *v, unsigned null)
{
	memcpy(m->v[m->k], v, (size_t)m->ncols * sizeof(*v));
	m->null[m->k] = null;
	if (++m->k < MULTI_ROWS)
		return 0;
	m->k = 0;
	return mw_step(m, m->multi, MULTI_ROWS);
}

/* The rows kept, one at a time. */
static int mw_flush(struct multi_writer *m)
{
	int ret = 0;

	for (int k = 0; !ret && k < m->k; k++) {
		memmove(m->v[0], m->v[k], sizeof(m->v[0]));
		m->null[0] = m->null[k];
		ret = mw_step(m, m->one, 1);
	}
	m->k = 0;
	return ret;
}

/* The timeline's slots that events fell in, MULTI_ROWS rows an INSERT. */
static int write_timeline(struct table_writer *w, int64_t source_id,
			  const struct mdb_stats *s)
{
	struct multi_writer *m = malloc(sizeof(*m));
	int ret;

	if (!m)
		return mdb_error_nomem(w->e);
	ret = mw_open(m, w, source_id, "timeline", "slot, first_seq, "
		      "last_seq, first_ts, last_ts, allocs, frees, bytes_in, "
		      "bytes_out", 9);
	for (size_t i = 0; !ret && i < s->tl_n; i++) {
		const struct mdb_tl_slot *t = &s->tl[i];
		const int64_t v[9] = { (int64_t)i, t->first_seq, t->last_seq,
				       t->first_ts, t->last_ts,
				       (int64_t)t->allocs, (int64_t)t->frees,
				       (int64_t)t->bytes_in,
				       (int64_t)t->bytes_out };

		if (t->first_seq == INT64_MIN)
			continue; /* no event fell in this slot */
		ret = mw_row(m, v, (unsigned)(t->first_ts == MDB_NO_TS) << 3 |
				   (unsigned)(t->last_ts == MDB_NO_TS) << 4);
	}
	if (!ret)
		ret = mw_flush(m);
	mw_close(m);
	free(m);
	return ret;
}

static const struct {
	const char *sql;
	int (*write)(struct table_writer *w, const struct mdb_stats *s);
} tables[] = {
	{ "INSERT INTO site_stats (source_id, site_id, type, cache_id, "
	  FIGS_COLS ") VALUES (?, ?, ?, ?, " FIGS_VALS ")", write_sites },
	{ "INSERT INTO cache_stats (source_id, type, cache_id, obj_size, "
	  FIGS_COLS ") VALUES (?, ?, ?, ?, " FIGS_VALS ")", write_caches },
	{ "INSERT INTO pingpong_stats (source_id, site_id, type, cpu, "
	  "free_cpu, allocations, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)",
	  write_pingpong },
	{ "INSERT INTO node_stats (source_id, type, cpu, node, allocations) "
	  "VALUES (?, ?, ?, ?, ?)", write_nodes },
	{ "INSERT INTO anomaly (source_id, class, page, count, bytes, "
	  "first_seq, first_cpu, first_site_id, examples) VALUES "
	  "(?, ?, ?, ?, ?, ?, ?, ?, ?)", write_anomalies },
};

int mdb_stats_write(const struct mdb_stats *s, sqlite3 *db,
		    int64_t source_id, struct mdb_error *e)
{
	struct table_writer w = { db, NULL, e };
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(tables) / sizeof(tables[0]);
	     i++) {
		if (sqlite3_prepare_v2(db, tables[i].sql, -1, &w.st, NULL))
			return tw_error(&w);
		sqlite3_bind_int64(w.st, 1, source_id);
		ret = tables[i].write(&w, s);
		sqlite3_finalize(w.st);
		w.st = NULL;
	}
	if (!ret)
		ret = write_timeline(&w, source_id, s);
	return ret;
}
