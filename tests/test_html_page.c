// SPDX-License-Identifier: MIT
/*
 * memdb html's page and the flame graph's zoom and search.
 *
 * The databases hold testdata/real-perf/cg.data (perf record -g: kernel
 * stacks, frames named by stacks.kallsyms) and two generated slabinfo
 * snapshots of a series, the real-6.18-small ones with 1,000 small caches
 * and a 2 GB one after them (so a zone's position passes 999).  The page's
 * tables are compared with the reports' CSV by tests/page_check.py:
 * integers with their thousands grouped but for ids, pids, CPUs,
 * positions and years, REAL figures with 3 decimals; a section the
 * database has no source for says so once.  The timeline's axes are
 * checked tick by tick against the CSV's buckets (and a kmemtrace
 * capture's, which has no timestamps).  The flame graph stays
 * valid XML with one script; in headless Chromium (Debian's chromium,
 * skipped when absent) zoom=ID and s=REGEX in the address zoom and
 * search, in the SVG alone and in the page: the DOM after the script ran
 * (--dump-dom) has the zoomed geometry and the share of the bytes the
 * folded stacks give, and the screenshots differ, the search's in its
 * highlight colour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

static char *dir, *full, *cg, *snap, *check, *svgcheck;

/* The search's highlight, as cli/flame.js paints it. */
#define HIGHLIGHT "230,0,230"

/* The output of a shell command line, which must exit 0, less its
 * last newline. */
static char *sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *sh_out(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *cmd, *out;
	size_t n;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run(&r, "%s", cmd);
	if (r.status)
		fail_msg("%s: status %d: %s%s", cmd, r.status, r.out, r.err);
	out = strf("%s", r.out);
	n = strlen(out);
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	run_free(&r);
	free(cmd);
	return out;
}

/* memdb ARGS -d @db > dir/@out */
static void memdb_to(const char *db, const char *args, const char *out)
{
	run_ok("'%s' %s -d '%s' > '%s/%s'", env("MEMDB"), args, db, dir, out);
}

/* A slabinfo with 1,000 small caches and memdb_big (@objs objects of
 * 1 KB) after the real ones. */
static void big_slabinfo(const char *out, long objs)
{
	run_ok("awk '{ print } END { for (i = 0; i < 1000; i++) printf "
	      "\"memdb_%%d 1 1 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\\n\","
	      " i; printf \"memdb_big %ld %ld 1024 32 8 : tunables 0 0 0 : "
	      "slabdata %ld %ld 0\\n\", %ld, %ld, %ld, %ld }' "
	      "'%s/real-6.18-small/slabinfo.before' > '%s/%s'", objs, objs,
	      objs / 32, objs / 32, objs, objs, objs / 32, objs / 32,
	      env("TESTDATA"), dir, out);
}

/* A database of cg.data with its frames named by @kallsyms. */
static char *trace_db(const char *name, const char *kallsyms)
{
	char *db = fresh_db(dir, name);

	ingest_ok(db, "'%s/cg.data'", dir);
	run_ok("'%s' symbolize -q -d '%s' --kallsyms '%s'", env("MEMDB"), db,
	      kallsyms);
	return db;
}

static int setup(void **state)
{
	const char *td = env("TESTDATA");
	char *ks = strf("%s/real-perf/stacks.kallsyms", td);

	(void)state;
	dir = tmpdir("html_page");
	check = path_in(env("TESTS_DIR"), "page_check.py");
	svgcheck = path_in(env("TESTS_DIR"), "svg_check.py");
	run_ok("zstd -dqf '%s/real-perf/cg.data.zst' -o '%s/cg.data'", td, dir);
	big_slabinfo("big.before", 2000000);
	big_slabinfo("big.after", 2100000);
	full = trace_db("full.db", ks);
	cg = trace_db("cg.db", ks);
	snap = fresh_db(dir, "snap.db");
	for (int i = 0; i < 2; i++) {
		char *db = i ? snap : full;

		ingest_ok(db, "--label s '%s/big.before'", dir);
		ingest_ok(db, "--label s '%s/big.after'", dir);
	}
	memdb_to(full, "html", "full.html");
	memdb_to(cg, "html", "cg.html");
	memdb_to(snap, "html", "snap.html");
	memdb_to(full, "report stacks --format svg", "stacks.svg");
	memdb_to(full, "report stacks", "stacks.folded");
	free(ks);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(svgcheck);
	free(check);
	free(snap);
	free(cg);
	free(full);
	free(dir);
	return 0;
}

