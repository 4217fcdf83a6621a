// SPDX-License-Identifier: MIT
/* Figures derived at ingest; see stats.h. */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/prefetch.h"
#include "../ingest/event.h"
#include "stats.h"

/* ---- keyed figure tables --------------------------------------------- */

static inline uint64_t key_hash(const struct mdb_fkey *k)
{
	uint64_t h = ((uint64_t)k->site_id << 32 | k->cache_id) *
		     0x9e3779b97f4a7c15ULL;

	h ^= ((uint64_t)(uint32_t)k->cpu << 32 | (uint32_t)k->free_cpu) +
	     0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
	h ^= (k->obj_size ^ (uint64_t)(uint32_t)k->node << 8 ^ k->type) *
	     0xbf58476d1ce4e5b9ULL + (h >> 29);
	return h;
}

static inline int key_eq(const struct mdb_fkey *a, const struct mdb_fkey *b)
{
	return a->site_id == b->site_id && a->cache_id == b->cache_id &&
	       a->obj_size == b->obj_size && a->cpu == b->cpu &&
	       a->free_cpu == b->free_cpu && a->node == b->node &&
	       a->type == b->type;
}

/* A new row for @k under map key @hash; NULL on ENOMEM. */
static struct mdb_frow *ftable_add(struct mdb_ftable *t, uint64_t hash,
				   const struct mdb_fkey *k)
{
	struct mdb_frow *r;

	if (MDB_GROW(t->rows, t->n, t->cap, 256))
		return NULL;
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->hash = hash;
	r->k = *k;
	return r;
}

/* The row for key @k, created when new; NULL on ENOMEM. */
static struct mdb_frow *ftable_get(struct mdb_ftable *t,
				   const struct mdb_fkey *k)
{
	uint64_t key = key_hash(k);
	uint32_t *hint = &t->hint[(key ^ key >> 32) & (MDB_FT_HINTS - 1)];

	if (*hint && key_eq(&t->rows[*hint - 1].k, k))
		return &t->rows[*hint - 1];
	for (uint64_t h = key;; h++) {
		int added;
		uint64_t *v = mdb_u64map_put(&t->idx, h, t->n, &added);
		struct mdb_frow *r;

		if (!v)
			return NULL;
		if (!added) {
			if (!key_eq(&t->rows[*v].k, k))
				continue; /* another key hashed here: probe */
			*hint = (uint32_t)*v + 1;
			return &t->rows[*v];
		}
		r = ftable_add(t, h, k);
		if (!r) {
			mdb_u64map_del(&t->idx, h);
			return NULL;
		}
		*hint = (uint32_t)t->n;
		return r;
	}
}

/*
 * What ftable_get(@t, @k) will read, asked of the cache ahead: the hint
 * slot now (returned), the row it names later (ftable_row_ahead(), once
 * the slot has had its time).  A hint to the CPU only: a stale or wrong
 * guess costs nothing but the miss it did not save.
 */
static inline const uint32_t *ftable_ahead(const struct mdb_ftable *t,
					   const struct mdb_fkey *k)
{
	uint64_t key = key_hash(k);
	const uint32_t *hint = &t->hint[(key ^ key >> 32) &
					(MDB_FT_HINTS - 1)];

	mdb_prefetch(hint);
	return hint;
}

static inline void ftable_row_ahead(const struct mdb_ftable *t,
				    const uint32_t *hint)
{
	const char *row;

	if (!hint || !*hint || *hint > t->n)
		return;
	row = (const char *)&t->rows[*hint - 1];
	mdb_prefetch(row);
	mdb_prefetch(row + 64);
	mdb_prefetch(row + sizeof(struct mdb_frow) - 1);
}

