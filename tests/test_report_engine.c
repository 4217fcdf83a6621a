// SPDX-License-Identifier: MIT
/*
 * The report engine (report/): the header annotations of the embedded
 * reports, choosing a report and its variant, the options' values and
 * the usage errors, and a run whose rows and total are checked against
 * figures counted by hand from testdata/succeed/ftrace-6.18/trace; the
 * fragments the queries share (report/fragment.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../report/fragment.h"
#include "../report/report.h"
#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("report-engine");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* The annotation @key of @q as a malloc'ed string, NULL when absent. */
static char *annot(const struct mdb_query *q, const char *key)
{
	size_t len;
	const char *v = mdb_query_annot(q, key, &len);

	return v ? strndup(v, len) : NULL;
}

static void test_annotations(void **state)
{
	const struct mdb_query q = { "t",
		"-- SPDX-License-Identifier: MIT\n"
		"--   help:   spaces before and after\n"
		"-- by: a|bb|c\n"
		"-- sort:\n"
		"--\n"
		"-- scope: one source\n"
		"\n"
		"-- note: after the header, not an annotation\n"
		"SELECT 1;\n" };
	char *v;

	(void)state;
	v = annot(&q, "help");
	assert_string_equal(v, "spaces before and after");
	free(v);
	v = annot(&q, "by");
	assert_string_equal(v, "a|bb|c");
	assert_true(mdb_query_in_list(v, strlen(v), "bb"));
	assert_true(mdb_query_in_list(v, strlen(v), "c"));
	assert_false(mdb_query_in_list(v, strlen(v), "b"));
	assert_false(mdb_query_in_list(v, strlen(v), "a|bb"));
	assert_false(mdb_query_in_list(v, 1, "bb")); /* only "a" */
	free(v);
	v = annot(&q, "sort");
	assert_string_equal(v, "");
	free(v);
	v = annot(&q, "scope");
	assert_string_equal(v, "one source");
	free(v);
	assert_null(annot(&q, "note")); /* a blank line ends the header */
	assert_null(annot(&q, "he"));
}

/* What embed.sh checked once: every report says what it is; and every
 * variant NAME@x is a value of its report's "-- by:". */
static void test_embedded_reports(void **state)
{
	size_t n, len;
	const struct mdb_query *q = mdb_query_all(&n);

	(void)state;
	assert_true(n >= 13);
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr(q[i].name, '@'), *by;
		char *base;

		assert_non_null(mdb_query_annot(&q[i], "help", &len));
		assert_true(len > 10);
		if (i)
			assert_true(strcmp(q[i - 1].name, q[i].name) < 0);
		if (!at)
			continue;
		base = strndup(q[i].name, (size_t)(at - q[i].name));
		assert_non_null(mdb_query_find(base));
		by = mdb_query_annot(mdb_query_find(base), "by", &len);
		assert_non_null(by);
		assert_true(mdb_query_in_list(by, len, at + 1));
		free(base);
	}
}

/* @sql expanded from @shared: a malloc'ed string, NULL on an error. */
static char *expand(const char *sql, const char *shared)
{
	struct mdb_error e;
	size_t len;
	char *out;

	mdb_error_clear(&e);
	out = mdb_sql_expand(sql, strlen(sql), shared, "x.sql", &len, &e);
	if (out)
		assert_int_equal(len, strlen(out));
	else
		assert_non_null(strstr(e.msg, "x.sql"));
	return out;
}

/* A fragment call becomes its text, the arguments (nested parentheses,
 * quoted commas, calls of their own) in place of its formals. */
static void test_fragments(void **state)
{
	static const char shared[] =
		"-- two fragments; comments may hold ';'\n"
		"@pair(a, b) = ($a, $b, $ab) -- $a, not in the text\n;\n"
		"@one() = 1;\n";
	char *s;

	(void)state;
	s = expand("SELECT @pair(f(1, 2), 'x,)') -- @pair(\n, '@one()'",
		   shared);
	assert_string_equal(s, "SELECT  (f(1, 2), 'x,)', $ab) \n"
			    " -- @pair(\n, '@one()'");
	free(s);
	s = expand("@pair(@one(), @pair(@one(), 2))", shared);
	assert_string_equal(s, " ( 1,  ( 1, 2, $ab) \n, $ab) \n");
	free(s);
	s = expand("@pair(1)", shared);   /* too few arguments */
	assert_null(s);
	s = expand("@none()", shared);    /* not defined */
	assert_null(s);
	s = expand("@where AND x @ (y)", shared); /* not calls */
	assert_string_equal(s, "@where AND x @ (y)");
	free(s);
}

