// SPDX-License-Identifier: MIT
/* Figures derived at ingest; see stats.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/event.h"
#include "sqlutil.h"
#include "stats.h"

/* ---- keyed figure tables --------------------------------------------- */

static inline uint64_t key4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint64_t k = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ULL;

	k ^= ((uint64_t)c << 32 | d) + 0x632be59bd9b4e019ULL + (k << 6) +
	     (k >> 2);
	return k;
}

/* The row for key fields (a, b, c, d), created when new; NULL on ENOMEM. */
static struct mdb_frow *ftable_get(struct mdb_ftable *t, uint32_t a,
				   uint32_t b, uint32_t c, uint32_t d)
{
	uint64_t key = key4(a, b, c, d);
	uint32_t *hint = &t->hint[(key ^ key >> 32) & (MDB_FT_HINTS - 1)];

	if (*hint) {
		struct mdb_frow *r = &t->rows[*hint - 1];

		if (r->a == a && r->b == b && r->c == c && r->d == d)
			return r;
	}
	for (uint64_t k = key;; k++) {
		int added;
		uint64_t *v = u64map_put(&t->idx, k, t->n, &added);
		struct mdb_frow *r;

		if (!v)
			return NULL;
		if (!added) {
			r = &t->rows[*v];
			if (r->a == a && r->b == b && r->c == c && r->d == d) {
				*hint = (uint32_t)*v + 1;
				return r;
			}
			continue; /* a different key hashed here: probe on */
		}
		if (t->n == t->cap) {
			size_t ncap = t->cap ? t->cap * 2 : 256;
			struct mdb_frow *nr = realloc(t->rows,
						      ncap * sizeof(*nr));

			if (!nr) {
				u64map_del(&t->idx, k);
				return NULL;
			}
			t->rows = nr;
			t->cap = ncap;
		}
		r = &t->rows[t->n++];
		*hint = (uint32_t)t->n;
		memset(r, 0, sizeof(*r));
		r->key = k;
		r->a = a;
		r->b = b;
		r->c = c;
		r->d = d;
		return r;
	}
}