static void ftable_release(struct mdb_ftable *t)
{
	mdb_u64map_release(&t->idx);
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

static void figs_merge(struct mdb_figs *f, const struct mdb_figs *b)
{
	f->hits += b->hits;
	add_bytes(&f->bytes_req, b->bytes_req);
	add_bytes(&f->bytes_alloc, b->bytes_alloc);
	f->failed += b->failed;
	f->zero_size += b->zero_size;
	f->freed += b->freed;
	add_bytes(&f->freed_bytes, b->freed_bytes);
	f->pingpong += b->pingpong;
	f->not_traced += b->not_traced;
	f->live += b->live;
	add_bytes(&f->live_bytes, b->live_bytes);
	f->mismatched += b->mismatched;
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
	mdb_u64map_init(&s->sites.idx);
	mdb_u64map_init(&s->caches.idx);
	mdb_u64map_init(&s->pingpong.idx);
	mdb_u64map_init(&s->nodes.idx);
	mdb_u64map_init(&s->slab.idx);
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
	ftable_release(&s->slab);
}

/* The site_stats and cache_stats rows of key @k: @f added. */
static int sites_caches(struct mdb_stats *s, const struct mdb_fkey *k,
			const struct mdb_figs *f)
{
	const struct mdb_fkey keys[2] = {
		{ .site_id = k->site_id, .type = k->type,
		  .cache_id = k->cache_id },
		{ .type = k->type, .cache_id = k->cache_id,
		  .obj_size = k->obj_size },
	};
	struct mdb_ftable *t[2] = { &s->sites, &s->caches };

	for (int i = 0; i < 2; i++) {
		struct mdb_frow *r = ftable_get(t[i], &keys[i]);

		if (!r)
			return -MDB_E_NOMEM;
		figs_merge(&r->f, f);
	}
	return 0;
}

/*
 * The rows of site_stats, cache_stats (pages only: the slab rows come
 * from the slab table in mdb_stats_finish), node_stats, pingpong_stats.
 */
static int tables_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	struct mdb_fkey key = { .site_id = lt->site_id, .type = lt->type,
				.cache_id = lt->cache_id,
				.obj_size = lt->bytes_alloc };
	struct mdb_fkey node = { .type = lt->type, .cpu = lt->cpu,
				 .node = lt->node };
	struct mdb_fkey pp = { .site_id = lt->site_id, .type = lt->type,
			       .cpu = lt->cpu, .free_cpu = lt->free_cpu };
	struct mdb_frow *r;

	if (lt->type == MDB_TYPE_PAGE) {
		struct mdb_figs f = { 0 };

		figs_add(&f, lt);
		if (sites_caches(s, &key, &f) < 0)
			return -MDB_E_NOMEM;
	}
	r = ftable_get(&s->nodes, &node);
	if (!r)
		return -MDB_E_NOMEM;
	r->f.hits++;
	if (lt->state == MDB_ST_FREED && lt->free_cpu != lt->cpu) {
		r = ftable_get(&s->pingpong, &pp);
		if (!r)
			return -MDB_E_NOMEM;
		r->f.hits++;
		add_bytes(&r->f.bytes_alloc, lt->bytes_alloc);
	}
	return 0;
}

/* The anomaly classes an allocation lifetime falls in. */
static void anom_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	int page = lt->type == MDB_TYPE_PAGE;

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
}

/* ---- the slab allocations ------------------------------------------- */

/*
 * The slab lifetimes are summed per (site, type, cache, object size),
 * which names both a site_stats and a cache_stats row: one lookup per
 * allocation instead of two.  They go in MDB_ST_AHEAD at a time, their
 * rows asked of the cache first (a row is a cache miss when the keys
 * are many).
 */
static int slab_flush(struct mdb_stats *s)
{
	const uint32_t *hint[MDB_ST_AHEAD];
	struct mdb_fkey k[MDB_ST_AHEAD];
	size_t n = s->nq;

	s->nq = 0;
	for (size_t i = 0; i < n; i++) {
		k[i] = (struct mdb_fkey){ .site_id = s->q[i].site_id,
					  .type = s->q[i].type,
					  .cache_id = s->q[i].cache_id,
					  .obj_size = s->q[i].bytes_alloc };
		hint[i] = ftable_ahead(&s->slab, &k[i]);
	}
	for (size_t i = 0; i < n; i++)
		ftable_row_ahead(&s->slab, hint[i]);
	for (size_t i = 0; i < n; i++) {
		struct mdb_frow *r = ftable_get(&s->slab, &k[i]);

		if (!r)
			return -MDB_E_NOMEM;
		figs_add(&r->f, &s->q[i]);
	}
	return 0;
}

int mdb_stats_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	int ret = tables_lifetime(s, lt);

	if (ret < 0)
		return ret;
	if (lt->type != MDB_TYPE_PAGE) {
		s->q[s->nq++] = *lt;
		if (s->nq == MDB_ST_AHEAD && (ret = slab_flush(s)) < 0)
			return ret;
	}
	anom_lifetime(s, lt);
	tl_lifetime(s, lt);
	return 0;
}

int mdb_stats_finish(struct mdb_stats *s)
{
	if (s->finished)
		return 0;
	if (slab_flush(s) < 0)
		return -MDB_E_NOMEM;
	for (size_t i = 0; i < s->slab.n; i++) {
		const struct mdb_frow *k = &s->slab.rows[i];

		if (sites_caches(s, &k->k, &k->f) < 0)
			return -MDB_E_NOMEM;
	}
	s->finished = 1;
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
