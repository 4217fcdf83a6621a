// SPDX-License-Identifier: MIT
/*
 * Pictures: memdb report NAME --format svg and memdb html.
 *
 * The database holds testdata/real-ftrace-stacks (a real trace with
 * kernel stacks) and the two slabinfo snapshots of real-6.18-small as one
 * series.  Each SVG is parsed as XML and its figures compared with the
 * report's own CSV by tests/svg_check.py, which reads both independently
 * of memdb's C code: every bar's tooltip and label equal the CSV column,
 * every timeline bucket's tooltip equals its CSV row and the axis maxima
 * the columns' maxima, the flame graph's total and root frames equal the
 * sums of the folded lines and every box stands on the box of its
 * caller.  A cache named <script>&"x' comes out escaped.  When Debian's
 * chromium is installed, the page and each SVG are rendered headless and
 * the screenshots checked not to be blank (decoded by svg_check.py).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../cli/svg.h"
#include "testlib.h"

static char *dir, *db, *check;

static const char *const pictures[] = { "timeline", "callsites", "zones",
					"growth", "stacks" };

static int setup(void **state)
{
	const char *td = env("TESTDATA");

	(void)state;
	dir = tmpdir("pictures");
	db = fresh_db(dir, "p.db");
	check = path_in(env("TESTS_DIR"), "svg_check.py");
	/* the frames get addresses at ingest, names from symbolize */
	ingest_ok(db, "'%s/real-ftrace-stacks/trace.zst' --kallsyms "
		  "'%s/real-ftrace-stacks/kallsyms'", td, td);
	run_ok("'%s' symbolize -q -d '%s' --kallsyms "
	      "'%s/real-ftrace-stacks/kallsyms'", env("MEMDB"), db, td);
	ingest_ok(db, "--label s '%s/real-6.18-small/slabinfo.before'", td);
	ingest_ok(db, "--label s '%s/real-6.18-small/slabinfo.after'", td);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(check);
	free(db);
	free(dir);
	return 0;
}

/* svg_escape() to a string. */
static char *escaped(const char *s, long max)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	svg_escape(f, s, max);
	fclose(f);
	return out;
}

static void test_escape(void **state)
{
	static const struct { const char *in; long max; const char *out; } t[] = {
		{ "<script>&\"x'", -1, "&lt;script&gt;&amp;&quot;x&#39;" },
		{ "a\x01" "b\xff" "c\x7f", -1, "a?b?c\x7f" },
		{ "abcdefgh", 6, "abc..." },
		{ "abcdef", 6, "abcdef" },
		/* a cut never splits a character: é is 2 bytes */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9", 5, "\xc3\xa9..." },
		{ "<<<<<<", 4, "&lt;..." },
		{ NULL, -1, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *s = escaped(t[i].in, t[i].max);

		assert_string_equal(s, t[i].out);
		free(s);
	}
}

/* memdb report NAME ARGS -d DB > dir/OUT */
static void report_to(const char *name, const char *args, const char *out)
{
	run_ok("'%s' report %s %s -d '%s' > '%s/%s' 2>/dev/null", env("MEMDB"),
	      name, args, db, dir, out);
}

static void test_figures(void **state)
{
	static const struct { const char *name, *col; } bars[] = {
		{ "callsites", "bytes_alloc" }, { "zones", "bytes" },
		{ "growth", "bytes_delta" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bars) / sizeof(bars[0]); i++) {
		report_to(bars[i].name, "--format svg", "b.svg");
		report_to(bars[i].name, "--format csv --top 20", "b.csv");
		run_ok("python3 '%s' bars '%s/b.svg' '%s/b.csv' %s", check, dir,
		      dir, bars[i].col);
	}
	/* --sort and --top carry over into the picture */
	report_to("zones", "--format svg --sort bytes --top 7", "b.svg");
	report_to("zones", "--format csv --sort bytes --top 7", "b.csv");
	run_ok("python3 '%s' bars '%s/b.svg' '%s/b.csv' bytes", check, dir,
	      dir);
	report_to("timeline", "--format svg --buckets 37", "t.svg");
	report_to("timeline", "--format csv --buckets 37", "t.csv");
	run_ok("python3 '%s' timeline '%s/t.svg' '%s/t.csv'", check, dir, dir);
	report_to("stacks", "--format svg", "s.svg");
	report_to("stacks", "", "s.folded");
	run_ok("python3 '%s' flame '%s/s.svg' '%s/s.folded'", check, dir, dir);
	/* the symbolized frames are named in the flame graph */
	run_ok("python3 '%s' text '%s/s.svg' __kmalloc_cache_noprof", check,
	      dir);
}

static void test_hostile_names(void **state)
{
	char *hdb = fresh_db(dir, "h.db");
	struct run r;

	(void)state;
	run_ok("sed 's/^dentry /<script>\\&\"x'\\'' /' "
	      "'%s/real-6.18-small/slabinfo.before' > '%s/h.slabinfo'",
	      env("TESTDATA"), dir);
	ingest_ok(hdb, "'%s/h.slabinfo'", dir);
	run_ok("'%s' report zones --format svg --sort bytes -d '%s' > "
	      "'%s/h.svg'", env("MEMDB"), hdb, dir);
	run_ok("python3 '%s' text '%s/h.svg' '<script>&\"x'\\'", check, dir);
	run_ok("'%s' html -d '%s' -o '%s/h.html'", env("MEMDB"), hdb, dir);
	run_ok("python3 '%s' xml '%s/h.html'", check, dir);
	run(&r, "cat '%s/h.svg' '%s/h.html' | grep -c '<script'", dir, dir);
	assert_string_equal(r.out, "0\n");
	run_free(&r);
	free(hdb);
}

static void test_no_picture(void **state)
{
	static const char *const none[] = { "summary", "leaks", "diff",
					    "fragmentation" };
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		run_memdb(&r, db, "report %s --format svg", none[i]);
		assert_run_status(&r, 2);
		assert_string_equal(r.out, "");
		assert_non_null(strstr(r.err, "has no picture"));
		run_free(&r);
	}
	run_memdb(&r, db, "report zones --format png");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "folded or svg, not 'png'"));
	run_free(&r);
}

