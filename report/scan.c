// SPDX-License-Identifier: MIT
/*
 * slab_scan: a table-valued function over a source's blocks of packed
 * columns (db/packcol.h, db/schema-11.sql, the zone map of
 * db/schema-12.sql), the one scan of the reports that select
 * allocations.  It selects the slab allocations (or the page ones) as
 * the reports' options do and sums them per group, in C, block by block:
 *
 *   SELECT * FROM slab_scan(source_id, by, tsel, t_lo, t_hi, pid, comm,
 *                           cache, site[, at_seq, at_ts, ref_ts, min_age])
 *
 *   by      what names a group: rk, and k2 .. k6 where more do:
 *           'ptr' (the address), 'site', 'type', 'cache' (the cache id,
 *           k2 the type, k3 the object size: callsites --by cache),
 *           'comm', 'pid', 'pp' (the site, k2 the CPU, k3 the CPU of
 *           the free: pingpong), 'stack' (allocations with a stack,
 *           failures left out: stacks), 'leak' (the site, of the
 *           allocations live at a point: leaks, below), 'all' (one
 *           group: allocs' total row) or 'page' (the page allocations,
 *           not the slab ones: the stack, k2 the size, k3 the
 *           migratetype, k4 the gfp flags, k5 their text's id, k6 the
 *           state: pages)
 *   tsel    1: only allocations made from t_lo to t_hi (ns, both
 *           included); 0: every allocation
 *   t_hi    frees after it are not seen (INT64_MAX: none)
 *   pid     NULL, or only the task's
 *   comm, cache, site   NULL, or the option's text: --comm NAME,
 *           --cache NAME (its str ids, and the names callsites --by
 *           cache makes up for rows without one), --site SYMBOL|ADDRESS
 *           (MDB_SITE_MATCH, report/report.h), as report/params.c's
 *           conditions select them
 *
 * Per group: hits, bytes_req, bytes_alloc, freed (ended by a FREE up to
 * t_hi), pingpong (of those, on another CPU) and pp_bytes (their
 * bytes_alloc), live (live at t_hi) and live_bytes, and the position
 * (last_seq) and site_id of the latest allocation: what callsites.sql,
 * allocs.sql, fragmentation.sql, pingpong.sql and stacks.sql show, the
 * figures SQL over the alloc rows gives (tests/test_slicing.c holds them
 * against tests/slice_count.py).  Then what allocs.sql orders by, as its
 * SQL computed them: waste and frag_pct (bytes_alloc - bytes_req, and
 * 100 - 100 * bytes_req / bytes_alloc, of the sums made integers as
 * CAST makes them), rk_u and site_u (rk, and the address of the latest
 * allocation's site, in the order of unsigned numbers: as "x < 0, x"
 * orders them).
 *
 * 'leak' keeps the allocations live at a point, as leaks.sql shows
 * them: at the end (at_seq and at_ts NULL: state 0), at position at_seq
 * (made at or before it, not failed, not ended by then) or at time at_ts
 * (likewise by time); with min_age, only those at least that old at
 * ref_ts (ns).  Its groups' min_seq, max_seq, min_ts and max_ts are the
 * oldest and youngest of them (NULL for the other groupings).
 *
 * An ORDER BY on the visible columns is done here: the groups are put in
 * a heap and each row taken from it as SQLite asks, so a LIMIT reads
 * only the rows it shows (allocs: hundreds of thousands of addresses).
 * A damaged blob is an error naming its row and byte.  The blocks are
 * summed on both cores (scan_source()).
 */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/heap.h"
#include "../common/hugemem.h"
#include "../common/prefetch.h"
#include "../common/queue.h"
#include "../common/u64map.h"
#include "../db/allocvt.h"
#include "../db/packcol.h"
#include "report.h"
#include "scan.h"

enum { C_RK, C_K2, C_K3, C_K4, C_K5, C_K6, C_HITS, C_REQ, C_ALLOC,
       C_FREED, C_PP, C_PP_BYTES, C_LIVE, C_LIVE_BYTES, C_LAST_SEQ, C_SITE,
       C_WASTE, C_FRAG, C_RK_U, C_SITE_U, C_MIN_SEQ, C_MAX_SEQ, C_MIN_TS,
       C_MAX_TS, C_NOUT,
       /* the arguments, hidden */
       A_SOURCE = C_NOUT, A_BY, A_TSEL, A_TLO, A_THI, A_PID, A_COMM,
       A_CACHE, A_SITE, A_AT_SEQ, A_AT_TS, A_REF_TS, A_MIN_AGE, C_ALL };

#define NARGS (C_ALL - C_NOUT)

enum by { BY_PTR, BY_SITE, BY_TYPE, BY_CACHE, BY_COMM, BY_PID, BY_PP,
	  BY_STACK, BY_LEAK, BY_ALL, BY_PAGE, BY__COUNT };

#define NKEY 6  /* the most columns a key has: rk, k2 .. k6 */

/* What a row's sum touches first, in the struct's first two cache
 * lines (its sums, flags and the key's first three columns): with a
 * group per address each is a cache miss. */
struct group {
	int64_t f[C_SITE - C_HITS + 1]; /* hits .. site_id */
	int nulls;              /* bit j set: key j NULL */
	/* a sum of bytes past int64 (sizes out of range in the capture):
	 * its bit in ovf (and in an exact scan the sum as SQL's total()
	 * makes it in struct groups' d) */
	unsigned ovf;
	/* a row added a negative number of bytes to the sum (its bit):
	 * its sums in another order may pass int64 where these did not */
	unsigned neg;
	/* 'leak': the range of the rows' positions (has bit 0) and times
	 * (has bit 1) */
	unsigned has;
	int64_t k[NKEY];        /* its key: rk, k2 .. k6 (0 when unused) */
	int64_t first;          /* its first row: block * 1024 + row */
	int64_t min_seq, max_seq, min_ts, max_ts;
};

#define NSUMS (C_SITE - C_HITS + 1)

#define TOP_ROWS 64 /* rows of an ORDER BY picked before a heap of all */

struct ids {            /* a sorted list of ids; all = no filter */
	int all;
	size_t n;
	int64_t *v;
};

/*
 * The connection's slab_scan.  A scan per address leaves the sum of its
 * groups here with what selected them (all_key): the scan of the same
 * selection as one group ('all', allocs' total row after its rows)
 * takes it instead of reading the blocks again.
 */
struct scan_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	char *all_key;          /* NULL: nothing kept */
	struct group all;       /* the one group of 'all' */
	int all_rows;           /* it has rows (else no group) */
};

/* Groups by key: a table with open addressing over an array. */
struct groups {
	struct group *g;        /* the groups, in order made */
	size_t n, gcap;         /* in use, allocated */
	uint32_t *slot;         /* by key hash, open addressing: g's
				 * index + 1, 0 empty (small: in cache) */
	size_t cap;             /* slots, a power of 2 */
	int nk;                 /* the key's columns (rk, k2 ..) */
	/* exact: each group's sums also as doubles in row order, SQL's
	 * total(), d[k] for g[k] (the one-thread scan) */
	int exact;
	double (*d)[NSUMS];
};

/*
 * One thread's share of a scan: its groups, its block, and the first
 * damaged block it met (the one of smallest number).
 */
struct part {
	struct groups gr;
	struct mdb_pc_block *blk;
	int bad;                /* a damaged block was met */
	int64_t bad_row, bad_blk;
	size_t bad_off;
	const char *bad_why;
	int nomem;
};

/* an ORDER BY term: a visible column, descending or not */
struct term {
	int col, desc;
};

/* the sites' addresses of a source, by id (site_u) */
struct site_addr {
	int64_t id, addr;
	int null;               /* the address is NULL */
};

struct site_addrs {
	int loaded;
	size_t n, cap;
	struct site_addr *v;
};

struct scan_cursor {
	sqlite3_vtab_cursor base;
	struct part part[2];    /* the calling thread's, the helper's */
	size_t at;              /* rows given so far (xNext) */
	size_t cur;             /* the group of part[0] of the row */
	int64_t rowid;
	int keys;               /* how many of rk, k2 .. k6 the key has */
	int leak;               /* grouping 'leak': the ranges are shown */
	int64_t source_id;
	struct site_addrs sites;
	/*
	 * The ORDER BY done here: its terms; the first TOP_ROWS rows in
	 * order (top, ntop of them, the next one at itop: with many
	 * groups); then the groups not yet given as a heap of indexes into
	 * part[0]'s (heap[0] the next row), made once top is used up
	 * (NULL until then).
	 */
	struct term *ord;
	int nord;
	uint32_t *top;
	size_t ntop, itop;
	uint32_t *heap;
	size_t nheap;
	struct sval *key;       /* each group's value of the first term */
	int sites_err;          /* site_u could not be read */
};