/* Each report of the table has its calls expanded (none is left for
 * SQLite to refuse); queries/_shared.sql holds fragments, not a report,
 * and the parameters a fragment reads are the report's. */
static void test_reports_expanded(void **state)
{
	size_t n;
	const struct mdb_query *q = mdb_query_all(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char *s = expand(q[i].sql, "");

		assert_non_null(s);
		free(s);
		assert_true(q[i].name[0] != '_');
	}
	assert_null(mdb_query_find("_shared"));
	assert_true(mdb_query_uses(mdb_query_find("zones"), ":from_time"));
	assert_true(mdb_query_uses(mdb_query_find("callsites"), ":fleet"));
	assert_null(strstr(mdb_query_find("outliers")->sql, "@rsrc"));
}

static size_t param_index(const char *opt)
{
	size_t n;
	const struct mdb_rparam *p = mdb_report_params(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].opt, opt))
			return i;
	fail_msg("no report option --%s", opt);
	return 0;
}

/* Parse "--@opt @val" into @a; returns the engine's result. */
static int give(struct mdb_report_args *a, const char *opt, const char *val,
		struct mdb_error *e)
{
	return mdb_report_arg_parse(a, param_index(opt), val, e);
}

static void test_option_values(void **state)
{
	struct mdb_report_args a;
	struct mdb_error e;

	(void)state;
	mdb_report_args_init(&a);
	assert_int_equal(mdb_report_arg(&a, "buckets")->v, 20);
	assert_int_equal(mdb_report_arg(&a, "from")->v, 0);
	assert_null(mdb_report_arg(&a, "nothing"));
	assert_int_equal(give(&a, "at", "1778.25s", &e), 0);
	assert_int_equal(mdb_report_arg(&a, "at")->v, 1778250000000LL);
	assert_true(mdb_report_arg(&a, "at")->time);
	assert_int_equal(give(&a, "at", "0x10", &e), 0);
	assert_int_equal(mdb_report_arg(&a, "at")->v, 16);
	assert_false(mdb_report_arg(&a, "at")->time);
	assert_int_equal(give(&a, "min-age", "250ms", &e), 0);
	assert_int_equal(mdb_report_arg(&a, "min-age")->v, 250000000);
	assert_int_equal(give(&a, "min-age", "2m", &e), 0);
	assert_int_equal(mdb_report_arg(&a, "min-age")->v, 120000000000LL);
	assert_int_equal(give(&a, "buckets", "4096", &e), 0);
	assert_int_equal(give(&a, "buckets", "4097", &e), -MDB_E_INVAL);
	assert_string_equal(e.msg, "--buckets takes 1 to 4096, not '4097'");
	assert_int_equal(give(&a, "at", "-1", &e), -MDB_E_INVAL);
	assert_int_equal(give(&a, "at", "s", &e), -MDB_E_INVAL);
	assert_int_equal(give(&a, "at", "1.5xs", &e), -MDB_E_INVAL);
	assert_int_equal(give(&a, "min-age", "5q", &e), -MDB_E_INVAL);
	assert_string_equal(e.msg, "--min-age takes a duration such as 5s or "
				   "250ms, not '5q'");
	assert_int_equal(give(&a, "from", "0", &e), -MDB_E_INVAL);
	assert_string_equal(e.msg, "--from takes a source id, label or "
				   "date, not '0'");
	/* not a number: a label, for cli/ to look up */
	assert_int_equal(give(&a, "to", "before", &e), 0);
	assert_true(mdb_report_arg(&a, "to")->label);
	assert_int_equal(mdb_report_arg(&a, "to")->v, 0);
	assert_int_equal(give(&a, "to", "7", &e), 0);
	assert_false(mdb_report_arg(&a, "to")->label);
	assert_int_equal(mdb_report_arg(&a, "to")->v, 7);
	assert_int_equal(give(&a, "cpu-node", "map.txt", &e), 0);
	assert_int_equal(mdb_report_arg(&a, "cpu-node")->v, 1);
}

