// SPDX-License-Identifier: MIT
/* Figures derived at ingest; see stats.h. */
#include <pthread.h>
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

/* ---- compact keyed tables: the slicing index's level 7 --------------- */

static void cmap_init(struct mdb_cmap *m, size_t size)
{
	memset(m, 0, sizeof(*m));
	m->size = size;
}

static void cmap_release(struct mdb_cmap *m)
{
	free(m->ents);
	free(m->slot);
	cmap_init(m, m->size);
}

static inline void *cmap_at(const struct mdb_cmap *m, size_t i)
{
	return (char *)m->ents + i * m->size;
}

typedef uint64_t cmap_hash_fn(const void *e);
typedef int cmap_eq_fn(const void *a, const void *b);

/* A slot: the key hash's high half, the entry's index + 1 (0: free). */
static inline uint64_t cmap_slot(uint64_t h, size_t i)
{
	return (h & 0xffffffff00000000ULL) | (uint64_t)(i + 1);
}

/* @nslot slots (a power of two), the entries placed again; -1: ENOMEM */
static int cmap_rehash(struct mdb_cmap *m, size_t nslot, cmap_hash_fn *hash)
{
	uint64_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		uint64_t h = hash(cmap_at(m, i));
		size_t j = h & (nslot - 1);

		while (slot[j])
			j = (j + 1) & (nslot - 1);
		slot[j] = cmap_slot(h, i);
	}
	free(m->slot);
	m->slot = slot;
	m->nslot = nslot;
	return 0;
}

/*
 * The entry whose key is @key's (an entry), added as a copy of @key
 * when there is none (*@added set to 1, else 0); NULL on ENOMEM.  The
 * slots are kept at most 3/4 full.
 */
static inline void *cmap_get(struct mdb_cmap *m, const void *key,
			     cmap_hash_fn *hash, cmap_eq_fn *eq, int *added)
{
	uint64_t h, tag;
	size_t j;
	void *e;

	if ((m->n + 1) * 4 > m->nslot * 3 &&
	    (m->n >= UINT32_MAX - 1 ||
	     cmap_rehash(m, m->nslot ? m->nslot * 2 : 1024, hash) < 0))
		return NULL;
	h = hash(key);
	tag = cmap_slot(h, 0) - 1;
	for (j = h & (m->nslot - 1); m->slot[j];
	     j = (j + 1) & (m->nslot - 1)) {
		/* the entry is read only when the hashes agree */
		if ((m->slot[j] & 0xffffffff00000000ULL) != tag)
			continue;
		e = cmap_at(m, (uint32_t)m->slot[j] - 1);
		if (eq(e, key)) {
			*added = 0;
			return e;
		}
	}
	if (mdb_grow_(&m->ents, &m->cap, m->n, m->size, 1024))
		return NULL;
	e = cmap_at(m, m->n);
	memcpy(e, key, m->size);
	m->slot[j] = cmap_slot(h, m->n++);
	*added = 1;
	return e;
}

static uint64_t tpid_hash(const void *e)
{
	const struct mdb_sl_tpid *t = e;

	return u64map_mix(u64map_mix((uint64_t)t->site_id << 32 | t->cache_id) ^
		     ((uint64_t)(uint32_t)t->pid << 32 |
		      (uint64_t)(uint32_t)t->bucket << 8 | t->type));
}

static int tpid_eq(const void *a, const void *b)
{
	const struct mdb_sl_tpid *x = a, *y = b;

	return x->site_id == y->site_id && x->pid == y->pid &&
	       x->bucket == y->bucket && x->cache_id == y->cache_id &&
	       x->type == y->type;
}

static uint64_t ppid_hash(const void *e)
{
	const struct mdb_sl_ppid *q = e;

	return u64map_mix(u64map_mix((uint64_t)q->site_id << 32 |
			   (uint32_t)q->bucket) ^
		     ((uint64_t)(uint32_t)q->pid << 32 |
		      ((uint64_t)(uint32_t)q->cpu << 16 ^
		       (uint32_t)q->free_cpu)));
}

