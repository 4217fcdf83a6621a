/* SPDX-License-Identifier: MIT */
/*
 * What the event harnesses feed decoded events into: the analysis ingest
 * runs (call-site and string ids, pairing, derived figures), the whole
 * ingest path but SQLite, and a snapshot sink that only counts.  Static
 * functions: each harness includes it once.
 */
#ifndef MDB_FUZZ_SINK_H
#define MDB_FUZZ_SINK_H

#include <stdlib.h>

#include "../analysis/analysis.h"
#include "../ingest/event.h"
#include "../ingest/snapshot.h"

struct fuzz_events {
	struct mdb_analysis an;
	struct mdb_sink sink;
};

/* Set up @c; 0, or -1 when out of memory. */
static inline int fuzz_events_init(struct fuzz_events *c)
{
	if (mdb_analysis_init(&c->an, NULL, NULL) < 0) {
		mdb_analysis_release(&c->an);
		return -1;
	}
	c->sink = c->an.sink;
	return 0;
}

/* Finish the analysis (when @ok) and free everything. */
static inline void fuzz_events_done(struct fuzz_events *c, int ok)
{
	if (ok)
		mdb_analysis_finish(&c->an);
	mdb_analysis_release(&c->an);
}

/* A snapshot sink that looks at every field it is given. */
static inline int fz_zone(void *ctx, const struct mdb_zone *z)
{
	(void)ctx;
	return z->name.len > 1 << 20 ? -1 : 0;
}

static inline int fz_zone_cpu(void *ctx, const struct mdb_zone_cpu *cpu)
{
	(void)ctx;
	(void)cpu;
	return 0;
}

static inline int fz_tag(void *ctx, const struct mdb_tag *t)
{
	(void)ctx;
	return t->file.len > 1 << 20 ? -1 : 0;
}

static const struct mdb_snap_sink fuzz_snap_sink __attribute__((unused)) = {
	.zone = fz_zone, .zone_cpu = fz_zone_cpu, .tag = fz_tag,
};

#endif
