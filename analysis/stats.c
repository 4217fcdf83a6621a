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
	     0xbf58476d1ce4e5b9ULL;
	h ^= ((uint64_t)k->bucket ^ (uint64_t)(uint32_t)k->pid << 32 ^
	      k->comm_id) * 0x94d049bb133111ebULL + (h >> 29);
	return h;
}

static inline int key_eq(const struct mdb_fkey *a, const struct mdb_fkey *b)
{
	return a->site_id == b->site_id && a->cache_id == b->cache_id &&
	       a->obj_size == b->obj_size && a->cpu == b->cpu &&
	       a->free_cpu == b->free_cpu && a->node == b->node &&
	       a->type == b->type && a->bucket == b->bucket &&
	       a->pid == b->pid && a->comm_id == b->comm_id;
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
		uint64_t *v = u64map_put(&t->idx, h, t->n, &added);
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
			u64map_del(&t->idx, h);
			return NULL;
		}
		*hint = (uint32_t)t->n;
		return r;
	}
}

/*
 * Ask the cache for what ftable_get(@t, @k) will read: at @stage 0 the
 * hint, at 1 the row the hint names (read it after stage 0 has had its
 * time).  A hint to the CPU only: a stale or wrong guess costs nothing
 * but the miss it did not save.
 */
static inline void ftable_ahead(const struct mdb_ftable *t,
				const struct mdb_fkey *k, int stage)
{
	uint64_t key = key_hash(k);
	const uint32_t *hint = &t->hint[(key ^ key >> 32) &
					(MDB_FT_HINTS - 1)];
	const char *row;

	if (!stage) {
		mdb_prefetch(hint);
		return;
	}
	if (!*hint || *hint > t->n)
		return;
	row = (const char *)&t->rows[*hint - 1];
	mdb_prefetch(row);
	mdb_prefetch(row + 64);
	mdb_prefetch(row + sizeof(struct mdb_frow) - 1);
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
	u64map_init(&s->sites.idx);
	u64map_init(&s->caches.idx);
	u64map_init(&s->pingpong.idx);
	u64map_init(&s->nodes.idx);
	u64map_init(&s->sl_keys.idx);
	u64map_init(&s->sl_pids.idx);
	u64map_init(&s->sl_buckets.idx);
	u64map_init(&s->sl_bcomm.idx);
	u64map_init(&s->sl_pp.idx);
	u64map_init(&s->sl_stacks.idx);
	s->sl_min_ts = s->sl_bmin = INT64_MAX;
	s->sl_max_ts = s->sl_max_end = s->sl_bmax = INT64_MIN;
	s->sl_shift = 10;
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
	ftable_release(&s->sl_keys);
	ftable_release(&s->sl_pids);
	ftable_release(&s->sl_buckets);
	ftable_release(&s->sl_bcomm);
	ftable_release(&s->sl_pp);
	ftable_release(&s->sl_stacks);
	free(s->sl_blk);
	s->sl_blk = NULL;
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
 * from sl_keys in mdb_stats_finish), node_stats, pingpong_stats.
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

/* ---- the slicing index ---------------------------------------------- */

/*
 * Halve the resolution of the buckets of @t: each pair merged, in place
 * (a row moves only to a lower index, and is copied first), so the
 * largest table is not held twice.
 */
static int sl_coarsen_table(struct mdb_ftable *t)
{
	size_t n = t->n;

	u64map_release(&t->idx);
	u64map_init(&t->idx);
	memset(t->hint, 0, sizeof(t->hint));
	t->n = 0;
	for (size_t i = 0; i < n; i++) {
		struct mdb_frow old = t->rows[i];
		struct mdb_frow *r;

		old.k.bucket >>= 1;
		r = ftable_get(t, &old.k);
		if (!r)
			return -MDB_E_NOMEM;
		figs_merge(&r->f, &old.f);
	}
	return 0;
}

/* Halve the buckets' resolution in every table by bucket. */
static int sl_coarsen(struct mdb_stats *s)
{
	s->sl_shift++;
	s->sl_bmin >>= 1;
	s->sl_bmax >>= 1;
	if (sl_coarsen_table(&s->sl_buckets) < 0 ||
	    sl_coarsen_table(&s->sl_bcomm) < 0 ||
	    sl_coarsen_table(&s->sl_pp) < 0 ||
	    sl_coarsen_table(&s->sl_stacks) < 0)
		return -MDB_E_NOMEM;
	return 0;
}

/* The block of row @row, started when new; NULL on ENOMEM. */
static struct mdb_sl_block *sl_block(struct mdb_stats *s, uint64_t row)
{
	size_t b = (size_t)(row / MDB_SL_BLOCK);

	while (s->sl_nblk <= b) {
		struct mdb_sl_block *n;

		if (MDB_GROW(s->sl_blk, s->sl_nblk, s->sl_blkcap, 256))
			return NULL;
		n = &s->sl_blk[s->sl_nblk++];
		n->min_ts = INT64_MAX;
		n->max_ts = n->max_end = INT64_MIN;
	}
	return &s->sl_blk[b];
}

static inline void sl_range(int64_t *lo, int64_t *hi, int64_t v)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

