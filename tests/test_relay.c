// SPDX-License-Identifier: MIT
/*
 * The relay (ingest/relay.c): a decoder on the calling thread, its sink
 * on another.  A made-up decoder emits events whose strings and stack
 * frames live in one buffer it overwrites for each event (as decoders'
 * scratch does), so the sink sees them right only if the relay copied
 * them.  Checked against what the events were, one by one: every event,
 * in order, with its strings and frames; an event larger than a batch's
 * room; a decoder error after some events (all of them reach the sink
 * first, and the error is the decoder's); a sink error (the decoder
 * stops, the error is the sink's, no event after it reaches the sink).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../ingest/relay.h"

/* What the made-up decoder does. */
struct fake {
	uint64_t n;           /* events to emit */
	uint64_t fail_at;     /* its own error before event fail_at (0: none) */
	size_t big;           /* event 7's site text this long (0: short) */
};

/* Event i's site text, comm and frames, written into @buf. */
static void make(uint64_t i, size_t big, char *buf, size_t cap,
		 struct mdb_event *ev, uint64_t *frames)
{
	int k;

	mdb_event_init(ev);
	ev->seq = (int64_t)i + 1;
	ev->ptr = 0xffff888000000000ull + i * 64;
	ev->kind = (uint8_t)(i % 2);
	k = snprintf(buf, cap, "site_%" PRIu64 "+0x1c/0x90", i % 97);
	ev->site_text = (struct mdb_str){ buf, (size_t)k };
	if (i == 7 && big) {
		memset(buf, 'x', big);
		ev->site_text = (struct mdb_str){ buf, big };
		k = (int)big;
	}
	ev->comm = (struct mdb_str){ buf + k, (size_t)snprintf(buf + k,
		cap - (size_t)k, "task-%" PRIu64, i % 13) };
	ev->nstack = (uint32_t)(i % 5);
	for (uint32_t f = 0; f < ev->nstack; f++)
		frames[f] = 0xffffffff81000000ull + i * 16 + f;
	ev->stack = ev->nstack ? frames : NULL;
}

static int fake_decode(struct mdb_input *in, const struct mdb_sink *sink,
		       struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct fake *f = in->priv;
	size_t cap = f->big + 256;
	char *buf = malloc(cap);
	uint64_t frames[8];
	int ret = 0;

	assert_non_null(buf);
	for (uint64_t i = 0; i < f->n && ret >= 0; i++) {
		struct mdb_event ev;

		if (f->fail_at && i == f->fail_at) {
			ret = mdb_error_set(e, MDB_E_CORRUPT, "fake", (int64_t)i,
					    -1, "event=%" PRIu64, i);
			break;
		}
		make(i, f->big, buf, cap, &ev, frames);
		st->events++;
		ret = sink->event(sink->ctx, &ev);
		/* the decoder's scratch is reused: nothing of it may stay */
		memset(buf, '#', cap);
		memset(frames, 0xa5, sizeof(frames));
	}
	free(buf);
	return ret;
}

/* The sink: checks each event against what it was (on the relay's
 * thread: no cmocka assertion there, the first wrong event is noted);
 * fails at fail_at. */
struct check {
	uint64_t seen;
	uint64_t fail_at;     /* its own error at event fail_at (0: none) */
	size_t big;
	struct mdb_error *e;
	uint64_t wrong;       /* 1 + the first event not as made; 0: none */
};

static int same_event(const struct mdb_event *ev, const struct mdb_event *w,
		      const uint64_t *frames)
{
	return ev->seq == w->seq && ev->ptr == w->ptr && ev->kind == w->kind &&
	       ev->site_text.len == w->site_text.len &&
	       !memcmp(ev->site_text.p, w->site_text.p, w->site_text.len) &&
	       ev->comm.len == w->comm.len &&
	       !memcmp(ev->comm.p, w->comm.p, w->comm.len) &&
	       ev->cache.len == 0 && ev->nstack == w->nstack &&
	       (w->nstack ? !memcmp(ev->stack, frames,
				    w->nstack * sizeof(uint64_t)) :
			    ev->stack == NULL);
}

