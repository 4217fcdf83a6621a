/* SPDX-License-Identifier: MIT */
/*
 * Statistics snapshots: the records a snapshot decoder produces, the sink
 * they go to, and the decoders themselves.
 *
 * A snapshot is not a stream of alloc/free events but a table of counters
 * taken at one moment: allocator zones (FreeBSD UMA zones and malloc(9)
 * types, Linux slab caches) and allocation tags (/proc/allocinfo).  Each
 * decoder is a pure function of (buf, len): it hands rows to a struct
 * mdb_snap_sink in the input's order and never prints, opens files or
 * touches SQLite.  Errors name the input, the byte offset (binary) or the
 * line (text).
 */
#ifndef MDB_SNAPSHOT_H
#define MDB_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "../common/bytes.h"
#include "../common/error.h"
#include "event.h"
#include "text.h"

/* A figure the input does not carry (stored as NULL). */
#define MDB_NA INT64_MIN

/* Values are stored in the database (table zone_kind). */
enum mdb_zone_kind {
	MDB_ZONE_UMA = 0,    /* FreeBSD UMA zone (vmstat -z) */
	MDB_ZONE_MALLOC = 1, /* FreeBSD malloc(9) type (vmstat -m) */
	MDB_ZONE_SLAB = 2,   /* Linux slab cache (/proc/slabinfo) */
};

/*
 * The figures of a zone, one X-macro so the record, the INSERT and the
 * JSON key table never drift apart: X(ENUM, column).  Counters are 64-bit
 * patterns: libmemstat sums them as uint64_t, memdb stores the same bits.
 */
#define MDB_ZONE_COLUMNS(X)                                           \
	X(SIZE, size)                 /* item size, bytes */          \
	X(LIMIT, count_limit)         /* item limit, 0 = none */      \
	X(USED, used)                 /* items in use */              \
	X(FREE, free)                 /* items cached free */         \
	X(REQUESTS, requests)         /* allocations since boot */    \
	X(FREES, frees)               /* frees since boot */          \
	X(FAILS, fails)                                               \
	X(SLEEPS, sleeps)                                             \
	X(XDOMAIN, xdomain)           /* cross-domain frees */        \
	X(BYTES, bytes)               /* memory in use, bytes */      \
	X(KEG_FREE, keg_free)         /* UMA: free items of the keg */\
	X(ZONE_FREE, zone_free)       /* UMA: free items of the zone */\
	X(ZONE_FLAGS, zone_flags)     /* UMA: bit 0 = secondary zone */\
	X(SIZEMASK, sizemask)         /* malloc: size classes used */ \
	X(ACTIVE_OBJS, active_objs)   /* slabinfo columns */          \
	X(NUM_OBJS, num_objs)                                         \
	X(OBJSIZE, objsize)                                           \
	X(OBJPERSLAB, objperslab)                                     \
	X(PAGESPERSLAB, pagesperslab)                                 \
	X(ACTIVE_SLABS, active_slabs)                                 \
	X(NUM_SLABS, num_slabs)                                       \
	X(OBJECT_SIZE, object_size)   /* core dumps: object bytes */  \
	X(ALLOCATED, allocated)       /* objects in use, exact */     \
	X(TOTAL, total)               /* objects of the cache */      \
	X(SLABS, slabs)                                               \
	X(INCOMPLETE, incomplete)     /* 1: a list was cut short */ \
	X(REFCOUNT, refcount)         /* users of a merged cache */

enum mdb_zone_col {
#define MDB_X(id, col) MDB_ZC_##id,
	MDB_ZONE_COLUMNS(MDB_X)
#undef MDB_X
	MDB_ZC__COUNT
};

/* Column names in enum order ("size", "count_limit", ...). */
extern const char *const mdb_zone_col_names[MDB_ZC__COUNT];

struct mdb_zone {
	uint8_t kind;         /* enum mdb_zone_kind */
	uint8_t approx;       /* a figure was humanized or rounded */
	struct mdb_str name;  /* as printed; not unique within a snapshot */
	struct mdb_str sizes; /* malloc size classes as text ("16,32") */
	int64_t line;         /* line in a text input, -1 otherwise */
	int64_t v[MDB_ZC__COUNT]; /* MDB_NA where the input lacks it */
};

/* Per-CPU figures of the zone handed to the sink just before. */
struct mdb_zone_cpu {
	int32_t cpu;
	int64_t allocs, frees;           /* UMA and malloc */
	int64_t cache_free;              /* UMA: items in the CPU's cache */
	int64_t mem_alloced, mem_freed;  /* malloc: bytes */
	int64_t sizemask;                /* malloc */
};