static int ppid_eq(const void *a, const void *b)
{
	const struct mdb_sl_ppid *x = a, *y = b;

	return x->site_id == y->site_id && x->pid == y->pid &&
	       x->bucket == y->bucket && x->cpu == y->cpu &&
	       x->free_cpu == y->free_cpu;
}

/* Add a count, or -1 when it would pass what the table holds. */
static inline int add_count(uint32_t *sum, uint32_t v)
{
	if (v > UINT32_MAX - *sum)
		return -1;
	*sum += v;
	return 0;
}

/* Merge entry @b into @a (same key); -1 when a count would overflow. */
static int ptr_merge(struct mdb_sl_ptr *x, const struct mdb_sl_ptr *y)
{
	if (add_count(&x->hits, y->hits) < 0)
		return -1;
	x->freed += y->freed;
	x->pingpong += y->pingpong;
	x->live += y->live;
	add_bytes(&x->bytes_req, y->bytes_req);
	add_bytes(&x->bytes_alloc, y->bytes_alloc);
	if (y->last_seq > x->last_seq) {
		x->last_seq = y->last_seq;
		x->last_site = y->last_site;
	}
	return 0;
}

static int tpid_merge(void *a, const void *b)
{
	struct mdb_sl_tpid *x = a;
	const struct mdb_sl_tpid *y = b;

	if (add_count(&x->hits, y->hits) < 0)
		return -1;
	x->freed += y->freed;
	x->pingpong += y->pingpong;
	x->live += y->live;
	add_bytes(&x->sum_req, y->sum_req);
	add_bytes(&x->sum_alloc, y->sum_alloc);
	add_bytes(&x->live_bytes, y->live_bytes);
	return 0;
}

static int ppid_merge(void *a, const void *b)
{
	struct mdb_sl_ppid *x = a;
	const struct mdb_sl_ppid *y = b;

	x->hits += y->hits;
	add_bytes(&x->bytes, y->bytes);
	return 0;
}

/*
 * Halve the buckets' resolution of @m in place, as sl_coarsen_table():
 * an entry's bucket (its first field) is an offset from @b0, made one
 * from @nb0.  0, -1 on ENOMEM, 1 when a count would overflow.
 */
static int cmap_coarsen(struct mdb_cmap *m, int64_t b0, int64_t nb0,
			cmap_hash_fn *hash, cmap_eq_fn *eq,
			int (*merge)(void *a, const void *b))
{
	union {
		struct mdb_sl_tpid t;
		struct mdb_sl_ppid q;
	} e;
	size_t n = m->n;

	if (m->nslot)
		memset(m->slot, 0, m->nslot * sizeof(*m->slot));
	m->n = 0;
	for (size_t i = 0; i < n; i++) {
		int32_t b;
		int added;
		void *r;

		memcpy(&e, cmap_at(m, i), m->size);
		memcpy(&b, &e, sizeof(b));
		b = (int32_t)(((b0 + b) >> 1) - nb0);
		memcpy(&e, &b, sizeof(b));
		r = cmap_get(m, &e, hash, eq, &added);
		if (!r)
			return -1;
		if (!added && merge(r, &e) < 0)
			return 1;
	}
	return 0;
}

/* No level 7 tables for this source (db/schema-7.sql): none made yet,
 * or a count overflowed (the reports read the alloc rows instead). */
static void sl_big_release(struct mdb_stats *s)
{
	free(s->sl_addr);
	free(s->sl_aorder);
	s->sl_addr = NULL;
	s->sl_aorder = NULL;
	s->sl_naddr = s->sl_addrslots = 0;
	free(s->sl_pe);
	s->sl_pe = NULL;
	s->sl_npe = s->sl_pecap = 0;
	cmap_release(&s->sl_tpids);
	cmap_release(&s->sl_ppids);
	free(s->sl_thint);
	s->sl_thint = NULL;
}

/*
 * slice_ptr's entries at half the resolution: in each address's chain
 * (its record's entry, then the others by bucket down) the buckets
 * halved, an entry of the bucket of the one before merged into it; then
 * the entries left in sl_pe moved down, the links renumbered through
 * their field moved.  0, or 1 when a count would overflow.
 */
