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

/* ---- the slicing index (db/schema-5.sql, schema-6.sql) ------------- */

#define SL_FIGS "hits, sum_req, sum_alloc, freed, pingpong, live, live_bytes"

static void bind_blk(sqlite3_stmt *st, int col, int64_t v)
{
	bind_opt(st, col, v, v == INT64_MAX || v == INT64_MIN);
}

static int write_blocks(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < s->sl_nblk; i++) {
		const struct mdb_sl_block *b = &s->sl_blk[i];

		sqlite3_bind_int64(w->st, 2, (sqlite3_int64)i);
		bind_blk(w->st, 3, b->min_ts);
		bind_blk(w->st, 4, b->max_ts);
		bind_blk(w->st, 5, b->max_end);
		ret = tw_step(w);
	}
	return ret;
}

/* ---- level 7 (db/schema-7.sql): many rows, MULTI_ROWS at once ------- */

#define MULTI_ROWS 32 /* rows per multi-row INSERT, as db/writer.c's */
#define MW_COLS 12    /* columns at most, after the source id */

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
	int64_t lo, hi;                 /* rowids written; 0: none */
};

/* "INSERT INTO @table (source_id, @cols) VALUES (?1, ...)..." for
 * @rows rows of @ncols columns; NULL on ENOMEM. */
static char *multi_sql(const char *table, const char *cols, int ncols,
		       int rows)
{
	char *head = sqlite3_mprintf("INSERT INTO %s (source_id, %s) VALUES ",
				     table, cols);
	char *s = head ? mdb_sql_rows(head, rows, ncols, NULL) : NULL;

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
	m->hi = sqlite3_last_insert_rowid(m->w->db);
	if (!m->lo)
		m->lo = m->hi - rows + 1;
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

/* What writes a table's rows through mw_row(); @which: which table. */
typedef int (*mw_fill)(struct multi_writer *m, const struct mdb_stats *s,
		       int which);

/*
 * Table @table's rows (@ncols columns @cols, after the source id): @fill
 * keeps them, the rest go out at the end; their rowid range into *@lo,
 * *@hi when given (0 when none).
 */
static int mw_table(struct table_writer *w, int64_t source_id,
		    const char *table, const char *cols, int ncols,
		    mw_fill fill, const struct mdb_stats *s, int which,
		    int64_t *lo, int64_t *hi)
{
	struct multi_writer *m = malloc(sizeof(*m));
	int ret;

	if (!m)
		return mdb_error_nomem(w->e);
	ret = mw_open(m, w, source_id, table, cols, ncols);
	if (!ret)
		ret = fill(m, s, which);
	if (!ret)
		ret = mw_flush(m);
	if (lo) {
		*lo = m->lo;
		*hi = m->hi;
	}
	mw_close(m);
	free(m);
	return ret;
}

/* Add, stopping at INT64_MAX (the figures are stored as int64). */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return b > (uint64_t)INT64_MAX - a ? (uint64_t)INT64_MAX : a + b;
}

static inline int64_t sat64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/*
 * The rows of slice_ptr, in its key's order (mdb_stats_finish() sorted
 * the addresses; an address's chain runs from its highest bucket down)
 * so the B-tree is appended to, each with the figures of its address
 * summed over its buckets up to it.
 */
static int write_ptrs(struct multi_writer *m, const struct mdb_stats *s,
		      int which)
{
	uint32_t *chain = NULL;
	size_t cap = 0;
	int ret = 0;
	(void)which;

	for (size_t i = 0; !ret && i < s->sl_naddr; i++) {
		const struct mdb_sl_addr *a = &s->sl_addr[s->sl_aorder[i]];
		uint64_t c[6] = { 0 };
		size_t n = 0;

		for (uint32_t cur = a->top.prev; cur;
		     cur = s->sl_pe[cur - 1].prev) {
			if (MDB_GROW(chain, n, cap, 256)) {
				free(chain);
				return mdb_error_nomem(m->w->e);
			}
			chain[n++] = cur - 1;
		}
		/* from the lowest bucket up; the record's is the highest */
		for (size_t k = n + 1; !ret && k--;) {
			const struct mdb_sl_ptr *r = k ? &s->sl_pe[chain[k - 1]]
						       : &a->top;
			const uint64_t v[6] = { r->hits, r->bytes_req,
						r->bytes_alloc, r->freed,
						r->pingpong, r->live };
			int64_t row[10];

			row[0] = (int64_t)a->ptr;
			row[1] = s->sl_b0 + r->bucket;
			row[2] = r->last_site;
			row[3] = r->last_seq;
			for (int q = 0; q < 6; q++) {
				c[q] = sat_add(c[q], v[q]);
				row[4 + q] = (int64_t)c[q];
			}
			ret = mw_row(m, row, 0);
		}
	}
	free(chain);
	return ret;
}