/* One /proc/allocinfo line: an allocation tag. */
struct mdb_tag {
	int64_t bytes;         /* signed, as the kernel prints it */
	int64_t calls;         /* < 0: the counter went below zero */
	int64_t line;          /* line in the input */
	int64_t src_line;      /* line number in the source file */
	struct mdb_str file;
	struct mdb_str function;
	struct mdb_str module; /* len 0: built into the kernel */
	struct mdb_str extra;  /* key:value pairs after func:, as printed */
	uint8_t accurate;      /* 0 when the line says accurate:no */
	uint8_t approx;        /* a figure was humanized (numfmt) */
};

/* A buddy allocator free list (core dumps). */
struct mdb_buddy {
	int32_t node;
	int32_t order;
	struct mdb_str zone;        /* "DMA", "DMA32", "Normal" */
	struct mdb_str migratetype; /* "Unmovable", ... */
	int64_t blocks;             /* blocks on the list */
	int64_t nr_free;            /* free_area[order].nr_free; MDB_NA */
	uint8_t incomplete;
};

/* A counter of a dumped kernel (vm_stat items, dump time, uptime). */
struct mdb_counter {
	const char *scope;  /* "global", "node", "zone", "kernel" */
	int32_t node;       /* -1: none */
	struct mdb_str zone; /* len 0: none */
	struct mdb_str name;
	int64_t value;
};

struct mdb_snap_sink {
	void *ctx;
	/* Each returns 0, or a negative MDB_E_* code that stops the decoder. */
	int (*zone)(void *ctx, const struct mdb_zone *z);
	int (*zone_cpu)(void *ctx, const struct mdb_zone_cpu *c);
	int (*tag)(void *ctx, const struct mdb_tag *t);
	int (*buddy)(void *ctx, const struct mdb_buddy *b);
	int (*counter)(void *ctx, const struct mdb_counter *c);
	/*
	 * What a decoder keeps but the user should hear about (a counter
	 * that went below zero); @w names the input and line.  May be NULL.
	 */
	void (*warn)(void *ctx, const struct mdb_error *w);
};

/* What a snapshot decoder learnt beyond the rows. */
struct mdb_snap_info {
	char version[16];  /* "2.0", "2.1", "1"; "" when the input has none */
	uint64_t records;  /* lines or binary records read */
	uint64_t zones, zone_cpus, tags;
	uint64_t approx;   /* rows with humanized or rounded figures */
	uint64_t inaccurate; /* tags with accurate:no */
	uint64_t buddy, counters; /* core dumps */
};

void mdb_zone_init(struct mdb_zone *z, enum mdb_zone_kind kind);

/* Start a text snapshot decoder: @info cleared, @l over @buf. */
void mdb_snap_lines_init(struct mdb_lines *l, const void *buf, size_t len,
			 struct mdb_snap_info *info);

/* A row of a text snapshot of one row a line (struct mdb_snap_text). */
union mdb_snap_row {
	struct mdb_zone zone;
	struct mdb_tag tag;
};

/*
 * A text snapshot of one row a line (/proc/slabinfo, /proc/allocinfo),
 * which mdb_snap_text_decode() reads.
 */
struct mdb_snap_text {
	/* its version header; a line starting with rule.prefix before any
	 * row or version is one */
	struct mdb_version_rule rule;
	/* Parse data line @s into @r: 0, or -1 with *@what expected and
	 * *@got found instead. */
	int (*parse)(struct mdb_str s, union mdb_snap_row *r,
		     const char **what, struct mdb_str *got);
	/* Hand @r, parsed from line @no (@s), to @sink, counted in @info:
	 * 0, or the sink's negative MDB_E_* code. */
	int (*take)(union mdb_snap_row *r, struct mdb_str s, int64_t no,
		    const char *name, const struct mdb_snap_sink *sink,
		    struct mdb_snap_info *info);
	const char *none; /* what an input without rows lacks */
};

/* Decode the text snapshot @f, as an mdb_snap_decode_fn does. */
int mdb_snap_text_decode(const struct mdb_snap_text *f, const void *buf,
			 size_t len, const char *name,
			 const struct mdb_snap_sink *sink,
			 struct mdb_snap_info *info, struct mdb_error *e);

