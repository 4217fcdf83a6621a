// SPDX-License-Identifier: MIT
/*
 * Out of memory: `memdb ingest` run with its address space limited
 * (`ulimit -v`, RLIMIT_AS) from below what it needs to start up to what
 * it needs to finish, a megabyte at a time, so that allocations at
 * different points (the mapped input, malloc, SQLite's caches, the hash
 * maps' huge-page regions, the threads' stacks, the libraries' own) fail
 * in different runs.  Every run must end within a minute with status 0,
 * the source ingested whole, or status 1 saying "out of memory", the
 * database as it was and whole (PRAGMA integrity_check): never a crash,
 * a hang or a partial source.  One input of each decoder family:
 * perf.data, trace.dat, ftrace text, kmemtrace, tracefs ring-buffer
 * pages, /proc/slabinfo and /proc/allocinfo snapshots and a kernel core
 * dump, each into a database holding a slabinfo snapshot already.  The
 * stack limit is set too (8 MB, the usual default): the threads' stacks
 * are that size and count against the address space.
 *
 * Skipped under the sanitizers, whose shadow memory makes an address
 * space limit meaningless.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"

#define LOW_MB 8    /* below what memdb needs to start */
#define HIGH_MB 400 /* what it needs to finish, with room */

static char *tmp;

static int sanitized(void)
{
	const char *s = getenv("MEMDB_SAN");

	if (s && *s) {
		print_message("skipped: built with sanitizers (SAN=%s): their "
			      "shadow memory defeats an address space "
			      "limit\n", s);
		return 1;
	}
	return 0;
}

/*
 * Ingest @input (memdb ingest arguments) into a copy of a database
 * holding one source, under limits from LOW_MB up, a megabyte at a time,
 * until it succeeds; check every run.  A small snapshot may need no
 * more than memdb needs to start (@can_fail 0): then no run has to fail.
 */
static void sweep(const char *name, const char *input, int can_fail)
{
	char *base = path_in(tmp, "base.db"), *db = path_in(tmp, "nomem.db");
	char *counts, *after;
	struct run r;
	int failed = 0, mb;

	run(&r, "rm -f '%s'* && '%s' ingest -q -d '%s' "
		"'%s/real-6.18-small/slabinfo.before'", base, env("MEMDB"),
	    base, env("TESTDATA"));
	assert_run_ok(&r);
	run_free(&r);
	counts = db_counts(base);
	for (mb = LOW_MB; mb <= HIGH_MB; mb++) {
		run(&r, "rm -f '%s'* && cp '%s' '%s' && ulimit -s 8192 && "
			"ulimit -v %d && exec timeout -k 5 60 '%s' ingest -q "
			"-d '%s' %s", db, base, db, mb * 1024, env("MEMDB"),
		    db, input);
		/* too little for the dynamic loader: memdb never ran */
		if (r.status == 127 &&
		    strstr(r.err, "error while loading shared libraries")) {
			run_free(&r);
			continue;
		}
		if (r.status != 0 && r.status != 1)
			fail_run(&r, "%s at %d MB: expected exit status 0 or 1",
				 name, mb);
		/* libkdumpfile's loader says only "failed to map": memdb
		 * cannot tell want of memory from a noexec mount there */
		if (r.status == 1 && !strstr(r.err, "out of memory") &&
		    !strstr(r.err, "the loader could not map it"))
			fail_msg("%s at %d MB: stderr: %s", name, mb, r.err);
		run_free(&r);
		assert_int_equal(db_int(db, "SELECT count(*) FROM "
					"pragma_integrity_check WHERE "
					"integrity_check <> 'ok'"), 0);
		if (r.status == 0)
			break;
		after = db_counts(db);
		if (strcmp(counts, after))
			fail_msg("%s at %d MB: the database changed: %s -> %s",
				 name, mb, counts, after);
		free(after);
		failed++;
	}
	if (mb > HIGH_MB)
		fail_msg("%s: not ingested with %d MB", name, HIGH_MB);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 2);
	print_message("%s: %d runs out of memory, ingested with %d MB\n", name,
		      failed, mb);
	assert_true(!can_fail || failed > 0);
	free(counts);
	free(base);
	free(db);
}

/* @name unpacked from testdata's @zst into the test's directory. */
static char *unpacked(const char *zst, const char *name)
{
	char *p = path_in(tmp, name);
	struct run r;

	run(&r, "zstd -dqfc '%s/%s' > '%s'", env("TESTDATA"), zst, p);
	assert_run_ok(&r);
	run_free(&r);
	return p;
}

static void test_trace_inputs(void **state)
{
	char *perf = unpacked("real-perf/slab.data.zst", "slab.data");
	char *dat = unpacked("real-tracedat/v7.dat.zst", "v7.dat");
	char *text = unpacked("real-6.18-small/ftrace.txt.zst", "ftrace.txt");
	char *arg;
	struct run r;

	(void)state;
	if (sanitized()) {
		free(perf);
		free(dat);
		free(text);
		skip();
	}
	arg = strf("'%s'", perf);
	sweep("perf.data", arg, 1);
	free(arg);
	arg = strf("'%s'", dat);
	sweep("trace.dat", arg, 1);
	free(arg);
	arg = strf("'%s'", text);
	sweep("ftrace text", arg, 1);
	free(arg);
	arg = path_in(tmp, "kt");
	run(&r, "rm -rf '%s' && cp -r '%s/real-6.18-small/kmemtrace-v1-le' "
		"'%s' && zstd -dq --rm '%s'/cpu*.zst", arg, env("TESTDATA"), arg,
	    arg);
	assert_run_ok(&r);
	run_free(&r);
	arg = restrf(arg, "'%s/kt'", tmp);
	sweep("kmemtrace", arg, 1);
	arg = restrf(arg, "'%s/real-diff/a'", env("TESTDATA"));
	sweep("tracefs", arg, 1);
	free(arg);
	free(perf);
	free(dat);
	free(text);
}

static void test_snapshot_inputs(void **state)
{
	char *ks = unpacked("vmcore/nokaslr.kallsyms.zst", "nokaslr.kallsyms");
	char *arg;

	(void)state;
	if (sanitized()) {
		free(ks);
		skip();
	}
	arg = strf("'%s/real-6.18-small/slabinfo.after'", env("TESTDATA"));
	sweep("slabinfo", arg, 0);
	arg = restrf(arg, "'%s/succeed/snapshots/allocinfo-t0.txt'",
		     env("TESTDATA"));
	sweep("allocinfo", arg, 0);
	free(arg);
	arg = strf("--kallsyms '%s' '%s/vmcore/nokaslr.kdump'", ks,
		   env("TESTDATA"));
	sweep("vmcore", arg, 1);
	free(arg);
	free(ks);
}

static int setup(void **state)
{
	(void)state;
	tmp = tmpdir("nomem");
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
		cmocka_unit_test(test_trace_inputs),
		cmocka_unit_test(test_snapshot_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
