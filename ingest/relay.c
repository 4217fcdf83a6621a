// SPDX-License-Identifier: MIT
/* Decoding on both cores (relay.h). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../common/queue.h"
#include "relay.h"

#define RELAY_EVENTS 4096       /* events a batch */
#define RELAY_BATCHES 4
#define RELAY_ARENA (256u << 10) /* bytes of strings and frames a batch */
#define RELAY_AHEAD 8           /* the sink's ahead() hint: events ahead */

/* A batch: events whose strings and frames point into its arena. */
struct batch {
	size_t n;
	struct mdb_event ev[RELAY_EVENTS];
	char *arena;
	size_t used, cap;
};

struct relay {
	const struct mdb_sink *down;   /* the sink the events are for */
	struct mdb_error *de;          /* the decoder's error record */
	pthread_t thread;
	struct mdb_queue q;            /* batches to the sink's thread */
	struct batch *all[RELAY_BATCHES];
	struct batch *cur;             /* being filled by the decoder */
	int failed;                    /* the sink returned failed < 0 */
};

/* Hand the sink a batch's events; its first failure, or 0. */
static int feed(const struct mdb_sink *down, const struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		int ret;

		if (down->ahead && i + RELAY_AHEAD < b->n)
			down->ahead(down->ctx, &b->ev[i + RELAY_AHEAD]);
		ret = down->event(down->ctx, &b->ev[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	struct batch *b;

	/* after a failure, the batches still queued are given back unread */
	while ((b = mdb_queue_take(&r->q))) {
		int ret = r->failed ? 0 : feed(r->down, b);

		b->n = 0;
		b->used = 0;
		if (ret < 0) {
			r->failed = ret;
			mdb_queue_fail(&r->q);
		}
		mdb_queue_give(&r->q, b);
	}
	return NULL;
}

/* @n bytes of @b's arena, 8-aligned; NULL when they do not fit. */
static void *take(struct batch *b, size_t n)
{
	size_t at = (b->used + 7) & ~(size_t)7;
	void *p;

	if (at > b->cap || b->cap - at < n)
		return NULL;
	p = b->arena + at;
	b->used = at + n;
	return p;
}

/* The bytes an event's strings and frames take in an arena. */
static size_t event_bytes(const struct mdb_event *ev)
{
	return ev->site_text.len + ev->cache.len + ev->gfp_text.len +
	       ev->comm.len + (size_t)ev->nstack * sizeof(uint64_t) + 5 * 8;
}

/* Copy @s into @b's arena. */
static void copy_str(struct batch *b, struct mdb_str *s)
{
	char *p;

	if (!s->len)
		return;
	p = take(b, s->len);
	memcpy(p, s->p, s->len);
	s->p = p;
}

/* The decoder's sink: the event, its strings and frames copied into the
 * batch being filled; a full batch goes to the thread. */
static int relay_event(void *ctx, const struct mdb_event *ev)
{
	struct relay *r = ctx;
	struct batch *b = r->cur;
	size_t need = event_bytes(ev);
	struct mdb_event *x;

	if (!b)
		return r->failed;      /* called again after the failure */
	if (b->n == RELAY_EVENTS || (b->n && b->cap - b->used < need)) {
		b = r->cur = mdb_queue_swap(&r->q, b);
		if (!b)
			return r->failed;  /* the sink's failure */
	}
	if (b->cap < need) {  /* an event larger than an arena: room */
		char *a = realloc(b->arena, need);

		if (!a)
			return mdb_error_nomem(r->de);
		b->arena = a;
		b->cap = need;
	}
	x = &b->ev[b->n++];
	*x = *ev;
	copy_str(b, &x->site_text);
	copy_str(b, &x->cache);
	copy_str(b, &x->gfp_text);
	copy_str(b, &x->comm);
	if (ev->stack && ev->nstack) {
		uint64_t *f = take(b, (size_t)ev->nstack * sizeof(*f));

		memcpy(f, ev->stack, (size_t)ev->nstack * sizeof(*f));
		x->stack = f;
	}
	return 0;
}

static void relay_free(struct relay *r)
{
	for (int i = 0; i < RELAY_BATCHES; i++) {
		if (r->all[i])
			free(r->all[i]->arena);
		free(r->all[i]);
	}
	free(r);
}

static struct relay *relay_new(const struct mdb_sink *down)
{
	struct relay *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->down = down;
	for (int i = 0; i < RELAY_BATCHES; i++) {
		struct batch *b = malloc(sizeof(*b));

		r->all[i] = b;
		if (!b || !(b->arena = malloc(RELAY_ARENA))) {
			relay_free(r);
			return NULL;
		}
		b->n = b->used = 0;
		b->cap = RELAY_ARENA;
	}
	return r;
}

/* Start the sink's thread, with the asynchronous signals blocked in it:
 * Ctrl-C and the like are the calling thread's to take, as without the
 * relay (a fault is the faulting thread's, and cannot be blocked). */
static int relay_start(struct relay *r)
{
	static const int faults[] = { SIGBUS, SIGSEGV, SIGFPE, SIGILL };
	sigset_t all, old;
	int ret;

	mdb_queue_init(&r->q);
	r->cur = r->all[0];
	for (int i = 1; i < RELAY_BATCHES; i++)
		mdb_queue_give(&r->q, r->all[i]);
	sigfillset(&all);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&r->thread, NULL, relay_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		mdb_queue_destroy(&r->q);
		return -1;
	}
	return 0;
}

/* Queue what is left, wait for the sink to take it; its failure or 0. */
static int relay_finish(struct relay *r)
{
	mdb_queue_end(&r->q, r->cur && r->cur->n ? r->cur : NULL, 0);
	pthread_join(r->thread, NULL);
	mdb_queue_destroy(&r->q);
	return r->failed;
}

int mdb_relay_decode(struct mdb_input *in, const struct mdb_sink *sink,
		     struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct relay *r = relay_new(sink);
	struct mdb_sink up = { r, relay_event, NULL };
	struct mdb_error de;
	int ret, failed;

	if (!r || relay_start(r) < 0) {
		if (r)
			relay_free(r);
		return in->ops->decode(in, sink, st, e);
	}
	mdb_error_clear(&de);
	r->de = &de;
	ret = in->ops->decode(in, &up, st, &de);
	failed = relay_finish(r);
	relay_free(r);
	if (failed < 0)
		return failed;   /* the sink's error, in @e */
	if (de.code)
		*e = de;
	return ret;
}
