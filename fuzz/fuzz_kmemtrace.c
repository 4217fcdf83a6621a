// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: kmemtrace relay ABI v1, from bytes to figures.
 * The first input byte picks how many per-CPU streams (1-4) the rest is
 * cut into and whether the byte order is detected or forced; the merged
 * events then go through the pairing and the derived figures, the whole
 * ingest path but SQLite.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../db/pair.h"
#include "../db/stats.h"
#include "../ingest/kmemtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	struct mdb_pair pair;
	struct mdb_stats *stats;
};

static int on_lifetime(void *c, const struct mdb_lifetime *lt)
{
	return mdb_stats_lifetime(((struct ctx *)c)->stats, lt);
}

static int on_bad_free(void *c, const struct mdb_free *f)
{
	return mdb_stats_bad_free(((struct ctx *)c)->stats, f);
}

static int on_event(void *p, const struct mdb_event *ev)
{
	struct ctx *c = p;

	mdb_stats_event(c->stats, ev->seq, ev->ts);
	if (ev->kind == MDB_EV_ALLOC) {
		struct mdb_lifetime lt = {
			.seq = ev->seq, .ts = ev->ts, .ptr = ev->ptr,
			.bytes_req = ev->bytes_req,
			.bytes_alloc = ev->bytes_alloc, .gfp = ev->gfp,
			.site_id = (uint32_t)ev->call_site, .cpu = ev->cpu,
			.node = ev->node, .type = ev->type,
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_stream s[4];
	struct ctx c;
	struct mdb_pair_ops ops = { &c, on_lifetime, on_bad_free };
	struct mdb_sink sink = { &c, on_event };
	struct mdb_decode_stats st;
	struct mdb_error e;
	enum mdb_order o = MDB_ORDER_LITTLE;
	size_t n, part;
	int mode;

	if (!size)
		return 0;
	n = (size_t)(data[0] & 3) + 1;
	mode = data[0] >> 2 & 3;
	data++;
	size--;
	part = size / n;
	for (size_t i = 0; i < n; i++)
		kt_stream_init(&s[i], "cpu", (int)i, data + i * part,
			       i + 1 == n ? size - i * part : part,
			       MDB_ORDER_UNKNOWN);
	if (mode == 0) {
		if (kt_detect_order(s, n, &o, &e) < 0)
			return 0;
	} else {
		o = mode == 1 ? MDB_ORDER_LITTLE : MDB_ORDER_BIG;
	}
	for (size_t i = 0; i < n; i++)
		s[i].order = o;
	c.stats = malloc(sizeof(*c.stats));
	if (!c.stats)
		return 0;
	mdb_stats_init(c.stats);
	mdb_pair_init(&c.pair, &ops);
	if (kt_merge(s, n, &sink, &st, &e) == 0)
		mdb_pair_finish(&c.pair);
	mdb_pair_release(&c.pair);
	mdb_stats_release(c.stats);
	free(c.stats);
	return 0;
}