static int check_event(void *ctx, const struct mdb_event *ev)
{
	struct check *c = ctx;
	size_t cap = c->big + 256;
	char *buf = malloc(cap);
	uint64_t frames[8];
	struct mdb_event want;
	int same;

	if (!buf)
		return -MDB_E_NOMEM;
	make(c->seen, c->big, buf, cap, &want, frames);
	same = same_event(ev, &want, frames);
	free(buf);
	if (!same) {
		c->wrong = c->seen + 1;
		return -MDB_E_INVAL;
	}
	if (c->fail_at && c->seen == c->fail_at)
		return mdb_error_set(c->e, MDB_E_NOMEM, "sink", -1, -1,
				     "at=%" PRIu64, c->seen);
	c->seen++;
	return 0;
}

static const struct mdb_input_ops fake_ops = { .decode = fake_decode };

/* Relay @f's events to a checking sink failing at @sink_fail; the
 * decode's result, *@seen the events the sink took. */
static int relay(struct fake *f, uint64_t sink_fail, uint64_t *seen,
		 uint64_t *decoded, struct mdb_error *e)
{
	struct mdb_input in = { .ops = &fake_ops, .priv = f };
	struct check c = { 0, sink_fail, f->big, e, 0 };
	struct mdb_sink sink = { &c, check_event, NULL };
	struct mdb_decode_stats st;
	int ret;

	memset(&st, 0, sizeof(st));
	mdb_error_clear(e);
	ret = mdb_relay_decode(&in, &sink, &st, e);
	assert_int_equal(c.wrong, 0);
	*seen = c.seen;
	*decoded = st.events;
	return ret;
}

static void test_every_event_in_order(void **state)
{
	struct fake f = { 100000, 0, 0 };
	struct mdb_error e;
	uint64_t seen, decoded;

	(void)state;
	assert_int_equal(relay(&f, 0, &seen, &decoded, &e), 0);
	assert_int_equal(seen, 100000);
	assert_int_equal(decoded, 100000);
	assert_int_equal(e.code, 0);
}

/* An event whose strings are larger than a batch's room for them. */
static void test_event_larger_than_a_batch(void **state)
{
	struct fake f = { 20000, 0, 1u << 20 };
	struct mdb_error e;
	uint64_t seen, decoded;

	(void)state;
	assert_int_equal(relay(&f, 0, &seen, &decoded, &e), 0);
	assert_int_equal(seen, 20000);
}

static void test_decoder_error_after_its_events(void **state)
{
	struct fake f = { 100000, 12345, 0 };
	struct mdb_error e;
	uint64_t seen, decoded;

	(void)state;
	assert_int_equal(relay(&f, 0, &seen, &decoded, &e), -MDB_E_CORRUPT);
	assert_int_equal(seen, 12345);
	assert_int_equal(e.code, MDB_E_CORRUPT);
	assert_string_equal(e.file, "fake");
	assert_int_equal(e.offset, 12345);
}

static void test_sink_error_stops_the_decoder(void **state)
{
	struct fake f = { 1000000, 0, 0 };
	struct mdb_error e;
	uint64_t seen, decoded;

	(void)state;
	assert_int_equal(relay(&f, 5000, &seen, &decoded, &e), -MDB_E_NOMEM);
	assert_int_equal(seen, 5000);   /* none after the failed one */
	assert_int_equal(e.code, MDB_E_NOMEM);
	assert_string_equal(e.file, "sink");
	/* the decoder stopped within a few batches of the failure */
	assert_true(decoded < 5000 + 8 * 4096);
}

/* Both fail: the sink first (in the events' order), so its error. */
static void test_sink_error_before_decoder_error(void **state)
{
	struct fake f = { 100000, 6000, 0 };
	struct mdb_error e;
	uint64_t seen, decoded;

	(void)state;
	assert_int_equal(relay(&f, 5000, &seen, &decoded, &e), -MDB_E_NOMEM);
	assert_int_equal(seen, 5000);
	assert_string_equal(e.file, "sink");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_event_in_order),
		cmocka_unit_test(test_event_larger_than_a_batch),
		cmocka_unit_test(test_decoder_error_after_its_events),
		cmocka_unit_test(test_sink_error_stops_the_decoder),
		cmocka_unit_test(test_sink_error_before_decoder_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