/* The page's tables hold the reports' figures, grouped and rounded. */
static void test_tables(void **state)
{
	static const struct { const char *section, *args; } t[] = {
		{ "summary", "report summary --format csv" },
		{ "callsites", "report callsites --format csv --top 20" },
		{ "zones", "report zones --format csv --sort bytes --top 20" },
		{ "growth", "report growth --format csv --top 20" },
		/* the page's own query (cli/cmd_html.c) */
		{ "sources", "sql --format csv \"SELECT id, format, path, "
		  "label, taken_at, ncpus AS cpus, events, allocations, "
		  "(SELECT count(*) FROM zone z WHERE z.source_id = s.id) + "
		  "(SELECT count(*) FROM tag t WHERE t.source_id = s.id) AS "
		  "snapshot_rows, coalesce(overruns, 0) + lost_events AS lost "
		  "FROM source s ORDER BY id\"" },
	};
	char *file = path_in(dir, "full.html"), *page, *pos, *cell;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memdb_to(full, t[i].args, "t.csv");
		run_ok("python3 '%s' table '%s/full.html' %s '%s/t.csv'", check,
		      dir, t[i].section, dir);
	}
	/* figures the page has: grouped, and a position past 999 plain */
	page = slurp(file, NULL);
	assert_non_null(page);
	assert_non_null(strstr(page, "<td>1,369,968</td>"));
	assert_non_null(strstr(page, "<td>2,048,000,000</td>"));
	assert_non_null(strstr(page, "<td>0.685</td>"));
	pos = sh_out("'%s' report zones --sort bytes --top 1 --format csv "
		     "--columns name,pos -d '%s' | sed -n 2p", env("MEMDB"),
		     full);
	assert_true(strtol(strchr(pos, ',') + 1, NULL, 10) >= 1000);
	cell = strf("<td class=\"t\">memdb_big</td><td>%s</td>",
		    strchr(pos, ',') + 1);
	assert_non_null(strstr(page, cell));
	free(cell);
	free(pos);
	free(page);
	/* no figure in any table with more than 3 decimals */
	run_ok("! grep -E '<td>-?[0-9]+\\.[0-9]{4,}</td>' '%s'", file);
	free(file);
}

/* A section the database has no source for says so once. */
static void test_not_shown_once(void **state)
{
	(void)state;
	run_ok("python3 '%s' notshown '%s/full.html'", check, dir);
	run_ok("python3 '%s' notshown '%s/cg.html' zones=1 growth=1", check,
	      dir);
	run_ok("python3 '%s' notshown '%s/snap.html' summary=1 timeline=1 "
	      "callsites=1 stacks=1", check, dir);
}

/* The timeline's axes: round ticks on both, the x axis in time (equal
 * time buckets) or in events (equal event buckets), each tick, point and
 * bar where the CSV's buckets put it. */
