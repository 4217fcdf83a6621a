// SPDX-License-Identifier: MIT
/*
 * Alloc/free pairing; see pair.h for the contract and
 * docs/design.md §4.3 for the rules implemented here.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/error.h"
#include "../ingest/event.h"
#include "../ingest/ingest.h"
#include "pair.h"

/* Map values: a pool index, or FREED | index of the freed record. */
#define FREED (UINT64_C(1) << 63)

void mdb_pair_init(struct mdb_pair *p, const struct mdb_pair_ops *ops)
{
	memset(p, 0, sizeof(*p));
	p->ops = *ops;
	mdb_u64map_init(&p->slab);
	mdb_u64map_init(&p->page);
	mdb_u64map_init(&p->slab_skip);
	mdb_u64map_init(&p->page_skip);
	p->last_seq = MDB_NO_SEQ;
}

void mdb_pair_release(struct mdb_pair *p)
{
	mdb_u64map_release(&p->slab);
	mdb_u64map_release(&p->page);
	mdb_u64map_release(&p->slab_skip);
	mdb_u64map_release(&p->page_skip);
	free(p->pool);
	free(p->free_idx);
	free(p->freed);
	free(p->freed_idx);
	free(p->low);
	memset(p, 0, sizeof(*p));
}

void mdb_pair_set_all_traced(struct mdb_pair *p, int on)
{
	p->all_traced = !!on;
}

/* Leading decimal number of @s, advancing it; -1 when none. */
static long release_num(const char **s)
{
	long n = 0;

	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9' && n < 100000)
		n = n * 10 + (*(*s)++ - '0');
	return n;
}

int mdb_pair_all_traced(const char *format, const char *release)
{
	struct mdb_kernel_version before;
	long major, minor = 0;

	/* the format's row says which kernels (kmemtrace's: before 4.2,
	 * which added bulk allocations, not traced per object) */
	if (!mdb_format_all_paths_before(format, &before))
		return 0;
	if (!release || !*release)
		return 1;
	/* kernel release "MAJOR.MINOR...": events converted from a newer
	 * kernel do not trace every path */
	major = release_num(&release);
	if (major < 0)
		return 1;
	if (*release == '.') {
		release++;
		minor = release_num(&release);
	}
	return major < before.major ||
	       (major == before.major && minor < before.minor);
}

size_t mdb_pair_live(const struct mdb_pair *p)
{
	return p->pool_len - p->nfree;
}

static inline struct u64map *key_space(struct mdb_pair *p, uint8_t type)
{
	return type == MDB_TYPE_PAGE ? &p->page : &p->slab;
}

void mdb_pair_ahead(struct mdb_pair *p, uint8_t type, uint64_t ptr)
{
	u64map_prefetch(key_space(p, type), ptr);
}

/* Count the positions skipped before @seq (positions always rise). */
static inline void note_pos(struct mdb_pair *p, int64_t seq)
{
	if (p->last_seq != MDB_NO_SEQ && seq > p->last_seq + 1)
		p->skipped += (uint64_t)(seq - p->last_seq - 1);
	if (p->last_seq == MDB_NO_SEQ || seq > p->last_seq)
		p->last_seq = seq;
}

/* all_traced: remember what was skipped when @ptr was freed. */
static inline int mark_skipped(struct mdb_pair *p, uint8_t type, uint64_t ptr)
{
	uint64_t *v;

	if (!p->all_traced)
		return 0;
	v = mdb_u64map_put(type == MDB_TYPE_PAGE ? &p->page_skip : &p->slab_skip,
			   ptr, 0, NULL);
	if (!v)
		return -MDB_E_NOMEM;
	*v = p->skipped;
	return 0;
}

/* all_traced: was every position since @ptr's last free fed? */
static inline int nothing_skipped(struct mdb_pair *p, uint8_t type,
				  uint64_t ptr)
{
	uint64_t *v = mdb_u64map_get(type == MDB_TYPE_PAGE ? &p->page_skip :
				     &p->slab_skip, ptr);

	return v && *v == p->skipped;
}

