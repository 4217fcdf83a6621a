/* SPDX-License-Identifier: MIT */
/*
 * The records every event decoder produces, and the sink they go to.
 *
 * A decoder turns bytes into struct mdb_event values in the source's global
 * order and hands each to a sink (a context and a callback), so tests can
 * drive a decoder with an in-memory sink and db/ can write to SQLite without
 * the decoder knowing either.
 */
#ifndef MDB_EVENT_H
#define MDB_EVENT_H

#include <stddef.h>
#include <stdint.h>

enum mdb_event_kind { MDB_EV_ALLOC = 0, MDB_EV_FREE = 1 };

/* Values are the kmemtrace type ids and are stored in the database. */
enum mdb_alloc_type {
	MDB_TYPE_KMALLOC = 0, /* kmalloc / kfree */
	MDB_TYPE_CACHE = 1,   /* kmem_cache_alloc / kmem_cache_free */
	MDB_TYPE_PAGE = 2,    /* __get_free_pages et al. */
};

#define MDB_NO_TS INT64_MIN   /* the format carries no timestamp */
#define MDB_NO_GFP UINT64_MAX /* gfp flags unknown or only symbolic */
#define MDB_NO_PID (-1)       /* the capture names no task */
#define MDB_NO_MIGRATETYPE (-1)
/* The name ftrace and libtraceevent print for a task they cannot name */
#define MDB_COMM_UNKNOWN "<...>"
/* ... and for pid 0, the idle task */
#define MDB_COMM_IDLE "<idle>"
#define MDB_MAX_STACK 256     /* frames kept of a callchain */

/* A string inside the input buffer; not NUL-terminated. len 0 = absent. */
struct mdb_str {
	const char *p;
	size_t len;
};

struct mdb_event {
	int64_t seq;        /* position in the source's global order */
	int64_t ts;         /* nanoseconds, or MDB_NO_TS */
	uint64_t call_site; /* return address; 0 when unknown */
	uint64_t ptr;       /* object address (pages: pfn << 12) */
	uint64_t bytes_req; /* ALLOC only */
	uint64_t bytes_alloc; /* page FREE too: page size << order */
	uint64_t gfp;       /* ALLOC only; MDB_NO_GFP when unknown */
	int32_t node;       /* ALLOC only; -1 = no node asked for */
	int32_t cpu;
	uint8_t kind;       /* enum mdb_event_kind */
	uint8_t type;       /* enum mdb_alloc_type */
	struct mdb_str site_text; /* symbolic call site ("func+0x1c/0x90") */
	struct mdb_str cache;     /* cache name when the format has it */
	struct mdb_str gfp_text;  /* symbolic gfp flags */
	/*
	 * Set by the decoders of captures that have them; mdb_event_init()
	 * gives the values meaning unknown.
	 */
	int32_t pid;        /* task id (the kernel's pid); MDB_NO_PID */
	int32_t migratetype; /* page ALLOC only; MDB_NO_MIGRATETYPE */
	struct mdb_str comm;      /* task name; len 0 = unknown */
	/* kernel frames of the callchain, innermost first; NULL = none */
	const uint64_t *stack;
	uint32_t nstack;
};

/* A zeroed event with pid, migratetype, gfp and node unknown. */
static inline void mdb_event_init(struct mdb_event *ev)
{
	*ev = (struct mdb_event){ .gfp = MDB_NO_GFP, .node = -1,
				  .pid = MDB_NO_PID,
				  .migratetype = MDB_NO_MIGRATETYPE };
}

struct mdb_sink {
	void *ctx;
	/* One event in global order; a negative return stops the decoder. */
	int (*event)(void *ctx, const struct mdb_event *ev);
	/*
	 * May be NULL.  An event that event() will get a few calls later,
	 * for the sink to ask the cache for what it will look up (a hint:
	 * nothing may depend on it).  Decoders call it when they can.
	 */
	void (*ahead)(void *ctx, const struct mdb_event *ev);
};

/* What a decoder saw besides events; stored with the source. */
struct mdb_decode_stats {
	uint64_t records;       /* records or lines read */
	uint64_t events;        /* events handed to the sink */
	uint64_t unknown;       /* records skipped: unknown event or type id */
	uint64_t feature_bytes; /* trailing bytes skipped inside records */
	uint64_t malformed;     /* text lines rejected */
	uint64_t lost_events;   /* events the producer says it lost */
	uint64_t seq_missing;   /* sequence numbers absent between first and last */
	uint64_t seq_disorder;  /* records whose seq did not rise in their file */
	int64_t first_seq, last_seq;
	int32_t ncpus;          /* CPUs seen, for formats that learn it only
				 * by reading (text); 0 = as known at open */
};

#endif
