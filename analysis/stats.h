/* SPDX-License-Identifier: MIT */
/*
 * Figures derived at ingest from the finished lifetimes and anomalous
 * frees, so reports read hundreds of rows instead of scanning millions:
 *
 *   site_stats      per (call site, type, cache)
 *   cache_stats     per (type, cache name, object size)
 *   pingpong_stats  per (call site, type, alloc CPU, free CPU), cross-CPU frees
 *   node_stats      per (type, CPU, requested node): allocations
 *   anomaly         per (class, slab|page): count, bytes, first positions
 *   timeline        the trace cut into at most MDB_TL_SLOTS slots of equal
 *                   position width: allocations in and out of the live set
 *
 * Each is a pure function of the rows (tests compare them with SQL over
 * alloc and bad_free).  The cost is a few hash lookups per allocation and
 * a few thousand rows per source.  Pure C: db/stats.c writes the
 * tables, and `memdb check` prints the same figures without a database.
 */
#ifndef MDB_STATS_H
#define MDB_STATS_H

#include <stdint.h>

#include "../common/error.h"
#include "../common/u64map.h"
#include "pair.h"

#define MDB_TL_SLOTS 4096 /* timeline resolution */
#define MDB_EXAMPLES 5    /* first positions kept per anomaly class */
/* Anomaly classes; values are stored in anomaly.class. */
enum mdb_anomaly {
	MDB_AN_NULL_FREE = 1,       /* FREE of ptr < 4096 (legal) */
	MDB_AN_UNKNOWN_FREE,        /* FREE of an address never seen */
	MDB_AN_DUPLICATE_FREE,      /* freed again; every path traced */
	MDB_AN_CACHE_FREE_KMALLOC,  /* kmem_cache_free of a kmalloc object */
	MDB_AN_KFREE_CACHE,         /* kfree of a kmem_cache object (>= 6.4 ok) */
	MDB_AN_NOT_TRACED,          /* address allocated again while live */
	MDB_AN_FAILED,              /* ALLOC returned NULL */
	MDB_AN_ZERO_REQUEST,        /* ALLOC with bytes_req 0 */
	MDB_AN_UNDERSIZED,          /* bytes_alloc < bytes_req */
	MDB_AN_DUPLICATE_SUSPECT,   /* freed again; untraced paths exist */
	MDB_AN__COUNT
};

/* The figures kept per key of site_stats and cache_stats. */
struct mdb_figs {
	uint64_t hits, bytes_req, bytes_alloc, failed, zero_size, freed,
		freed_bytes, pingpong, not_traced, live, live_bytes,
		mismatched;
};

#define MDB_FT_HINTS 4096
#define MDB_ST_AHEAD 32 /* see mdb_stats.q */

/*
 * A keyed table of figures: key -> row index, rows in arrival order.
 * Lookups go first through a direct-mapped hint (row index + 1 by key
 * hash): the keys of a trace are few and repeat, so most lookups never
 * reach the hash map.
 */
struct mdb_ftable {
	struct u64map idx;
	struct mdb_frow *rows;
	size_t n, cap;
	uint32_t hint[MDB_FT_HINTS];
};

/*
 * The key of a row.  Each table uses some of the fields (see struct
 * mdb_stats) and leaves the others 0.
 */
struct mdb_fkey {
	uint64_t obj_size;  /* caches, slab */
	uint32_t site_id;   /* sites, pingpong, slab */
	uint32_t cache_id;  /* sites, caches, slab; 0: none */
	int32_t cpu;        /* pingpong, nodes: the allocating CPU */
	int32_t free_cpu;   /* pingpong */
	int32_t node;       /* nodes: the node asked for, -1 none */
	uint8_t type;       /* every table: enum mdb_alloc_type */
};

struct mdb_frow {
	uint64_t hash;      /* map key: hash of @k, probed on collision */
	struct mdb_fkey k;
	struct mdb_figs f;  /* pingpong and nodes use hits (and bytes_alloc) */
};

struct mdb_anom {
	uint64_t count, bytes;
	int64_t seq[MDB_EXAMPLES];   /* smallest positions, ascending */
	int32_t cpu[MDB_EXAMPLES];
	uint32_t site[MDB_EXAMPLES];
	int nex;
};

struct mdb_tl_slot {
	int64_t first_seq, last_seq, first_ts, last_ts;
	uint64_t allocs, frees, bytes_in, bytes_out;
};

struct mdb_stats {
	/* pages as they come; slab rows summed from slab when finished */
	struct mdb_ftable sites;    /* by site_id, type, cache_id */
	struct mdb_ftable caches;   /* by type, cache_id, obj_size */
	struct mdb_ftable pingpong; /* by site_id, type, cpu, free_cpu */
	struct mdb_ftable nodes;    /* by type, cpu, node */
	struct mdb_anom anom[MDB_AN__COUNT][2]; /* [class][slab, page] */
	struct mdb_tl_slot tl[MDB_TL_SLOTS];
	int64_t tl_base;            /* position of slot 0 */
	uint64_t tl_width;          /* positions per slot: 1 << tl_shift */
	unsigned tl_shift;
	size_t tl_n;                /* slots in use */
	int tl_started;
	/* the slab lifetimes per site, type, cache and object size (both
	 * sites' and caches' keys), the last few queued for it */
	struct mdb_ftable slab;
	struct mdb_lifetime q[MDB_ST_AHEAD];
	size_t nq;
	int finished;               /* mdb_stats_finish() done */
};

void mdb_stats_init(struct mdb_stats *s);
void mdb_stats_release(struct mdb_stats *s);

/* Every event's position and time, in order (timeline bounds). */
int mdb_stats_event(struct mdb_stats *s, int64_t seq, int64_t ts);

/* A finished lifetime; a FREE that ended nothing.  -MDB_E_NOMEM on ENOMEM */
int mdb_stats_lifetime(struct mdb_stats *s, const struct mdb_lifetime *lt);
int mdb_stats_bad_free(struct mdb_stats *s, const struct mdb_free *f);

/*
 * After the last lifetime, before the tables are read: the slab rows of
 * sites and caches, summed from the slab table's rows (whose key holds
 * both keys).  Once; -MDB_E_NOMEM on ENOMEM.
 */
int mdb_stats_finish(struct mdb_stats *s);

#endif