static int write_tpids(struct multi_writer *m, const struct mdb_stats *s,
		       int which)
{
	const struct mdb_sl_tpid *e = s->sl_tpids.ents;
	int64_t c0 = s->sl_b0 >> MDB_SL_PID_SHIFT;
	int ret = 0;
	(void)which;

	for (size_t i = 0; !ret && i < s->sl_tpids.n; i++) {
		const struct mdb_sl_tpid *r = &e[i];
		const int64_t v[12] = {
			c0 + r->bucket, r->site_id, r->type, r->cache_id,
			r->pid, r->hits, sat64(r->sum_req),
			sat64(r->sum_alloc), r->freed, r->pingpong, r->live,
			sat64(r->live_bytes),
		};

		ret = mw_row(m, v, (!r->cache_id) << 3 |
				   (r->pid == MDB_NO_PID) << 4);
	}
	return ret;
}

static int write_ppids(struct multi_writer *m, const struct mdb_stats *s,
		       int which)
{
	const struct mdb_sl_ppid *e = s->sl_ppids.ents;
	int64_t c0 = s->sl_b0 >> MDB_SL_PID_SHIFT;
	int ret = 0;
	(void)which;

	for (size_t i = 0; !ret && i < s->sl_ppids.n; i++) {
		const struct mdb_sl_ppid *r = &e[i];
		const int64_t row[] = {
			c0 + r->bucket, r->site_id, r->pid, r->cpu,
			r->free_cpu, sat64(r->hits), sat64(r->bytes),
		};

		ret = mw_row(m, row, (r->pid == MDB_NO_PID) << 2);
	}
	return ret;
}

/*
 * The level 7 tables of a source that has them (s->sl_big), their rowid
 * ranges into @r: slice_bucket_pid's, slice_pp_pid's.
 */
static int write_big(struct table_writer *w, int64_t source_id,
		     const struct mdb_stats *s, int64_t r[4])
{
	static const struct {
		const char *table, *cols;
		int ncols;
		mw_fill write;
	} t[] = {
		{ "slice_ptr", "ptr, bucket, site_id, last_seq, hits, "
		  "bytes_req, bytes_alloc, freed, pingpong, live", 10,
		  write_ptrs },
		{ "slice_bucket_pid", "bucket, site_id, type, cache_id, pid, "
		  SL_FIGS, 12, write_tpids },
		{ "slice_pp_pid", "bucket, site_id, pid, cpu, free_cpu, hits, "
		  "bytes", 7, write_ppids },
	};
	int ret = 0;

	/* slice_ptr's rowids are not kept: it is read by its key */
	for (size_t i = 0; !ret && i < sizeof(t) / sizeof(t[0]); i++)
		ret = mw_table(w, source_id, t[i].table, t[i].cols,
			       t[i].ncols, t[i].write, s, 0,
			       i ? &r[2 * (i - 1)] : NULL,
			       i ? &r[2 * i - 1] : NULL);
	return ret;
}

/*
 * The level 6 tables (db/schema-5.sql, schema-6.sql), MULTI_ROWS rows an
 * INSERT as level 7's: slice_bucket, slice_key, slice_pid,
 * slice_bucket_comm, slice_pp and slice_stack (@which 0 to 5), the
 * columns of each in SL6[@which] order.
 */
static const struct {
	const char *table, *cols;
	int ncols;
} SL6[] = {
	{ "slice_bucket", "site_id, type, cache_id, " SL_FIGS ", bucket, "
	  "bytes_alloc", 12 },
	{ "slice_key", "site_id, type, cache_id, " SL_FIGS ", comm_id, "
	  "bytes_alloc", 12 },
	{ "slice_pid", "site_id, type, cache_id, " SL_FIGS ", pid", 11 },
	{ "slice_bucket_comm", "site_id, type, " SL_FIGS ", bucket, comm_id",
	  11 },
	{ "slice_pp", "bucket, site_id, type, cache_id, bytes_alloc, comm_id, "
	  "cpu, free_cpu, hits", 9 },
	{ "slice_stack", "bucket, stack_id, bytes", 3 },
};

/* Row @r of table @which into @v; returns the NULL bits. */
static unsigned sl6_row(int which, const struct mdb_frow *r, int64_t *v)
{
	const struct mdb_fkey *k = &r->k;
	const struct mdb_figs *f = &r->f;
	const uint64_t figs[7] = { f->hits, f->bytes_req, f->bytes_alloc,
				   f->freed, f->pingpong, f->live,
				   f->live_bytes };
	int n = 0, cache = which != 3;
	unsigned null = 0;

	if (which == 4) {
		const int64_t pp[9] = { k->bucket, k->site_id, k->type,
					k->cache_id, (int64_t)k->obj_size,
					k->comm_id, k->cpu, k->free_cpu,
					(int64_t)f->hits };

		memcpy(v, pp, sizeof(pp));
		return (unsigned)!k->cache_id << 3 | (unsigned)!k->comm_id << 5;
	}
	if (which == 5) {
		v[0] = k->bucket;
		v[1] = k->site_id;
		v[2] = (int64_t)f->bytes_alloc;
		return 0;
	}
	v[n++] = k->site_id;
	v[n++] = k->type;
	if (cache) {
		null |= (unsigned)!k->cache_id << n;
		v[n++] = k->cache_id;
	}
	for (int i = 0; i < 7; i++)
		v[n++] = (int64_t)figs[i];
	if (which == 0 || which == 3) {
		v[n++] = k->bucket;
	} else if (which == 1) {
		null |= (unsigned)!k->comm_id << n;
		v[n++] = k->comm_id;
	} else {
		null |= (unsigned)(k->pid == MDB_NO_PID) << n;
		v[n++] = k->pid;
	}
	if (which != 2 && which != 3)
		v[n++] = (int64_t)k->obj_size;
	if (which == 3) {
		null |= (unsigned)!k->comm_id << n;
		v[n++] = k->comm_id;
	}
	return null;
}

