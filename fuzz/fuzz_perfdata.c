// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: perf.data (file or pipe mode, either byte order),
 * from bytes to figures.  The whole input is the file: the header and
 * its feature sections are described, then the decoder hands the kmem
 * samples to the pairing and the derived figures.  The tracing data's
 * event formats reach libtraceevent only after memdb's own checks.
 *
 * The file is decoded twice, as memdb ingest may: round by round
 * (decode option rounds) and in two passes.  Unless the first says the
 * file broke its rounds (-MDB_E_ORDER, when ingest reads it again in two
 * passes), both must end the same way, and when they succeed they must
 * emit the same events, field for field, in the same order (a hash of
 * them all): the harness aborts otherwise.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../ingest/trace/perfdata.h"
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FNV-1a over the events' fields, and what it passes them on to. */
struct ev_hash {
	uint64_t h, n;
	const struct mdb_sink *next; /* NULL: none */
};

static void fold(struct ev_hash *x, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		x->h = (x->h ^ b[i]) * 0x100000001b3ULL;
}

static void fold_str(struct ev_hash *x, const struct mdb_str *s)
{
	fold(x, &s->len, sizeof(s->len));
	if (s->len)
		fold(x, s->p, s->len);
}

static int hash_event(void *ctx, const struct mdb_event *ev)
{
	struct ev_hash *x = ctx;
	const int64_t v[] = { ev->seq, ev->ts, (int64_t)ev->call_site,
			      (int64_t)ev->ptr, (int64_t)ev->bytes_req,
			      (int64_t)ev->bytes_alloc, (int64_t)ev->gfp,
			      ev->node, ev->cpu, ev->kind, ev->type, ev->pid,
			      ev->migratetype, ev->nstack };

	fold(x, v, sizeof(v));
	fold_str(x, &ev->site_text);
	fold_str(x, &ev->cache);
	fold_str(x, &ev->gfp_text);
	fold_str(x, &ev->comm);
	if (ev->nstack)
		fold(x, ev->stack, ev->nstack * sizeof(*ev->stack));
	x->n++;
	return x->next ? x->next->event(x->next->ctx, ev) : 0;
}

static void hash_ahead(void *ctx, const struct mdb_event *ev)
{
	struct ev_hash *x = ctx;

	if (x->next && x->next->ahead)
		x->next->ahead(x->next->ctx, ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mdb_decode_opts o;
	struct mdb_decode_stats st, st1;
	struct perf_info info;
	struct fuzz_events c;
	struct mdb_error e, e1;
	struct ev_hash h1 = { 0xcbf29ce484222325ULL, 0, NULL };
	struct ev_hash h2 = { 0xcbf29ce484222325ULL, 0, NULL };
	struct mdb_sink s1 = { &h1, hash_event, hash_ahead };
	struct mdb_sink s2 = { &h2, hash_event, hash_ahead };
	int r1, r2;

	if (mdb_perf_describe(data, size, "fuzz", &info, &e) < 0)
		return 0;
	mdb_decode_opts_init(&o, "fuzz");
	o.rounds = 1;
	r1 = mdb_perf_decode(data, size, &o, &s1, &st1, &e1);
	o.rounds = 0;
	if (fuzz_events_init(&c))
		return 0;
	h2.next = &c.sink;
	r2 = mdb_perf_decode(data, size, &o, &s2, &st, &e);
	if (r1 != -MDB_E_ORDER &&
	    (r1 != r2 || (!r1 && (h1.h != h2.h || h1.n != h2.n ||
				  st1.events != st.events ||
				  st1.unknown != st.unknown ||
				  st1.lost_events != st.lost_events ||
				  st1.records != st.records))))
		abort(); /* round by round is not two passes */
	fuzz_events_done(&c, r2 == 0);
	return 0;
}
