// SPDX-License-Identifier: MIT
/*
 * The tracefs copy (ingest/trace/tracefs.c) and memdb record.
 *
 * testdata/real-tracefs holds the raw ring-buffer pages of a real 6.18
 * capture and the `trace` text of the very same buffer (see its README):
 * the binary and the text decoder, independent of each other, must give
 * the same reports.  Corrupt and cut pages are refused with their offset,
 * the database unchanged.  Tasks: common_pid, named by a saved_cmdlines
 * (tests/task_names.py writes one).  memdb record runs when this is root
 * on a machine with tracefs, and says why it skipped otherwise.
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

static char *dir, *fix;

static int setup(void **state)
{
	(void)state;
	dir = tmpdir("tracefs");
	if (asprintf(&fix, "%s/real-tracefs", env("TESTDATA")) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(fix);
	free(dir);
	return 0;
}

static void symbolize(const char *db)
{
	struct run r;

	run_memdb(&r, db, "symbolize --kallsyms '%s/kallsyms'", fix);
	assert_run_ok(&r);
	run_free(&r);
}

/* Raw pages and the trace text of the same buffer: the same reports. */
static void test_same_as_text(void **state)
{
	/* the tasks: common_pid of the pages, comm-pid of the text */
	static const char *const reports[] = { "summary", "fragmentation",
					       "callsites", "pingpong",
					       "callsites --by pid" };
	char *raw = fresh_db(dir, "raw.db"), *text = fresh_db(dir, "text.db");

	(void)state;
	ingest_ok(raw, "'%s'", fix);
	ingest_ok(text, "--kallsyms '%s/kallsyms' '%s/trace.txt.zst'", fix,
		  fix);
	symbolize(raw);
	symbolize(text);
	{
		char *src = db_text(raw, "SELECT format, ncpus, byte_order "
					 "FROM source");

		assert_string_equal(src, "tracefs,2,little\n");
		free(src);
	}
	assert_true(db_int(raw, "SELECT events FROM source") > 1000);
	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
		char *a = report_csv(raw, reports[i]);
		char *b = report_csv(text, reports[i]);

		if (strcmp(a, b))
			fail_msg("%s differs:\n%s\n---\n%s", reports[i], a, b);
		free(a);
		free(b);
	}
	free(raw);
	free(text);
}

/*
 * The same capture as a big-endian machine writes it, re-encoded by an
 * independent script (tests/tracefs_swap.py): the same reports.
 */
static void test_big_endian(void **state)
{
	static const char *const reports[] = { "summary", "fragmentation",
					       "errors", "leaks", "pingpong",
					       "callsites --by pid" };
	char *be = path_in(dir, "be"), *le_db = fresh_db(dir, "le.db");
	char *be_db = fresh_db(dir, "be.db"), *order;
	struct run r;

	(void)state;
	run(&r, "rm -rf '%s' && python3 '%s/tracefs_swap.py' '%s' '%s'", be,
	    env("TESTS_DIR"), fix, be);
	assert_run_ok_msg(&r, "tracefs_swap.py");
	run_free(&r);
	ingest_ok(le_db, "'%s'", fix);
	ingest_ok(be_db, "'%s'", be);
	order = db_text(be_db, "SELECT byte_order FROM source");
	assert_string_equal(order, "big\n");
	free(order);
	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
		char *a = report_csv(le_db, reports[i]);
		char *b = report_csv(be_db, reports[i]);

		if (strcmp(a, b))
			fail_msg("%s differs:\n%s\n---\n%s", reports[i], a, b);
		free(a);
		free(b);
	}
	free(be);
	free(le_db);
	free(be_db);
}

/* A copy of the fixture's directory with one file replaced. */
static char *copy_fixture(const char *name)
{
	char *d = path_in(dir, name);
	struct run r;

	run(&r, "rm -rf '%s' && cp -r '%s' '%s'", d, fix, d);
	assert_run_ok(&r);
	run_free(&r);
	return d;
}

static void refused(const char *d, const char *what, const char *offset)
{
	char *db = fresh_db(dir, "bad.db"), *before;
	struct run r;

	ingest_ok(db, "'%s/trace.txt.zst'", fix);
	before = db_counts(db);
	run_memdb(&r, db, "ingest '%s'", d);
	assert_run_status(&r, 1);
	if (!strstr(r.err, what) || !strstr(r.err, offset))
		fail_msg("expected '%s' at %s, got: %s", what, offset, r.err);
	run_free(&r);
	{
		char *after = db_counts(db);

		assert_string_equal(before, after);
		free(after);
	}
	free(before);
	free(db);
}

/* The reports by task of databases @a and @b: the same. */
static void same_by_task(const char *a, const char *b, const char *what)
{
	static const char *const reports[] = { "callsites --by comm",
					       "callsites --by pid" };

	for (size_t i = 0; i < 2; i++) {
		char *x = report_csv(a, reports[i]);
		char *y = report_csv(b, reports[i]);

		if (strcmp(x, y))
			fail_msg("%s: %s differs:\n%s\n---\n%s", what,
				 reports[i], x, y);
		free(x);
		free(y);
	}
}

/*
 * A copy with a saved_cmdlines that tests/task_names.py writes from the
 * text's tasks, a task left out, one named "<...>", one a terminal
 * escape, and lines of other shapes; the text edited to match: the same
 * reports by task, the hits per comm as tests/task_hits.awk counts them
 * in the text; the same again from the copy re-encoded big-endian.
 */