/* The rows of level 6 table @which (SL6[@which]). */
static int fill_sl6(struct multi_writer *m, const struct mdb_stats *s,
		    int which)
{
	const struct mdb_ftable *tabs[] = {
		&s->sl_buckets, &s->sl_keys, &s->sl_pids, &s->sl_bcomm,
		&s->sl_pp, &s->sl_stacks,
	};
	const struct mdb_ftable *t = tabs[which];
	int ret = 0;

	for (size_t i = 0; !ret && i < t->n; i++) {
		int64_t v[MW_COLS];
		unsigned null = sl6_row(which, &t->rows[i], v);

		ret = mw_row(m, v, null);
	}
	return ret;
}

/* The timeline's slots that events fell in. */
static int fill_timeline(struct multi_writer *m, const struct mdb_stats *s,
			 int which)
{
	int ret = 0;

	(void)which;
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
	return ret;
}

#define SL_TABLES 6 /* tables with a rowid range in slice_meta */

static int write_slice(sqlite3 *db, int64_t source_id,
		       const struct mdb_stats *s, struct mdb_error *e)
{
	static const char *const sql[] = {
		"INSERT INTO slice_block (source_id, blk, min_ts, max_ts, "
		"max_end) VALUES (?, ?, ?, ?, ?)",
		"INSERT INTO slice_meta (source_id, block_rows, width, "
		"min_ts, max_ts, max_end, bucket_lo, bucket_hi, key_lo, "
		"key_hi, pid_lo, pid_hi, bcomm_lo, bcomm_hi, pp_lo, pp_hi, "
		"stack_lo, stack_hi, bcomm_shift, bpid_lo, bpid_hi, ppid_lo, "
		"ppid_hi, bpid_shift, level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
		"?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	};
	struct table_writer w = { db, NULL, e };
	int64_t r[2 * SL_TABLES] = { 0 }, big[4] = { 0 };
	int ret = 0;

	/* a source whose rows have times only in part, or times before 0,
	 * is not indexed (db/schema-5.sql) */
	if ((s->sl_timed && s->sl_untimed) || s->sl_neg)
		return 0;
	if (s->sl_big) {
		ret = write_big(&w, source_id, s, big);
		if (ret)
			return ret;
	}
	for (size_t i = 0; !ret && i < sizeof(sql) / sizeof(sql[0]); i++) {
		if (sqlite3_prepare_v2(db, sql[i], -1, &w.st, NULL))
			return tw_error(&w);
		sqlite3_bind_int64(w.st, 1, source_id);
		if (i == 0) {
			ret = write_blocks(&w, s);
			for (int t = 0; !ret && t < SL_TABLES; t++)
				ret = mw_table(&w, source_id, SL6[t].table,
					       SL6[t].cols, SL6[t].ncols,
					       fill_sl6, s, t, &r[2 * t],
					       &r[2 * t + 1]);
		} else {
			sqlite3_bind_int64(w.st, 2, MDB_SL_BLOCK);
			sqlite3_bind_int64(w.st, 3,
					   (int64_t)1 << s->sl_shift);
			bind_blk(w.st, 4, s->sl_min_ts);
			bind_blk(w.st, 5, s->sl_max_ts);
			bind_blk(w.st, 6, s->sl_max_end);
			for (int k = 0; k < 2 * SL_TABLES; k++)
				bind_opt(w.st, 7 + k, r[k], !r[k]);
			sqlite3_bind_int(w.st, 7 + 2 * SL_TABLES,
					 MDB_SL_COMM_SHIFT);
			for (int k = 0; k < 4; k++)
				bind_opt(w.st, 8 + 2 * SL_TABLES + k, big[k],
					 !big[k]);
			bind_opt(w.st, 12 + 2 * SL_TABLES, MDB_SL_PID_SHIFT,
				 !s->sl_big);
			sqlite3_bind_int(w.st, 13 + 2 * SL_TABLES,
					 s->sl_big ? 7 : 6);
			ret = tw_step(&w);
		}
		sqlite3_finalize(w.st);
		w.st = NULL;
	}
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
		ret = mw_table(&w, source_id, "timeline", "slot, first_seq, "
			       "last_seq, first_ts, last_ts, allocs, frees, "
			       "bytes_in, bytes_out", 9, fill_timeline, s, 0,
			       NULL, NULL);
	return ret ? ret : write_slice(db, source_id, s, e);
}
