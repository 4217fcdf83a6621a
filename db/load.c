// SPDX-License-Identifier: MIT
/*
 * The loader: writes one source in one transaction.  It is the sink a
 * decoder feeds; it turns call sites, cache names and gfp strings into
 * small per-source ids, runs the pairing (pair.c), hands each finished
 * lifetime and anomalous free to the row writer (writer.c) and to the
 * derived figures (stats.c), which are written at commit.
 *
 * Nothing here is per-event SQL beyond one INSERT per row: dictionaries
 * and aggregates are hash maps, so ingest runs at SQLite's insert rate.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/file.h"
#include "db.h"
#include "dict.h"
#include "../analysis/pair.h"
#include "sqlutil.h"
#include "stats.h"
#include "writer.h"

#define PROGRESS_EVERY (1u << 18)

/* A call site: an address, a symbolic text, or both. */
struct mdb_site {
	uint64_t addr;
	uint32_t text_id; /* 0: none */
	uint8_t has_addr;
};

struct mdb_load {
	struct mdb_db *db;
	struct mdb_error *e;
	struct mdb_load_opts opts;
	int64_t source_id;
	sqlite3_stmt *ins_alloc, *ins_bad;
	struct mdb_writer *writer;  /* inserts rows on its own thread */
	struct mdb_sink sink;
	struct mdb_pair pair;
	struct u64map site_by_addr; /* address -> site id */
	uint64_t hint_addr[256];    /* recent call sites: addr ... */
	uint32_t hint_id[256];      /* ... and their site ids (0: none) */
	struct mdb_dict site_text;  /* symbolic call sites -> text id */
	uint32_t *text_site;        /* text id - 1 -> site id */
	size_t text_site_cap;
	struct mdb_site *sites;     /* sites[id - 1] */
	uint32_t nsites;
	size_t site_cap;
	struct mdb_dict strs;       /* cache names, gfp strings */
	struct mdb_stats *stats;    /* derived tables, see stats.h */
	struct mdb_writer_ranges ranges;
	int64_t first_ts, last_ts;
	uint64_t events, rows, bad_rows, live_end;
};

/* ---- dictionaries --------------------------------------------------- */

static int load_nomem(struct mdb_load *l)
{
	return mdb_error_set(l->e, MDB_E_NOMEM, NULL, -1, -1, NULL);
}

static int site_new(struct mdb_load *l, uint64_t addr, int has_addr,
		    uint32_t text_id, uint32_t *id)
{
	if (l->nsites == l->site_cap) {
		size_t ncap = l->site_cap ? l->site_cap * 2 : 256;
		struct mdb_site *ns = realloc(l->sites, ncap * sizeof(*ns));

		if (!ns)
			return load_nomem(l);
		l->sites = ns;
		l->site_cap = ncap;
	}
	l->sites[l->nsites].addr = addr;
	l->sites[l->nsites].has_addr = (uint8_t)has_addr;
	l->sites[l->nsites].text_id = text_id;
	*id = ++l->nsites;
	return 0;
}

/*
 * Site id of an event's call site: its symbolic text when the trace
 * printed one (with the address, when one is known for it), else its
 * address.  Site ids are assigned in order of first appearance.
 */