static int sl_ptr_coarsen(struct mdb_stats *s, int64_t b0, int64_t nb0)
{
	struct mdb_sl_ptr *pe = s->sl_pe;
	uint32_t n = 0;

	for (size_t i = 0; i < s->sl_addrslots; i++) {
		struct mdb_sl_ptr *keep = &s->sl_addr[i].top;

		if (!keep->hits)
			continue;
		keep->bucket = (int32_t)(((b0 + keep->bucket) >> 1) - nb0);
		for (uint32_t cur = keep->prev; cur;) {
			struct mdb_sl_ptr *e = &pe[cur - 1];
			uint32_t next = e->prev;

			e->bucket = (int32_t)(((b0 + e->bucket) >> 1) - nb0);
			if (keep->bucket == e->bucket) {
				if (ptr_merge(keep, e) < 0)
					return 1;
				keep->prev = next;
				e->hits = 0; /* gone: every entry has hits */
			} else {
				keep = e;
			}
			cur = next;
		}
	}
	for (size_t i = 0; i < s->sl_npe; i++)
		if (pe[i].hits)
			pe[i].moved = ++n;
	for (size_t i = 0; i < s->sl_npe; i++)
		if (pe[i].hits && pe[i].prev)
			pe[i].prev = pe[pe[i].prev - 1].moved;
	for (size_t i = 0; i < s->sl_addrslots; i++) {
		struct mdb_sl_ptr *t = &s->sl_addr[i].top;

		if (t->hits && t->prev)
			t->prev = pe[t->prev - 1].moved;
	}
	for (size_t i = 0; i < s->sl_npe; i++)
		if (pe[i].hits)
			pe[pe[i].moved - 1] = pe[i];
	s->sl_npe = n;
	return 0;
}

/* The record of address @ptr in the open-addressed sl_addr (linear
 * probing, at most 3/4 full), made when new (top.hits 0); NULL on
 * ENOMEM. */
static struct mdb_sl_addr *sl_addr_get(struct mdb_stats *s, uint64_t ptr)
{
	size_t mask = s->sl_addrslots - 1, j;

	if ((s->sl_naddr + 1) * 4 > s->sl_addrslots * 3) {
		size_t nslot = s->sl_addrslots ? s->sl_addrslots * 2 : 1024;
		struct mdb_sl_addr *t = calloc(nslot, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < s->sl_addrslots; i++) {
			if (!s->sl_addr[i].top.hits)
				continue;
			j = u64map_mix(s->sl_addr[i].ptr) & (nslot - 1);
			while (t[j].top.hits)
				j = (j + 1) & (nslot - 1);
			t[j] = s->sl_addr[i];
		}
		free(s->sl_addr);
		s->sl_addr = t;
		s->sl_addrslots = nslot;
		mask = nslot - 1;
	}
	for (j = u64map_mix(ptr) & mask; s->sl_addr[j].top.hits;
	     j = (j + 1) & mask)
		if (s->sl_addr[j].ptr == ptr)
			return &s->sl_addr[j];
	s->sl_naddr++;
	s->sl_addr[j].ptr = ptr;
	return &s->sl_addr[j];
}

/*
 * slice_ptr's entry of address @ptr and bucket @b (an offset), made
 * when new (hits 0); NULL on ENOMEM.  A bucket above the record's moves
 * the record's figures into sl_pe, one below is looked for down the
 * chain (an allocation is mostly in its address's latest bucket).
 */
static struct mdb_sl_ptr *sl_ptr_get(struct mdb_stats *s, uint64_t ptr,
				     int32_t b)
{
	struct mdb_sl_addr *a = sl_addr_get(s, ptr);
	struct mdb_sl_ptr *e;
	uint32_t at = 0, cur;

	if (!a)
		return NULL;
	e = &a->top;
	if (!e->hits || e->bucket == b) {
		if (!e->hits) {
			e->bucket = b;
			e->last_seq = INT64_MIN;
		}
		return e;
	}
	if (s->sl_npe >= UINT32_MAX - 1 ||
	    MDB_GROW(s->sl_pe, s->sl_npe, s->sl_pecap, 1024))
		return NULL;
	if (b > e->bucket) {
		s->sl_pe[s->sl_npe++] = *e;
		memset(e, 0, sizeof(*e));
		e->bucket = b;
		e->prev = (uint32_t)s->sl_npe;
		e->last_seq = INT64_MIN;
		return e;
	}
	for (cur = e->prev; cur && s->sl_pe[cur - 1].bucket > b;
	     cur = s->sl_pe[cur - 1].prev)
		at = cur;
	if (cur && s->sl_pe[cur - 1].bucket == b)
		return &s->sl_pe[cur - 1];
	e = &s->sl_pe[s->sl_npe++];
	memset(e, 0, sizeof(*e));
	e->bucket = b;
	e->prev = cur;
	e->last_seq = INT64_MIN;
	if (at)
		s->sl_pe[at - 1].prev = (uint32_t)s->sl_npe;
	else
		a->top.prev = (uint32_t)s->sl_npe;
	return e;
}