static void ftable_release(struct mdb_ftable *t)
{
	u64map_release(&t->idx);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/*
 * Add bytes, stopping at INT64_MAX: sizes come from the input, and a
 * corrupt or hostile one must not wrap a figure (SQLite stores int64).
 */
static inline void add_bytes(uint64_t *sum, uint64_t v)
{
	if (v > (uint64_t)INT64_MAX - *sum)
		*sum = INT64_MAX;
	else
		*sum += v;
}

static void figs_add(struct mdb_figs *f, const struct mdb_lifetime *lt)
{
	f->hits++;
	add_bytes(&f->bytes_req, lt->bytes_req);
	add_bytes(&f->bytes_alloc, lt->bytes_alloc);
	switch (lt->state) {
	case MDB_ST_LIVE:
		f->live++;
		add_bytes(&f->live_bytes, lt->bytes_alloc);
		break;
	case MDB_ST_FREED:
		f->freed++;
		add_bytes(&f->freed_bytes, lt->bytes_alloc);
		f->pingpong += lt->free_cpu != lt->cpu;
		f->mismatched += lt->free_type != lt->type;
		break;
	case MDB_ST_NOT_TRACED:
		f->not_traced++;
		break;
	case MDB_ST_FAILED:
		f->failed++;
		break;
	case MDB_ST_ZERO:
		f->zero_size++;
		break;
	}
}

/* ---- anomalies ------------------------------------------------------- */

static void anom_add(struct mdb_stats *s, enum mdb_anomaly cls, int page,
		     uint64_t bytes, int64_t seq, int32_t cpu, uint32_t site)
{
	struct mdb_anom *a = &s->anom[cls][page];
	int i;

	a->count++;
	add_bytes(&a->bytes, bytes);
	/* keep the MDB_EXAMPLES smallest positions, ascending */
	if (a->nex == MDB_EXAMPLES && seq >= a->seq[MDB_EXAMPLES - 1])
		return;
	i = a->nex < MDB_EXAMPLES ? a->nex++ : MDB_EXAMPLES - 1;
	while (i > 0 && a->seq[i - 1] > seq) {
		a->seq[i] = a->seq[i - 1];
		a->cpu[i] = a->cpu[i - 1];
		a->site[i] = a->site[i - 1];
		i--;
	}
	a->seq[i] = seq;
	a->cpu[i] = cpu;
	a->site[i] = site;
}

/* ---- timeline -------------------------------------------------------- */

static void tl_merge(struct mdb_tl_slot *into, const struct mdb_tl_slot *b)
{
	if (!b->allocs && !b->frees && b->first_seq == INT64_MIN)
		return;
	if (into->first_seq == INT64_MIN) {
		*into = *b;
		return;
	}
	into->last_seq = b->last_seq;
	if (b->first_ts != MDB_NO_TS && into->first_ts == MDB_NO_TS)
		into->first_ts = b->first_ts;
	if (b->last_ts != MDB_NO_TS)
		into->last_ts = b->last_ts;
	into->allocs += b->allocs;
	into->frees += b->frees;
	add_bytes(&into->bytes_in, b->bytes_in);
	add_bytes(&into->bytes_out, b->bytes_out);
}

static void tl_reset(struct mdb_tl_slot *t)
{
	memset(t, 0, sizeof(*t));
	t->first_seq = t->last_seq = INT64_MIN;
	t->first_ts = t->last_ts = MDB_NO_TS;
}

/* Slot of position @seq, halving the resolution as the trace grows. */
static size_t tl_slot(struct mdb_stats *s, int64_t seq)
{
	uint64_t idx = (uint64_t)(seq - s->tl_base) >> s->tl_shift;

	while (idx >= MDB_TL_SLOTS) {
		for (size_t i = 0; i < MDB_TL_SLOTS / 2; i++) {
			struct mdb_tl_slot m = s->tl[2 * i];

			tl_merge(&m, &s->tl[2 * i + 1]);
			s->tl[i] = m;
		}
		for (size_t i = MDB_TL_SLOTS / 2; i < MDB_TL_SLOTS; i++)
			tl_reset(&s->tl[i]);
		s->tl_shift++;
		s->tl_width = UINT64_C(1) << s->tl_shift;
		s->tl_n = (s->tl_n + 1) / 2;
		idx = (uint64_t)(seq - s->tl_base) >> s->tl_shift;
	}
	return (size_t)idx;
}

int mdb_stats_event(struct mdb_stats *s, int64_t seq, int64_t ts)
{
	struct mdb_tl_slot *t;
	size_t i;

	if (!s->tl_started) {
		s->tl_started = 1;
		s->tl_base = seq;
	}
	if (seq < s->tl_base)
		return 0; /* positions only rise; nothing to place */
	i = tl_slot(s, seq);
	t = &s->tl[i];
	if (t->first_seq == INT64_MIN)
		t->first_seq = seq;
	t->last_seq = seq;
	if (ts != MDB_NO_TS) {
		if (t->first_ts == MDB_NO_TS)
			t->first_ts = ts;
		t->last_ts = ts;
	}
	if (i + 1 > s->tl_n)
		s->tl_n = i + 1;
	return 0;
}

static void tl_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	if (lt->type == MDB_TYPE_PAGE || !s->tl_started)
		return;
	if (lt->state != MDB_ST_LIVE && lt->state != MDB_ST_FREED &&
	    lt->state != MDB_ST_NOT_TRACED)
		return; /* never in the live set */
	if (lt->seq >= s->tl_base) {
		struct mdb_tl_slot *t = &s->tl[tl_slot(s, lt->seq)];

		t->allocs++;
		add_bytes(&t->bytes_in, lt->bytes_alloc);
	}
	if (lt->end_seq != MDB_NO_SEQ && lt->end_seq >= s->tl_base) {
		struct mdb_tl_slot *t = &s->tl[tl_slot(s, lt->end_seq)];

		t->frees++;
		add_bytes(&t->bytes_out, lt->bytes_alloc);
	}
}

/* ---- entry points ---------------------------------------------------- */

void mdb_stats_init(struct mdb_stats *s)
{
	memset(s, 0, sizeof(*s));
	u64map_init(&s->sites.idx);
	u64map_init(&s->caches.idx);
	u64map_init(&s->pingpong.idx);
	u64map_init(&s->nodes.idx);
	for (size_t i = 0; i < MDB_TL_SLOTS; i++)
		tl_reset(&s->tl[i]);
	s->tl_width = 1;
}

void mdb_stats_release(struct mdb_stats *s)
{
	ftable_release(&s->sites);
	ftable_release(&s->caches);
	ftable_release(&s->pingpong);
	ftable_release(&s->nodes);
}