static int site_id(struct mdb_load *l, const struct mdb_event *ev,
		   uint32_t *id)
{
	uint64_t *v;
	int added, ret;

	if (ev->site_text.len) {
		uint32_t t = mdb_dict_id(&l->site_text, &ev->site_text, &added);

		if (!t)
			return load_nomem(l);
		if (!added) {
			*id = l->text_site[t - 1];
			return 0;
		}
		if (l->site_text.n > l->text_site_cap) {
			size_t ncap = l->site_text.cap;
			uint32_t *nt = realloc(l->text_site,
					       ncap * sizeof(*nt));

			if (!nt)
				return load_nomem(l);
			l->text_site = nt;
			l->text_site_cap = ncap;
		}
		ret = site_new(l, ev->call_site, ev->call_site != 0, t, id);
		l->text_site[t - 1] = *id;
		return ret;
	}
	{
		/* call sites repeat: a direct-mapped hint before the map */
		unsigned h = (unsigned)((ev->call_site ^ ev->call_site >> 9 ^
					 ev->call_site >> 21) & 255);

		if (l->hint_id[h] && l->hint_addr[h] == ev->call_site) {
			*id = l->hint_id[h];
			return 0;
		}
		v = u64map_put(&l->site_by_addr, ev->call_site, 0, &added);
		if (!v)
			return load_nomem(l);
		if (added) {
			/* site_new() does not touch the map: @v stays valid */
			ret = site_new(l, ev->call_site, 1, 0, id);
			*v = *id;
			if (ret < 0)
				return ret;
		} else {
			*id = (uint32_t)*v;
		}
		l->hint_addr[h] = ev->call_site;
		l->hint_id[h] = *id;
		return 0;
	}
}

static int str_id(struct mdb_load *l, const struct mdb_str *s, uint32_t *id)
{
	int added;

	*id = 0;
	if (!s->len)
		return 0;
	*id = mdb_dict_id(&l->strs, s, &added);
	return *id ? 0 : load_nomem(l);
}

/* ---- rows ----------------------------------------------------------- */

static int load_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	struct mdb_load *l = ctx;

	if (mdb_stats_lifetime(l->stats, lt) < 0)
		return load_nomem(l);
	l->rows++;
	l->live_end += lt->state == MDB_ST_LIVE;
	return mdb_writer_lifetime(l->writer, lt, l->e);
}

static int load_bad_free(void *ctx, const struct mdb_free *f)
{
	struct mdb_load *l = ctx;

	if (mdb_stats_bad_free(l->stats, f) < 0)
		return load_nomem(l);
	l->bad_rows++;
	return mdb_writer_bad_free(l->writer, f, l->e);
}

static int load_event(void *ctx, const struct mdb_event *ev)
{
	struct mdb_load *l = ctx;
	uint32_t site, cache;
	int ret;

	if (ev->ts != MDB_NO_TS) {
		if (l->first_ts == MDB_NO_TS)
			l->first_ts = ev->ts;
		l->last_ts = ev->ts;
	}
	if (++l->events % PROGRESS_EVERY == 0 && l->opts.progress)
		l->opts.progress(l->opts.progress_ctx, l->events);
	mdb_stats_event(l->stats, ev->seq, ev->ts);
	ret = site_id(l, ev, &site);
	if (ret < 0)
		return ret;
	ret = str_id(l, &ev->cache, &cache);
	if (ret < 0)
		return ret;
	if (ev->kind == MDB_EV_ALLOC) {
		struct mdb_lifetime lt = {
			.seq = ev->seq,
			.ts = ev->ts,
			.ptr = ev->ptr,
			.bytes_req = ev->bytes_req,
			.bytes_alloc = ev->bytes_alloc,
			.gfp = ev->gfp,
			.site_id = site,
			.cache_id = cache,
			.cpu = ev->cpu,
			.node = ev->node,
			.type = ev->type,
		};

		ret = str_id(l, &ev->gfp_text, &lt.gfp_id);
		if (ret < 0)
			return ret;
		ret = mdb_pair_alloc(&l->pair, &lt);
	} else {
		struct mdb_free f = {
			.seq = ev->seq,
			.ts = ev->ts,
			.ptr = ev->ptr,
			.site_id = site,
			.cache_id = cache,
			.cpu = ev->cpu,
			.type = ev->type,
		};

		ret = mdb_pair_free(&l->pair, &f);
	}
	if (ret == -MDB_E_NOMEM)
		return load_nomem(l);
	return ret;
}

/* ---- begin / commit / abort ----------------------------------------- */