static int scan_connect(sqlite3 *db, void *aux, int argc,
			const char *const *argv, sqlite3_vtab **out,
			char **err)
{
	struct scan_vtab *v;
	int rc;

	(void)aux, (void)argc, (void)argv, (void)err;
	v = mdb_vtab_new(db, "CREATE TABLE x(rk, k2, k3, k4, k5, k6, hits, "
			 "bytes_req, bytes_alloc, freed, pingpong, pp_bytes, "
			 "live, live_bytes, last_seq, site_id, waste, frag_pct, "
			 "rk_u, site_u, min_seq, max_seq, min_ts, max_ts, "
			 "source_id HIDDEN, by HIDDEN, tsel HIDDEN, "
			 "t_lo HIDDEN, t_hi HIDDEN, pid HIDDEN, comm HIDDEN, "
			 "cache HIDDEN, site HIDDEN, at_seq HIDDEN, "
			 "at_ts HIDDEN, ref_ts HIDDEN, min_age HIDDEN)",
			 sizeof(*v), &rc);
	if (!v)
		return rc;
	v->db = db;
	*out = &v->base;
	return SQLITE_OK;
}

static int scan_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(((struct scan_vtab *)vt)->all_key);
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Every argument given as an equality, in order; source and by needed. */
static int scan_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int slot[NARGS];
	int mask = 0, n = 0;

	(void)vt;
	for (int i = 0; i < NARGS; i++)
		slot[i] = -1;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		int a = c->iColumn - C_NOUT;

		if (a < 0 || a >= NARGS)
			continue;
		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			return SQLITE_CONSTRAINT;
		slot[a] = i;
	}
	if (slot[0] < 0 || slot[1] < 0)
		return SQLITE_CONSTRAINT;
	for (int a = 0; a < NARGS; a++) {
		if (slot[a] < 0)
			continue;
		mask |= 1 << a;
		info->aConstraintUsage[slot[a]].argvIndex = ++n;
		info->aConstraintUsage[slot[a]].omit = 1;
	}
	info->idxNum = mask;
	info->estimatedCost = 1e6;
	/* an ORDER BY of visible columns: done here, said in idxStr as a
	 * letter per term, the column's ('a' + column; upper case:
	 * descending) */
	for (int i = 0; i < info->nOrderBy; i++)
		if (info->aOrderBy[i].iColumn < 0 ||
		    info->aOrderBy[i].iColumn >= C_NOUT)
			return SQLITE_OK;
	if (info->nOrderBy > 0) {
		char *o = sqlite3_malloc(info->nOrderBy + 1);

		if (!o)
			return SQLITE_NOMEM;
		for (int i = 0; i < info->nOrderBy; i++)
			o[i] = (char)((info->aOrderBy[i].desc ? 'A' : 'a') +
				      info->aOrderBy[i].iColumn);
		o[info->nOrderBy] = 0;
		info->idxStr = o;
		info->needToFreeIdxStr = 1;
		info->orderByConsumed = 1;
	}
	return SQLITE_OK;
}

static int scan_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct scan_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static void groups_free(struct groups *gr)
{
	mdb_huge_free(gr->g, gr->gcap, sizeof(*gr->g));
	mdb_huge_free(gr->slot, gr->cap, sizeof(*gr->slot));
	free(gr->d);
	memset(gr, 0, sizeof(*gr));
}

/* Forget a part's groups and damage (its block stays allocated). */
static void part_reset(struct part *pt)
{
	groups_free(&pt->gr);
	pt->bad = pt->nomem = 0;
}

static void cursor_reset(struct scan_cursor *c)
{
	part_reset(&c->part[0]);
	part_reset(&c->part[1]);
	c->at = c->cur = 0;
}

/* cursor_reset(), and forget the sites' addresses and the ORDER BY. */
static void cursor_clear(struct scan_cursor *c)
{
	cursor_reset(c);
	free(c->sites.v);
	memset(&c->sites, 0, sizeof(c->sites));
	free(c->ord);
	free(c->top);
	free(c->heap);
	free(c->key);
	c->ord = NULL;
	c->top = NULL;
	c->heap = NULL;
	c->key = NULL;
	c->nord = 0;
	c->ntop = c->itop = 0;
	c->nheap = 0;
	c->sites_err = 0;
}

static int scan_close(sqlite3_vtab_cursor *cur)
{
	struct scan_cursor *c = (struct scan_cursor *)cur;

	cursor_clear(c);
	for (int t = 0; t < 2; t++) {
		mdb_pc_block_done(c->part[t].blk);
		free(c->part[t].blk);
	}
	sqlite3_free(c);
	return SQLITE_OK;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The ids @sql selects with @text bound to ?2 (and the source to ?1) into
 * @ids, sorted; with @text NULL, every id (no filter).  An SQLite code.
 */
static int load_ids(sqlite3 *db, const char *sql, int64_t source_id,
		    sqlite3_value *text, struct ids *ids)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	memset(ids, 0, sizeof(*ids));
	if (!text || sqlite3_value_type(text) == SQLITE_NULL) {
		ids->all = 1;
		return SQLITE_OK;
	}
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, source_id);
	sqlite3_bind_value(st, 2, text);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (ids->n == cap) {
			int64_t *nv;

			cap = cap ? 2 * cap : 8;
			nv = realloc(ids->v, cap * sizeof(*nv));
			if (!nv) {
				rc = SQLITE_NOMEM;
				break;
			}
			ids->v = nv;
		}
		ids->v[ids->n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? SQLITE_ERROR : rc;
	if (ids->n > 1)
		qsort(ids->v, ids->n, sizeof(*ids->v), cmp_i64);
	return SQLITE_OK;
}

