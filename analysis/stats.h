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
 *   slice_*         the slicing index (db/schema-5.sql, schema-6.sql,
 *                   schema-7.sql): slab figures per bucket of time and
 *                   per task, the time range of each block of
 *                   MDB_SL_BLOCK rows, and for a source of at least
 *                   MDB_SL_BIG_BYTES per address and bucket, and per
 *                   task and wider bucket
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
#define MDB_SL_BLOCK 1024 /* alloc rows per slice_block row */
#define MDB_SL_BUCKETS 128 /* at most this many buckets of time */
#define MDB_SL_COMM_SHIFT 0 /* slice_bucket_comm: 2^this buckets in one */
#define MDB_SL_PID_SHIFT 3 /* slice_bucket_pid, slice_pp_pid: 2^this
			    * buckets in one, so at most 17 per source */
/*
 * The level 7 tables of the slicing index (slice_ptr, slice_bucket_pid,
 * slice_pp_pid: db/schema-7.sql) are made for a source of at least this
 * many bytes of event data (mdb_source_meta.data_bytes: what memdb maps,
 * decompressed or spooled), about a million events of ftrace text or
 * perf.data.  A smaller source's reports read its alloc rows fast
 * enough, and the tables would cost it more at commit than they save
 * (docs/design.md §3.3).
 */
#define MDB_SL_BIG_BYTES ((uint64_t)128 << 20)

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
#define MDB_SL_AHEAD 32 /* see mdb_stats.sl_q */
#define MDB_SL_THINTS (1u << 15) /* slice_bucket_pid's lookup hints */

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
	int64_t bucket;     /* slice buckets: ts >> sl_shift */
	uint64_t obj_size;  /* caches, slices */
	uint32_t site_id;   /* sites, pingpong; slice stacks: stack_id */
	uint32_t cache_id;  /* sites, caches; 0: none */
	int32_t cpu;        /* pingpong, nodes: the allocating CPU */
	int32_t free_cpu;   /* pingpong */
	int32_t node;       /* nodes: the node asked for, -1 none */
	int32_t pid;        /* slice keys: MDB_NO_PID when none */
	uint32_t comm_id;   /* slice keys */
	uint8_t type;       /* every table: enum mdb_alloc_type */
};

struct mdb_frow {
	uint64_t hash;      /* map key: hash of @k, probed on collision */
	struct mdb_fkey k;
	struct mdb_figs f;  /* pingpong and nodes use hits (and bytes_alloc) */
};

/*
 * A compact keyed table: entries of @size bytes in arrival order (or,
 * once finished, in the order they are written), found by open
 * addressing (linear probing) in @slot, a power of two long: the high
 * half of the key's hash and the entry's index + 1 (0: free), so a probe
 * reads an entry only when the hashes agree.  slice_bucket_pid's and
 * slice_pp_pid's tables, as their keys are many: 64 and 40 bytes an
 * entry, plus 8 to 11 bytes of slots, against struct mdb_frow's 168 and
 * the u64map's.
 */
struct mdb_cmap {
	void *ents;
	size_t n, cap, size;
	uint64_t *slot;
	size_t nslot;
};

/*
 * slice_ptr per (bucket, address): perf kmem --alloc's figures; 56
 * bytes.  An address's highest bucket's are in its struct mdb_sl_addr,
 * the others in sl_pe, chained from there down by bucket: a lifetime's
 * allocation is mostly in its address's latest bucket (the address was
 * free before it), so most lookups read one record, the address's.
 */
struct mdb_sl_ptr {
	int32_t bucket;             /* less sl_b0 */
	uint32_t prev;              /* the next lower bucket's entry + 1 */
	uint32_t last_site;         /* the latest allocation's call site */
	uint32_t hits, freed, pingpong, live;
	uint32_t moved;             /* its index + 1 once compacted */
	int64_t last_seq;           /* the latest allocation's position */
	uint64_t bytes_req, bytes_alloc;
};

struct mdb_sl_addr {
	uint64_t ptr;
	struct mdb_sl_ptr top;      /* hits 0: a free slot */
};

/* slice_bucket_pid: per (wide bucket, site, type, cache, pid), its
 * bucket first (cmap_coarsen() reads it there); 64 bytes */
