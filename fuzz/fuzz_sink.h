/* SPDX-License-Identifier: MIT */
/*
 * What the event harnesses feed decoded events into: the pairing and the
 * derived figures, the whole ingest path but SQLite, and a snapshot sink
 * that only counts.  Static functions: each harness includes it once.
 */
#ifndef MDB_FUZZ_SINK_H
#define MDB_FUZZ_SINK_H

#include <stdlib.h>

#include "../analysis/pair.h"
#include "../db/stats.h"
#include "../ingest/event.h"
#include "../ingest/snapshot.h"

struct fuzz_events {
	struct mdb_pair pair;
	struct mdb_stats *stats;
	struct mdb_sink sink;
};

static inline int fz_lifetime(void *c, const struct mdb_lifetime *lt)
{
	return mdb_stats_lifetime(((struct fuzz_events *)c)->stats, lt);
}

static inline int fz_bad_free(void *c, const struct mdb_free *f)
{
	return mdb_stats_bad_free(((struct fuzz_events *)c)->stats, f);
}

static inline int fz_event(void *p, const struct mdb_event *ev)
{
	struct fuzz_events *c = p;

	mdb_stats_event(c->stats, ev->seq, ev->ts);
	if (ev->kind == MDB_EV_ALLOC) {
		struct mdb_lifetime lt = {
			.seq = ev->seq, .ts = ev->ts, .ptr = ev->ptr,
			.bytes_req = ev->bytes_req,
			.bytes_alloc = ev->bytes_alloc, .gfp = ev->gfp,
			.site_id = (uint32_t)ev->call_site, .cpu = ev->cpu,
			.node = ev->node, .type = ev->type,
			.cache_id = (uint32_t)ev->cache.len,
		};

		return mdb_pair_alloc(&c->pair, &lt);
	} else {
		struct mdb_free f = {
			.seq = ev->seq, .ts = ev->ts, .ptr = ev->ptr,
			.site_id = (uint32_t)ev->call_site, .cpu = ev->cpu,
			.type = ev->type,
		};

		return mdb_pair_free(&c->pair, &f);
	}
}

/* Set up @c; 0, or -1 when out of memory. */
static inline int fuzz_events_init(struct fuzz_events *c)
{
	struct mdb_pair_ops ops = { c, fz_lifetime, fz_bad_free };

	c->stats = malloc(sizeof(*c->stats));
	if (!c->stats)
		return -1;
	mdb_stats_init(c->stats);
	mdb_pair_init(&c->pair, &ops);
	c->sink.ctx = c;
	c->sink.event = fz_event;
	return 0;
}

/* Finish the pairing (when @ok) and free everything. */
static inline void fuzz_events_done(struct fuzz_events *c, int ok)
{
	if (ok)
		mdb_pair_finish(&c->pair);
	mdb_pair_release(&c->pair);
	mdb_stats_release(c->stats);
	free(c->stats);
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
	NULL, fz_zone, fz_zone_cpu, fz_tag,
};

#endif
