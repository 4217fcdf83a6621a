// SPDX-License-Identifier: MIT
/*
 * The loader: writes one source in one transaction.  It is the sink a
 * decoder feeds; it turns call sites, cache names and gfp strings into
 * small per-source ids, runs the pairing (pair.c), inserts each finished
 * lifetime and anomalous free as one row, and keeps per call site
 * aggregates in memory that are written as site_stats at commit.
 *
 * Nothing here is per-event SQL beyond one INSERT per row: dictionaries
 * and aggregates are hash maps, so ingest runs at SQLite's insert rate.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "db.h"
#include "pair.h"
#include "writer.h"

#define PROGRESS_EVERY (1u << 18)

/* Per (call site, type, cache) figures; see site_stats in schema.sql. */
struct mdb_agg {
	uint32_t site_id, cache_id;
	uint8_t type;
	uint64_t hits, bytes_req, bytes_alloc, failed, zero_size, freed,
		freed_bytes, pingpong, not_traced, live, live_bytes,
		mismatched;
};

/* A call site: an address, a symbolic text, or both. */
struct mdb_site {
	uint64_t addr;
	uint32_t text_id; /* 0: none */
	uint8_t has_addr;
};

/* A string dictionary: text -> id, ids from 1, texts kept for checks. */
struct mdb_dict {
	struct u64map map; /* XXH3 of the text (probed on collision) -> id */
	char **texts;      /* texts[id - 1] */
	size_t n, cap;
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
	struct mdb_dict site_text;  /* symbolic call sites -> text id */
	uint32_t *text_site;        /* text id - 1 -> site id */
	size_t text_site_cap;
	struct mdb_site *sites;     /* sites[id - 1] */
	uint32_t nsites;
	size_t site_cap;
	struct mdb_dict strs;       /* cache names, gfp strings */
	struct u64map agg_idx;      /* (site, type, cache) -> index */
	struct mdb_agg *aggs;
	size_t naggs, agg_cap;
	struct mdb_writer_ranges ranges;
	int64_t first_ts, last_ts;
	uint64_t events, rows, bad_rows, live_end;
};

/* ---- dictionaries --------------------------------------------------- */

static void dict_release(struct mdb_dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->texts[i]);
	free(d->texts);
	u64map_release(&d->map);
	memset(d, 0, sizeof(*d));
}

/* Id of @s in @d, adding it (*@added = 1) when new; 0 on ENOMEM. */
static uint32_t dict_id(struct mdb_dict *d, const struct mdb_str *s,
			int *added)
{
	uint64_t key = XXH3_64bits(s->p, s->len);

	*added = 0;
	for (;; key++) {
		uint64_t *v = u64map_get(&d->map, key);
		const char *t;

		if (!v)
			break;
		t = d->texts[*v - 1];
		if (strlen(t) == s->len && !memcmp(t, s->p, s->len))
			return (uint32_t)*v;
	}
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		char **nt = realloc(d->texts, ncap * sizeof(*nt));

		if (!nt)
			return 0;
		d->texts = nt;
		d->cap = ncap;
	}
	d->texts[d->n] = strndup(s->p, s->len);
	if (!d->texts[d->n])
		return 0;
	if (!u64map_put(&d->map, key, d->n + 1, NULL)) {
		free(d->texts[d->n]);
		return 0;
	}
	d->n++;
	*added = 1;
	return (uint32_t)d->n;
}

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
		uint32_t t = dict_id(&l->site_text, &ev->site_text, &added);

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
	v = u64map_put(&l->site_by_addr, ev->call_site, 0, &added);
	if (!v)
		return load_nomem(l);
	if (added) {
		/* site_new() does not touch the map, so @v stays valid */
		ret = site_new(l, ev->call_site, 1, 0, id);
		*v = *id;
		return ret;
	}
	*id = (uint32_t)*v;
	return 0;
}

static int str_id(struct mdb_load *l, const struct mdb_str *s, uint32_t *id)
{
	int added;

	*id = 0;
	if (!s->len)
		return 0;
	*id = dict_id(&l->strs, s, &added);
	return *id ? 0 : load_nomem(l);
}