static void test_timeline_axes(void **state)
{
	static const char *const args[] = { "", "--by time",
					     "--by time --buckets 7",
					     "--buckets 37" };
	char *file = path_in(dir, "full.html"), *page, *kt;

	(void)state;
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		char *a = strf("report timeline --format svg %s", args[i]);

		memdb_to(full, a, "t.svg");
		free(a);
		a = strf("report timeline --format csv %s", args[i]);
		memdb_to(full, a, "t.csv");
		free(a);
		run_ok("python3 '%s' axes '%s/t.svg' '%s/t.csv'", check, dir,
		      dir);
	}
	/* the page's timeline is by time, the axis named in words */
	page = slurp(file, NULL);
	assert_non_null(page);
	assert_non_null(strstr(page, "memdb report timeline --by time: "));
	assert_non_null(strstr(page, ">time since the first event (s)<"));
	assert_null(strstr(page, ">to_s<"));
	free(page);
	free(file);
	/* a trace without timestamps: events, in the page too */
	kt = fresh_db(dir, "kt.db");
	ingest_ok(kt, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	memdb_to(kt, "report timeline --format svg", "t.svg");
	memdb_to(kt, "report timeline --format csv", "t.csv");
	run_ok("python3 '%s' axes '%s/t.svg' '%s/t.csv'", check, dir, dir);
	memdb_to(kt, "html", "kt.html");
	file = path_in(dir, "kt.html");
	page = slurp(file, NULL);
	assert_non_null(page);
	assert_non_null(strstr(page, "<title>memdb report timeline: "));
	assert_non_null(strstr(page,
			       ">events since the start of the trace<"));
	free(page);
	free(file);
	free(kt);
}

/* The flame graph: valid XML, its figures, one script in CDATA, a
 * frame id each; hostile frame names stay text. */
static void test_flame_svg(void **state)
{
	char *ks, *h, *n;

	(void)state;
	run_ok("python3 '%s' xml '%s/stacks.svg'", svgcheck, dir);
	run_ok("python3 '%s' flame '%s/stacks.svg' '%s/stacks.folded'",
	      svgcheck, dir, dir);
	n = sh_out("grep -c '<script' '%s/stacks.svg'; grep -c "
		   "'<script><!\\[CDATA\\[' '%s/stacks.svg'; grep -c ']]>' "
		   "'%s/stacks.svg'; grep -o 'class=\"f\" id=\"f[0-9]*\"' "
		   "'%s/stacks.svg' | sort | uniq -d | wc -l", dir, dir, dir,
		   dir);
	assert_string_equal(n, "1\n1\n1\n0");
	free(n);
	/* load_elf_binary renamed x<script>&"']]>y */
	ks = strf("%s/h.kallsyms", dir);
	run_ok("sed 's/ load_elf_binary$/ x<script>\\&\"'\\'']]>y/' "
	      "'%s/real-perf/stacks.kallsyms' > '%s'", env("TESTDATA"), ks);
	h = trace_db("h.db", ks);
	memdb_to(h, "report stacks --format svg", "h.svg");
	memdb_to(h, "html", "h.html");
	run_ok("python3 '%s' xml '%s/h.svg'", svgcheck, dir);
	run_ok("python3 '%s' xml '%s/h.html'", svgcheck, dir);
	run_ok("python3 '%s' text '%s/h.svg' 'x<script>&\"'\\'']]>y'",
	      svgcheck, dir);
	n = sh_out("cat '%s/h.svg' '%s/h.html' | grep -c '<script'; "
		   "grep -c ']]>' '%s/h.svg'", dir, dir, dir);
	assert_string_equal(n, "2\n1");
	free(n);
	free(h);
	free(ks);
}

/* Chromium's flags; the user data in a directory of its own. */
#define CHROMIUM "u=$(mktemp -d) && timeout 180 chromium --headless " \
	"--no-sandbox --disable-gpu --disable-quic --no-first-run " \
	"--disable-background-networking --disable-component-update " \
	"--disable-sync --user-data-dir=\"$u\" "

/* Screenshot dir/@url (a file and its query or fragment) into dir/@png
 * at @size ("W,H") and device scale @scale; check it is not blank. */
static void screenshot(const char *url, const char *png, const char *size,
		       const char *scale)
{
	run_ok(CHROMIUM "--force-device-scale-factor=%s --screenshot='%s/%s' "
	      "--window-size=%s 'file://%s/%s' >/dev/null 2>&1; st=$?; "
	      "rm -rf \"$u\"; exit $st", scale, dir, png, size, dir, url);
	run_ok("python3 '%s' png '%s/%s' 2000", svgcheck, dir, png);
}