static void load_free(struct mdb_load *l)
{
	if (!l)
		return;
	sqlite3_finalize(l->ins_alloc);
	sqlite3_finalize(l->ins_bad);
	mdb_pair_release(&l->pair);
	u64map_release(&l->site_by_addr);
	mdb_dict_release(&l->site_text);
	mdb_dict_release(&l->strs);
	if (l->stats)
		mdb_stats_release(l->stats);
	free(l->stats);
	free(l->text_site);
	free(l->sites);
	free(l);
}

void mdb_load_abort(struct mdb_load *l)
{
	if (!l)
		return;
	mdb_writer_cancel(l->writer);
	l->writer = NULL;
	sqlite3_finalize(l->ins_alloc);
	sqlite3_finalize(l->ins_bad);
	l->ins_alloc = l->ins_bad = NULL;
	mdb_db_exec(l->db, "ROLLBACK", NULL);
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
	static const struct mdb_pair_ops pops = {
		.lifetime = load_lifetime,
		.bad_free = load_bad_free,
	};
	struct mdb_pair_ops ops = pops;
	struct mdb_load *l;
	int ret;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	l->db = db;
	l->e = e;
	l->opts = *opts;
	l->stats = malloc(sizeof(*l->stats));
	if (!l->stats) {
		free(l);
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	}
	mdb_stats_init(l->stats);
	l->first_ts = l->last_ts = MDB_NO_TS;
	l->sink.ctx = l;
	l->sink.event = load_event;
	ops.ctx = l;
	mdb_pair_init(&l->pair, &ops);
	mdb_pair_set_all_traced(&l->pair,
				mdb_pair_all_traced(m->format,
						    m->kernel_release));

	ret = mdb_source_begin(db, path, m, opts, res, e);
	if (ret != 0) {
		load_free(l);
		return ret;
	}
	l->source_id = res->source_id;

	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO alloc (source_id, seq, ts, cpu, "
			       "type, site_id, ptr, bytes_req, bytes_alloc, "
			       "gfp, gfp_id, node, cache_id, state, end_seq, "
			       "end_ts, free_cpu, free_site_id, free_type) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
			       "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
			       "?19)", -1, &l->ins_alloc, NULL) ||
	    sqlite3_prepare_v2(db->h,
			       "INSERT INTO bad_free (source_id, seq, ts, cpu, "
			       "type, site_id, ptr, cache_id, class, "
			       "prev_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
			       "?8, ?9, ?10)", -1, &l->ins_bad, NULL)) {
		ret = mdb_db_error(db, e, "cannot write to database");
		goto fail;
	}
	sqlite3_bind_int64(l->ins_alloc, 1, l->source_id);
	sqlite3_bind_int64(l->ins_bad, 1, l->source_id);
	ret = mdb_writer_start(&l->writer, db, l->source_id, l->ins_alloc,
			       l->ins_bad, e);
	if (ret < 0)
		goto fail;
	*out = l;
	return 0;
fail:
	mdb_load_abort(l);
	return ret;
}

static int write_dicts(struct mdb_load *l)
{
	sqlite3_stmt *site = NULL, *str = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(l->db->h,
			       "INSERT INTO site (source_id, id, addr, text) "
			       "VALUES (?1, ?2, ?3, ?4)", -1, &site, NULL) ||
	    sqlite3_prepare_v2(l->db->h,
			       "INSERT INTO str (source_id, id, text) "
			       "VALUES (?1, ?2, ?3)", -1, &str, NULL)) {
		ret = mdb_db_error(l->db, l->e, "cannot write to database");
		goto out;
	}
	sqlite3_bind_int64(site, 1, l->source_id);
	sqlite3_bind_int64(str, 1, l->source_id);
	for (uint32_t i = 0; i < l->nsites && ret >= 0; i++) {
		const struct mdb_site *s = &l->sites[i];

		sqlite3_bind_int64(site, 2, i + 1);
		bind_opt(site, 3, (int64_t)s->addr, !s->has_addr);
		if (s->text_id)
			sqlite3_bind_text(site, 4,
					  l->site_text.texts[s->text_id - 1],
					  -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(site, 4);
		if (sqlite3_step(site) != SQLITE_DONE)
			ret = mdb_db_error(l->db, l->e,
					   "cannot write to database");
		sqlite3_reset(site);
	}
	for (size_t i = 0; i < l->strs.n && ret >= 0; i++) {
		sqlite3_bind_int64(str, 2, (int64_t)i + 1);
		sqlite3_bind_text(str, 3, l->strs.texts[i], -1,
				  SQLITE_STATIC);
		if (sqlite3_step(str) != SQLITE_DONE)
			ret = mdb_db_error(l->db, l->e,
					   "cannot write to database");
		sqlite3_reset(str);
	}
out:
	sqlite3_finalize(site);
	sqlite3_finalize(str);
	return ret;
}