/* slice_bucket_pid's entry of @key, made when new; NULL on ENOMEM.
 * A direct-mapped hint first: the keys of a bucket repeat. */
static struct mdb_sl_tpid *sl_tpid_get(struct mdb_stats *s,
				       const struct mdb_sl_tpid *key)
{
	uint32_t *hint = &s->sl_thint[tpid_hash(key) & (MDB_SL_THINTS - 1)];
	struct mdb_sl_tpid *t = s->sl_tpids.ents;
	int added;

	if (*hint && tpid_eq(&t[*hint - 1], key))
		return &t[*hint - 1];
	t = cmap_get(&s->sl_tpids, key, tpid_hash, tpid_eq, &added);
	if (t)
		*hint = (uint32_t)(t - (struct mdb_sl_tpid *)s->sl_tpids.ents)
			+ 1;
	return t;
}

static void sl_big_drop(struct mdb_stats *s)
{
	s->sl_dropped = 1;
	sl_big_release(s);
}

/* The level 7 tables' share of sl_coarsen() (before sl_shift++ there). */
static int sl_big_coarsen(struct mdb_stats *s)
{
	int64_t b0 = s->sl_b0, nb0 = b0 >> 1;
	int ret;

	if (s->sl_dropped || !s->sl_b0_set)
		return 0;
	memset(s->sl_thint, 0, MDB_SL_THINTS * sizeof(*s->sl_thint));
	ret = sl_ptr_coarsen(s, b0, nb0);
	if (!ret)
		ret = cmap_coarsen(&s->sl_tpids, b0 >> MDB_SL_PID_SHIFT,
				   nb0 >> MDB_SL_PID_SHIFT, tpid_hash,
				   tpid_eq, tpid_merge);
	if (!ret)
		ret = cmap_coarsen(&s->sl_ppids, b0 >> MDB_SL_PID_SHIFT,
				   nb0 >> MDB_SL_PID_SHIFT, ppid_hash,
				   ppid_eq, ppid_merge);
	s->sl_b0 = nb0;
	if (ret > 0)
		sl_big_drop(s);
	return ret < 0 ? -1 : 0;
}

/*
 * What the level 7 tables take of a timed slab lifetime, queued for the
 * thread that makes them (at most MDB_SL7_QUEUE batches of MDB_SL7_BATCH
 * waiting: the main thread waits when they are full).
 */
struct sl7_rec {
	int64_t ts, seq;
	uint64_t ptr, bytes_req, bytes_alloc;
	uint32_t site_id, cache_id;
	int32_t pid, cpu, free_cpu;
	uint8_t type, state;
};

#define MDB_SL7_BATCH 4096
#define MDB_SL7_QUEUE 8

struct mdb_sl7 {
	struct mdb_stats *s;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a batch full or done, or stop */
	struct sl7_rec *buf[MDB_SL7_QUEUE];
	size_t len[MDB_SL7_QUEUE];
	size_t head, nfull;         /* the full batches: a ring */
	size_t tail, fill;          /* the batch being filled, its rows */
	int stop, cancel, failed;
	/* the buckets as sl_lifetime() makes them, from the same rows */
	unsigned shift;
	int64_t bmin, bmax;
};