static int in_ids(const struct ids *ids, int64_t x)
{
	size_t lo = 0, hi = ids->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids->v[mid] == x)
			return 1;
		if (ids->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * The made-up cache name a row without a cache id matches (callsites
 * --by cache, report/params.c's --cache): 'cache-N' (kmem_cache rows of
 * N bytes), 'kmalloc-N' (N <= 8192) or 'kmalloc-large'.  kind 0: none.
 */
struct synth {
	int kind;               /* 0 none, 1 cache-N, 2 kmalloc-N, 3 large */
	int64_t size;
};

static struct synth parse_synth(const char *name)
{
	struct synth s = { 0, 0 };
	const char *num = NULL;
	char *end;
	long long n;
	char back[32];

	if (!name)
		return s;
	if (!strcmp(name, "kmalloc-large"))
		return (struct synth){ 3, 0 };
	if (!strncmp(name, "cache-", 6)) {
		num = name + 6;
		s.kind = 1;
	} else if (!strncmp(name, "kmalloc-", 8)) {
		num = name + 8;
		s.kind = 2;
	} else {
		return s;
	}
	errno = 0;
	n = strtoll(num, &end, 10);
	/* the very text SQLite's 'cache-' || bytes_alloc makes */
	snprintf(back, sizeof(back), "%lld", n);
	if (end == num || *end || errno || strcmp(back, num) ||
	    (s.kind == 2 && n > 8192))
		return (struct synth){ 0, 0 };
	s.size = n;
	return s;
}

static int synth_match(const struct synth *s, int64_t type, int64_t size)
{
	switch (s->kind) {
	case 1:
		return type == 1 && size == s->size;
	case 2:
		return type != 1 && size == s->size;
	case 3:
		return type != 1 && size > 8192;
	default:
		return 0;
	}
}

/* The hash of key @k, its first @nk columns (the others 0). */
static uint64_t group_hash(const int64_t *k, int nulls, int nk)
{
	uint64_t h = (uint64_t)k[1] + ((uint64_t)k[2] << 3) + (uint64_t)nulls;

	for (int j = 3; j < nk; j++)
		h = u64map_mix(h) + (uint64_t)k[j];
	return u64map_mix((uint64_t)k[0] ^ u64map_mix(h));
}

/* Room for one more group: the slots at most half full. */
static int group_room(struct groups *c)
{
	if (c->n == c->gcap) {
		size_t cap = c->gcap;

		/* many groups (per address): grown in place, huge pages */
		if (MDB_HUGE_GROW(c->g, c->n, cap, 512) < 0)
			return -1;
		if (c->exact) {
			double (*d)[NSUMS] = realloc(c->d, cap * sizeof(*d));

			if (!d) {
				/* c->g grew: keep its size known */
				c->gcap = cap;
				return -1;
			}
			c->d = d;
		}
		c->gcap = cap;
	}
	if (2 * (c->n + 1) > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		uint32_t *slot = mdb_huge_alloc(cap, sizeof(*slot));

		if (!slot)
			return -1;
		for (size_t j = 0; j < c->n; j++) {
			const struct group *o = &c->g[j];
			size_t i = group_hash(o->k, o->nulls, c->nk) &
				   (cap - 1);

			while (slot[i])
				i = (i + 1) & (cap - 1);
			slot[i] = (uint32_t)(j + 1);
		}
		mdb_huge_free(c->slot, c->cap, sizeof(*c->slot));
		c->slot = slot;
		c->cap = cap;
	}
	return 0;
}

/* The group of key @k of hash @h, made when new (its first row @first);
 * NULL on ENOMEM. */
static struct group *group_get(struct groups *c, uint64_t h,
			       const int64_t *k, int nulls, int64_t first)
{
	size_t i = h & (c->cap - 1);
	struct group *g;

	for (; c->slot[i]; i = (i + 1) & (c->cap - 1)) {
		g = &c->g[c->slot[i] - 1];
		/* the key's columns past the grouping's own are 0 on both
		 * sides: rk, k2 and k3 compared as they are, more only for
		 * a longer key */
		if (g->k[0] == k[0] && g->k[1] == k[1] && g->k[2] == k[2] &&
		    g->nulls == nulls &&
		    (c->nk <= 3 || !memcmp(g->k + 3, k + 3,
					   (size_t)(c->nk - 3) * sizeof(*k))))
			return g;
	}
	if (c->n >= UINT32_MAX - 1)
		return NULL;
	if (2 * (c->n + 1) > c->cap || c->n == c->gcap) {
		if (group_room(c) < 0)
			return NULL;
		for (i = h & (c->cap - 1); c->slot[i];
		     i = (i + 1) & (c->cap - 1))
			;
	}
	c->slot[i] = (uint32_t)(c->n + 1);
	g = &c->g[c->n++];
	*g = (struct group){ .nulls = nulls, .first = first };
	memcpy(g->k, k, sizeof(g->k));
	if (c->exact)
		memset(c->d[c->n - 1], 0, sizeof(c->d[0]));
	g->f[C_LAST_SEQ - C_HITS] = INT64_MIN;
	return g;
}

/* the key's packed columns, by grouping: rk, k2 .. k6 (-1: none) */
static const int kcol[BY__COUNT][NKEY] = {
	[BY_PTR] = { MDB_PC_PTR, -1, -1, -1, -1, -1 },
	[BY_SITE] = { MDB_PC_SITE, -1, -1, -1, -1, -1 },
	[BY_TYPE] = { MDB_PC_TYPE, -1, -1, -1, -1, -1 },
	[BY_CACHE] = { MDB_PC_CACHE, MDB_PC_TYPE, MDB_PC_ALLOC, -1, -1, -1 },
	[BY_COMM] = { MDB_PC_COMM, -1, -1, -1, -1, -1 },
	[BY_PID] = { MDB_PC_PID, -1, -1, -1, -1, -1 },
	[BY_PP] = { MDB_PC_SITE, MDB_PC_CPU, MDB_PC_FREE_CPU, -1, -1, -1 },
	[BY_STACK] = { MDB_PC_STACK, -1, -1, -1, -1, -1 },
	[BY_LEAK] = { MDB_PC_SITE, -1, -1, -1, -1, -1 },
	[BY_ALL] = { -1, -1, -1, -1, -1, -1 },
	[BY_PAGE] = { MDB_PC_STACK, MDB_PC_ALLOC, MDB_PC_MIGRATETYPE,
		      MDB_PC_GFP, MDB_PC_GFP_ID, MDB_PC_STATE },
};

/* The columns of grouping @by's key: rk and those after it up to its
 * last in kcol ('all' has rk alone, always NULL). */
static int key_len(enum by by)
{
	int n = 1;

	for (int j = 1; j < NKEY; j++)
		if (kcol[by][j] >= 0)
			n = j + 1;
	return n;
}

/* 'leak': live at the end, at a position or at a time */
enum at { AT_END, AT_SEQ, AT_TS };

struct sel {
	enum by by;
	int tsel;
	int64_t t_lo, t_hi;
	int has_pid;
	int64_t pid;
	struct ids comms, caches, sites;
	struct synth synth;     /* --cache's made-up name, if it is one */
	uint32_t cols;          /* the packed columns read (bit c: c) */
	int nk;                 /* the key's columns: kcol's used */
	/* 'leak': the point, and min_age at ref_ts (has_age) */
	enum at at;
	int64_t at_v;
	int has_age, ref_null;
	int64_t ref_ts, min_age;
};

/* 'leak' with min_age: a row made at @ts (NULL: @ts_null) is at least
 * min_age old at ref_ts, as leaks.sql's ref_ts - ts >= min_age says
 * (SQLite makes a difference past int64 a real: its sign decides) */
static int old_enough(const struct sel *s, int ts_null, int64_t ts)
{
	int64_t age;

	if (ts_null || s->ref_null)
		return 0;
	if (__builtin_sub_overflow(s->ref_ts, ts, &age))
		return s->ref_ts >= 0;
	return age >= s->min_age;
}

/*
 * The rows of @b that @s selects: their indexes into @idx, a filter at a
 * time over the ones left (tight loops, mostly over one column); their
 * number.
 */
static size_t select_rows(const struct sel *s, const struct mdb_pc_block *b,
			  uint16_t *idx)
{
	const int64_t (*col)[MDB_PC_ROWS] = b->v;
	const uint8_t (*nul)[MDB_PC_ROWS] = b->null;
	size_t n = 0;

/* keep the rows r of idx[0, n) for which @cond holds, in order */
#define KEEP(cond) do {							\
		size_t m_ = 0;						\
		for (size_t i_ = 0; i_ < n; i_++) {			\
			size_t r = idx[i_];				\
			idx[m_] = (uint16_t)r;				\
			m_ += (cond);					\
		}							\
		n = m_;							\
	} while (0)

	/* slab rows only (type < 2), or page rows only ('page': 2) */
	const int64_t tlo = s->by == BY_PAGE ? 2 : INT64_MIN;
	const int64_t thi = s->by == BY_PAGE ? 2 : 1;

	for (size_t r = 0; r < b->rows; r++) {
		idx[n] = (uint16_t)r;
		n += col[MDB_PC_TYPE][r] >= tlo && col[MDB_PC_TYPE][r] <= thi;
	}
	/* stacks.sql: with a stack, and not failed (state 3) */
	if (s->by == BY_STACK)
		KEEP(!nul[MDB_PC_STACK][r] && col[MDB_PC_STATE][r] != 3);
	if (s->tsel)
		KEEP(!nul[MDB_PC_TS][r] && col[MDB_PC_TS][r] >= s->t_lo &&
		     col[MDB_PC_TS][r] <= s->t_hi);
	if (s->has_pid)
		KEEP(!nul[MDB_PC_PID][r] && col[MDB_PC_PID][r] == s->pid);
	if (!s->comms.all)
		KEEP(!nul[MDB_PC_COMM][r] &&
		     in_ids(&s->comms, col[MDB_PC_COMM][r]));
	if (!s->sites.all)
		KEEP(in_ids(&s->sites, col[MDB_PC_SITE][r]));
	/* report/params.c's --cache: the cache's id, or the name callsites
	 * --by cache makes up for a row without one */
	if (!s->caches.all)
		KEEP((!nul[MDB_PC_CACHE][r] &&
		      in_ids(&s->caches, col[MDB_PC_CACHE][r])) ||
		     ((nul[MDB_PC_CACHE][r] || !col[MDB_PC_CACHE][r]) &&
		      synth_match(&s->synth, col[MDB_PC_TYPE][r],
				  col[MDB_PC_ALLOC][r])));
	/* leaks.sql: live at the end (state 0), or made at or before the
	 * point, not failed (state 3), and not ended by then */
	if (s->by == BY_LEAK && s->at == AT_END)
		KEEP(!nul[MDB_PC_STATE][r] && col[MDB_PC_STATE][r] == 0);
	if (s->by == BY_LEAK && s->at == AT_SEQ)
		KEEP(!nul[MDB_PC_STATE][r] && col[MDB_PC_STATE][r] < 3 &&
		     !nul[MDB_PC_SEQ][r] && col[MDB_PC_SEQ][r] <= s->at_v &&
		     (nul[MDB_PC_END_SEQ][r] ||
		      col[MDB_PC_END_SEQ][r] > s->at_v));
	if (s->by == BY_LEAK && s->at == AT_TS)
		KEEP(!nul[MDB_PC_STATE][r] && col[MDB_PC_STATE][r] < 3 &&
		     !nul[MDB_PC_TS][r] && col[MDB_PC_TS][r] <= s->at_v &&
		     (nul[MDB_PC_END_SEQ][r] ||
		      (!nul[MDB_PC_END_TS][r] &&
		       col[MDB_PC_END_TS][r] > s->at_v)));
	if (s->by == BY_LEAK && s->has_age)
		KEEP(old_enough(s, nul[MDB_PC_TS][r], col[MDB_PC_TS][r]));
#undef KEEP
	return n;
}

