/* SPDX-License-Identifier: MIT */
/*
 * Alloc/free pairing (docs/design.md §4.3): one pass over a source's
 * events in global order turns them into allocation lifetimes and
 * anomalous frees.  Pure C, no SQLite: the results go to callbacks, so the
 * rules are tested with in-memory events.
 *
 * Memory: live allocations, plus one map slot and a 16-byte record per
 * distinct address whose traced allocation was freed (to tell duplicate
 * frees from unknown ones, and what perf kmem counts for them; another
 * slot when every allocation path is traced).
 *
 * A second FREE of a freed allocation is proof of a double free only when
 * the kernel traces every allocation path; see mdb_pair_all_traced().
 */
#ifndef MDB_PAIR_H
#define MDB_PAIR_H

#include <stdint.h>

#include "../common/u64map.h"

#define MDB_MIN_ADDR 4096 /* pointers below this are not addresses */

enum mdb_alloc_state {
	MDB_ST_LIVE = 0,       /* not freed by the end of the trace */
	MDB_ST_FREED = 1,      /* ended by a FREE */
	MDB_ST_NOT_TRACED = 2, /* its address was allocated again while live */
	MDB_ST_FAILED = 3,     /* returned NULL */
	MDB_ST_ZERO = 4,       /* returned ZERO_SIZE_PTR (ptr < 4096, not 0) */
};

enum mdb_free_class {
	MDB_FREE_NULL = 1,
	MDB_FREE_UNKNOWN = 2,
	MDB_FREE_DUPLICATE = 3,         /* freed twice, every path traced */
	MDB_FREE_DUPLICATE_SUSPECT = 4, /* freed twice, untraced paths exist */
};

#define MDB_NO_SEQ INT64_MIN

/* An allocation lifetime: the ALLOC, and what ended it. */
struct mdb_lifetime {
	int64_t seq;
	int64_t ts;           /* MDB_NO_TS when none */
	uint64_t ptr;
	uint64_t bytes_req;
	uint64_t bytes_alloc;
	uint64_t gfp;         /* MDB_NO_GFP when none */
	uint32_t site_id;
	uint32_t cache_id;    /* 0: none */
	uint32_t gfp_id;      /* 0: none */
	int32_t cpu;
	int32_t node;
	uint8_t type;
	uint8_t state;        /* enum mdb_alloc_state */
	int8_t free_type;     /* -1 unless state is FREED */
	int64_t end_seq;      /* MDB_NO_SEQ when live, failed or zero */
	int64_t end_ts;
	int32_t free_cpu;     /* -1 unless state is FREED */
	uint32_t free_site_id;
	int32_t pid;          /* MDB_NO_PID when unknown */
	uint32_t comm_id;     /* 0: none */
	uint32_t stack_id;    /* 0: none */
	int32_t migratetype;  /* MDB_NO_MIGRATETYPE when unknown */
};

/* A FREE event: input to the pairing, and the anomalous-free output. */
struct mdb_free {
	int64_t seq;
	int64_t ts;
	uint64_t ptr;
	uint32_t site_id;
	uint32_t cache_id;
	int32_t cpu;
	uint8_t type;
	uint8_t class;        /* output only: enum mdb_free_class */
	int64_t prev_seq;     /* output, duplicates and suspects: the
			       * earlier free */
	int32_t pid;          /* MDB_NO_PID when unknown */
	uint32_t comm_id;     /* 0: none */
	uint64_t bytes;       /* page frees: bytes freed; 0 unknown */
	/*
	 * Output, slab frees: perf kmem pairs this free with the pointer's
	 * latest ALLOC although it ends nothing here (perf_counted, see
	 * mdb_pair_free()); it counts that ALLOC's bytes_alloc as freed
	 * again (perf_bytes) and a ping-pong when perf_pingpong.
	 */
	uint8_t perf_counted, perf_pingpong;
	uint64_t perf_bytes;
};

struct mdb_pair_ops {
	void *ctx;
	/* a lifetime is complete (every ALLOC reaches this exactly once) */
	int (*lifetime)(void *ctx, const struct mdb_lifetime *lt);
	/* a FREE that ended nothing */
	int (*bad_free)(void *ctx, const struct mdb_free *f);
};