/* A record for a freed address; its map value, FREED | index, in *@val. */
static int freed_get(struct mdb_pair *p, int64_t seq, uint64_t bytes,
		     uint64_t *val)
{
	size_t i;

	if (p->nfreed_idx) {
		i = p->freed_idx[--p->nfreed_idx];
	} else {
		if (p->freed_len == p->freed_cap) {
			size_t ncap = p->freed_cap ? p->freed_cap * 2 : 1024;
			struct mdb_pair_freed *nr;
			uint32_t *ni;

			if (ncap > UINT32_MAX)
				return -MDB_E_NOMEM;
			nr = realloc(p->freed, ncap * sizeof(*nr));
			if (!nr)
				return -MDB_E_NOMEM;
			p->freed = nr;
			ni = realloc(p->freed_idx, ncap * sizeof(*ni));
			if (!ni)
				return -MDB_E_NOMEM;
			p->freed_idx = ni;
			p->freed_cap = ncap;
		}
		i = p->freed_len++;
	}
	p->freed[i].seq = seq;
	p->freed[i].bytes = bytes;
	*val = FREED | i;
	return 0;
}

/* The address of map value @val is allocated again: its record goes. */
static inline void freed_put(struct mdb_pair *p, uint64_t val)
{
	p->freed_idx[p->nfreed_idx++] = (uint32_t)(val & ~FREED);
}

static int pool_get(struct mdb_pair *p, uint32_t *idx)
{
	if (p->nfree) {
		*idx = p->free_idx[--p->nfree];
		return 0;
	}
	if (p->pool_len == p->pool_cap) {
		size_t ncap = p->pool_cap ? p->pool_cap * 2 : 1024;
		struct mdb_lifetime *np;
		uint32_t *nf;

		if (ncap > UINT32_MAX)
			return -MDB_E_NOMEM;
		np = realloc(p->pool, ncap * sizeof(*np));
		if (!np)
			return -MDB_E_NOMEM;
		p->pool = np;
		nf = realloc(p->free_idx, ncap * sizeof(*nf));
		if (!nf)
			return -MDB_E_NOMEM;
		p->free_idx = nf;
		p->pool_cap = ncap;
	}
	*idx = (uint32_t)p->pool_len++;
	return 0;
}

static inline void pool_put(struct mdb_pair *p, uint32_t idx)
{
	p->free_idx[p->nfree++] = idx;
}

int mdb_pair_alloc(struct mdb_pair *p, const struct mdb_lifetime *in)
{
	struct mdb_lifetime lt = *in;
	uint64_t *v;
	uint32_t idx;
	int added, ret;

	note_pos(p, lt.seq);
	lt.state = MDB_ST_LIVE;
	lt.end_seq = MDB_NO_SEQ;
	lt.end_ts = MDB_NO_TS;
	lt.free_cpu = -1;
	lt.free_site_id = 0;
	lt.free_type = -1;

	if (lt.ptr < MDB_MIN_ADDR) {
		/* NULL: a failure; ZERO_SIZE_PTR: kmalloc(0).  Counted as
		 * hits and bytes, never live; perf kmem keeps the pointer */
		lt.state = lt.ptr ? MDB_ST_ZERO : MDB_ST_FAILED;
		if (lt.type != MDB_TYPE_PAGE) {
			if (!p->low &&
			    !(p->low = calloc(MDB_MIN_ADDR, sizeof(*p->low))))
				return -MDB_E_NOMEM;
			p->low[lt.ptr] = (struct mdb_pair_low){
				lt.bytes_alloc, lt.cpu, 1 };
		}
		return p->ops.lifetime(p->ops.ctx, &lt);
	}

	v = mdb_u64map_put(key_space(p, lt.type), lt.ptr, FREED, &added);
	if (!v)
		return -MDB_E_NOMEM;
	if (!added && (*v & FREED))
		freed_put(p, *v);
	if (!added && !(*v & FREED)) {
		/* the address is live: its FREE was never traced (bulk and
		 * RCU frees); the old lifetime ends here */
		struct mdb_lifetime *old = &p->pool[*v];

		old->state = MDB_ST_NOT_TRACED;
		old->end_seq = lt.seq;
		old->end_ts = lt.ts;
		ret = p->ops.lifetime(p->ops.ctx, old);
		if (ret < 0)
			return ret;
		*old = lt;
		return 0;
	}
	ret = pool_get(p, &idx);
	if (ret < 0)
		return ret;
	p->pool[idx] = lt;
	/* pool_get() does not touch the map, so @v is still valid */
	*v = idx;
	return 0;
}