/* --time START,END: seconds to ns exactly, either end open. */
static void test_time_window(void **state)
{
	struct mdb_report_args a;
	struct mdb_error e;
	struct mdb_rarg *t;

	(void)state;
	mdb_report_args_init(&a);
	t = mdb_report_arg(&a, "time");
	assert_int_equal(t->v, INT64_MIN);
	assert_int_equal(t->v2, INT64_MAX);
	assert_int_equal(give(&a, "time", "1778.250001,1778.3", &e), 0);
	assert_int_equal(t->v, 1778250001000LL);
	assert_int_equal(t->v2, 1778300000000LL);
	assert_int_equal(give(&a, "time", "0.000000001,", &e), 0);
	assert_int_equal(t->v, 1);
	assert_int_equal(t->v2, INT64_MAX);
	assert_int_equal(give(&a, "time", ",.5", &e), 0);
	assert_int_equal(t->v, INT64_MIN);
	assert_int_equal(t->v2, 500000000);
	assert_int_equal(give(&a, "time", ",", &e), 0);
	const char *bad[] = { "5", "2,1", "1.0000000001,", "-1,2", "1,x",
			      ".,", "1,2,3", "1e3," };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(give(&a, "time", bad[i], &e), -MDB_E_INVAL);
		assert_non_null(strstr(e.msg, "--time takes START,END"));
	}
}

/* Plan @name with "--@opt @val" (@opt NULL: none); the result. */
/* Plan report @name with option @opt (or none) and, when @opt2, a
 * second one. */
static int plan2(struct mdb_report *r, const char *name, const char *opt,
		 const char *val, const char *opt2, const char *val2,
		 struct mdb_error *e)
{
	struct mdb_report_args a;

	mdb_report_args_init(&a);
	if (opt)
		assert_int_equal(give(&a, opt, val, e), 0);
	if (opt2)
		assert_int_equal(give(&a, opt2, val2, e), 0);
	mdb_error_clear(e);
	return mdb_report_plan(r, name, &a, e);
}

static int plan(struct mdb_report *r, const char *name, const char *opt,
		const char *val, struct mdb_error *e)
{
	return plan2(r, name, opt, val, NULL, NULL, e);
}

static void test_plan(void **state)
{
	struct mdb_report r;
	struct mdb_error e;
	char *head;

	(void)state;
	/* the variant for --by, defaults from the header */
	assert_int_equal(plan(&r, "callsites", "by", "cache", &e), 0);
	assert_string_equal(r.q->name, "callsites@cache");
	assert_string_equal(r.named->name, "callsites");
	assert_string_equal(r.value[param_index("sort")], "bytes");
	head = mdb_report_head(&r);
	assert_string_equal(head, "callsites --by cache");
	free(head);
	mdb_report_release(&r);
	/* no variant: :by is bound; the default is the first value */
	assert_int_equal(plan(&r, "allocinfo", NULL, NULL, &e), 0);
	assert_string_equal(r.q->name, "allocinfo");
	assert_string_equal(r.value[param_index("by")], "tag");
	assert_int_equal(r.timed, -1);
	mdb_report_release(&r);
	/* options that need timestamps */
	assert_int_equal(plan(&r, "timeline", "by", "time", &e), 0);
	assert_int_equal(r.timed, (int)param_index("by"));
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "leaks", "at", "5s", &e), 0);
	assert_int_equal(r.timed, (int)param_index("at"));
	head = mdb_report_head(&r);
	assert_string_equal(head, "leaks (at a point)");
	free(head);
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "leaks", "at", "5", &e), 0);
	assert_int_equal(r.timed, -1);
	mdb_report_release(&r);
}

/* --sort keys become the ORDER BY of @sort; filters slab_scan's
 * arguments. */