static void test_html(void **state)
{
	struct run r;

	(void)state;
	run_ok("'%s' html -d '%s' -o '%s/page.html'", env("MEMDB"), db, dir);
	run_ok("python3 '%s' xml '%s/page.html'", check, dir);
	/* one <svg> per picture, all drawn; nothing loaded from elsewhere,
	 * one script: the flame graph's own */
	run(&r, "grep -c '<svg ' '%s/page.html'; grep -c 'not shown' "
	    "'%s/page.html'; grep -ciE 'src=|href=|url\\(|@import|<link' "
	    "'%s/page.html'; grep -c '<script' '%s/page.html'", dir, dir,
	    dir, dir);
	assert_string_equal(r.out, "5\n0\n0\n1\n");
	run_free(&r);
	/* the same page on standard output */
	run(&r, "'%s' html -d '%s' | cmp - '%s/page.html'", env("MEMDB"), db,
	    dir);
	assert_run_ok(&r);
	run_free(&r);
	run_memdb(&r, db, "html -o '%s/nodir/x.html'", dir);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "nodir/x.html"));
	run_free(&r);
	run_memdb(&r, db, "html extra");
	assert_run_status(&r, 2);
	run_free(&r);
}

/* A database with a trace only: the snapshot sections say why not. */
static void test_html_trace_only(void **state)
{
	char *tdb = fresh_db(dir, "t.db");
	struct run r;

	(void)state;
	ingest_ok(tdb, "'%s/real-ftrace-stacks/trace.zst'", env("TESTDATA"));
	run_memdb(&r, tdb, "html");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "<p class=\"none\">not shown: "));
	assert_non_null(strstr(r.out, "<h2 id=\"timeline\">timeline</h2>\n"
				      "<svg "));
	run_free(&r);
	free(tdb);
}

/* Screenshot dir/@name in headless chromium; check it is not blank. */
static void screenshot(const char *name)
{
	run_ok("cd '%s' && u=$(mktemp -d) && timeout 180 chromium --headless "
	      "--no-sandbox --disable-gpu --disable-quic --no-first-run "
	      "--disable-background-networking --disable-component-update "
	      "--disable-sync --user-data-dir=\"$u\" --screenshot='%s/%s.png' "
	      "--window-size=1200,900 'file://%s/%s' >/dev/null 2>&1; "
	      "st=$?; rm -rf \"$u\"; exit $st", dir, dir, name, dir, name);
	run_ok("python3 '%s' png '%s/%s.png' 2000", check, dir, name);
}

static void test_chromium(void **state)
{
	struct run r;

	(void)state;
	run(&r, "command -v chromium");
	if (r.status) {
		print_message("chromium is not installed (Debian package "
			      "chromium; make deps installs it): screenshots "
			      "skipped\n");
		run_free(&r);
		skip();
	}
	run_free(&r);
	run_ok("'%s' html -d '%s' -o '%s/page.html'", env("MEMDB"), db, dir);
	screenshot("page.html");
	for (size_t i = 0; i < sizeof(pictures) / sizeof(pictures[0]); i++) {
		char *name = strf("%s.svg", pictures[i]);

		report_to(pictures[i], "--format svg", name);
		screenshot(name);
		free(name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_no_picture),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_trace_only),
		cmocka_unit_test(test_chromium),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