int mdb_stats_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	int page = lt->type == MDB_TYPE_PAGE;
	uint64_t size = lt->bytes_alloc;
	struct mdb_frow *r;

	r = ftable_get(&s->sites, lt->site_id, lt->type, lt->cache_id, 0);
	if (!r)
		return -MDB_E_NOMEM;
	figs_add(&r->f, lt);
	r = ftable_get(&s->caches, lt->type, lt->cache_id, (uint32_t)size,
		       (uint32_t)(size >> 32));
	if (!r)
		return -MDB_E_NOMEM;
	figs_add(&r->f, lt);
	r = ftable_get(&s->nodes, lt->type, (uint32_t)lt->cpu,
		       (uint32_t)lt->node, 0);
	if (!r)
		return -MDB_E_NOMEM;
	r->f.hits++;
	if (lt->state == MDB_ST_FREED && lt->free_cpu != lt->cpu) {
		r = ftable_get(&s->pingpong, lt->site_id, lt->type,
			       (uint32_t)lt->cpu, (uint32_t)lt->free_cpu);
		if (!r)
			return -MDB_E_NOMEM;
		r->f.hits++;
		add_bytes(&r->f.bytes_alloc, lt->bytes_alloc);
	}

	switch (lt->state) {
	case MDB_ST_FAILED:
		anom_add(s, MDB_AN_FAILED, page, lt->bytes_req, lt->seq,
			 lt->cpu, lt->site_id);
		break;
	case MDB_ST_NOT_TRACED:
		anom_add(s, MDB_AN_NOT_TRACED, page, lt->bytes_alloc, lt->seq,
			 lt->cpu, lt->site_id);
		break;
	case MDB_ST_FREED:
		if (lt->type == MDB_TYPE_KMALLOC &&
		    lt->free_type == MDB_TYPE_CACHE)
			anom_add(s, MDB_AN_CACHE_FREE_KMALLOC, 0,
				 lt->bytes_alloc, lt->end_seq, lt->free_cpu,
				 lt->free_site_id);
		else if (lt->type == MDB_TYPE_CACHE &&
			 lt->free_type == MDB_TYPE_KMALLOC)
			anom_add(s, MDB_AN_KFREE_CACHE, 0, lt->bytes_alloc,
				 lt->end_seq, lt->free_cpu, lt->free_site_id);
		break;
	default:
		break;
	}
	if (lt->bytes_req == 0)
		anom_add(s, MDB_AN_ZERO_REQUEST, page, 0, lt->seq, lt->cpu,
			 lt->site_id);
	if (lt->bytes_alloc < lt->bytes_req)
		anom_add(s, MDB_AN_UNDERSIZED, page,
			 lt->bytes_req - lt->bytes_alloc, lt->seq, lt->cpu,
			 lt->site_id);
	tl_lifetime(s, lt);
	return 0;
}

int mdb_stats_bad_free(struct mdb_stats *s, const struct mdb_free *f)
{
	static const enum mdb_anomaly cls[] = {
		[MDB_FREE_NULL] = MDB_AN_NULL_FREE,
		[MDB_FREE_UNKNOWN] = MDB_AN_UNKNOWN_FREE,
		[MDB_FREE_DUPLICATE] = MDB_AN_DUPLICATE_FREE,
		[MDB_FREE_DUPLICATE_SUSPECT] = MDB_AN_DUPLICATE_SUSPECT,
	};

	if (f->class < MDB_FREE_NULL || f->class > MDB_FREE_DUPLICATE_SUSPECT)
		return 0;
	anom_add(s, cls[f->class], f->type == MDB_TYPE_PAGE, 0, f->seq,
		 f->cpu, f->site_id);
	return 0;
}

/* ---- writing --------------------------------------------------------- */

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st,
		struct mdb_error *e)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s", sqlite3_errmsg(db));
	mdb_error_msg(e, "cannot write to database");
	return -MDB_E_DB;
}

static int step(sqlite3 *db, sqlite3_stmt *st, struct mdb_error *e)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s", sqlite3_errmsg(db));
	mdb_error_msg(e, "cannot write to database");
	return -MDB_E_DB;
}

static void bind_figs(sqlite3_stmt *st, int col, const struct mdb_figs *f)
{
	const uint64_t v[] = { f->hits, f->bytes_req, f->bytes_alloc,
			       f->failed, f->zero_size, f->freed,
			       f->freed_bytes, f->pingpong, f->not_traced,
			       f->live, f->live_bytes, f->mismatched };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		sqlite3_bind_int64(st, col + (int)i, (sqlite3_int64)v[i]);
}

#define FIGS_COLS "hits, bytes_req, bytes_alloc, failed, zero_size, " \
		  "freed, freed_bytes, pingpong, not_traced, live, "  \
		  "live_bytes, mismatched"
#define FIGS_VALS "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"

