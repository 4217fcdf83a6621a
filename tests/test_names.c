// SPDX-License-Identifier: MIT
/*
 * Names without an extra step: a trace ingested with its kernel's
 * symbols (--kallsyms, or the kallsyms a trace.dat carries) has its call
 * sites and stack frames named by memdb ingest itself, as perf script and
 * trace-cmd report name them; a report on a source whose sites are not
 * named says so, with the command that names them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

static char *tmp;

/* stdout of a shell command that must succeed. */
static char *out_of(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *cmd, *out;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run(&r, "%s", cmd);
	if (r.status)
		fail_msg("%s: status %d: %s", cmd, r.status, r.err);
	out = r.out;
	r.out = NULL;
	run_free(&r);
	free(cmd);
	return out;
}

/*
 * perf record -g with --kallsyms: report stacks equals
 * tests/fold_perf_script.py folding perf script's own text of the file,
 * with no memdb symbolize in between.
 */
static void test_perf_stacks(void **state)
{
	char *db = fresh_db(tmp, "cg.db"), *want, *got, *out;
	const char *fix = env("TESTDATA");

	(void)state;
	out = out_of("zstd -dqc '%s/real-perf/cg.data.zst' > '%s/cg.data' && "
		     "'%s' ingest -d '%s' --kallsyms "
		     "'%s/real-perf/stacks.kallsyms' '%s/cg.data'", fix, tmp,
		     env("MEMDB"), db, fix, tmp);
	if (!strstr(out, "named 206 of 206 call sites (kallsyms)"))
		fail_msg("stdout: %s", out);
	free(out);
	want = out_of("zstd -dqc '%s/real-perf/cg.script.zst' | "
		      "python3 '%s/fold_perf_script.py'", fix,
		      env("TESTS_DIR"));
	got = out_of("'%s' report stacks --format folded -d '%s'",
		     env("MEMDB"), db);
	assert_true(strlen(want) > 1000);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(db);
}

/*
 * A trace.dat alone: the call sites named by its own kallsyms are the
 * ones trace-cmd report prints for the allocation events.
 */
static void test_tracedat_sites(void **state)
{
	const char *fix = env("TESTDATA");
	char *db = fresh_db(tmp, "v7.db"), *want, *got;
	struct run r;

	(void)state;
	free(out_of("zstd -dqc '%s/real-tracedat/v7.dat.zst' > '%s/v7.dat'",
		    fix, tmp));
	ingest_ok(db, "'%s/v7.dat'", tmp);
	want = out_of("zstd -dqc '%s/real-tracedat/v7.txt.zst' | grep -E "
		      "'(kmalloc|kmem_cache_alloc)(_node)?:' | grep -o "
		      "'call_site=[^ ]*' | cut -d= -f2 | LC_ALL=C sort -u",
		      fix);
	got = out_of("'%s' report callsites --top 0 --format csv -d '%s' | "
		     "awk -F, 'NR > 1 && $1 != \"total\" { print $2 }' | "
		     "LC_ALL=C sort -u", env("MEMDB"), db);
	assert_true(strlen(want) > 500);
	assert_string_equal(got, want);
	free(got);
	free(want);
	/* named already: no note, on the table's stderr or stdout */
	run_memdb(&r, db, "report callsites --top 3");
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "not named"));
	assert_null(strstr(r.err, "not named"));
	run_free(&r);
	free(db);
}

/* Unnamed sites: the report says how many and how to name them; after
 * that command, no more. */