#define BIT(c) ((uint32_t)1 << (c))

/*
 * The packed columns the scan of @s reads: those select_rows() filters
 * on, the key's (kcol) and those scan_block() sums.
 */
static uint32_t sel_cols(const struct sel *s)
{
	uint32_t m = BIT(MDB_PC_TYPE) | BIT(MDB_PC_STATE) |
		     BIT(MDB_PC_END_TS) | BIT(MDB_PC_REQ) | BIT(MDB_PC_ALLOC) |
		     BIT(MDB_PC_CPU) | BIT(MDB_PC_FREE_CPU) | BIT(MDB_PC_SEQ) |
		     BIT(MDB_PC_SITE);

	for (int j = 0; j < NKEY; j++)
		if (kcol[s->by][j] >= 0)
			m |= BIT(kcol[s->by][j]);
	if (s->tsel || s->by == BY_LEAK)
		m |= BIT(MDB_PC_TS);
	if (s->by == BY_LEAK)
		m |= BIT(MDB_PC_END_SEQ);
	if (s->has_pid)
		m |= BIT(MDB_PC_PID);
	if (!s->comms.all)
		m |= BIT(MDB_PC_COMM);
	if (!s->caches.all)
		m |= BIT(MDB_PC_CACHE);
	return m;
}

#undef BIT

/* Add @v to @g's sum of bytes @i (g of @c): an int64, or past it a
 * double (kept in an exact scan). */
static inline void add_bytes(struct groups *c, struct group *g, int i,
			     int64_t v)
{
	int k = i - C_HITS;

	if (__builtin_add_overflow(g->f[k], v, &g->f[k]))
		g->ovf |= 1u << k;
	g->neg |= (unsigned)(v < 0) << k;
	if (c->exact)
		c->d[g - c->g][k] += (double)v;
}

/* Add row @r of block @b to group @g of @c: its freed, pingpong and live
 * figures as the selection's t_hi says. */
static inline void sum_row(struct groups *c, struct group *g,
			   const struct sel *s, const struct mdb_pc_block *b,
			   size_t r)
{
	const int64_t (*col)[MDB_PC_ROWS] = b->v;
	int64_t state = col[MDB_PC_STATE][r];
	int64_t end = col[MDB_PC_END_TS][r];
	int64_t alloc = col[MDB_PC_ALLOC][r];
	int end_null = b->null[MDB_PC_END_TS][r];
	/* callsites.sql: state = 1 AND coalesce(end_ts <= :t_hi, 1) */
	int freed = state == 1 && (end_null || end <= s->t_hi);
	/* state = 0 OR (state IN (1, 2) AND end_ts > :t_hi) */
	int live = state == 0 ||
		   ((state == 1 || state == 2) && !end_null && end > s->t_hi);
	/* free_cpu <> cpu: NULL (not freed) counts nothing */
	int pp = freed && !b->null[MDB_PC_FREE_CPU][r] &&
		 col[MDB_PC_FREE_CPU][r] != col[MDB_PC_CPU][r];

	g->f[C_HITS - C_HITS]++;
	add_bytes(c, g, C_REQ, col[MDB_PC_REQ][r]);
	add_bytes(c, g, C_ALLOC, alloc);
	g->f[C_FREED - C_HITS] += freed;
	g->f[C_PP - C_HITS] += pp;
	add_bytes(c, g, C_PP_BYTES, pp ? alloc : 0);
	g->f[C_LIVE - C_HITS] += live;
	add_bytes(c, g, C_LIVE_BYTES, live ? alloc : 0);
	if (col[MDB_PC_SEQ][r] > g->f[C_LAST_SEQ - C_HITS]) {
		g->f[C_LAST_SEQ - C_HITS] = col[MDB_PC_SEQ][r];
		g->f[C_SITE - C_HITS] = col[MDB_PC_SITE][r];
	}
}

/* Widen @g's range @lo .. @hi (its bit @bit in has) to @v. */
static inline void range_add(struct group *g, unsigned bit, int64_t v,
			     int64_t *lo, int64_t *hi)
{
	if (!(g->has & bit) || v < *lo)
		*lo = v;
	if (!(g->has & bit) || v > *hi)
		*hi = v;
	g->has |= bit;
}

#define SCAN_AHEAD 8  /* rows between fetching a group and summing it */

/* The key of row @r of block @b into @k's first @nk (of columns @kc; a
 * NULL or no column: 0); its NULL columns' bits. */
static inline int row_key(const struct mdb_pc_block *b, const int *kc,
			  int nk, size_t r, int64_t *k)
{
	int nulls = 0;

	for (int j = 0; j < nk; j++) {
		int null = kc[j] < 0 || b->null[kc[j]][r];

		k[j] = null ? 0 : b->v[kc[j]][r];
		nulls |= (kc[j] >= 0 && null) << j;
	}
	return nulls;
}

/* Sum the selected slab rows of block @b, number @blk, into groups @c. */
static int scan_block(struct groups *c, const struct sel *s,
		      const struct mdb_pc_block *b, int64_t blk)
{
	const int64_t (*col)[MDB_PC_ROWS] = b->v;
	uint16_t idx[MDB_PC_ROWS];
	size_t n = select_rows(s, b, idx);
	const int *kc = kcol[s->by];

	int64_t key[NKEY] = { 0 };      /* past the grouping's own: 0 */
	uint64_t hash[MDB_PC_ROWS];

	c->nk = s->nk;
	if (!c->cap && group_room(c) < 0)
		return SQLITE_NOMEM;
	/* the rows' hashes first: then the slot and the group of a row a
	 * few ahead can be fetched while this one is summed (with many
	 * groups, as per address, each is a cache miss otherwise) */
	for (size_t i = 0; i < n; i++) {
		int nulls = row_key(b, kc, s->nk, idx[i], key);

		hash[i] = group_hash(key, nulls, s->nk);
	}
	for (size_t i = 0; i < n; i++) {
		size_t r = idx[i];
		/* wrapped, not undefined, for a damaged source's block
		 * number (only the groups' order depends on it) */
		int64_t first = (int64_t)((uint64_t)blk * MDB_PC_ROWS + r);
		struct group *g;

		if (i + 2 * SCAN_AHEAD < n)
			__builtin_prefetch(&c->slot[hash[i + 2 * SCAN_AHEAD] &
						    (c->cap - 1)]);
		if (i + SCAN_AHEAD < n) {
			uint32_t v = c->slot[hash[i + SCAN_AHEAD] &
					     (c->cap - 1)];

			if (v)
				__builtin_prefetch(&c->g[v - 1]);
		}
		g = group_get(c, hash[i], key,
			      row_key(b, kc, s->nk, r, key), first);
		if (!g)
			return SQLITE_NOMEM;
		sum_row(c, g, s, b, r);
		if (s->by == BY_LEAK) {
			if (!b->null[MDB_PC_SEQ][r])
				range_add(g, 1, col[MDB_PC_SEQ][r],
					  &g->min_seq, &g->max_seq);
			if (!b->null[MDB_PC_TS][r])
				range_add(g, 2, col[MDB_PC_TS][r],
					  &g->min_ts, &g->max_ts);
		}
	}
	return SQLITE_OK;
}