/* A freed address: its last free and the bytes of its last allocation. */
struct mdb_pair_freed {
	int64_t seq;
	uint64_t bytes;
};

/* A slab ALLOC of a pointer below MDB_MIN_ADDR, as perf kmem keeps it. */
struct mdb_pair_low {
	uint64_t bytes;
	int32_t cpu;             /* -1 once a FREE of the pointer came */
	uint8_t seen;
};

struct mdb_pair {
	struct mdb_pair_ops ops;
	struct u64map slab;      /* ptr -> pool index, or FREED | freed index */
	struct u64map page;      /* the same for page events (pfn << 12) */
	struct mdb_pair_freed *freed; /* the freed addresses' records */
	uint32_t *freed_idx;     /* stack of unused records */
	size_t freed_len, freed_cap, nfreed_idx;
	struct mdb_pair_low *low; /* [MDB_MIN_ADDR], made at the first one */
	struct mdb_lifetime *pool;
	uint32_t *free_idx;      /* stack of unused pool slots */
	size_t pool_len, pool_cap, nfree;
	int all_traced;          /* see mdb_pair_set_all_traced() */
	int64_t last_seq;        /* position of the last event fed */
	uint64_t skipped;        /* positions no event was fed for so far */
	/* all_traced: address -> skipped when it was last freed, so a
	 * second free proves a double free only with nothing skipped since */
	struct u64map slab_skip, page_skip;
};

void mdb_pair_init(struct mdb_pair *p, const struct mdb_pair_ops *ops);
void mdb_pair_release(struct mdb_pair *p);

/*
 * Does a source of @format, from a kernel of release @release (NULL or ""
 * when not known), trace every slab allocation path?  Only the formats
 * whose row in the format table says so, for the kernels it names
 * (mdb_format_all_paths_before()): the kmemtrace-era producers
 * ("kmemtrace-relay", "kmemtrace-ftrace") of kernels older than 4.2; 4.2
 * added kmem_cache_alloc_bulk(), which emits no per-object event, and
 * later kernels add more such paths (the skb caches, 6.18's sheaves).
 * 1 yes, 0 no.
 */
int mdb_pair_all_traced(const char *format, const char *release);

/*
 * Judge a second FREE of a freed allocation as a duplicate free (@on: the
 * source traces every allocation path) or as a suspect (the default: the
 * object may have been allocated again by an untraced path).  Even with
 * @on, it is a suspect when a position between the two frees was never
 * fed (lost events, records of unknown ids, the other CPUs of a lone
 * per-CPU file): the missing event may be its allocation.  Call before
 * feeding events.
 */
void mdb_pair_set_all_traced(struct mdb_pair *p, int on);

/* Feed an ALLOC; @lt's end fields are ignored. */
/* A hint: an event of @type on @ptr comes soon (u64map_prefetch()). */
void mdb_pair_ahead(struct mdb_pair *p, uint8_t type, uint64_t ptr);

int mdb_pair_alloc(struct mdb_pair *p, const struct mdb_lifetime *lt);

/*
 * Feed a FREE.  Besides memdb's classes, the bad frees say what perf kmem
 * stat makes of them (builtin-kmem.c keeps every slab ALLOC's pointer in
 * one tree, whatever became of it, with its latest bytes_alloc and CPU;
 * a FREE of a pointer in the tree counts that size as freed, and a
 * ping-pong when its CPU is not the ALLOC's, which each FREE resets to
 * -1): a duplicate or suspect duplicate free, and a NULL free of the
 * pointer value of a failed (0) or zero-size (ZERO_SIZE_PTR) ALLOC, are
 * perf_counted.
 */
int mdb_pair_free(struct mdb_pair *p, const struct mdb_free *f);

/* End of trace: hand out the allocations still live, in seq order. */
int mdb_pair_finish(struct mdb_pair *p);

/* Number of allocations live right now. */
size_t mdb_pair_live(const struct mdb_pair *p);

#endif