/* A timed slab lifetime of bucket @bucket into the level 7 tables. */
static int sl_big_lifetime(struct mdb_stats *s, const struct sl7_rec *lt,
			   int64_t bucket)
{
	struct mdb_sl_tpid tk = { 0 }, *t;
	struct mdb_sl_ptr *p;
	int32_t cb;
	int added;

	if (!s->sl_b0_set) {
		s->sl_thint = calloc(MDB_SL_THINTS, sizeof(*s->sl_thint));
		if (!s->sl_thint)
			return -1;
		s->sl_b0 = bucket;
		s->sl_b0_set = 1;
	}
	cb = (int32_t)((bucket >> MDB_SL_PID_SHIFT) -
		       (s->sl_b0 >> MDB_SL_PID_SHIFT));
	tk.bucket = cb;
	tk.site_id = lt->site_id;
	tk.cache_id = lt->cache_id;
	tk.pid = lt->pid;
	tk.type = lt->type;
	p = sl_ptr_get(s, lt->ptr, (int32_t)(bucket - s->sl_b0));
	t = p ? sl_tpid_get(s, &tk) : NULL;
	if (!t)
		return -1;
	if (p->hits == UINT32_MAX || t->hits == UINT32_MAX) {
		sl_big_drop(s);
		return 0;
	}
	p->hits++;
	t->hits++;
	add_bytes(&p->bytes_req, lt->bytes_req);
	add_bytes(&p->bytes_alloc, lt->bytes_alloc);
	add_bytes(&t->sum_req, lt->bytes_req);
	add_bytes(&t->sum_alloc, lt->bytes_alloc);
	if (lt->seq > p->last_seq) {
		p->last_seq = lt->seq;
		p->last_site = lt->site_id;
	}
	if (lt->state == MDB_ST_LIVE) {
		p->live++;
		t->live++;
		add_bytes(&t->live_bytes, lt->bytes_alloc);
	} else if (lt->state == MDB_ST_FREED) {
		p->freed++;
		t->freed++;
		if (lt->free_cpu != lt->cpu) {
			struct mdb_sl_ppid qk = { .bucket = cb,
						  .site_id = lt->site_id,
						  .pid = lt->pid,
						  .cpu = lt->cpu,
						  .free_cpu = lt->free_cpu };
			struct mdb_sl_ppid *q;

			p->pingpong++;
			t->pingpong++;
			q = cmap_get(&s->sl_ppids, &qk, ppid_hash, ppid_eq,
				     &added);
			if (!q)
				return -1;
			q->hits++;
			add_bytes(&q->bytes, lt->bytes_alloc);
		}
	}
	return 0;
}

/* One row into the level 7 tables, its bucket coarsened as sl_lifetime()
 * coarsens slice_bucket's (the same rows in the same order). */
static int sl7_row(struct mdb_sl7 *w, const struct sl7_rec *r)
{
	struct mdb_stats *s = w->s;
	int64_t b = r->ts >> w->shift;

	if (b < w->bmin)
		w->bmin = b;
	if (b > w->bmax)
		w->bmax = b;
	while (w->bmax - w->bmin >= MDB_SL_BUCKETS) {
		w->shift++;
		w->bmin >>= 1;
		w->bmax >>= 1;
		if (sl_big_coarsen(s) < 0)
			return -1;
		b = r->ts >> w->shift;
	}
	return s->sl_dropped ? 0 : sl_big_lifetime(s, r, b);
}