static int set_err(struct scan_cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int set_err(struct scan_cursor *c, const char *fmt, ...)
{
	sqlite3_vtab *vt = c->base.pVtab;
	va_list ap;

	va_start(ap, fmt);
	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	return SQLITE_ERROR;
}

/*
 * Unpack blob @p of @n bytes (alloc_blk row @row, the source's block
 * @blk) and sum its rows into @pt's groups.  A damaged blob is noted in
 * @pt, the first by number; after one, later blocks are not read.
 */
static void part_block(struct part *pt, const struct sel *s,
		       const uint8_t *p, size_t n, int64_t row, int64_t blk)
{
	const char *why;
	size_t off;

	if (pt->nomem || pt->bad)
		return;
	if (mdb_pc_unpack_cols(p, n, pt->blk, s->cols, &why, &off) < 0) {
		pt->bad = 1;
		pt->bad_row = row;
		pt->bad_blk = blk;
		pt->bad_off = off;
		pt->bad_why = why;
		return;
	}
	if (scan_block(&pt->gr, s, pt->blk, blk) != SQLITE_OK)
		pt->nomem = 1;
}

/*
 * Both cores: the calling thread reads the blocks from SQLite and sums
 * every other batch of SCAN_BATCH itself; a helper thread sums the
 * batches between, their blobs copied, into a part of its own.  The
 * parts are then folded into one (groups_merge()).
 */
#define SCAN_BATCH 4
#define SCAN_JOBS 4

struct job {
	size_t n;                       /* blocks */
	int64_t row[SCAN_BATCH], blk[SCAN_BATCH];
	size_t off[SCAN_BATCH + 1];     /* blob k: buf[off[k], off[k + 1]) */
	uint8_t *buf;
	size_t cap;
};

struct helper {
	const struct sel *s;
	struct part *pt;
	pthread_t thread;
	struct mdb_queue q;             /* jobs to the helper */
	struct job jobs[SCAN_JOBS];
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct job *j;

	while ((j = mdb_queue_take(&h->q))) {
		for (size_t k = 0; k < j->n; k++)
			part_block(h->pt, h->s, j->buf + j->off[k],
				   j->off[k + 1] - j->off[k], j->row[k],
				   j->blk[k]);
		j->n = 0;
		mdb_queue_give(&h->q, j);
	}
	return NULL;
}

/* Copy blob @p (@n bytes; NULL when empty, as SQLite gives an empty
 * one) into @j; -1 on ENOMEM.  The buffer is made even for an empty
 * blob: the helper points into it. */
static int job_add(struct job *j, const uint8_t *p, size_t n, int64_t row,
		   int64_t blk)
{
	size_t at = j->n ? j->off[j->n] : 0;

	if (!j->buf || j->cap - at < n) {
		size_t cap = (at + n + 1) * 2;
		uint8_t *b = realloc(j->buf, cap);

		if (!b)
			return -1;
		j->buf = b;
		j->cap = cap;
	}
	if (n)
		memcpy(j->buf + at, p, n);
	j->off[j->n] = at;
	j->row[j->n] = row;
	j->blk[j->n++] = blk;
	j->off[j->n] = at + n;
	return 0;
}

/* Start the helper for @pt; NULL when it cannot be (then the calling
 * thread reads every block).  The first job is the caller's to fill. */
static struct helper *helper_start(const struct sel *s, struct part *pt)
{
	struct helper *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->s = s;
	h->pt = pt;
	mdb_queue_init(&h->q);
	for (int i = 1; i < SCAN_JOBS; i++)
		mdb_queue_give(&h->q, &h->jobs[i]);
	if (pthread_create(&h->thread, NULL, helper_main, h)) {
		mdb_queue_destroy(&h->q);
		free(h);
		return NULL;
	}
	return h;
}

/* Queue @j (if it has blocks), let the helper finish and free it. */
static void helper_stop(struct helper *h, struct job *j)
{
	mdb_queue_end(&h->q, j && j->n ? j : NULL, 0);
	pthread_join(h->thread, NULL);
	mdb_queue_destroy(&h->q);
	for (int i = 0; i < SCAN_JOBS; i++)
		free(h->jobs[i].buf);
	free(h);
}

static int first_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

/*
 * Fold groups @b into @a, then order @a's by their first row, as one
 * thread makes them (unless @ordered: an ORDER BY is done).  1 when a
 * sum passes int64 (SQL's total() of the rows in their order is what is
 * shown then: the caller reads them again on one thread), -1 on ENOMEM,
 * else 0.
 */
static int groups_merge(struct groups *a, const struct groups *b,
			int ordered)
{
	if (!a->nk)
		a->nk = b->nk;
	for (size_t j = 0; j < b->n; j++) {
		const struct group *y = &b->g[j];
		struct group *x;

		/* as in scan_block(): the slot, then the group, of a group a
		 * few ahead fetched while this one is added */
		if (j + 2 * SCAN_AHEAD < b->n && a->cap) {
			const struct group *z = &b->g[j + 2 * SCAN_AHEAD];

			mdb_prefetch(&a->slot[group_hash(z->k, z->nulls, a->nk) &
					      (a->cap - 1)]);
		}
		if (j + SCAN_AHEAD < b->n && a->cap) {
			const struct group *z = &b->g[j + SCAN_AHEAD];
			uint32_t v = a->slot[group_hash(z->k, z->nulls, a->nk) &
					     (a->cap - 1)];

			if (v)
				mdb_prefetch(&a->g[v - 1]);
		}
		x = group_get(a, group_hash(y->k, y->nulls, a->nk), y->k,
			      y->nulls, y->first);

		if (!x)
			return -1;
		if (x->ovf || y->ovf)
			return 1;
		if (y->first < x->first)
			x->first = y->first;
		x->neg |= y->neg;
		for (int k = 0; k < C_LAST_SEQ - C_HITS; k++) {
			if (__builtin_add_overflow(x->f[k], y->f[k], &x->f[k]))
				return 1;
		}
		if (y->f[C_LAST_SEQ - C_HITS] > x->f[C_LAST_SEQ - C_HITS]) {
			x->f[C_LAST_SEQ - C_HITS] = y->f[C_LAST_SEQ - C_HITS];
			x->f[C_SITE - C_HITS] = y->f[C_SITE - C_HITS];
		}
		if (y->has & 1) {
			range_add(x, 1, y->min_seq, &x->min_seq, &x->max_seq);
			range_add(x, 1, y->max_seq, &x->min_seq, &x->max_seq);
		}
		if (y->has & 2) {
			range_add(x, 2, y->min_ts, &x->min_ts, &x->max_ts);
			range_add(x, 2, y->max_ts, &x->min_ts, &x->max_ts);
		}
	}
	/* an ORDER BY done here orders them anyway */
	if (b->n && !ordered)
		qsort(a->g, a->n, sizeof(*a->g), first_cmp);
	/* the slots index the order before: no group is looked up after */
	mdb_huge_free(a->slot, a->cap, sizeof(*a->slot));
	a->slot = NULL;
	a->cap = 0;
	return 0;
}

/* Read the source's blocks (those the window reaches) into the groups,
 * on both cores when @two (else the calling thread reads them all). */
static int scan_source(struct scan_cursor *c, const struct sel *s,
		       int64_t source_id, int two)
{
	struct scan_vtab *vt = (struct scan_vtab *)c->base.pVtab;
	struct part *pt = &c->part[0], *bad = NULL;
	struct helper *h;
	struct job *j;
	sqlite3_stmt *st = NULL;
	size_t seen = 0;
	int64_t types;
	int rc;

	/* one thread keeps the doubles SQL's total() makes, for a sum
	 * past int64; two fold integers and read again if one overflows */
	pt->gr.exact = !two;
	h = two ? helper_start(s, &c->part[1]) : NULL;
	j = h ? &h->jobs[0] : NULL;

	/* the source's blocks, with their time range and kinds (the zone
	 * map, db/schema-12.sql: blocks whose times miss the window, or
	 * without a row of the types scanned, are not read); block k holds
	 * alloc ids alloc_lo + 1024 k on, its id the last (db/allocvt.c) */
	rc = sqlite3_prepare_v2(vt->db,
		"SELECT b.id, (b.id - s.alloc_lo) / 1024 AS blk, b.min_ts, "
		"b.max_ts, b.data, b.kinds FROM source s "
		"CROSS JOIN alloc_blk b ON b.id BETWEEN s.alloc_lo AND s.alloc_hi "
		"WHERE s.id = ?1", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		if (h)
			helper_stop(h, j);
		return set_err(c, "slab_scan: %s", sqlite3_errmsg(vt->db));
	}
	sqlite3_bind_int64(st, 1, source_id);
	/* the blocks' kinds the types scanned set: bit 8 + type (slab
	 * types 0 and 1, pages 2) */
	types = s->by == BY_PAGE ? INT64_C(1) << 10 : INT64_C(3) << 8;
	while (!pt->bad && !pt->nomem &&
	       (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const uint8_t *p;
		size_t n;
		int64_t row, blk;

		if (s->tsel && sqlite3_column_type(st, 2) != SQLITE_NULL &&
		    (sqlite3_column_int64(st, 3) < s->t_lo ||
		     sqlite3_column_int64(st, 2) > s->t_hi))
			continue;
		if (sqlite3_column_type(st, 5) != SQLITE_NULL &&
		    !(sqlite3_column_int64(st, 5) & types))
			continue;
		/* 'leak' at a time: nothing the block holds was made by then */
		if (s->by == BY_LEAK && s->at == AT_TS &&
		    sqlite3_column_type(st, 2) != SQLITE_NULL &&
		    sqlite3_column_int64(st, 2) > s->at_v)
			continue;
		row = sqlite3_column_int64(st, 0);
		blk = sqlite3_column_int64(st, 1);
		p = sqlite3_column_blob(st, 4);
		n = (size_t)sqlite3_column_bytes(st, 4);
		if (!h || (seen++ / SCAN_BATCH) % 2 == 0) {
			part_block(pt, s, p, n, row, blk);
		} else if (job_add(j, p, n, row, blk) < 0) {
			pt->nomem = 1;
		} else if (j->n == SCAN_BATCH) {
			j = mdb_queue_swap(&h->q, j);
		}
	}
	if (pt->bad || pt->nomem)
		rc = SQLITE_DONE;
	sqlite3_finalize(st);
	if (h)
		helper_stop(h, j);
	if (rc != SQLITE_DONE)
		return set_err(c, "slab_scan: %s", sqlite3_errmsg(vt->db));
	if (pt->nomem || c->part[1].nomem)
		return SQLITE_NOMEM;
	/* the first damaged block, as one thread would have met it */
	for (int k = 0; k < 2; k++)
		if (c->part[k].bad &&
		    (!bad || c->part[k].bad_blk < bad->bad_blk))
			bad = &c->part[k];
	if (bad)
		return set_err(c, "alloc_blk row %lld (source %lld, block %lld) "
			       "offset=%lld: %s", (long long)bad->bad_row,
			       (long long)source_id, (long long)bad->bad_blk,
			       (long long)bad->bad_off, bad->bad_why);
	rc = groups_merge(&pt->gr, &c->part[1].gr, c->nord > 0);
	groups_free(&c->part[1].gr);
	if (rc < 0)
		return SQLITE_NOMEM;
	for (size_t k = 0; !pt->gr.exact && !rc && k < pt->gr.n; k++)
		rc = pt->gr.g[k].ovf != 0;
	if (rc > 0) {
		/* a sum past int64: the rows in order, on one thread */
		cursor_reset(c);
		return scan_source(c, s, source_id, 0);
	}
	return SQLITE_OK;
}

/* A column's value as SQL sees it: NULL, an integer or a real. */
struct sval {
	int type;               /* SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT */
	int64_t i;
	double d;
};

/* A sum of group @k (figure @i, C_HITS .. C_SITE), as a value. */
static struct sval sum_val(const struct scan_cursor *c, size_t k, int i)
{
	const struct groups *gr = &c->part[0].gr;
	const struct group *g = &gr->g[k];

	if (g->ovf & (1u << (i - C_HITS)))
		return (struct sval){ SQLITE_FLOAT, 0, gr->d[k][i - C_HITS] };
	return (struct sval){ SQLITE_INTEGER, g->f[i - C_HITS], 0 };
}

/* CAST(@v AS INTEGER), as SQLite makes it of an integer or a real. */
static int64_t cast_int(struct sval v)
{
	if (v.type == SQLITE_INTEGER)
		return v.i;
	if (v.d <= (double)INT64_MIN)
		return INT64_MIN;
	if (v.d >= (double)INT64_MAX)
		return INT64_MAX;
	return (int64_t)v.d;
}

/* @x in the order of unsigned numbers, as an int64 ("x < 0, x"). */
static int64_t unsigned_order(int64_t x)
{
	return (int64_t)((uint64_t)x ^ ((uint64_t)1 << 63));
}

/* The sites' addresses of the cursor's source, read once, by id; -1
 * when they cannot be (the cursor's error is set). */
static int load_sites(struct scan_cursor *c)
{
	struct site_addrs *sa = &c->sites;
	sqlite3 *db = ((struct scan_vtab *)c->base.pVtab)->db;
	sqlite3_stmt *st = NULL;
	int rc;

	if (sa->loaded)
		return 0;
	if (c->sites_err)
		return -1;
	rc = sqlite3_prepare_v2(db, "SELECT id, addr FROM site WHERE "
				"source_id = ?1 ORDER BY id", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, c->source_id);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (MDB_GROW(sa->v, sa->n, sa->cap, 64)) {
				rc = SQLITE_NOMEM;
				break;
			}
			sa->v[sa->n++] = (struct site_addr){
				sqlite3_column_int64(st, 0),
				sqlite3_column_int64(st, 1),
				sqlite3_column_type(st, 1) == SQLITE_NULL };
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		c->sites_err = 1;
		set_err(c, "slab_scan: %s", rc == SQLITE_NOMEM ?
			"out of memory" : sqlite3_errmsg(db));
		return -1;
	}
	sa->loaded = 1;
	return 0;
}

static int sval_cmp(struct sval a, struct sval b);

/* Column @i of group @k, as SQL sees it. */
static struct sval col_val(struct scan_cursor *c, size_t k, int i)
{
	const struct group *g = &c->part[0].gr.g[k];
	struct sval null = { SQLITE_NULL, 0, 0 };
	int64_t req, alloc, w;

	switch (i) {
	case C_RK:
	case C_K2:
	case C_K3:
	case C_K4:
	case C_K5:
	case C_K6:
		/* k2 .. k6 NULL unless the grouping has them */
		if ((g->nulls & (1 << i)) || i >= c->keys)
			return null;
		return (struct sval){ SQLITE_INTEGER, g->k[i], 0 };
	case C_WASTE: {
		/* CAST(bytes_alloc - bytes_req AS INTEGER): an integer
		 * difference past int64, as a real one, is a real */
		struct sval x = sum_val(c, k, C_ALLOC), y = sum_val(c, k, C_REQ);

		if (x.type == SQLITE_INTEGER && y.type == SQLITE_INTEGER &&
		    !__builtin_sub_overflow(x.i, y.i, &w))
			return (struct sval){ SQLITE_INTEGER, w, 0 };
		return (struct sval){ SQLITE_INTEGER, cast_int((struct sval){
			SQLITE_FLOAT, 0,
			(x.type == SQLITE_INTEGER ? (double)x.i : x.d) -
			(y.type == SQLITE_INTEGER ? (double)y.i : y.d) }), 0 };
	}
	case C_FRAG:
		/* CASE WHEN bytes_alloc = 0 THEN 0.0 ELSE 100.0 - 100.0 *
		 * CAST(bytes_req AS INTEGER) / CAST(bytes_alloc AS INTEGER) */
		if (sval_cmp(sum_val(c, k, C_ALLOC),
			     (struct sval){ SQLITE_INTEGER, 0, 0 }) == 0)
			return (struct sval){ SQLITE_FLOAT, 0, 0.0 };
		req = cast_int(sum_val(c, k, C_REQ));
		alloc = cast_int(sum_val(c, k, C_ALLOC));
		return (struct sval){ SQLITE_FLOAT, 0, 100.0 - 100.0 *
				      (double)req / (double)alloc };
	case C_RK_U:
		if (g->nulls & 1)
			return null;
		return (struct sval){ SQLITE_INTEGER, unsigned_order(g->k[0]),
				      0 };
	case C_SITE_U: {
		const struct site_addrs *sa = &c->sites;
		int64_t id = g->f[C_SITE - C_HITS];
		size_t lo = 0, hi;

		if (load_sites(c) < 0)
			return null;
		hi = sa->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sa->v[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == sa->n || sa->v[lo].id != id || sa->v[lo].null)
			return null;
		return (struct sval){ SQLITE_INTEGER,
				      unsigned_order(sa->v[lo].addr), 0 };
	}
	case C_MIN_SEQ:
	case C_MAX_SEQ:
	case C_MIN_TS:
	case C_MAX_TS: {
		const int64_t v[] = { g->min_seq, g->max_seq, g->min_ts,
				      g->max_ts };

		if (!c->leak || !(g->has & (i < C_MIN_TS ? 1 : 2)))
			return null;
		return (struct sval){ SQLITE_INTEGER, v[i - C_MIN_SEQ], 0 };
	}
	default:
		if (i >= C_HITS && i <= C_SITE)
			return sum_val(c, k, i);
		return null;
	}
}

/* SQLite's order of two values: NULL first, numbers by value. */
static int sval_cmp(struct sval a, struct sval b)
{
	long double x, y;

	if (a.type == SQLITE_NULL || b.type == SQLITE_NULL)
		return (b.type == SQLITE_NULL) - (a.type == SQLITE_NULL);
	if (a.type == SQLITE_INTEGER && b.type == SQLITE_INTEGER)
		return (a.i > b.i) - (a.i < b.i);
	/* a long double holds every int64 and double exactly */
	x = a.type == SQLITE_INTEGER ? (long double)a.i : a.d;
	y = b.type == SQLITE_INTEGER ? (long double)b.i : b.d;
	return (x > y) - (x < y);
}

/* Group @a before group @b in the ORDER BY: < 0. */
static int ord_cmp(struct scan_cursor *c, uint32_t a, uint32_t b)
{
	int r = sval_cmp(c->key[a], c->key[b]);

	if (r)
		return c->ord[0].desc ? -r : r;
	for (int t = 1; t < c->nord; t++) {
		int col = c->ord[t].col;
		const struct group *x = &c->part[0].gr.g[a];
		const struct group *y = &c->part[0].gr.g[b];

		/* a sum within int64 (the usual case): compared as is; the
		 * key in unsigned order, as such */
		if (col >= C_HITS && col <= C_SITE &&
		    !((x->ovf | y->ovf) & (1u << (col - C_HITS)))) {
			int64_t p = x->f[col - C_HITS], q = y->f[col - C_HITS];

			r = (p > q) - (p < q);
		} else if (col == C_RK_U && !((x->nulls | y->nulls) & 1)) {
			uint64_t p = (uint64_t)x->k[0], q = (uint64_t)y->k[0];

			r = (p > q) - (p < q);
		} else {
			r = sval_cmp(col_val(c, a, col), col_val(c, b, col));
		}
		if (r)
			return c->ord[t].desc ? -r : r;
	}
	/* equals in the order of their first row: the order the rows
	 * come in unordered, which SQLite's sort keeps among equals (the
	 * groups of two threads are not put back in that order) */
	{
		int64_t p = c->part[0].gr.g[a].first;
		int64_t q = c->part[0].gr.g[b].first;

		if (p != q)
			return (p > q) - (p < q);
	}
	return (a > b) - (a < b);
}

/* Does group *@a come before group *@b in the ORDER BY (ord_first), or
 * after it (ord_last)?  The heaps' orders (common/heap.h). */
static inline int ord_first(struct scan_cursor *c, const uint32_t *a,
			    const uint32_t *b)
{
	return ord_cmp(c, *a, *b) < 0;
}

static inline int ord_last(struct scan_cursor *c, const uint32_t *a,
			   const uint32_t *b)
{
	return ord_cmp(c, *a, *b) > 0;
}

/* heap[0] the next row; top[0], while the first rows are picked, the
 * last of them */
MDB_HEAP_SIFT_DOWN(heap_down, uint32_t, struct scan_cursor *, ord_first)
MDB_HEAP_SIFT_DOWN(top_down, uint32_t, struct scan_cursor *, ord_last)

/* The groups not in top (every group when top is empty) into the heap
 * of the ORDER BY; an SQLite code. */
static int heap_make(struct scan_cursor *c)
{
	size_t n = c->part[0].gr.n;
	uint8_t *in_top = calloc(n ? n : 1, 1);

	c->heap = malloc((n - c->ntop ? n - c->ntop : 1) * sizeof(*c->heap));
	if (!c->heap || !in_top) {
		free(c->heap);
		c->heap = NULL;
		free(in_top);
		return SQLITE_NOMEM;
	}
	for (size_t j = 0; j < c->ntop; j++)
		in_top[c->top[j]] = 1;
	c->nheap = 0;
	for (size_t k = 0; k < n; k++)
		if (!in_top[k])
			c->heap[c->nheap++] = (uint32_t)k;
	free(in_top);
	for (size_t k = c->nheap / 2; k-- > 0;)
		heap_down(c, c->heap, c->nheap, k);
	return c->sites_err ? SQLITE_ERROR : SQLITE_OK;
}

/*
 * The ORDER BY of the groups: the first term's value of each, then, with
 * many groups, the first TOP_ROWS rows picked in one pass (a heap of the
 * best so far, its worst at top[0], which each group is held against:
 * mostly by its first term alone), in order.  The others are put in a
 * heap only when SQLite asks for more rows than that: a LIMIT, as the
 * reports' --top, then costs one comparison a group, not a heap of them
 * all.  An SQLite code.
 */
static int order_make(struct scan_cursor *c)
{
	size_t n = c->part[0].gr.n, t = TOP_ROWS;

	c->key = malloc((n ? n : 1) * sizeof(*c->key));
	if (!c->key)
		return SQLITE_NOMEM;
	for (size_t k = 0; k < n; k++)
		c->key[k] = col_val(c, k, c->ord[0].col);
	if (n <= 2 * TOP_ROWS)
		return heap_make(c);
	c->top = malloc(TOP_ROWS * sizeof(*c->top));
	if (!c->top)
		return SQLITE_NOMEM;
	for (size_t k = 0; k < t; k++)
		c->top[k] = (uint32_t)k;
	for (size_t j = t / 2; j-- > 0;)
		top_down(c, c->top, t, j);
	for (size_t k = t; k < n; k++)
		if (ord_cmp(c, (uint32_t)k, c->top[0]) < 0) {
			c->top[0] = (uint32_t)k;
			top_down(c, c->top, t, 0);
		}
	/* heapsort: the last in the ORDER BY to the end, one at a time */
	for (size_t m = t; m > 1; m--) {
		uint32_t x = c->top[0];

		c->top[0] = c->top[m - 1];
		c->top[m - 1] = x;
		top_down(c, c->top, m - 1, 0);
	}
	c->ntop = t;
	return c->sites_err ? SQLITE_ERROR : SQLITE_OK;
}

static int scan_next(sqlite3_vtab_cursor *cur)
{
	struct scan_cursor *c = (struct scan_cursor *)cur;

	c->at++;
	c->rowid++;
	if (!c->nord) {
		c->cur = c->at;
	} else if (c->itop < c->ntop) {
		c->cur = c->top[c->itop++];
	} else {
		if (!c->heap && c->at < c->part[0].gr.n &&
		    heap_make(c) != SQLITE_OK)
			return c->sites_err ? SQLITE_ERROR : SQLITE_NOMEM;
		if (c->nheap) {
			/* the next row: the heap's first */
			c->cur = c->heap[0];
			c->heap[0] = c->heap[--c->nheap];
			heap_down(c, c->heap, c->nheap, 0);
		}
	}
	return c->sites_err ? SQLITE_ERROR : SQLITE_OK;
}

/*
 * What selected a scan's rows, as text: the source, the window and the
 * options (not the grouping), and the database's data version (another
 * connection's commit changes it); NULL on ENOMEM or in a transaction.
 */
static char *sel_key(sqlite3 *db, sqlite3_value *const *a)
{
	static const int args[] = { A_SOURCE, A_TSEL, A_TLO, A_THI, A_PID,
				    A_COMM, A_CACHE, A_SITE };
	sqlite3_str *str;
	unsigned version = 0;

	/* in a transaction the version moves at its commit, not at each
	 * change the connection makes: nothing kept nor taken */
	if (!sqlite3_get_autocommit(db))
		return NULL;
	str = sqlite3_str_new(db);
	sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &version);
	sqlite3_str_appendf(str, "%u;", version);
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		sqlite3_value *v = a[args[i] - C_NOUT];
		int type = v ? sqlite3_value_type(v) : SQLITE_NULL;

		if (type == SQLITE_INTEGER)
			sqlite3_str_appendf(str, "i%lld;",
					    (long long)sqlite3_value_int64(v));
		else if (type != SQLITE_NULL)
			sqlite3_str_appendf(str, "%d:%d:%s;", type,
					    sqlite3_value_bytes(v),
					    (const char *)sqlite3_value_text(v));
		else
			sqlite3_str_appendall(str, "n;");
	}
	return sqlite3_str_finish(str);
}

