/* SPDX-License-Identifier: MIT */
/*
 * The analysis of one source's events, the same for `memdb ingest`,
 * `memdb check` and the fuzz harnesses: each event's call site and cache
 * name become small per-source ids (in order of first appearance), the
 * pairing (pair.h) turns events into lifetimes and anomalous frees, and
 * the derived figures (stats.h) are summed from those.
 *
 * Pure C, no SQLite: the loader (db/load.c) gives callbacks that write
 * each finished row, and writes the ids and figures at commit.
 */
#ifndef MDB_ANALYSIS_H
#define MDB_ANALYSIS_H

#include <stdint.h>

#include "../common/u64map.h"
#include "../ingest/event.h"
#include "dict.h"
#include "pair.h"
#include "stacks.h"
#include "stats.h"

struct mdb_source_meta;

/* A call site: an address, a symbolic text, or both. */
struct mdb_site {
	uint64_t addr;
	uint32_t text_id;   /* 0: none; else site_text.texts[text_id - 1] */
	uint8_t has_addr;
};

/* Where finished rows go besides the figures; either may be NULL. */
struct mdb_analysis_out {
	void *ctx;
	int (*lifetime)(void *ctx, const struct mdb_lifetime *lt);
	int (*bad_free)(void *ctx, const struct mdb_free *f);
};

struct mdb_analysis {
	struct mdb_analysis_out out;
	struct mdb_sink sink;       /* feeds mdb_analysis_event() */
	struct mdb_pair pair;
	struct mdb_stats *stats;
	/* call sites: site ids from 1, sites[id - 1] */
	struct mdb_site *sites;
	uint32_t nsites;
	size_t site_cap;
	struct u64map site_by_addr; /* address -> site id */
	uint64_t hint_addr[256];    /* recent call sites: addr ... */
	uint32_t hint_id[256];      /* ... and their site ids (0: none) */
	struct mdb_dict site_text;  /* symbolic call sites -> text id */
	uint32_t *text_site;        /* text id - 1 -> site id */
	size_t text_site_cap;
	struct mdb_dict strs;       /* cache names, gfp strings, comms */
	struct mdb_stacks stacks;   /* distinct kernel call stacks */
	/* what went through */
	int64_t first_ts, last_ts;  /* MDB_NO_TS when none */
	uint64_t events;
	uint64_t allocs[3], frees[3]; /* events by enum mdb_alloc_type */
	uint64_t rows, bad_rows;    /* lifetimes and anomalous frees */
	uint64_t live_end;          /* lifetimes still live at the end */
	/* the slab frees perf kmem counts beyond memdb's (pair.h:
	 * perf_counted): how many, the bytes it adds to freed, and its
	 * extra ping-pongs */
	uint64_t perf_frees, perf_bytes, perf_pingpong;
};

/*
 * Set up @a for the events of a source described by @m (which decides
 * the duplicate-free rule, mdb_pair_all_traced(); NULL: not every path
 * traced); -MDB_E_NOMEM when out of memory.
 */
int mdb_analysis_init(struct mdb_analysis *a,
		      const struct mdb_source_meta *m,
		      const struct mdb_analysis_out *out);
void mdb_analysis_release(struct mdb_analysis *a);

/* One event, in the source's global order (the sink's callback). */
/* The sink's ahead(): an event to come (struct mdb_sink). */
void mdb_analysis_ahead(void *ctx, const struct mdb_event *ev);

int mdb_analysis_event(void *a, const struct mdb_event *ev);

/* End of the events: the allocations still live become lifetimes. */
int mdb_analysis_finish(struct mdb_analysis *a);

/* The call site of id @id (from 1), NULL when there is none. */
const struct mdb_site *mdb_analysis_site(const struct mdb_analysis *a,
					 uint32_t id);

/* Its symbolic text ("func+0x1c/0x90"), NULL when the trace gave none. */
const char *mdb_analysis_site_text(const struct mdb_analysis *a,
				   const struct mdb_site *s);

/*
 * The CPU count stored with a source: the CPUs the decoder saw (text
 * learns them only by reading), else what opening it found.
 */
int mdb_source_ncpus(const struct mdb_source_meta *m,
		     const struct mdb_decode_stats *st);

#endif