static int write_counts(struct mdb_load *l, const struct mdb_decode_stats *d)
{
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(l->db->h,
			       "UPDATE source SET records = ?2, events = ?3, "
			       "unknown = ?4, feature_bytes = ?5, "
			       "malformed = ?6, lost_events = ?7, "
			       "seq_missing = ?8, seq_disorder = ?9, "
			       "first_seq = ?10, last_seq = ?11, "
			       "first_ts = ?12, last_ts = ?13, "
			       "alloc_lo = ?14, alloc_hi = ?15, "
			       "bad_lo = ?16, bad_hi = ?17, allocations = ?18, "
			       "bad_frees = ?19, ncpus = coalesce(?20, ncpus) "
			       "WHERE id = ?1",
			       -1, &st, NULL))
		return mdb_db_error(l->db, l->e, "cannot write to database");
	sqlite3_bind_int64(st, 1, l->source_id);
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
	bind_opt(st, 12, l->first_ts, l->first_ts == MDB_NO_TS);
	bind_opt(st, 13, l->last_ts, l->last_ts == MDB_NO_TS);
	bind_opt(st, 14, l->ranges.alloc_lo, !l->ranges.alloc_lo);
	bind_opt(st, 15, l->ranges.alloc_hi, !l->ranges.alloc_lo);
	bind_opt(st, 16, l->ranges.bad_lo, !l->ranges.bad_lo);
	bind_opt(st, 17, l->ranges.bad_hi, !l->ranges.bad_lo);
	bind_u64(st, 18, l->rows);
	bind_u64(st, 19, l->bad_rows);
	/* formats that learn their CPUs only by reading (text) */
	bind_opt(st, 20, d->ncpus, d->ncpus <= 0);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = mdb_db_error(l->db, l->e, "cannot write to database");
	sqlite3_finalize(st);
	return ret;
}

int mdb_load_commit(struct mdb_load *l, const struct mdb_decode_stats *st,
		    struct mdb_load_result *res, struct mdb_error *e)
{
	int ret;

	l->e = e;
	ret = mdb_pair_finish(&l->pair);
	if (ret == -MDB_E_NOMEM)
		ret = load_nomem(l);
	if (ret >= 0) {
		/* the connection is ours again once the writer has stopped */
		ret = mdb_writer_finish(l->writer, &l->ranges, e);
		l->writer = NULL;
	}
	if (ret >= 0)
		ret = write_dicts(l);
	if (ret >= 0)
		ret = mdb_stats_write(l->stats, l->db->h, l->source_id, e);
	if (ret >= 0)
		ret = write_counts(l, st);
	if (ret < 0) {
		mdb_load_abort(l);
		return ret;
	}
	sqlite3_finalize(l->ins_alloc);
	sqlite3_finalize(l->ins_bad);
	l->ins_alloc = l->ins_bad = NULL;
	ret = mdb_db_exec(l->db, "COMMIT", e);
	if (ret < 0) {
		mdb_db_exec(l->db, "ROLLBACK", NULL);
		load_free(l);
		return ret;
	}
	res->source_id = l->source_id;
	res->allocations = l->rows;
	res->bad_frees = l->bad_rows;
	res->live = l->live_end;
	load_free(l);
	return 0;
}