struct mdb_sl_tpid {
	int32_t bucket;             /* less sl_b0 >> MDB_SL_PID_SHIFT */
	uint32_t site_id, cache_id;
	int32_t pid;
	uint32_t type;
	uint32_t hits, freed, pingpong, live;
	uint64_t sum_req, sum_alloc, live_bytes;
};

/* slice_pp_pid: those freed on another CPU per (wide bucket, site,
 * pid, CPU, freeing CPU): how many, their bytes; 40 */
struct mdb_sl_ppid {
	int32_t bucket;             /* as mdb_sl_tpid's */
	uint32_t site_id;
	int32_t pid, cpu, free_cpu;
	uint64_t hits, bytes;
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

/* The time range of a block of rows; INT64_MIN/MAX while empty. */
struct mdb_sl_block {
	int64_t min_ts, max_ts, max_end;
};

struct mdb_stats {
	/* pages as they come; slab rows summed from sl_keys when finished */
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
	/* the slicing index: slab rows only in the two tables */
	struct mdb_ftable sl_keys;  /* by site, type, cache, size, comm */
	struct mdb_ftable sl_pids;  /* by site, type, cache, pid */
	struct mdb_ftable sl_buckets; /* by bucket, site, type, cache, size */
	struct mdb_ftable sl_bcomm; /* by bucket >> MDB_SL_COMM_SHIFT, site,
				     * type, comm */
	struct mdb_ftable sl_pp;    /* freed on another CPU: by bucket,
				     * site, type, cache, size, comm, cpu,
				     * free_cpu */
	struct mdb_ftable sl_stacks; /* by bucket, stack (in site_id) */
	/* level 7 (db/schema-7.sql), when sl_big: compact tables, their
	 * buckets as offsets from sl_b0 (fine) or sl_b0 >> MDB_SL_PID_SHIFT */
	int sl_big;                 /* make them: set before the first event;
				     * 0 again when finished if sl_dropped */
	struct mdb_sl7 *sl7;        /* the thread that makes them, fed the
				     * timed slab lifetimes in order */
	int sl_dropped;             /* a count would overflow: none made */
	int sl_b0_set;
	int64_t sl_b0;              /* a bucket seen, at sl_shift */
	struct mdb_sl_addr *sl_addr; /* by address, open addressing */
	size_t sl_naddr, sl_addrslots; /* in use; slots, a power of two */
	uint32_t *sl_aorder;        /* once finished: sl_addr's in use, by
				     * address as SQLite's int64 */
	struct mdb_sl_ptr *sl_pe;   /* slice_ptr's other entries */
	size_t sl_npe, sl_pecap;
	struct mdb_cmap sl_tpids;   /* struct mdb_sl_tpid */
	uint32_t *sl_thint;         /* MDB_SL_THINTS: key hash -> entry + 1 */
	struct mdb_cmap sl_ppids;   /* struct mdb_sl_ppid */
	struct mdb_sl_block *sl_blk; /* by row / MDB_SL_BLOCK */
	size_t sl_nblk, sl_blkcap;
	uint64_t sl_rows;           /* lifetimes seen: rows of the source */
	uint64_t sl_timed, sl_untimed, sl_neg; /* rows with a time >= 0,
					   * without, before 0 */
	int64_t sl_min_ts, sl_max_ts, sl_max_end; /* INT64_MAX/MIN: none */
	int64_t sl_bmin, sl_bmax;   /* bucket span at sl_shift */
	unsigned sl_shift;          /* bucket width: 1 << sl_shift ns */
	/* lifetimes not yet in the slicing index: they go in MDB_SL_AHEAD
	 * at a time, their rows asked of the cache ahead (a row is a cache
	 * miss: the tables are megabytes) */
	struct mdb_lifetime sl_q[MDB_SL_AHEAD];
	size_t sl_nq;
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
 * sites and caches, summed from the slicing index's per-key rows (every
 * slab lifetime went into sl_keys, whose key holds both keys), which
 * saves two hash lookups per allocation.  Once; -MDB_E_NOMEM on ENOMEM.
 */
int mdb_stats_finish(struct mdb_stats *s);

#endif