/* ---- aggregates ----------------------------------------------------- */

static struct mdb_agg *agg_get(struct mdb_load *l,
			       const struct mdb_lifetime *lt)
{
	uint64_t key = (uint64_t)lt->site_id << 32 |
		       (uint64_t)lt->cache_id << 2 | lt->type;
	uint64_t *v;
	int added;

	v = u64map_put(&l->agg_idx, key, l->naggs, &added);
	if (!v)
		return NULL;
	if (added) {
		if (l->naggs == l->agg_cap) {
			size_t ncap = l->agg_cap ? l->agg_cap * 2 : 256;
			struct mdb_agg *na;

			na = realloc(l->aggs, ncap * sizeof(*na));
			if (!na) {
				u64map_del(&l->agg_idx, key);
				return NULL;
			}
			l->aggs = na;
			l->agg_cap = ncap;
		}
		memset(&l->aggs[l->naggs], 0, sizeof(l->aggs[0]));
		l->aggs[l->naggs].site_id = lt->site_id;
		l->aggs[l->naggs].cache_id = lt->cache_id;
		l->aggs[l->naggs].type = lt->type;
		return &l->aggs[l->naggs++];
	}
	return &l->aggs[*v];
}

static void agg_add(struct mdb_agg *a, const struct mdb_lifetime *lt)
{
	a->hits++;
	a->bytes_req += lt->bytes_req;
	a->bytes_alloc += lt->bytes_alloc;
	switch (lt->state) {
	case MDB_ST_LIVE:
		a->live++;
		a->live_bytes += lt->bytes_alloc;
		break;
	case MDB_ST_FREED:
		a->freed++;
		a->freed_bytes += lt->bytes_alloc;
		a->pingpong += lt->free_cpu != lt->cpu;
		a->mismatched += lt->free_type != lt->type;
		break;
	case MDB_ST_NOT_TRACED:
		a->not_traced++;
		break;
	case MDB_ST_FAILED:
		a->failed++;
		break;
	case MDB_ST_ZERO:
		a->zero_size++;
		break;
	}
}

/* ---- rows ----------------------------------------------------------- */

/* Addresses and sizes are stored as their 64-bit pattern. */
static inline void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, (sqlite3_int64)v);
}

static inline void bind_opt(sqlite3_stmt *st, int col, int64_t v, int none)
{
	if (none)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

static int load_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	struct mdb_load *l = ctx;
	struct mdb_agg *a = agg_get(l, lt);

	if (!a)
		return load_nomem(l);
	agg_add(a, lt);
	l->rows++;
	l->live_end += lt->state == MDB_ST_LIVE;
	return mdb_writer_lifetime(l->writer, lt, l->e);
}

static int load_bad_free(void *ctx, const struct mdb_free *f)
{
	struct mdb_load *l = ctx;

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
	dict_release(&l->site_text);
	dict_release(&l->strs);
	u64map_release(&l->agg_idx);
	free(l->text_site);
	free(l->sites);
	free(l->aggs);
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

static const char *order_name(enum mdb_order o)
{
	return o == MDB_ORDER_LITTLE ? "little" :
	       o == MDB_ORDER_BIG ? "big" : NULL;
}

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, col);
}