/* The DOM of dir/@url once its scripts ran, into dir/@out. */
static void dump_dom(const char *url, const char *out)
{
	run_ok(CHROMIUM "--dump-dom 'file://%s/%s' > '%s/%s' 2>/dev/null; "
	      "st=$?; rm -rf \"$u\"; exit $st", dir, url, dir, out);
}

static void test_chromium(void **state)
{
	/* searches as typed in the address, with what they mean to the
	 * folded stacks' check: a substring, a regular expression, and
	 * one that is not (a substring then) */
	static const char *const search[][2] = {
		{ "kmalloc", "kmalloc" }, { "%5Edo_%7Cmmap%24", "^do_|mmap$" },
		{ "load_elf(", "load_elf\\(" },
	};
	struct run r;
	char *id, *url;

	(void)state;
	run(&r, "command -v chromium");
	if (r.status) {
		print_message("chromium is not installed (Debian package "
			      "chromium; make deps installs it): the flame "
			      "graph's script is not run\n");
		run_free(&r);
		skip();
	}
	run_free(&r);
	id = sh_out("python3 '%s' frameid '%s/stacks.svg' load_elf_binary",
		    check, dir);
	/* the SVG alone: the script's DOM */
	for (size_t i = 0; i < sizeof(search) / sizeof(search[0]); i++) {
		/* Chromium and the checks are not instrumented: under the
		 * sanitizers one search shows the script runs on the SVG
		 * the sanitized memdb wrote (test_flame_svg checks its
		 * content); the other runs are the plain build's */
		if (i && under_sanitizers()) {
			print_message("built with sanitizers: one Chromium "
				      "run, the other 11 in the plain "
				      "build's tests\n");
			free(id);
			return;
		}
		url = strf("stacks.svg?s=%s", search[i][0]);
		dump_dom(url, "dom.xml");
		run_ok("python3 '%s' match '%s/dom.xml' '%s/stacks.folded' '%s'",
		      check, dir, dir, search[i][1]);
		free(url);
	}
	url = strf("stacks.svg#zoom=%s", id);
	dump_dom(url, "dom.xml");
	run_ok("python3 '%s' zoom '%s/dom.xml' '%s/stacks.svg' %s", check, dir,
	      dir, id);
	/* ... and its pictures */
	screenshot("stacks.svg", "s.png", "1200,900", "1");
	screenshot(url, "sz.png", "1200,900", "1");
	free(url);
	screenshot("stacks.svg?s=kmalloc", "ss.png", "1200,900", "1");
	run_ok("python3 '%s' pngcolour '%s/s.png' " HIGHLIGHT " 0 0", check,
	      dir);
	run_ok("python3 '%s' pngdiff '%s/s.png' '%s/sz.png' 20000", check, dir,
	      dir);
	run_ok("python3 '%s' pngcolour '%s/ss.png' " HIGHLIGHT " 5000 "
	      "1080000", check, dir);
	/* the page: its top, then the whole of it down to the flame graph
	 * at half scale (a fragment's scroll leaves headless screenshots
	 * blank) */
	screenshot("full.html", "p.png", "1200,900", "1");
	dump_dom("full.html?s=kmalloc", "dom.html");
	run_ok("python3 '%s' match '%s/dom.html' '%s/stacks.folded' kmalloc",
	      check, dir, dir);
	url = strf("full.html?zoom=%s", id);
	screenshot("full.html", "p0.png", "1200,3600", "0.5");
	screenshot(url, "pz.png", "1200,3600", "0.5");
	screenshot("full.html?s=kmalloc", "ps.png", "1200,3600", "0.5");
	run_ok("python3 '%s' pngcolour '%s/p0.png' " HIGHLIGHT " 0 0", check,
	      dir);
	run_ok("python3 '%s' pngdiff '%s/p0.png' '%s/pz.png' 5000", check,
	      dir, dir);
	run_ok("python3 '%s' pngcolour '%s/ps.png' " HIGHLIGHT " 1000 "
	      "1080000", check, dir);
	free(url);
	free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_not_shown_once),
		cmocka_unit_test(test_timeline_axes),
		cmocka_unit_test(test_flame_svg),
		cmocka_unit_test(test_chromium),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