/* A lifetime into the slicing index (row number s->sl_rows). */
static int sl_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	struct mdb_sl_block *b = sl_block(s, s->sl_rows++);
	struct mdb_fkey k = { .site_id = lt->site_id, .type = lt->type,
			      .cache_id = lt->cache_id, .pid = lt->pid };
	struct mdb_frow *r;
	int timed = lt->ts != MDB_NO_TS && lt->ts >= 0;

	if (!b)
		return -MDB_E_NOMEM;
	s->sl_timed += timed;
	s->sl_untimed += lt->ts == MDB_NO_TS;
	s->sl_neg += lt->ts != MDB_NO_TS && lt->ts < 0;
	if (timed) {
		sl_range(&b->min_ts, &b->max_ts, lt->ts);
		sl_range(&s->sl_min_ts, &s->sl_max_ts, lt->ts);
	}
	if ((lt->state == MDB_ST_FREED || lt->state == MDB_ST_NOT_TRACED) &&
	    lt->end_seq != MDB_NO_SEQ && lt->end_ts != MDB_NO_TS) {
		if (lt->end_ts > b->max_end)
			b->max_end = lt->end_ts;
		if (lt->end_ts > s->sl_max_end)
			s->sl_max_end = lt->end_ts;
	}
	if (lt->type == MDB_TYPE_PAGE)
		return 0;
	r = ftable_get(&s->sl_pids, &k);
	if (!r)
		return -MDB_E_NOMEM;
	figs_add(&r->f, lt);
	k.pid = 0;
	k.obj_size = lt->bytes_alloc;
	k.comm_id = lt->comm_id;
	r = ftable_get(&s->sl_keys, &k);
	if (!r)
		return -MDB_E_NOMEM;
	figs_add(&r->f, lt);
	if (!timed)
		return 0;
	k.comm_id = 0;
	k.bucket = lt->ts >> s->sl_shift;
	sl_range(&s->sl_bmin, &s->sl_bmax, k.bucket);
	while (s->sl_bmax - s->sl_bmin >= MDB_SL_BUCKETS) {
		if (sl_coarsen(s) < 0)
			return -MDB_E_NOMEM;
		k.bucket = lt->ts >> s->sl_shift;
	}
	r = ftable_get(&s->sl_buckets, &k);
	if (!r)
		return -MDB_E_NOMEM;
	figs_add(&r->f, lt);
	/* per task name without cache and size (db/schema-6.sql), in
	 * buckets of 2^MDB_SL_COMM_SHIFT of these: the rows stay few;
	 * then the few freed on another CPU, and those with a stack */
	{
		struct mdb_fkey ck = { .bucket = k.bucket >>
					       MDB_SL_COMM_SHIFT,
				       .type = lt->type,
				       .site_id = lt->site_id,
				       .comm_id = lt->comm_id };

		r = ftable_get(&s->sl_bcomm, &ck);
		if (!r)
			return -MDB_E_NOMEM;
		figs_add(&r->f, lt);
	}
	k.comm_id = lt->comm_id;
	if (lt->state == MDB_ST_FREED && lt->free_cpu != lt->cpu) {
		k.cpu = lt->cpu;
		k.free_cpu = lt->free_cpu;
		r = ftable_get(&s->sl_pp, &k);
		if (!r)
			return -MDB_E_NOMEM;
		r->f.hits++;
	}
	if (lt->stack_id && lt->state != MDB_ST_FAILED) {
		struct mdb_fkey sk = { .bucket = k.bucket,
				       .site_id = lt->stack_id };

		r = ftable_get(&s->sl_stacks, &sk);
		if (!r)
			return -MDB_E_NOMEM;
		add_bytes(&r->f.bytes_alloc, lt->bytes_alloc);
	}
	return 0;
}

/*
 * What sl_lifetime() will look up for @lt, asked ahead (ftable_ahead()'s
 * @stage).  The keys are sl_lifetime()'s at the present bucket width; a
 * coarsening in between only makes the guess wrong.
 */
static void sl_ahead(const struct mdb_stats *s, const struct mdb_lifetime *lt,
		     int stage)
{
	struct mdb_fkey k = { .site_id = lt->site_id, .type = lt->type,
			      .cache_id = lt->cache_id, .pid = lt->pid };

	if (lt->type == MDB_TYPE_PAGE)
		return;
	ftable_ahead(&s->sl_pids, &k, stage);
	k.pid = 0;
	k.obj_size = lt->bytes_alloc;
	k.comm_id = lt->comm_id;
	ftable_ahead(&s->sl_keys, &k, stage);
	if (lt->ts == MDB_NO_TS || lt->ts < 0)
		return;
	k.comm_id = 0;
	k.bucket = lt->ts >> s->sl_shift;
	ftable_ahead(&s->sl_buckets, &k, stage);
	{
		struct mdb_fkey ck = { .bucket = k.bucket >>
					       MDB_SL_COMM_SHIFT,
				       .type = lt->type,
				       .site_id = lt->site_id,
				       .comm_id = lt->comm_id };

		ftable_ahead(&s->sl_bcomm, &ck, stage);
	}
}

/* The queued lifetimes into the slicing index, in their order. */
static int sl_flush(struct mdb_stats *s)
{
	size_t n = s->sl_nq;

	s->sl_nq = 0;
	for (size_t i = 0; i < n; i++)
		sl_ahead(s, &s->sl_q[i], 0);
	for (size_t i = 0; i < n; i++)
		sl_ahead(s, &s->sl_q[i], 1);
	for (size_t i = 0; i < n; i++) {
		int ret = sl_lifetime(s, &s->sl_q[i]);

		if (ret < 0)
			return ret;
	}
	return 0;
}

int mdb_stats_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	int ret = tables_lifetime(s, lt);

	if (ret < 0)
		return ret;
	s->sl_q[s->sl_nq++] = *lt;
	if (s->sl_nq == MDB_SL_AHEAD && (ret = sl_flush(s)) < 0)
		return ret;
	anom_lifetime(s, lt);
	tl_lifetime(s, lt);
	return 0;
}

int mdb_stats_finish(struct mdb_stats *s)
{
	if (s->finished)
		return 0;
	if (sl_flush(s) < 0)
		return -MDB_E_NOMEM;
	for (size_t i = 0; i < s->sl_keys.n; i++) {
		const struct mdb_frow *k = &s->sl_keys.rows[i];

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