/* Keep the sum of @gr's groups for a scan of them all selected by @key
 * (taken), when exact: no sum past int64; else keep nothing. */
static void all_keep(struct scan_vtab *vt, const struct groups *gr,
		     char *key)
{
	struct group *a = &vt->all;
	int ok = key != NULL;

	sqlite3_free(vt->all_key);
	vt->all_key = NULL;
	memset(a, 0, sizeof(*a));
	a->f[C_LAST_SEQ - C_HITS] = INT64_MIN;
	vt->all_rows = gr->n > 0;
	for (size_t k = 0; ok && k < gr->n; k++) {
		const struct group *g = &gr->g[k];

		/* a negative size: the scan of one group adds the rows in
		 * another order, whose sums may pass int64 (a double) */
		ok = !g->ovf && !g->neg;
		for (int i = 0; ok && i < C_LAST_SEQ - C_HITS; i++)
			ok = !__builtin_add_overflow(a->f[i], g->f[i], &a->f[i]);
		if (g->f[C_LAST_SEQ - C_HITS] > a->f[C_LAST_SEQ - C_HITS]) {
			a->f[C_LAST_SEQ - C_HITS] = g->f[C_LAST_SEQ - C_HITS];
			a->f[C_SITE - C_HITS] = g->f[C_SITE - C_HITS];
		}
		if (!k || g->first < a->first)
			a->first = g->first;
	}
	if (ok)
		vt->all_key = key;
	else
		sqlite3_free(key);
}