/* Define @fn, the mdb_snap_decode_fn of the text snapshot @f. */
#define MDB_SNAP_TEXT_DECODER(fn, f)                                          \
	int fn(const void *buf, size_t len, const char *name,                 \
	       const struct mdb_snap_sink *sink, struct mdb_snap_info *info,  \
	       struct mdb_error *e)                                           \
	{                                                                     \
		return mdb_snap_text_decode(&(f), buf, len, name, sink, info, \
					    e);                               \
	}

/*
 * Refuse line @no of text input @name: "expected=@what got='@got'",
 * "malformed @format line".  Returns -MDB_E_CORRUPT.
 */
int mdb_snap_bad_line(struct mdb_error *e, const char *name, int64_t no,
		      const char *format, const char *what,
		      struct mdb_str got);

/* Refuse a text input without rows: "@what in 'name': lines=N". */
int mdb_snap_no_rows(struct mdb_error *e, const char *name,
		     const struct mdb_snap_info *info, const char *what);

/*
 * Every snapshot decoder: decode @buf into @sink; @name is the input's
 * name for messages.  Returns 0 or a negative MDB_E_* code with @e filled.
 */
typedef int (*mdb_snap_decode_fn)(const void *buf, size_t len,
				  const char *name,
				  const struct mdb_snap_sink *sink,
				  struct mdb_snap_info *info,
				  struct mdb_error *e);

/*
 * Every snapshot probe: does @buf look like this format?  1 yes, 0 no.
 * Probes read at most the first few lines or the header.
 */
typedef int (*mdb_snap_probe_fn)(const void *buf, size_t len);

/* /proc/allocinfo, docs/formats.md §4.1. */
int mdb_allocinfo_probe(const void *buf, size_t len);
int mdb_allocinfo_decode(const void *buf, size_t len, const char *name,
			 const struct mdb_snap_sink *sink,
			 struct mdb_snap_info *info, struct mdb_error *e);

/* vm.zone_stats and kern.malloc_stats streams, docs/formats.md §5.1-§5.3. */
#define MEMSTAT_HDR_SIZE 16
#define MEMSTAT_NAME_SIZE 32
#define MEMSTAT_UMA_TYPE_SIZE 120  /* uma_type_header */
#define MEMSTAT_UMA_CPU_SIZE 64    /* uma_percpu_stat */
#define MEMSTAT_MALLOC_CPU_SIZE 64 /* malloc_type_stats */
#define MEMSTAT_VERSION 1
#define MEMSTAT_MAX_CPUS 65536     /* more than any kernel's MAXCPU */
#define UTH_ZONE_SECONDARY 0x0001

/*
 * Read a memstat stream header: byte order from the version word, the
 * figures in that order.  Returns 1 when @buf has the shape of one (a
 * small version, a plausible maxcpus and count, zero padding), else 0.
 */
int mdb_memstat_header(const void *buf, size_t len, enum mdb_order *order,
		       uint32_t *version, uint32_t *maxcpus, uint32_t *count);
int mdb_memstat_uma_probe(const void *buf, size_t len);
int mdb_memstat_malloc_probe(const void *buf, size_t len);
int mdb_memstat_uma_decode(const void *buf, size_t len, const char *name,
			   const struct mdb_snap_sink *sink,
			   struct mdb_snap_info *info, struct mdb_error *e);
int mdb_memstat_malloc_decode(const void *buf, size_t len, const char *name,
			      const struct mdb_snap_sink *sink,
			      struct mdb_snap_info *info,
			      struct mdb_error *e);

/* vmstat -z and vmstat -m text, docs/formats.md §5.4, §5.5. */
int mdb_vmstat_z_probe(const void *buf, size_t len);
int mdb_vmstat_z_decode(const void *buf, size_t len, const char *name,
			const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e);
int mdb_vmstat_m_probe(const void *buf, size_t len);
int mdb_vmstat_m_decode(const void *buf, size_t len, const char *name,
			const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e);

/* vmstat --libxo json (-z, -m or both), docs/formats.md §5.6. */
int mdb_vmstat_json_probe(const void *buf, size_t len);
int mdb_vmstat_json_decode(const void *buf, size_t len, const char *name,
			   const struct mdb_snap_sink *sink,
			   struct mdb_snap_info *info, struct mdb_error *e);

/* Linux /proc/slabinfo 2.x, docs/formats.md §4.2. */
int mdb_slabinfo_probe(const void *buf, size_t len);
int mdb_slabinfo_decode(const void *buf, size_t len, const char *name,
			const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e);

#endif