static void test_sort_and_filters(void **state)
{
	struct mdb_report r;
	struct mdb_error e;

	(void)state;
	assert_int_equal(plan(&r, "callsites", "sort", "frag,hit,bytes", &e),
			 0);
	assert_string_equal(r.order, "frag_pct DESC, hits DESC, "
			    "bytes_alloc DESC");
	assert_string_equal(r.value[param_index("sort")], "frag");
	assert_non_null(strstr(r.sql, "ORDER BY frag_pct DESC, hits DESC, "
				      "bytes_alloc DESC, addr < 0"));
	assert_int_equal(r.selected, 0);
	mdb_report_release(&r);
	/* pages --by caller: slab_scan's page grouping, with the options
	 * as its arguments; pages: without them */
	assert_int_equal(plan(&r, "pages", "by", "caller", &e), 0);
	assert_non_null(strstr(r.sql, "slab_scan(s.id, 'page', :tsel"));
	assert_int_equal(r.selected, 0);
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "pages", NULL, NULL, &e), 0);
	assert_non_null(strstr(r.sql, "slab_scan(s.id, 'page')"));
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "allocs", NULL, NULL, &e), 0);
	assert_string_equal(r.order, "frag_pct DESC, hits DESC, "
			    "bytes_alloc DESC");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "callsites", "sort", "callsite", &e), 0);
	assert_string_equal(r.order, "addr < 0 DESC, addr DESC");
	mdb_report_release(&r);
	/* callsites and pages --by caller take --pid as slab_scan's
	 * argument; pages takes none */
	assert_int_equal(plan(&r, "callsites", "pid", "42", &e), 0);
	assert_int_equal(r.selected, 1);
	assert_string_equal(r.order, "bytes_alloc DESC");
	mdb_report_release(&r);
	assert_int_equal(plan2(&r, "pages", "by", "caller", "pid", "42", &e),
			 0);
	assert_int_equal(r.selected, 1);
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "pages", "pid", "42", &e), -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'pages' takes no --pid");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "fragmentation", "time", "1,2", &e), 0);
	assert_int_equal(r.timed, (int)param_index("time"));
	mdb_report_release(&r);
}

static void test_plan_refusals(void **state)
{
	struct mdb_report r;
	struct mdb_error e;

	(void)state;
	assert_int_equal(plan(&r, "summary", "sort", "hits", &e),
			 -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'summary' takes no --sort");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "fragmentation", "sort", "frag,nope", &e),
			 -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'fragmentation' takes --sort "
			    "KEY[,KEY...], each one of: waste, callsite, bytes, "
			    "hit, frag, hits, bytes_alloc, bytes_req, frag_pct; "
			    "not 'nope'");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "callsites", "sort", "hit,", &e),
			 -MDB_E_INVAL);
	assert_non_null(strstr(e.msg, "; not ''"));
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "allocinfo", "sort", "bytes,calls", &e),
			 -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'allocinfo' sorts by one KEY");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "summary", "pid", "1", &e), -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'summary' takes no --pid");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "allocinfo", "by", "line", &e),
			 -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'allocinfo' takes --by "
				   "tag|function|file|module|label, not 'line'");
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "fragmentation", "from", "1", &e),
			 -MDB_E_INVAL);
	assert_string_equal(e.msg, "report 'fragmentation' takes no --from");
	mdb_report_release(&r);
	/* a variant that takes no selection says which it is */
	{
		struct mdb_report_args a;

		mdb_report_args_init(&a);
		assert_int_equal(give(&a, "by", "label", &e), 0);
		assert_int_equal(give(&a, "time", "1,2", &e), 0);
		mdb_error_clear(&e);
		assert_int_equal(mdb_report_plan(&r, "zones", &a, &e),
				 -MDB_E_INVAL);
		assert_string_equal(e.msg, "report 'zones --by label' takes "
				    "no --time");
		mdb_report_release(&r);
		/* pingpong --by cpu takes them through pingpong's set-up */
		mdb_report_args_init(&a);
		assert_int_equal(give(&a, "by", "cpu", &e), 0);
		assert_int_equal(give(&a, "time", "1,2", &e), 0);
		assert_int_equal(mdb_report_plan(&r, "pingpong", &a, &e), 0);
		assert_int_equal(r.selected, 1);
		mdb_report_release(&r);
	}
	assert_int_equal(plan(&r, "summary", "buckets", "3", &e),
			 -MDB_E_INVAL);
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "callsites@cache", NULL, NULL, &e),
			 -MDB_E_INVAL);
	assert_non_null(strstr(e.msg, "variants are chosen with --by"));
	mdb_report_release(&r);
	assert_int_equal(plan(&r, "nosuch", NULL, NULL, &e), -MDB_E_INVAL);
	assert_string_equal(e.msg, "no report called 'nosuch' ('memdb report "
				   "list' names them)");
	mdb_report_release(&r);
}