int mdb_stats_write(struct mdb_stats *s, sqlite3 *db, int64_t source_id,
		    struct mdb_error *e)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = prep(db, "INSERT INTO site_stats (source_id, site_id, type, "
		       "cache_id, " FIGS_COLS ") VALUES (?, ?, ?, ?, "
		       FIGS_VALS ")", &st, e);
	for (size_t i = 0; !ret && i < s->sites.n; i++) {
		const struct mdb_frow *r = &s->sites.rows[i];

		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, r->a);
		sqlite3_bind_int64(st, 3, r->b);
		sqlite3_bind_int64(st, 4, r->c);
		bind_figs(st, 5, &r->f);
		ret = step(db, st, e);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = prep(db, "INSERT INTO cache_stats (source_id, type, "
			       "cache_id, obj_size, " FIGS_COLS ") VALUES "
			       "(?, ?, ?, ?, " FIGS_VALS ")", &st, e);
	for (size_t i = 0; !ret && i < s->caches.n; i++) {
		const struct mdb_frow *r = &s->caches.rows[i];

		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, r->a);
		sqlite3_bind_int64(st, 3, r->b);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)((uint64_t)r->d << 32 |
							  r->c));
		bind_figs(st, 5, &r->f);
		ret = step(db, st, e);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = prep(db, "INSERT INTO pingpong_stats (source_id, site_id, "
			       "type, cpu, free_cpu, allocations, bytes) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?)", &st, e);
	for (size_t i = 0; !ret && i < s->pingpong.n; i++) {
		const struct mdb_frow *r = &s->pingpong.rows[i];

		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, r->a);
		sqlite3_bind_int64(st, 3, r->b);
		sqlite3_bind_int64(st, 4, (int32_t)r->c);
		sqlite3_bind_int64(st, 5, (int32_t)r->d);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)r->f.hits);
		sqlite3_bind_int64(st, 7, (sqlite3_int64)r->f.bytes_alloc);
		ret = step(db, st, e);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = prep(db, "INSERT INTO node_stats (source_id, type, cpu, "
			       "node, allocations) VALUES (?, ?, ?, ?, ?)",
			   &st, e);
	for (size_t i = 0; !ret && i < s->nodes.n; i++) {
		const struct mdb_frow *r = &s->nodes.rows[i];

		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, r->a);
		sqlite3_bind_int64(st, 3, (int32_t)r->b);
		sqlite3_bind_int64(st, 4, (int32_t)r->c);
		sqlite3_bind_int64(st, 5, (sqlite3_int64)r->f.hits);
		ret = step(db, st, e);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = prep(db, "INSERT INTO anomaly (source_id, class, page, "
			       "count, bytes, first_seq, first_cpu, "
			       "first_site_id, examples) VALUES "
			       "(?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, e);
	for (int c = 1; !ret && c < MDB_AN__COUNT; c++)
		for (int p = 0; !ret && p < 2; p++) {
			const struct mdb_anom *a = &s->anom[c][p];
			char ex[MDB_EXAMPLES * 24] = "";
			size_t n = 0;

			if (!a->count)
				continue;
			for (int i = 0; i < a->nex; i++)
				n += (size_t)snprintf(ex + n, sizeof(ex) - n,
						      "%s%lld", i ? " " : "",
						      (long long)a->seq[i]);
			sqlite3_bind_int64(st, 1, source_id);
			sqlite3_bind_int(st, 2, c);
			sqlite3_bind_int(st, 3, p);
			sqlite3_bind_int64(st, 4, (sqlite3_int64)a->count);
			sqlite3_bind_int64(st, 5, (sqlite3_int64)a->bytes);
			sqlite3_bind_int64(st, 6, a->seq[0]);
			sqlite3_bind_int64(st, 7, a->cpu[0]);
			sqlite3_bind_int64(st, 8, a->site[0]);
			sqlite3_bind_text(st, 9, ex, -1, SQLITE_TRANSIENT);
			ret = step(db, st, e);
		}
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = prep(db, "INSERT INTO timeline (source_id, slot, "
			       "first_seq, last_seq, first_ts, last_ts, "
			       "allocs, frees, bytes_in, bytes_out) VALUES "
			       "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, e);
	for (size_t i = 0; !ret && i < s->tl_n; i++) {
		const struct mdb_tl_slot *t = &s->tl[i];

		if (t->first_seq == INT64_MIN)
			continue; /* no event fell in this slot */
		sqlite3_bind_int64(st, 1, source_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_int64(st, 3, t->first_seq);
		sqlite3_bind_int64(st, 4, t->last_seq);
		bind_opt(st, 5, t->first_ts, t->first_ts == MDB_NO_TS);
		bind_opt(st, 6, t->last_ts, t->last_ts == MDB_NO_TS);
		sqlite3_bind_int64(st, 7, (sqlite3_int64)t->allocs);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)t->frees);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)t->bytes_in);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)t->bytes_out);
		ret = step(db, st, e);
	}
	sqlite3_finalize(st);
	return ret;
}
