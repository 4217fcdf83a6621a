// SPDX-License-Identifier: MIT
/* The analysis of one source's events; see analysis.h. */
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/error.h"
#include "../ingest/ingest.h"
#include "analysis.h"

/* ---- call sites and strings ------------------------------------------ */

static int site_new(struct mdb_analysis *a, uint64_t addr, int has_addr,
		    uint32_t text_id, uint32_t *id)
{
	if (MDB_GROW(a->sites, a->nsites, a->site_cap, 256))
		return -MDB_E_NOMEM;
	a->sites[a->nsites].addr = addr;
	a->sites[a->nsites].has_addr = (uint8_t)has_addr;
	a->sites[a->nsites].text_id = text_id;
	*id = ++a->nsites;
	return 0;
}

/* Site id of a symbolic call site (with its address, when known). */
static int site_by_text(struct mdb_analysis *a, const struct mdb_event *ev,
			uint32_t *id)
{
	int added, ret;
	uint32_t t = mdb_dict_id(&a->site_text, &ev->site_text, &added);

	if (!t)
		return -MDB_E_NOMEM;
	if (!added) {
		*id = a->text_site[t - 1];
		return 0;
	}
	if (a->site_text.n > a->text_site_cap) {
		size_t ncap = a->site_text.cap;
		uint32_t *nt = realloc(a->text_site, ncap * sizeof(*nt));

		if (!nt)
			return -MDB_E_NOMEM;
		a->text_site = nt;
		a->text_site_cap = ncap;
	}
	ret = site_new(a, ev->call_site, ev->call_site != 0, t, id);
	a->text_site[t - 1] = *id;
	return ret;
}

/* Site id of a call site known by its address only. */
static int site_by_addr(struct mdb_analysis *a, uint64_t addr, uint32_t *id)
{
	/* call sites repeat: a direct-mapped hint before the map */
	unsigned h = (unsigned)((addr ^ addr >> 9 ^ addr >> 21) & 255);
	uint64_t *v;
	int added, ret;

	if (a->hint_id[h] && a->hint_addr[h] == addr) {
		*id = a->hint_id[h];
		return 0;
	}
	v = mdb_u64map_put(&a->site_by_addr, addr, 0, &added);
	if (!v)
		return -MDB_E_NOMEM;
	if (added) {
		/* site_new() does not touch the map: @v stays valid */
		ret = site_new(a, addr, 1, 0, id);
		*v = *id;
		if (ret < 0)
			return ret;
	} else {
		*id = (uint32_t)*v;
	}
	a->hint_addr[h] = addr;
	a->hint_id[h] = *id;
	return 0;
}

/*
 * Site id of an event's call site: its symbolic text when the trace
 * printed one (with the address, when one is known for it), else its
 * address.  Site ids are assigned in order of first appearance.
 */
static int site_id(struct mdb_analysis *a, const struct mdb_event *ev,
		   uint32_t *id)
{
	if (ev->site_text.len)
		return site_by_text(a, ev, id);
	return site_by_addr(a, ev->call_site, id);
}

static int str_id(struct mdb_analysis *a, const struct mdb_str *s,
		  uint32_t *id)
{
	int added;

	*id = 0;
	if (!s->len)
		return 0;
	*id = mdb_dict_id(&a->strs, s, &added);
	return *id ? 0 : -MDB_E_NOMEM;
}

const struct mdb_site *mdb_analysis_site(const struct mdb_analysis *a,
					 uint32_t id)
{
	return id && id <= a->nsites ? &a->sites[id - 1] : NULL;
}

const char *mdb_analysis_site_text(const struct mdb_analysis *a,
				   const struct mdb_site *s)
{
	return s && s->text_id ? a->site_text.texts[s->text_id - 1] : NULL;
}

/* ---- pairing output --------------------------------------------------- */

static int on_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	struct mdb_analysis *a = ctx;

	if (mdb_stats_lifetime(a->stats, lt) < 0)
		return -MDB_E_NOMEM;
	a->rows++;
	a->live_end += lt->state == MDB_ST_LIVE;
	return a->out.lifetime ? a->out.lifetime(a->out.ctx, lt) : 0;
}

static int on_bad_free(void *ctx, const struct mdb_free *f)
{
	struct mdb_analysis *a = ctx;

	if (mdb_stats_bad_free(a->stats, f) < 0)
		return -MDB_E_NOMEM;
	a->bad_rows++;
	if (f->perf_counted) {
		a->perf_frees++;
		/* sums stop at INT64_MAX, as every figure's */
		a->perf_bytes = f->perf_bytes > (uint64_t)INT64_MAX -
			a->perf_bytes ? (uint64_t)INT64_MAX :
			a->perf_bytes + f->perf_bytes;
		a->perf_pingpong += f->perf_pingpong;
	}
	return a->out.bad_free ? a->out.bad_free(a->out.ctx, f) : 0;
}