static void *sl7_main(void *arg)
{
	struct mdb_sl7 *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		size_t b, n;

		while (!w->nfull && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->nfull)
			break;
		b = w->head;
		n = w->cancel ? 0 : w->len[b];
		pthread_mutex_unlock(&w->mu);
		for (size_t i = 0; i < n && !w->failed; i++)
			if (sl7_row(w, &w->buf[b][i]) < 0)
				w->failed = 1;
		pthread_mutex_lock(&w->mu);
		w->head = (w->head + 1) % MDB_SL7_QUEUE;
		w->nfull--;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Start the thread; -1 on ENOMEM (or no thread). */
static int sl7_start(struct mdb_stats *s)
{
	struct mdb_sl7 *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	w->s = s;
	w->shift = s->sl_shift;
	w->bmin = INT64_MAX;
	w->bmax = INT64_MIN;
	for (size_t i = 0; i < MDB_SL7_QUEUE; i++) {
		w->buf[i] = malloc(MDB_SL7_BATCH * sizeof(*w->buf[i]));
		if (!w->buf[i])
			goto fail;
	}
	if (pthread_mutex_init(&w->mu, NULL))
		goto fail;
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	if (pthread_create(&w->thread, NULL, sl7_main, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	s->sl7 = w;
	return 0;
fail:
	for (size_t i = 0; i < MDB_SL7_QUEUE; i++)
		free(w->buf[i]);
	free(w);
	return -1;
}

/* Queue the batch being filled, then wait for room for the next. */
static void sl7_push(struct mdb_sl7 *w)
{
	pthread_mutex_lock(&w->mu);
	w->len[w->tail] = w->fill;
	w->nfull++;
	pthread_cond_broadcast(&w->cv);
	while (w->nfull == MDB_SL7_QUEUE)
		pthread_cond_wait(&w->cv, &w->mu);
	w->tail = (w->head + w->nfull) % MDB_SL7_QUEUE;
	pthread_mutex_unlock(&w->mu);
	w->fill = 0;
}

/* A timed slab lifetime for the level 7 tables; -1 on ENOMEM. */
static int sl7_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt)
{
	struct mdb_sl7 *w = s->sl7;
	struct sl7_rec *r;

	if (!w && sl7_start(s) < 0)
		return -1;
	w = s->sl7;
	r = &w->buf[w->tail][w->fill]; /* the thread's only once queued */
	r->ts = lt->ts;
	r->seq = lt->seq;
	r->ptr = lt->ptr;
	r->bytes_req = lt->bytes_req;
	r->bytes_alloc = lt->bytes_alloc;
	r->site_id = lt->site_id;
	r->cache_id = lt->cache_id;
	r->pid = lt->pid;
	r->cpu = lt->cpu;
	r->free_cpu = lt->free_cpu;
	r->type = (uint8_t)lt->type;
	r->state = (uint8_t)lt->state;
	if (++w->fill == MDB_SL7_BATCH)
		sl7_push(w);
	return 0;
}

/* The thread's rows all in (or dropped: @cancel), the thread ended.
 * -1 when it ran out of memory. */
static int sl7_stop(struct mdb_stats *s, int cancel)
{
	struct mdb_sl7 *w = s->sl7;
	int ret;

	if (!w)
		return 0;
	if (w->fill && !cancel)
		sl7_push(w);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	w->cancel = cancel;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	ret = w->failed ? -1 : 0;
	/* the same buckets as slice_bucket's, or none of it */
	if (!ret && !cancel && w->shift != s->sl_shift)
		sl_big_drop(s);
	for (size_t i = 0; i < MDB_SL7_QUEUE; i++)
		free(w->buf[i]);
	free(w);
	s->sl7 = NULL;
	return ret;
}

/*
 * The level 7 tables once the last lifetime is in: no more lookups (the
 * slots and hints go), the addresses in slice_ptr's key's order (as
 * SQLite's int64; each one's entries follow its chain) in sl_aorder, so
 * its B-tree is appended to.  -1 on ENOMEM.
 */
static int addr_cmp(const void *pa, const void *pb, void *base)
{
	const struct mdb_sl_addr *r = base;
	int64_t x = (int64_t)r[*(const uint32_t *)pa].ptr;
	int64_t y = (int64_t)r[*(const uint32_t *)pb].ptr;

	return (x > y) - (x < y);
}

static int sl_big_finish(struct mdb_stats *s)
{
	size_t n = 0;

	free(s->sl_tpids.slot);
	free(s->sl_ppids.slot);
	free(s->sl_thint);
	s->sl_thint = NULL;
	s->sl_tpids.slot = s->sl_ppids.slot = NULL;
	s->sl_tpids.nslot = s->sl_ppids.nslot = 0;
	s->sl_aorder = malloc((s->sl_naddr ? s->sl_naddr : 1) *
			      sizeof(*s->sl_aorder));
	if (!s->sl_aorder)
		return -1;
	for (size_t i = 0; i < s->sl_addrslots; i++)
		if (s->sl_addr[i].top.hits)
			s->sl_aorder[n++] = (uint32_t)i;
	qsort_r(s->sl_aorder, n, sizeof(*s->sl_aorder), addr_cmp,
		s->sl_addr);
	return 0;
}

/* ---- entry points ---------------------------------------------------- */

void mdb_stats_init(struct mdb_stats *s)
{
	memset(s, 0, sizeof(*s));
	mdb_u64map_init(&s->sites.idx);
	mdb_u64map_init(&s->caches.idx);
	mdb_u64map_init(&s->pingpong.idx);
	mdb_u64map_init(&s->nodes.idx);
	mdb_u64map_init(&s->sl_keys.idx);
	mdb_u64map_init(&s->sl_pids.idx);
	mdb_u64map_init(&s->sl_buckets.idx);
	mdb_u64map_init(&s->sl_bcomm.idx);
	mdb_u64map_init(&s->sl_pp.idx);
	mdb_u64map_init(&s->sl_stacks.idx);
	cmap_init(&s->sl_tpids, sizeof(struct mdb_sl_tpid));
	cmap_init(&s->sl_ppids, sizeof(struct mdb_sl_ppid));
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
	sl7_stop(s, 1);
	sl_big_release(s);
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

	mdb_u64map_release(&t->idx);
	mdb_u64map_init(&t->idx);
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
	if (s->sl_big && sl7_lifetime(s, lt) < 0)
		return -MDB_E_NOMEM;
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

/* The tables sl_lifetime() looks a slab lifetime up in, in its order. */
enum { SL_PIDS, SL_KEYS, SL_BUCKETS, SL_BCOMM, SL_NAHEAD };

/*
 * The hint slots sl_lifetime() will read for @lt, asked of the cache
 * (ftable_ahead()), into @hint (NULL: a table it does not reach).  The
 * keys are sl_lifetime()'s at the present bucket width; a coarsening in
 * between only makes the guess wrong.
 */
static void sl_ahead(const struct mdb_stats *s, const struct mdb_lifetime *lt,
		     const uint32_t *hint[SL_NAHEAD])
{
	struct mdb_fkey k = { .site_id = lt->site_id, .type = lt->type,
			      .cache_id = lt->cache_id, .pid = lt->pid };

	for (int t = 0; t < SL_NAHEAD; t++)
		hint[t] = NULL;
	if (lt->type == MDB_TYPE_PAGE)
		return;
	hint[SL_PIDS] = ftable_ahead(&s->sl_pids, &k);
	k.pid = 0;
	k.obj_size = lt->bytes_alloc;
	k.comm_id = lt->comm_id;
	hint[SL_KEYS] = ftable_ahead(&s->sl_keys, &k);
	if (lt->ts == MDB_NO_TS || lt->ts < 0)
		return;
	k.comm_id = 0;
	k.bucket = lt->ts >> s->sl_shift;
	hint[SL_BUCKETS] = ftable_ahead(&s->sl_buckets, &k);
	{
		struct mdb_fkey ck = { .bucket = k.bucket >>
					       MDB_SL_COMM_SHIFT,
				       .type = lt->type,
				       .site_id = lt->site_id,
				       .comm_id = lt->comm_id };

		hint[SL_BCOMM] = ftable_ahead(&s->sl_bcomm, &ck);
	}
}

/*
 * The queued lifetimes into the slicing index, in their order: first
 * their hint slots asked for, then the rows those name, then the work.
 */
static int sl_flush(struct mdb_stats *s)
{
	const struct mdb_ftable *tab[SL_NAHEAD] = {
		&s->sl_pids, &s->sl_keys, &s->sl_buckets, &s->sl_bcomm,
	};
	const uint32_t *hint[MDB_SL_AHEAD][SL_NAHEAD];
	size_t n = s->sl_nq;

	s->sl_nq = 0;
	for (size_t i = 0; i < n; i++)
		sl_ahead(s, &s->sl_q[i], hint[i]);
	for (size_t i = 0; i < n; i++)
		for (int t = 0; t < SL_NAHEAD; t++)
			ftable_row_ahead(tab[t], hint[i][t]);
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
	if (s->sl_big) {
		if (sl7_stop(s, 0) < 0)
			return -MDB_E_NOMEM;
		if (s->sl_dropped)
			s->sl_big = 0;
		else if (sl_big_finish(s) < 0)
			return -MDB_E_NOMEM;
	}
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