static void test_unnamed_note(void **state)
{
	const char *fix = env("TESTDATA");
	char *db = fresh_db(tmp, "slab.db");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/real-perf/slab.data.zst'", fix);
	run_memdb(&r, db, "report callsites --top 3");
	assert_int_equal(r.status, 0);
	if (!strstr(r.out, "note: source 1: 151 call sites not named: memdb "
			   "symbolize --source 1 --kallsyms FILE"))
		fail_msg("stdout: %s", r.out);
	run_free(&r);
	run_memdb(&r, db, "report callsites --top 3 --format csv");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "151 call sites not named"));
	run_free(&r);
	/* --no-symbolize keeps the addresses although symbols are given */
	free(db);
	db = fresh_db(tmp, "nosym.db");
	ingest_ok(db, "--no-symbolize --kallsyms '%s/real-perf/kallsyms' "
		  "'%s/real-perf/slab.data.zst'", fix, fix);
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol"), 0);
	run_memdb(&r, db, "symbolize -q --kallsyms '%s/real-perf/kallsyms'",
		  fix);
	assert_int_equal(r.status, 0);
	run_free(&r);
	run_memdb(&r, db, "report callsites --top 3");
	assert_null(strstr(r.out, "not named"));
	run_free(&r);
	free(db);
}

/* A compressed kallsyms or System.map is read as the inputs are: the
 * dump with its .zst System.map, a symbolize with a gzip'ed kallsyms. */
static void test_compressed_kallsyms(void **state)
{
	const char *fix = env("TESTDATA");
	char *db = fresh_db(tmp, "zks.db");
	struct run r;

	(void)state;
	ingest_ok(db, "--kallsyms '%s/vmcore/nokaslr.kallsyms.zst' "
		  "'%s/vmcore/nokaslr.kdump'", fix, fix);
	free(db);
	db = fresh_db(tmp, "gzks.db");
	free(out_of("gzip -c '%s/real-perf/kallsyms' > '%s/kallsyms.gz'", fix,
		    tmp));
	ingest_ok(db, "--no-symbolize '%s/real-perf/slab.data.zst'", fix);
	run_memdb(&r, db, "symbolize --kallsyms '%s/kallsyms.gz'", tmp);
	assert_int_equal(r.status, 0);
	if (!strstr(r.out, "151 from kallsyms; 0 unknown"))
		fail_msg("stdout: %s", r.out);
	run_free(&r);
	free(db);
}

/* A kallsyms given as the input: refused with the option it is for. */
static void test_kallsyms_as_input(void **state)
{
	char *db = fresh_db(tmp, "ksin.db");
	struct run r;

	(void)state;
	run_memdb(&r, db, "ingest '%s/real-perf/kallsyms'", env("TESTDATA"));
	assert_int_equal(r.status, 1);
	if (!strstr(r.err, "input not recognised") ||
	    !strstr(r.err, "this is a kallsyms or System.map: give it as "
			   "--kallsyms FILE"))
		fail_msg("stderr: %s", r.err);
	run_free(&r);
	free(db);
}

/*
 * /proc's files say they are empty (st_size 0) and are made as they are
 * read: /proc/slabinfo given as a path ingests its caches (as many as
 * its lines say, within a cache or two made meanwhile), taken now.
 */
static void test_proc_file(void **state)
{
	char *db = fresh_db(tmp, "proc.db");
	int64_t zones, lines, taken;
	struct run r;

	(void)state;
	run(&r, "tail -n +3 /proc/slabinfo | wc -l");
	if (r.status || atoi(r.out) <= 0) {
		print_message("skipped: /proc/slabinfo is not readable here "
			      "(root only)\n");
		run_free(&r);
		free(db);
		skip();
	}
	lines = atoi(r.out);
	run_free(&r);
	ingest_ok(db, "/proc/slabinfo");
	zones = db_int(db, "SELECT count(*) FROM zone");
	taken = db_int(db, "SELECT strftime('%s', 'now') - "
			   "strftime('%s', taken_at) FROM source");
	if (zones < lines - 2 || zones > lines + 2 || taken < 0 || taken > 120)
		fail_msg("%lld zones for %lld lines, taken %lld s ago",
			 (long long)zones, (long long)lines, (long long)taken);
	free(db);
}

static int setup(void **state)
{
	(void)state;
	tmp = tmpdir("names");
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
		cmocka_unit_test(test_perf_stacks),
		cmocka_unit_test(test_tracedat_sites),
		cmocka_unit_test(test_unnamed_note),
		cmocka_unit_test(test_compressed_kallsyms),
		cmocka_unit_test(test_kallsyms_as_input),
		cmocka_unit_test(test_proc_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