/* ---- events ------------------------------------------------------------ */

/* The per-source ids of an event's call site, cache name and task. */
struct ev_ids {
	uint32_t site, cache, comm;
};

static int feed_alloc(struct mdb_analysis *a, const struct mdb_event *ev,
		      const struct ev_ids *id)
{
	struct mdb_lifetime lt = {
		.seq = ev->seq,
		.ts = ev->ts,
		.ptr = ev->ptr,
		.bytes_req = ev->bytes_req,
		.bytes_alloc = ev->bytes_alloc,
		.gfp = ev->gfp,
		.site_id = id->site,
		.cache_id = id->cache,
		.cpu = ev->cpu,
		.node = ev->node,
		.type = ev->type,
		.pid = ev->pid,
		.comm_id = id->comm,
		.migratetype = ev->migratetype,
	};
	int ret = str_id(a, &ev->gfp_text, &lt.gfp_id);

	if (ret < 0)
		return ret;
	ret = mdb_stacks_id(&a->stacks, ev->stack, ev->nstack, &lt.stack_id);
	if (ret < 0)
		return ret;
	if (ev->type < 3)
		a->allocs[ev->type]++;
	return mdb_pair_alloc(&a->pair, &lt);
}

static int feed_free(struct mdb_analysis *a, const struct mdb_event *ev,
		     const struct ev_ids *id)
{
	struct mdb_free f = {
		.seq = ev->seq,
		.ts = ev->ts,
		.ptr = ev->ptr,
		.site_id = id->site,
		.cache_id = id->cache,
		.cpu = ev->cpu,
		.type = ev->type,
		.pid = ev->pid,
		.comm_id = id->comm,
		.bytes = ev->type == MDB_TYPE_PAGE ? ev->bytes_alloc : 0,
	};

	if (ev->type < 3)
		a->frees[ev->type]++;
	return mdb_pair_free(&a->pair, &f);
}

void mdb_analysis_ahead(void *ctx, const struct mdb_event *ev)
{
	struct mdb_analysis *a = ctx;

	mdb_pair_ahead(&a->pair, ev->type, ev->ptr);
}

int mdb_analysis_event(void *ctx, const struct mdb_event *ev)
{
	struct mdb_analysis *a = ctx;
	struct ev_ids id;
	int ret;

	if (ev->ts != MDB_NO_TS) {
		if (a->first_ts == MDB_NO_TS)
			a->first_ts = ev->ts;
		a->last_ts = ev->ts;
	}
	a->events++;
	mdb_stats_event(a->stats, ev->seq, ev->ts);
	ret = site_id(a, ev, &id.site);
	if (ret < 0)
		return ret;
	ret = str_id(a, &ev->cache, &id.cache);
	if (ret < 0)
		return ret;
	ret = str_id(a, &ev->comm, &id.comm);
	if (ret < 0)
		return ret;
	if (ev->kind == MDB_EV_ALLOC)
		return feed_alloc(a, ev, &id);
	return feed_free(a, ev, &id);
}

/* ---- set up, finish, release ------------------------------------------ */

int mdb_analysis_init(struct mdb_analysis *a,
		      const struct mdb_source_meta *m,
		      const struct mdb_analysis_out *out)
{
	struct mdb_pair_ops ops = { a, on_lifetime, on_bad_free };

	memset(a, 0, sizeof(*a));
	mdb_stacks_init(&a->stacks);
	if (out)
		a->out = *out;
	a->stats = malloc(sizeof(*a->stats));
	if (!a->stats)
		return -MDB_E_NOMEM;
	mdb_stats_init(a->stats);
	mdb_pair_init(&a->pair, &ops);
	if (m)
		mdb_pair_set_all_traced(&a->pair,
					mdb_pair_all_traced(m->format,
							    m->kernel_release));
	mdb_u64map_init(&a->site_by_addr);
	a->first_ts = a->last_ts = MDB_NO_TS;
	a->sink.ctx = a;
	a->sink.event = mdb_analysis_event;
	a->sink.ahead = mdb_analysis_ahead;
	return 0;
}

int mdb_analysis_finish(struct mdb_analysis *a)
{
	int ret = mdb_pair_finish(&a->pair);

	return ret < 0 ? ret : mdb_stats_finish(a->stats);
}

void mdb_analysis_release(struct mdb_analysis *a)
{
	mdb_pair_release(&a->pair);
	if (a->stats)
		mdb_stats_release(a->stats);
	free(a->stats);
	mdb_u64map_release(&a->site_by_addr);
	mdb_dict_release(&a->site_text);
	mdb_dict_release(&a->strs);
	mdb_stacks_release(&a->stacks);
	free(a->text_site);
	free(a->sites);
	memset(a, 0, sizeof(*a));
}

int mdb_source_ncpus(const struct mdb_source_meta *m,
		     const struct mdb_decode_stats *st)
{
	return st->ncpus > 0 ? st->ncpus : m->ncpus;
}