/* The group of a scan of them all selected by @key, when kept: into
 * @c's part; 1 when so, 0 when not kept, -1 on ENOMEM. */
static int all_take(struct scan_vtab *vt, struct scan_cursor *c,
		    const char *key)
{
	struct groups *gr = &c->part[0].gr;

	if (!key || !vt->all_key || strcmp(key, vt->all_key))
		return 0;
	if (vt->all_rows) {
		if (group_room(gr) < 0)
			return -1;
		gr->g[gr->n++] = vt->all;
	}
	return 1;
}

static int scan_filter(sqlite3_vtab_cursor *cur, int idx_num,
		       const char *idx_str, int argc, sqlite3_value **argv)
{
	struct scan_cursor *c = (struct scan_cursor *)cur;
	struct scan_vtab *vt = (struct scan_vtab *)cur->pVtab;
	sqlite3 *db = vt->db;
	sqlite3_value *a[NARGS] = { NULL };
	char *key = NULL;
	static const char *const bys[BY__COUNT] = {
		"ptr", "site", "type", "cache", "comm", "pid", "pp", "stack",
		"leak", "all", "page",
	};
	static const char sql_str[] = "SELECT id FROM str WHERE "
				      "source_id = ?1 AND text = ?2";
	/* MDB_SITE_MATCH names its parameter :site: the second here */
	static const char sql_site[] = "SELECT site_id FROM v_sites WHERE "
				       "source_id = ?1 AND (" MDB_SITE_MATCH
				       ")";
	struct sel s;
	const char *by;
	int64_t source_id;
	int k = 0, kept, rc;

	cursor_clear(c);
	memset(&s, 0, sizeof(s));
	if (idx_str && *idx_str) {
		c->nord = (int)strlen(idx_str);
		c->ord = malloc(c->nord * sizeof(*c->ord));
		if (!c->ord) {
			c->nord = 0;
			return SQLITE_NOMEM;
		}
		for (int t = 0; t < c->nord; t++) {
			int up = idx_str[t] >= 'A' && idx_str[t] < 'a';

			c->ord[t].desc = up;
			c->ord[t].col = idx_str[t] - (up ? 'A' : 'a');
		}
	}
	for (int i = 0; i < NARGS && k < argc; i++)
		if (idx_num & (1 << i))
			a[i] = argv[k++];
#define ARG(i) a[(i) - C_NOUT]
#define GIVEN(i) (ARG(i) && sqlite3_value_type(ARG(i)) != SQLITE_NULL)
#define INT_ARG(i, dflt) (GIVEN(i) ? sqlite3_value_int64(ARG(i)) : (dflt))
	by = GIVEN(A_BY) ? (const char *)sqlite3_value_text(ARG(A_BY)) : NULL;
	s.by = BY__COUNT;
	for (int i = 0; by && i < BY__COUNT; i++)
		if (!strcmp(by, bys[i]))
			s.by = (enum by)i;
	if (s.by == BY__COUNT)
		return set_err(c, "slab_scan: unknown grouping '%s'",
			       by ? by : "");
	source_id = INT_ARG(A_SOURCE, 0);
	s.tsel = INT_ARG(A_TSEL, 0) != 0;
	s.t_lo = INT_ARG(A_TLO, INT64_MIN);
	s.t_hi = INT_ARG(A_THI, INT64_MAX);
	s.has_pid = GIVEN(A_PID);
	s.pid = INT_ARG(A_PID, 0);
	s.at = GIVEN(A_AT_SEQ) ? AT_SEQ : GIVEN(A_AT_TS) ? AT_TS : AT_END;
	s.at_v = s.at == AT_SEQ ? INT_ARG(A_AT_SEQ, 0) : INT_ARG(A_AT_TS, 0);
	s.has_age = GIVEN(A_MIN_AGE);
	s.min_age = INT_ARG(A_MIN_AGE, 0);
	s.ref_null = !GIVEN(A_REF_TS);
	s.ref_ts = INT_ARG(A_REF_TS, 0);
	c->source_id = source_id;
	c->leak = s.by == BY_LEAK;
	rc = load_ids(db, sql_str, source_id, ARG(A_COMM), &s.comms);
	if (rc == SQLITE_OK)
		rc = load_ids(db, sql_str, source_id, ARG(A_CACHE), &s.caches);
	if (rc == SQLITE_OK)
		rc = load_ids(db, sql_site, source_id, ARG(A_SITE), &s.sites);
	if (rc != SQLITE_OK) {
		if (rc != SQLITE_NOMEM)
			rc = set_err(c, "slab_scan: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (GIVEN(A_CACHE))
		s.synth = parse_synth((const char *)sqlite3_value_text(
					      ARG(A_CACHE)));
#undef INT_ARG
#undef GIVEN
#undef ARG
	for (int t = 0; t < 2; t++)
		if (!c->part[t].blk) {
			c->part[t].blk = malloc(sizeof(*c->part[t].blk));
			if (!c->part[t].blk) {
				rc = SQLITE_NOMEM;
				goto out;
			}
			mdb_pc_block_init(c->part[t].blk);
		}
	s.nk = c->keys = key_len(s.by);
	s.cols = sel_cols(&s);
	key = s.by == BY_PTR || s.by == BY_ALL ? sel_key(db, a) : NULL;
	kept = s.by == BY_ALL ? all_take(vt, c, key) : 0;
	if (kept < 0) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	rc = kept ? SQLITE_OK : scan_source(c, &s, source_id, 1);
	if (rc == SQLITE_OK && s.by == BY_PTR) {
		all_keep(vt, &c->part[0].gr, key);
		key = NULL;
	}
	if (rc == SQLITE_OK && c->nord)
		rc = order_make(c);
out:
	sqlite3_free(key);
	free(s.comms.v);
	free(s.caches.v);
	free(s.sites.v);
	if (rc != SQLITE_OK)
		return rc;
	c->at = (size_t)-1;
	c->rowid = 0;
	return scan_next(cur);
}

static int scan_eof(sqlite3_vtab_cursor *cur)
{
	struct scan_cursor *c = (struct scan_cursor *)cur;

	return c->at >= c->part[0].gr.n;
}

static int scan_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
		       int i)
{
	struct scan_cursor *c = (struct scan_cursor *)cur;
	struct sval v = col_val(c, c->cur, i);

	if (c->sites_err)
		return SQLITE_ERROR;
	if (v.type == SQLITE_INTEGER)
		sqlite3_result_int64(ctx, v.i);
	else if (v.type == SQLITE_FLOAT)
		sqlite3_result_double(ctx, v.d);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int scan_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *rowid)
{
	*rowid = ((struct scan_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module scan_module = {
	.iVersion = 0,
	.xConnect = scan_connect,
	.xBestIndex = scan_best_index,
	.xDisconnect = scan_disconnect,
	.xOpen = scan_open,
	.xClose = scan_close,
	.xFilter = scan_filter,
	.xNext = scan_next,
	.xEof = scan_eof,
	.xColumn = scan_column,
	.xRowid = scan_rowid,
};

int mdb_scan_register(sqlite3 *db)
{
	return sqlite3_create_module(db, "slab_scan", &scan_module, NULL);
}
