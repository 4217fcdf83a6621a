// SPDX-License-Identifier: MIT
/*
 * The reports over the hosts of a fleet (--label GLOB, --by label, dates
 * in --from and --to): five hosts' databases, each ingested with its
 * label, merged by memdb merge; allocinfo snapshots and real slabinfo
 * snapshots scaled per host (awk), slices of the real 6.18 ftrace trace,
 * a host whose label no GLOB of the tests matches and a source with no
 * label.  Every figure of allocinfo, growth, zones and callsites, over
 * the hosts and --by label, is compared with tests/label_sums.py, which
 * sums the input files themselves (the latest input of each label, the
 * first and the last for growth, within the dates).
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

#define T0 1767225600 /* 2026-01-01T00:00:00Z */

static char *tmp, *fleet, *manifest;

/*
 * Input @name of host @label taken at T0 + @dt: ingested into the host's
 * own database, listed in the manifest as @kind.
 */
static void add(const char *label, int dt, const char *kind,
		const char *name)
{
	char *db = strf("%s/%s.db", tmp, label[0] ? label : "nolabel");
	char *path = path_in(tmp, name);
	char *lab = label[0] ? strf("--label %s", label) : strdup("");

	ingest_ok(db, "%s --time @%d '%s'", lab, T0 + dt, path);
	if (label[0])
		run_ok("printf '%%s\\t%%d\\t%%s\\t%%s\\n' %s %d %s '%s' >> '%s'",
		   label, T0 + dt, kind, path, manifest);
	free(lab);
	free(path);
	free(db);
}

/* An allocinfo fixture with sizes and calls times @k, to @name. */
static void scaled_allocinfo(const char *fixture, int k, const char *name)
{
	run_ok("awk -v k=%d 'NR <= 2 { print; next } { $1 *= k; $2 *= k; print "
	   "}' '%s/succeed/snapshots/%s' > '%s/%s'", k, env("TESTDATA"),
	   fixture, tmp, name);
}

/* A real slabinfo with its objects times @k, to @name. */
static void scaled_slabinfo(const char *fixture, int k, const char *name)
{
	run_ok("awk -v k=%d 'NR <= 2 { print; next } { $2 *= k; $3 *= k; print "
	   "}' '%s/real-6.18-small/%s' > '%s/%s'", k, env("TESTDATA"),
	   fixture, tmp, name);
}

/* Lines @from to @to of the real trace (after its header), to @name. */
static void trace_slice(int from, int to, const char *name)
{
	run_ok("zstd -dc '%s/real-6.18-small/ftrace.txt.zst' | awk -v a=%d -v "
	   "b=%d 'NR <= 12 || (NR - 12 >= a && NR - 12 <= b)' > '%s/%s'",
	   env("TESTDATA"), from, to, tmp, name);
}

