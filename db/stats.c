// SPDX-License-Identifier: MIT
/* Writing the derived figures; see stats.h and analysis/stats.h. */
#include <stdio.h>

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

static int write_timeline(struct table_writer *w, const struct mdb_stats *s)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < s->tl_n; i++) {
		const struct mdb_tl_slot *t = &s->tl[i];

		if (t->first_seq == INT64_MIN)
			continue; /* no event fell in this slot */
		sqlite3_bind_int64(w->st, 2, (sqlite3_int64)i);
		sqlite3_bind_int64(w->st, 3, t->first_seq);
		sqlite3_bind_int64(w->st, 4, t->last_seq);
		bind_opt(w->st, 5, t->first_ts, t->first_ts == MDB_NO_TS);
		bind_opt(w->st, 6, t->last_ts, t->last_ts == MDB_NO_TS);
		bind_u64(w->st, 7, t->allocs);
		bind_u64(w->st, 8, t->frees);
		bind_u64(w->st, 9, t->bytes_in);
		bind_u64(w->st, 10, t->bytes_out);
		ret = tw_step(w);
	}
	return ret;
}

/* ---- the slicing index (db/schema-5.sql, schema-6.sql) ------------- */

#define SL_FIGS "hits, sum_req, sum_alloc, freed, pingpong, live, live_bytes"

static void bind_slfigs(sqlite3_stmt *st, int col, const struct mdb_figs *f)
{
	const uint64_t v[] = { f->hits, f->bytes_req, f->bytes_alloc,
			       f->freed, f->pingpong, f->live, f->live_bytes };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		bind_u64(st, col + (int)i, v[i]);
}

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

/* The rows of @t (slice_bucket, slice_key, slice_pid, slice_bucket_comm:
 * @which 0 to 3) and their rowid range into *@lo, *@hi (0 when none). */
static int write_slrows(struct table_writer *w, const struct mdb_ftable *t,
			int which, int64_t *lo, int64_t *hi)
{
	int ret = 0;

	*lo = *hi = 0;
	for (size_t i = 0; !ret && i < t->n; i++) {
		const struct mdb_frow *r = &t->rows[i];
		const struct mdb_fkey *k = &r->k;

		sqlite3_bind_int64(w->st, 2, k->site_id);
		sqlite3_bind_int64(w->st, 3, k->type);
		bind_opt(w->st, 4, k->cache_id, !k->cache_id);
		bind_slfigs(w->st, 5, &r->f);
		if (which == 0 || which == 3)
			sqlite3_bind_int64(w->st, 12, k->bucket);
		else if (which == 1)
			bind_opt(w->st, 12, k->comm_id, !k->comm_id);
		else
			bind_opt(w->st, 12, k->pid, k->pid == MDB_NO_PID);
		if (which != 2)
			bind_u64(w->st, 13, k->obj_size);
		if (which == 3)
			bind_opt(w->st, 14, k->comm_id, !k->comm_id);
		ret = tw_step(w);
		*hi = sqlite3_last_insert_rowid(w->db);
		if (!*lo)
			*lo = *hi;
	}
	return ret;
}

/* The rows of slice_pp (@which 0) or slice_stack (1), and their rowid
 * range into *@lo, *@hi (0 when none). */