/* Delete sources holding identical data; returns how many there were. */
static int find_or_drop_same(struct mdb_load *l,
			     const struct mdb_source_meta *m, int drop,
			     int64_t *first)
{
	sqlite3_stmt *st;
	int64_t ids[64];
	int n = 0, rc, ret = 0;

	if (sqlite3_prepare_v2(l->db->h,
			       "SELECT id FROM source WHERE hash = ?1 "
			       "ORDER BY id", -1, &st, NULL))
		return mdb_db_error(l->db, l->e, "cannot query sources");
	sqlite3_bind_text(st, 1, m->hash, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < 64)
		ids[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mdb_db_error(l->db, l->e, "cannot query sources");
	if (n)
		*first = ids[0];
	for (int i = 0; drop && i < n && ret >= 0; i++)
		ret = mdb_db_delete_rows(l->db, ids[i], l->e);
	return ret < 0 ? ret : n;
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
	sqlite3_stmt *st = NULL;
	char *real = NULL;
	int64_t same = 0;
	int ret;

	*out = NULL;
	memset(res, 0, sizeof(*res));
	l = calloc(1, sizeof(*l));
	if (!l)
		return mdb_error_set(e, MDB_E_NOMEM, NULL, -1, -1, NULL);
	l->db = db;
	l->e = e;
	l->opts = *opts;
	l->first_ts = l->last_ts = MDB_NO_TS;
	l->sink.ctx = l;
	l->sink.event = load_event;
	ops.ctx = l;
	mdb_pair_init(&l->pair, &ops);

	ret = mdb_db_exec(db, "BEGIN IMMEDIATE", e);
	if (ret < 0) {
		load_free(l);
		return ret;
	}
	ret = find_or_drop_same(l, m, opts->force, &same);
	if (ret < 0)
		goto fail;
	if (ret > 0 && !opts->force) {
		res->source_id = same;
		res->duplicate_of = 1;
		mdb_load_abort(l);
		return 1;
	}

	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO source (path, format, hash, "
			       "ingested_at, label, kernel_release, "
			       "abi_version, byte_order, word_size, ncpus, "
			       "hashed_ptrs, data_bytes, overruns, notes) "
			       "VALUES (?1, ?2, ?3, "
			       "strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?4, ?5, "
			       "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
			       -1, &st, NULL)) {
		ret = mdb_db_error(db, e, "cannot write to database");
		goto fail;
	}
	real = realpath(path, NULL);
	sqlite3_bind_text(st, 1, real ? real : path, -1, SQLITE_TRANSIENT);
	free(real);
	sqlite3_bind_text(st, 2, m->format, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->hash, -1, SQLITE_STATIC);
	bind_text_or_null(st, 4, opts->label);
	bind_text_or_null(st, 5, m->kernel_release);
	bind_opt(st, 6, m->abi_version, m->abi_version < 0);
	bind_text_or_null(st, 7, order_name(m->order));
	bind_opt(st, 8, m->word_size, !m->word_size);
	bind_opt(st, 9, m->ncpus, !m->ncpus);
	sqlite3_bind_int(st, 10, m->hashed_ptrs);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)m->data_bytes);
	bind_opt(st, 12, m->overruns, m->overruns < 0);
	bind_text_or_null(st, 13, m->notes);
	if (sqlite3_step(st) != SQLITE_DONE) {
		ret = mdb_db_error(db, e, "cannot write to database");
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	l->source_id = sqlite3_last_insert_rowid(db->h);

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
	res->source_id = l->source_id;
	*out = l;
	return 0;
fail:
	sqlite3_finalize(st);
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

static int write_aggs(struct mdb_load *l)
{
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(l->db->h,
			       "INSERT INTO site_stats VALUES (?1, ?2, ?3, ?4, "
			       "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
			       "?15, ?16)", -1, &st, NULL))
		return mdb_db_error(l->db, l->e, "cannot write to database");
	sqlite3_bind_int64(st, 1, l->source_id);
	for (size_t i = 0; i < l->naggs && ret >= 0; i++) {
		const struct mdb_agg *a = &l->aggs[i];
		const uint64_t v[] = { a->hits, a->bytes_req, a->bytes_alloc,
				       a->failed, a->zero_size, a->freed,
				       a->freed_bytes, a->pingpong,
				       a->not_traced, a->live, a->live_bytes,
				       a->mismatched };

		sqlite3_bind_int64(st, 2, a->site_id);
		sqlite3_bind_int64(st, 3, a->type);
		sqlite3_bind_int64(st, 4, a->cache_id);
		for (int c = 0; c < (int)(sizeof(v) / sizeof(v[0])); c++)
			bind_u64(st, 5 + c, v[c]);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = mdb_db_error(l->db, l->e,
					   "cannot write to database");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
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
			       "bad_lo = ?16, bad_hi = ?17, "
			       "ncpus = coalesce(?18, ncpus) WHERE id = ?1",
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
	/* formats that learn their CPUs only by reading (text) */
	bind_opt(st, 18, d->ncpus, d->ncpus <= 0);
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
		ret = write_aggs(l);
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