static int setup_all(void **state)
{
	static const char *const hosts[] = { "h1", "h2", "h3", "h4", "x9" };
	char *ins = strdup(""), *n;

	(void)state;
	tmp = tmpdir("labels");
	fleet = path_in(tmp, "fleet.db");
	manifest = path_in(tmp, "manifest");
	for (int i = 0; i < 5; i++) {
		int k = i + 1;
		char *a = strf("%s-t0", hosts[i]), *b = strf("%s-t1", hosts[i]);

		scaled_allocinfo("allocinfo-t0.txt", k, a);
		scaled_allocinfo("allocinfo-t1.txt", k, b);
		/* h3 leaks a tag of its own */
		if (k == 3)
			run_ok("printf '%%12d %%8d mm/leak.c:42 func:leaky \\n' "
			   "8388608 2048 >> '%s/%s'", tmp, b);
		add(hosts[i], 0, "allocinfo", a);
		add(hosts[i], 3600, "allocinfo", b);
		free(a);
		free(b);
	}
	/* h1 has a third snapshot */
	scaled_allocinfo("allocinfo-v2.txt", 7, "h1-t2");
	add("h1", 7200, "allocinfo", "h1-t2");
	for (int i = 0; i < 4; i++) {
		n = strf("%s-slab", hosts[i]);
		scaled_slabinfo("slabinfo.before", i + 1, n);
		add(hosts[i], 1800, "slabinfo", n);
		free(n);
	}
	scaled_slabinfo("slabinfo.after", 5, "h2-slab2");
	add("h2", 5400, "slabinfo", "h2-slab2");
	for (int i = 0; i < 3; i++) {
		n = strf("%s-trace", hosts[i]);
		trace_slice(1 + 2000 * i, 3000 * (i + 1), n);
		add(hosts[i], 600, "ftrace", n);
		free(n);
	}
	trace_slice(40001, 50000, "h1-trace2");
	add("h1", 4000, "ftrace", "h1-trace2");
	trace_slice(60001, 61000, "x9-trace");
	add("x9", 600, "ftrace", "x9-trace");
	scaled_allocinfo("allocinfo-v1.txt", 3, "nolabel-t0");
	add("", 0, "allocinfo", "nolabel-t0");
	for (int i = 0; i < 5; i++) {
		n = strf("%s '%s/%s.db'", ins, tmp, hosts[i]);
		free(ins);
		ins = n;
	}
	run_ok("'%s' merge -q '%s' %s '%s/nolabel.db'", env("MEMDB"), fleet, ins,
	   tmp);
	free(ins);
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(fleet);
	free(manifest);
	free(tmp);
	return 0;
}

/*
 * memdb report ARGS on the fleet equals label_sums.py expect @what
 * @bounds (GLOB, FROM and TO as Unix seconds or '-').
 */
static void expect_sums(const char *args, const char *what,
			const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void expect_sums(const char *args, const char *what,
			const char *fmt, ...)
{
	va_list ap;
	char *bounds;
	char *csvf = path_in(tmp, "report.csv");
	struct run got, want;

	va_start(ap, fmt);
	bounds = vstrf(fmt, ap);
	va_end(ap);

	run(&got, "'%s' report %s -d '%s' --format csv --top 0 > '%s' && "
	    "python3 '%s/label_sums.py' project %s '%s'", env("MEMDB"), args,
	    fleet, csvf, env("TESTS_DIR"), what, csvf);
	assert_run_ok(&got);
	run(&want, "python3 '%s/label_sums.py' expect %s '%s' %s",
	    env("TESTS_DIR"), what, manifest, bounds);
	assert_run_ok(&want);
	if (strcmp(got.out, want.out))
		fail_msg("memdb report %s:\n%s\nlabel_sums.py %s %s:\n%s",
			 args, got.out, what, bounds, want.out);
	/* more than a total */
	assert_true(strchr(want.out, '\n') &&
		    strlen(strchr(want.out, '\n') + 1) > 0);
	run_free(&got);
	run_free(&want);
	free(bounds);
	free(csvf);
}

static void test_allocinfo(void **state)
{
	(void)state;
	expect_sums("allocinfo --label 'h*'", "allocinfo", "'h*'");
	expect_sums("allocinfo --by label", "allocinfo-label", "'*'");
	expect_sums("allocinfo --by label --label 'h[13]'", "allocinfo-label",
		    "'h[13]'");
	/* before each host's second snapshot */
	expect_sums("allocinfo --label 'h*' --to 2026-01-01T00:30Z",
		    "allocinfo", "'h*' - %d", T0 + 1800);
	expect_sums("allocinfo --by label --from 2026-01-01T01:00:00Z "
		    "--to @1767232800", "allocinfo-label",
		    "'*' %d %d", T0 + 3600, T0 + 7200);
}

static void test_growth(void **state)
{
	(void)state;
	expect_sums("growth --label 'h*'", "growth", "'h*'");
	expect_sums("growth --by label", "growth-label", "'*'");
	/* only h1 has two snapshots from 00:30 on */
	expect_sums("growth --by label --from 2026-01-01T00:30Z",
		    "growth-label", "'*' %d", T0 + 1800);
	expect_sums("growth --label 'h?' --from 2026-01-01T00:30Z",
		    "growth", "'h?' %d", T0 + 1800);
}

static void test_zones(void **state)
{
	(void)state;
	expect_sums("zones --label 'h*'", "zones", "'h*'");
	expect_sums("zones --by label", "zones-label", "'*'");
	expect_sums("zones --by label --label 'h[12]' --to "
		    "2026-01-01T01:00Z", "zones-label",
		    "'h[12]' - %d", T0 + 3600);
}

static void test_callsites(void **state)
{
	(void)state;
	expect_sums("callsites --label 'h*'", "callsites", "'h*'");
	expect_sums("callsites --by label", "callsites-label", "'*'");
	expect_sums("callsites --label '*' --from @1767226200 --to @1767226200",
		    "callsites", "'*' %d %d", T0 + 600, T0 + 600);
}

/* --source with --label: the sources it covers, of those labels. */
static void test_source_and_label(void **state)
{
	struct run r;
	int64_t x9;

	(void)state;
	/* both x9 snapshots, summed: 5 x (t0's bytes + t1's) */
	run(&r, "awk 'FNR > 2 { s += $1 } END { print s * 5 }' "
	    "'%s/succeed/snapshots/allocinfo-t0.txt' "
	    "'%s/succeed/snapshots/allocinfo-t1.txt'", env("TESTDATA"),
	    env("TESTDATA"));
	x9 = atoll(r.out);
	run_free(&r);
	run_memdb(&r, fleet, "report allocinfo --source all --label 'x*' "
		  "--columns tag,bytes --format csv");
	assert_run_ok(&r);
	{
		char *want = strf("\ntotal,%lld\n", (long long)x9);

		assert_non_null(strstr(r.out, want));
		free(want);
	}
	run_free(&r);
	/* the JSON source of a fleet */
	run_memdb(&r, fleet, "report allocinfo --label 'h*' --format json");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "\"source\": {\"label\": \"h*\", "
				      "\"sources\": 4}"));
	run_free(&r);
	/* the table says which sources */
	run_memdb(&r, fleet, "report zones --label 'h*' --top 1");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "the latest snapshot of 4 labels "
				      "matching 'h*' (4 sources), taken "
				      "2026-01-01T00:30:00Z to "
				      "2026-01-01T01:30:00Z"));
	run_free(&r);
}