static void test_task_names(void **state)
{
	char *d = copy_fixture("names"), *be = path_in(dir, "names-be");
	char *raw = fresh_db(dir, "raw.db"), *text = fresh_db(dir, "text.db");
	char *be_db = fresh_db(dir, "be.db"), *a, *b;
	struct run r;

	(void)state;
	run(&r, "cd '%s' && zstd -dcfq '%s/trace.txt.zst' -o in.txt && "
		"python3 '%s/task_names.py' tracefs in.txt "
		"'%s/saved_cmdlines' out.txt && rm -rf '%s' && "
		"python3 '%s/tracefs_swap.py' '%s' '%s'", dir, fix,
	    env("TESTS_DIR"), d, be, env("TESTS_DIR"), d, be);
	assert_run_ok_msg(&r, "task_names.py");
	run_free(&r);
	ingest_ok(raw, "'%s'", d);
	ingest_ok(text, "'%s/out.txt'", dir);
	ingest_ok(be_db, "'%s'", be);
	assert_true(db_int(raw, "SELECT count(*) FROM alloc "
				"WHERE comm_id IS NULL") > 0);
	assert_true(db_int(raw, "SELECT count(*) FROM alloc a JOIN str s "
				"ON s.source_id = a.source_id AND "
				"s.id = a.comm_id "
				"WHERE s.text = char(27) || '[m'") > 0);
	same_by_task(raw, text, "raw and text");
	same_by_task(raw, be_db, "little and big-endian");
	run(&r, "'%s' report callsites --by comm --format csv -d '%s' | "
		"awk -F, 'NR > 1 && $1 != \"total\" { print $1 \",\" $2 }' | "
		"LC_ALL=C sort > '%s/memdb.hits' && "
		"awk -f '%s/task_hits.awk' '%s/out.txt' | LC_ALL=C sort | "
		"cmp - '%s/memdb.hits'", env("MEMDB"), raw, dir,
	    env("TESTS_DIR"), dir, dir);
	if (r.status)
		fail_run(&r, "hits per comm differ from awk's: %s", r.out);
	run_free(&r);
	a = db_text(raw, "SELECT count(DISTINCT comm_id) FROM alloc");
	b = db_text(text, "SELECT count(DISTINCT comm_id) FROM alloc");
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(d);
	free(be);
	free(raw);
	free(text);
	free(be_db);
}

/* A page whose commit size runs past the page, a file cut mid-page. */
static void test_corrupt(void **state)
{
	char *d = copy_fixture("corrupt");
	struct run r;

	(void)state;
	/* commit of the second page of cpu0: 0xffff bytes */
	run(&r, "printf '\\377\\377' | dd of='%s/per_cpu/cpu0/trace_pipe_raw' "
		"bs=1 seek=4104 conv=notrunc status=none", d);
	assert_run_ok(&r);
	run_free(&r);
	refused(d, "page commit size past the page end", "offset=4104");
	free(d);
	d = copy_fixture("cut");
	run(&r, "truncate -s 5000 '%s/per_cpu/cpu1/trace_pipe_raw'", d);
	assert_run_ok(&r);
	run_free(&r);
	refused(d, "last ring-buffer page cut short", "offset=4096");
	free(d);
	d = copy_fixture("noformats");
	run(&r, "rm -rf '%s/events'", d);
	run_free(&r);
	refused(d, "no kmem event formats", "");
	free(d);
}

/* memdb record on this machine, when it can. */
static void test_record(void **state)
{
	char *out = path_in(dir, "rec"), *db = fresh_db(dir, "rec.db");
	struct run r;
	struct stat st;

	(void)state;
	if (geteuid() != 0 || stat("/sys/kernel/tracing/events/kmem", &st)) {
		printf("SKIPPED test_record: needs root and tracefs at "
		       "/sys/kernel/tracing (euid %d)\n", (int)geteuid());
		free(out);
		free(db);
		return;
	}
	/* record in the background to learn its pid: its instance is
	 * memdb-PID (other recorders may run on this machine meanwhile) */
	run(&r, "rm -rf '%s' && { %s record -o '%s' -- sh -c 'ls -R "
		"/usr/share > /dev/null' & p=$!; wait $p || exit 1; echo pid=$p; "
		"ls /sys/kernel/tracing/instances | grep -c \"^memdb-$p$\" "
		"|| true; }", out, env("MEMDB"), out);
	assert_run_ok_msg(&r, "record");
	assert_non_null(strstr(r.out, "memdb ingest"));
	/* the instance is gone */
	assert_non_null(strstr(r.out, "\n0\n"));
	run_free(&r);
	ingest_ok(db, "'%s'", out);
	assert_true(db_int(db, "SELECT events FROM source") > 0);
	assert_true(db_int(db, "SELECT count(*) FROM source_file") >= 1);
	/* every event names its task (common_pid); saved_cmdlines, copied
	 * when tracefs has it, names most of them */
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc WHERE pid "
				    "IS NULL"), 0);
	{
		char *cmd = path_in(out, "saved_cmdlines");

		if (stat(cmd, &st) == 0)
			assert_true(db_int(db, "SELECT count(comm_id) * 2 > "
					       "count(*) FROM alloc") == 1);
		else
			printf("no saved_cmdlines in tracefs: comm not "
			       "checked\n");
		free(cmd);
	}
	free(out);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_text),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_task_names),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests_name("tracefs copy and memdb record",
					   tests, setup, teardown);
}
