// SPDX-License-Identifier: MIT
/*
 * Every trace input of known size says how far its decode has come
 * (mdb_input_position(): what memdb ingest's percentage and time left
 * are made of): perf.data, trace.dat (v6, v7, v7 with zstd-compressed
 * CPU data, read through libtracecmd), a tracefs copy, ftrace text, a
 * kmemtrace relay capture and the ftrace-era binary.  Sampled at each
 * event, the position never goes back nor past the size, and the last
 * sample is within a few pages of the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../ingest/ingest.h"
#include "testlib.h"

struct track {
	struct mdb_input *in;
	uint64_t events, last, size;
	int unknown;   /* the position was unknown at an event */
};

static int on_event(void *ctx, const struct mdb_event *ev)
{
	struct track *t = ctx;
	uint64_t done, size;

	(void)ev;
	t->events++;
	if (mdb_input_position(t->in, &done, &size) < 0) {
		t->unknown = 1;
		return 0;
	}
	if (done < t->last || done > size)
		fail_msg("position %llu after %llu, of %llu",
			 (unsigned long long)done, (unsigned long long)t->last,
			 (unsigned long long)size);
	t->last = done;
	t->size = size;
	return 0;
}

static void check_input(const char *path, int rounds)
{
	struct mdb_ingest_opts o;
	struct mdb_decode_stats st;
	struct mdb_error e;
	struct track t = { 0 };
	struct mdb_sink sink = { &t, on_event, NULL };

	mdb_ingest_opts_init(&o);
	o.rounds = rounds; /* perf.data: as memdb ingest reads it, or not */
	mdb_error_clear(&e);
	if (mdb_input_open(path, &o, &t.in, &e) < 0 ||
	    mdb_input_prepare(t.in, &e) < 0 ||
	    mdb_input_decode(t.in, &sink, &st, &e) < 0)
		fail_msg("%s: %s %s", path, e.msg, e.detail);
	mdb_input_close(t.in);
	if (t.unknown || !t.size)
		fail_msg("%s: no position while decoding", path);
	/* the last event is read within the last pages of the data */
	if (t.size - t.last > 16384 && t.last < t.size - t.size / 20)
		fail_msg("%s: last position %llu of %llu", path,
			 (unsigned long long)t.last,
			 (unsigned long long)t.size);
	print_message("%s: %llu events, at the last %llu of %llu\n",
		      strrchr(path, '/') + 1, (unsigned long long)t.events,
		      (unsigned long long)t.last, (unsigned long long)t.size);
}

static char *tmp;

/* @fixture (under $TESTDATA) decompressed into the temporary directory. */
static char *unzstd(const char *fixture, const char *name)
{
	char *out = path_in(tmp, name);
	struct run r;

	run(&r, "zstd -dqf '%s/%s' -o '%s'", env("TESTDATA"), fixture, out);
	assert_run_ok(&r);
	run_free(&r);
	return out;
}

static void test_every_trace(void **state)
{
	static const char *const zst[][2] = {
		{ "real-perf/slab.data.zst", "slab.data" },
		{ "real-tracedat/v6.dat.zst", "v6.dat" },
		{ "real-tracedat/v7.dat.zst", "v7.dat" },
		{ "real-6.18-small/ftrace.txt.zst", "ftrace.txt" },
	};
	static const char *const plain[] = {
		"real-tracedat/v7-zstd.dat",
		"real-tracefs",
		"succeed/kt-small-le",
		"succeed/ktf-small-lp64-le.bin",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(zst) / sizeof(*zst); i++) {
		char *p = unzstd(zst[i][0], zst[i][1]);

		check_input(p, 1);
		if (i == 0)
			check_input(p, 0);
		free(p);
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
		char *p = strf("%s/%s", env("TESTDATA"), plain[i]);

		check_input(p, 1);
		free(p);
	}
}

static int setup(void **state)
{
	(void)state;
	tmp = tmpdir("progress");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_trace),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