/* Standard input is taken when it is read (cron: "ssh host cat
 * /proc/allocinfo | memdb ingest --label host -" each hour a series),
 * not at the pipe's time 0. */
static void test_stdin_taken_now(void **state)
{
	char *db = fresh_db(tmp, "stdin.db");

	(void)state;
	run_ok("cat '%s/succeed/snapshots/allocinfo-t0.txt' | '%s' ingest -q "
	   "-d '%s' --label s -", env("TESTDATA"), env("MEMDB"), db);
	assert_int_equal(db_int(db, "SELECT abs(strftime('%s', 'now') - "
				"strftime('%s', taken_at)) < 600 FROM source"),
			 1);
	free(db);
}

static void test_refusals(void **state)
{
	struct run r;

	(void)state;
	run_memdb(&r, fleet, "report allocinfo --from 2026-01-01");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "give --label GLOB or --by label"));
	run_free(&r);
	run_memdb(&r, fleet, "report allocinfo --label 'h*' --from 3");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "takes --from DATE"));
	run_free(&r);
	run_memdb(&r, fleet, "report growth --label 'h*' --source 3");
	assert_run_status(&r, 2);
	run_free(&r);
	run_memdb(&r, fleet, "report allocinfo --label 'zz*'");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "no label matching 'zz*' has an "
				      "allocation-tag snapshot"));
	run_free(&r);
	run_memdb(&r, fleet, "report fragmentation --label 'h*'");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "takes no --label"));
	run_free(&r);
	run_memdb(&r, fleet, "report growth --by label --to 2026-02-30");
	assert_run_status(&r, 2);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allocinfo),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_zones),
		cmocka_unit_test(test_callsites),
		cmocka_unit_test(test_source_and_label),
		cmocka_unit_test(test_stdin_taken_now),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests_name("labels", tests, setup_all,
					   teardown_all);
}