/*
 * A FREE that ends nothing; @v is the address's map value, NULL when
 * absent.  A NULL free; an unknown free (never allocated in the trace:
 * before it began, by an untraced path, or bogus; it leaves no mark, so a
 * later FREE of the address is another unknown free); or a second FREE of
 * an allocation already freed.
 */
static int free_not_live(struct mdb_pair *p, struct mdb_free *f,
			 uint64_t *v)
{
	int slab = f->type != MDB_TYPE_PAGE;

	if (f->ptr < MDB_MIN_ADDR) {
		struct mdb_pair_low *l = p->low ? &p->low[f->ptr] : NULL;

		f->class = MDB_FREE_NULL;
		if (slab && l && l->seen) {
			/* perf's tree holds the failed or zero-size ALLOC */
			f->perf_counted = 1;
			f->perf_bytes = l->bytes;
			f->perf_pingpong = f->cpu != l->cpu;
			l->cpu = -1;
		}
	} else if (!v) {
		f->class = MDB_FREE_UNKNOWN;
	} else {
		struct mdb_pair_freed *r = &p->freed[*v & ~FREED];

		/* freed, not allocated again since: proof of a double free
		 * only when no allocation path escapes the trace and no
		 * event between the two frees is missing */
		f->class = p->all_traced &&
			   nothing_skipped(p, f->type, f->ptr) ?
			   MDB_FREE_DUPLICATE : MDB_FREE_DUPLICATE_SUSPECT;
		f->prev_seq = r->seq;
		r->seq = f->seq;
		/* perf: the pointer's ALLOC again, its CPU reset to -1 by
		 * the first free, so always a ping-pong */
		f->perf_counted = f->perf_pingpong = (uint8_t)slab;
		f->perf_bytes = slab ? r->bytes : 0;
		if (mark_skipped(p, f->type, f->ptr) < 0)
			return -MDB_E_NOMEM;
	}
	return p->ops.bad_free(p->ops.ctx, f);
}

int mdb_pair_free(struct mdb_pair *p, const struct mdb_free *in)
{
	struct mdb_free f = *in;
	struct mdb_lifetime *lt;
	uint64_t *v = NULL, val;

	note_pos(p, f.seq);
	f.prev_seq = MDB_NO_SEQ;
	f.perf_counted = f.perf_pingpong = 0;
	f.perf_bytes = 0;
	if (f.ptr >= MDB_MIN_ADDR)
		v = mdb_u64map_get(key_space(p, f.type), f.ptr);
	if (!v || (*v & FREED))
		return free_not_live(p, &f, v);
	if (mark_skipped(p, f.type, f.ptr) < 0)
		return -MDB_E_NOMEM;
	/* @v stays valid: mark_skipped() inserts into another map, and
	 * freed_get() into none */
	lt = &p->pool[*v];
	if (freed_get(p, f.seq, lt->bytes_alloc, &val) < 0)
		return -MDB_E_NOMEM;
	pool_put(p, (uint32_t)*v);
	*v = val;
	lt->state = MDB_ST_FREED;
	lt->end_seq = f.seq;
	lt->end_ts = f.ts;
	lt->free_cpu = f.cpu;
	lt->free_site_id = f.site_id;
	lt->free_type = (int8_t)f.type;
	return p->ops.lifetime(p->ops.ctx, lt);
}

static int by_seq(const void *a, const void *b)
{
	const struct mdb_lifetime *const *x = a, *const *y = b;

	return ((*x)->seq > (*y)->seq) - ((*x)->seq < (*y)->seq);
}

int mdb_pair_finish(struct mdb_pair *p)
{
	size_t n = 0, nlive = mdb_pair_live(p);
	struct mdb_lifetime **live;
	char *unused;
	int ret = 0;

	if (!nlive)
		return 0;
	live = malloc(nlive * sizeof(*live));
	unused = calloc(p->pool_len, 1);
	if (!live || !unused) {
		free(live);
		free(unused);
		return -MDB_E_NOMEM;
	}
	for (size_t i = 0; i < p->nfree; i++)
		unused[p->free_idx[i]] = 1;
	for (size_t i = 0; i < p->pool_len; i++)
		if (!unused[i])
			live[n++] = &p->pool[i];
	qsort(live, n, sizeof(*live), by_seq);
	for (size_t i = 0; i < n && ret >= 0; i++)
		ret = p->ops.lifetime(p->ops.ctx, live[i]);
	free(live);
	free(unused);
	return ret < 0 ? ret : 0;
}
