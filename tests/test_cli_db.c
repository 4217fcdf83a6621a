// SPDX-License-Identifier: MIT
/*
 * The database as users meet it, through the binary: which source a
 * report takes by default (the latest of the kind it reads), sources of
 * the wrong kind, re-ingest with a new --label, untrusted strings on a
 * terminal, `memdb sql` that cannot write, read-only databases, what a
 * rejected ingest leaves behind, waiting for another memdb, and the exit
 * codes the README promises.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("cli_db");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

#define MEMDB(r, db, ...) run_memdb(r, db, __VA_ARGS__)

/* A committed fixture's path, malloc'ed. */
static char *fixture(const char *rel)
{
	return path_in(env("TESTDATA"), rel);
}

/* Does @hay contain @needle?  (A failing test shows both.) */
static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' not found in:\n%s", needle, hay);
}

/*
 * Sources 1 (trace kt-small-le), 2 and 3 (slabinfo, label demo, the
 * second later), as make demo ingests them: the latest source is a
 * snapshot.
 */
static char *demo_like_db(const char *name)
{
	char *db = fresh_db(tmp, name);
	char *kt = fixture("succeed/kt-small-le");
	char *a = fixture("real-6.18-small/slabinfo.before");
	char *b = fixture("real-6.18-small/slabinfo.after");

	ingest_ok(db, "'%s'", kt);
	ingest_ok(db, "--label demo --time 2026-11-22T10:00:00Z '%s'", a);
	ingest_ok(db, "--label demo --time 2026-11-22T10:00:01Z '%s'", b);
	free(kt);
	free(a);
	free(b);
	return db;
}

/* kt-small-le's fragmentation total, worked out in test_cli.c */
static const char small_total[] = "total,,7,640,800,160,20.000000\n";

static void test_default_source_by_kind(void **state)
{
	char *db = demo_like_db("kind.db");
	struct run r;

	(void)state;
	/* a trace report takes the latest trace, not slabinfo source 3 */
	MEMDB(&r, db, "report fragmentation");
	assert_int_equal(r.status, 0);
	assert_has(r.out, "source 1: kmemtrace-relay");
	assert_null(strstr(r.out, "(no rows)"));
	run_free(&r);
	MEMDB(&r, db, "report fragmentation --format csv");
	assert_int_equal(r.status, 0);
	assert_has(r.out, small_total);
	run_free(&r);
	MEMDB(&r, db, "report summary --format json");
	assert_int_equal(r.status, 0);
	assert_has(r.out, "\"source\": 1,");
	run_free(&r);

	/* a snapshot report the latest snapshot, even after a trace */
	ingest_ok(db, "'%s/succeed/kt-small-be'", env("TESTDATA"));
	MEMDB(&r, db, "report zones --format json --top 1");
	assert_int_equal(r.status, 0);
	assert_has(r.out, "\"source\": 3,");
	run_free(&r);
	MEMDB(&r, db, "report growth --format json --top 1");
	assert_int_equal(r.status, 0);
	assert_has(r.out, "\"source\": {\"from\": 2, \"to\": 3}");
	run_free(&r);

	/* allocinfo reads tags: there are none */
	MEMDB(&r, db, "report allocinfo");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "allocation-tag snapshot");
	assert_has(r.err, "holds none");
	run_free(&r);
	free(db);
}

static void test_wrong_kind_refused(void **state)
{
	char *db = demo_like_db("wrongkind.db");
	char *ai = fixture("succeed/snapshots/allocinfo-t0.txt");
	char *vz = fixture("succeed/memstat/vmstat-z.txt");
	struct run r;

	(void)state;
	/* an explicit source of the wrong kind: a usage error, no table */
	MEMDB(&r, db, "report fragmentation --source 3");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "reads a trace");
	assert_has(r.err, "source 3 is a zone snapshot");
	run_free(&r);
	MEMDB(&r, db, "report zones --source 1");
	assert_int_equal(r.status, 2);
	assert_has(r.err, "source 1 is a trace");
	run_free(&r);
	MEMDB(&r, db, "report growth --source 1");
	assert_int_equal(r.status, 2);
	run_free(&r);
	MEMDB(&r, db, "report growth --from 1 --to 3");
	assert_int_equal(r.status, 2);
	assert_has(r.err, "source 1 is a trace");
	run_free(&r);

	/* growth across kinds: allocinfo (4) against vmstat -z (5) */
	ingest_ok(db, "--label x '%s'", ai);
	ingest_ok(db, "--label x '%s'", vz);
	MEMDB(&r, db, "report growth --from 4 --to 5");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "different kinds");
	run_free(&r);
	MEMDB(&r, db, "report growth --from 5 --to 2");
	assert_int_equal(r.status, 0); /* two zone snapshots compare */
	run_free(&r);

	/* growth between two traces points to the diff report */
	ingest_ok(db, "'%s/succeed/kt-small-be'", env("TESTDATA"));
	MEMDB(&r, db, "report growth --from 1 --to 6");
	assert_int_equal(r.status, 2);
	assert_has(r.err, "are traces");
	assert_has(r.err, "'diff' report");
	run_free(&r);
	free(ai);
	free(vz);
	free(db);
}

/* Traces only: growth --from --to of two traces still names diff. */
static void test_growth_traces_only(void **state)
{
	char *db = fresh_db(tmp, "traces.db");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	ingest_ok(db, "'%s/succeed/kt-small-be'", env("TESTDATA"));
	MEMDB(&r, db, "report growth --from 1 --to 2");
	assert_int_equal(r.status, 2);
	assert_has(r.err, "'diff' report");
	run_free(&r);
	MEMDB(&r, db, "report growth");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "holds none");
	run_free(&r);
	free(db);
}

/* Every report, variants too, declares the kinds of source it reads. */
static void test_reports_declare_kind(void **state)
{
	struct run r;

	(void)state;
	run(&r, "cd '%s/../report/sql' && for f in *.sql; do "
		"grep -Eq '^-- source: (trace|tags\\|zones|tags|zones)$' "
		"\"$f\" || echo \"$f\"; done", env("TESTS_DIR"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_source_by_kind),
		cmocka_unit_test(test_wrong_kind_refused),
		cmocka_unit_test(test_growth_traces_only),
		cmocka_unit_test(test_reports_declare_kind),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