struct seen {
	int rows;
	int64_t hits, bytes_req, bytes_alloc, waste;
};

static int64_t column(sqlite3_stmt *st, const char *name)
{
	for (int c = 0; c < sqlite3_column_count(st); c++)
		if (!strcmp(sqlite3_column_name(st, c), name))
			return sqlite3_column_int64(st, c);
	fail_msg("no column %s", name);
	return -1;
}

static int count_rows(void *ctx, sqlite3_stmt *rows, sqlite3_stmt *total,
		      struct mdb_error *e)
{
	struct seen *s = ctx;

	(void)e;
	while (sqlite3_step(rows) == SQLITE_ROW)
		s->rows++;
	assert_non_null(total);
	assert_int_equal(sqlite3_step(total), SQLITE_ROW);
	s->hits = column(total, "hits");
	s->bytes_req = column(total, "bytes_req");
	s->bytes_alloc = column(total, "bytes_alloc");
	s->waste = column(total, "waste");
	return 0;
}

/*
 * fragmentation over ftrace-6.18/trace: four slab allocations at four
 * call sites (copy_process 5824/5824, lsm_blob_alloc 11/16,
 * load_elf_binary 72/96, nf_ct_ext_add 20/32 requested/allocated), so
 * bytes_req 5927, bytes_alloc 5968, waste 41; the page event and the
 * frees add no row.
 */
static void test_run_by_hand(void **state)
{
	char *db = fresh_db(tmp, "ftrace.db");
	struct mdb_report_args a;
	struct mdb_report r;
	struct mdb_db h = { 0 };
	struct mdb_error e;
	struct seen s = { 0 };
	struct run out;

	(void)state;
	run(&out, "'%s' ingest -q -d '%s' '%s/succeed/ftrace-6.18'",
	    env("MEMDB"), db, env("TESTDATA"));
	assert_run_ok(&out);
	run_free(&out);
	mdb_report_args_init(&a);
	a.src_lo = a.src_hi = 1;
	assert_int_equal(mdb_report_plan(&r, "fragmentation", &a, &e), 0);
	assert_int_equal(mdb_db_open(&h, db, MDB_DB_READONLY, &e), 0);
	assert_int_equal(mdb_report_check(&h, &r, &e), 0);
	assert_int_equal(mdb_report_run(&h, &r, count_rows, &s, &e), 0);
	assert_int_equal(s.rows, 4);
	assert_int_equal(s.hits, 4);
	assert_int_equal(s.bytes_req, 5927);
	assert_int_equal(s.bytes_alloc, 5968);
	assert_int_equal(s.waste, 41);
	mdb_report_release(&r);
	/* --by time needs timestamps, which this source has */
	assert_int_equal(plan(&r, "timeline", "by", "time", &e), 0);
	r.args.src_lo = r.args.src_hi = 1;
	assert_int_equal(mdb_report_check(&h, &r, &e), 0);
	mdb_report_release(&r);
	mdb_db_close(&h, NULL);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_embedded_reports),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_reports_expanded),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_refusals),
		cmocka_unit_test(test_time_window),
		cmocka_unit_test(test_sort_and_filters),
		cmocka_unit_test(test_run_by_hand),
	};

	return cmocka_run_group_tests_name("report engine", tests, setup_all,
					   teardown_all);
}