static int write_slrows6(struct table_writer *w, const struct mdb_ftable *t,
			 int which, int64_t *lo, int64_t *hi)
{
	int ret = 0;

	*lo = *hi = 0;
	for (size_t i = 0; !ret && i < t->n; i++) {
		const struct mdb_frow *r = &t->rows[i];
		const struct mdb_fkey *k = &r->k;

		sqlite3_bind_int64(w->st, 2, k->bucket);
		if (which == 0) {
			sqlite3_bind_int64(w->st, 3, k->site_id);
			sqlite3_bind_int64(w->st, 4, k->type);
			bind_opt(w->st, 5, k->cache_id, !k->cache_id);
			bind_u64(w->st, 6, k->obj_size);
			bind_opt(w->st, 7, k->comm_id, !k->comm_id);
			sqlite3_bind_int64(w->st, 8, k->cpu);
			sqlite3_bind_int64(w->st, 9, k->free_cpu);
			bind_u64(w->st, 10, r->f.hits);
		} else {
			sqlite3_bind_int64(w->st, 3, k->site_id);
			bind_u64(w->st, 4, r->f.bytes_alloc);
		}
		ret = tw_step(w);
		*hi = sqlite3_last_insert_rowid(w->db);
		if (!*lo)
			*lo = *hi;
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
		"INSERT INTO slice_bucket (source_id, site_id, type, "
		"cache_id, " SL_FIGS ", bucket, bytes_alloc) VALUES (?, ?, ?, "
		"?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"INSERT INTO slice_key (source_id, site_id, type, cache_id, "
		SL_FIGS ", comm_id, bytes_alloc) VALUES (?, ?, ?, ?, ?, ?, ?, "
		"?, ?, ?, ?, ?, ?)",
		"INSERT INTO slice_pid (source_id, site_id, type, cache_id, "
		SL_FIGS ", pid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		/* as slice_bucket's, without ?4 (cache) and ?13 (size) */
		"INSERT INTO slice_bucket_comm (source_id, site_id, type, "
		SL_FIGS ", bucket, comm_id) VALUES (?1, ?2, ?3, ?5, ?6, ?7, "
		"?8, ?9, ?10, ?11, ?12, ?14)",
		"INSERT INTO slice_pp (source_id, bucket, site_id, type, "
		"cache_id, bytes_alloc, comm_id, cpu, free_cpu, hits) VALUES "
		"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"INSERT INTO slice_stack (source_id, bucket, stack_id, bytes) "
		"VALUES (?, ?, ?, ?)",
		"INSERT INTO slice_meta (source_id, block_rows, width, "
		"min_ts, max_ts, max_end, bucket_lo, bucket_hi, key_lo, "
		"key_hi, pid_lo, pid_hi, bcomm_lo, bcomm_hi, pp_lo, pp_hi, "
		"stack_lo, stack_hi, bcomm_shift, level) VALUES (?, ?, ?, ?, "
		"?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 6)",
	};
	const struct mdb_ftable *tabs[SL_TABLES] = {
		&s->sl_buckets, &s->sl_keys, &s->sl_pids, &s->sl_bcomm,
		&s->sl_pp, &s->sl_stacks,
	};
	struct table_writer w = { db, NULL, e };
	int64_t r[2 * SL_TABLES] = { 0 };
	int ret = 0;

	/* a source whose rows have times only in part, or times before 0,
	 * is not indexed (db/schema-5.sql) */
	if ((s->sl_timed && s->sl_untimed) || s->sl_neg)
		return 0;
	for (size_t i = 0; !ret && i < sizeof(sql) / sizeof(sql[0]); i++) {
		if (sqlite3_prepare_v2(db, sql[i], -1, &w.st, NULL))
			return tw_error(&w);
		sqlite3_bind_int64(w.st, 1, source_id);
		if (i == 0) {
			ret = write_blocks(&w, s);
		} else if (i <= 4) {
			ret = write_slrows(&w, tabs[i - 1], (int)i - 1,
					   &r[2 * (i - 1)], &r[2 * i - 1]);
		} else if (i <= SL_TABLES) {
			ret = write_slrows6(&w, tabs[i - 1], (int)i - 5,
					    &r[2 * (i - 1)], &r[2 * i - 1]);
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
	{ "INSERT INTO timeline (source_id, slot, first_seq, last_seq, "
	  "first_ts, last_ts, allocs, frees, bytes_in, bytes_out) VALUES "
	  "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", write_timeline },
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
	return ret ? ret : write_slice(db, source_id, s, e);
}
