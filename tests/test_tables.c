// SPDX-License-Identifier: MIT
/*
 * Tables people can read (cli/render.c, through the memdb binary):
 * --human sizes, --columns, the terminal width ($COLUMNS) and
 * zones --sort.  The figures are the hand-derived ones of the UMA
 * fixture (tests/test_snapshot_cli.c, uma_csv) and of the real-diff
 * captures (tests/test_diff.c), converted by hand.
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

static char *dir, *uma, *diffdb;

static int setup(void **state)
{
	struct run r;

	(void)state;
	dir = tmpdir("tables");
	uma = fresh_db(dir, "uma.db");
	ingest_ok(uma, "'%s/succeed/memstat/zone_stats-le-1.bin'",
		  env("TESTDATA"));
	diffdb = fresh_db(dir, "diff.db");
	for (int i = 0; i < 2; i++) {
		const char *cap = i ? "b" : "a";

		ingest_ok(diffdb, "'%s/real-diff/%s'", env("TESTDATA"), cap);
		run_memdb(&r, diffdb, "symbolize -q --source %d --kallsyms "
			  "'%s/real-diff/%s/kallsyms'", i + 1,
			  env("TESTDATA"), cap);
		assert_run_ok(&r);
		run_free(&r);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(diffdb);
	free(uma);
	free(dir);
	return 0;
}

/* stdout of "memdb report ARGS" on @db without a width ($COLUMNS unset,
 * not a terminal), the title lines dropped; exit status 0. */
static char *table(const char *db, const char *width, const char *args)
{
	struct run r;
	char *out, *body;

	run(&r, "%s '%s' report -d '%s' %s | sed '1,/^$/d'",
	    width ? width : "env -u COLUMNS", env("MEMDB"), db, args);
	assert_run_ok(&r);
	body = r.out;
	out = strdup(body);
	run_free(&r);
	return out;
}

/*
 * --human: zones by bytes.  4177920 B = 3.984 MiB -> 4.0MiB; 141312 =
 * 138 KiB; 66816 = 65.25 KiB -> 65.2 (printf rounds the exact half to
 * even); 51840 = 50.625 -> 50.6KiB; 51200 = 50 KiB; 40960 = 40 KiB;
 * 5120 = 5 KiB; sizes 4096 = 4.0KiB, 1024 = 1.0KiB, under 1024 as bytes;
 * total 4535168 = 4.325 MiB -> 4.3MiB.  Counts (used) stay as they are.
 */
static void test_human(void **state)
{
	char *t, *csv;

	(void)state;
	t = table(uma, NULL, "zones --sort bytes --human --columns "
			     "name,size,used,bytes");
	assert_string_equal(t,
		"name           size   used     bytes\n"
		"------------------------------------\n"
		"vm pgcache   4.0KiB  1,020    4.0MiB\n"
		"128 Bucket   1.0KiB    138  138.0KiB\n"
		"UMA Kegs       384B    174   65.2KiB\n"
		"socket         864B     60   50.6KiB\n"
		"mbuf           256B    200   50.0KiB\n"
		"vm pgcache   4.0KiB     10   40.0KiB\n"
		"mbuf_packet    256B     20    5.0KiB\n"
		"64 pcpu          8B      0        0B\n"
		"------------------------------------\n"
		"total             -  1,622    4.3MiB\n");
	free(t);
	/* CSV and JSON keep the exact numbers */
	csv = report_csv(uma, "zones --sort bytes --human --columns "
			      "name,bytes --top 1");
	assert_string_equal(csv, "name,bytes\nvm pgcache,4177920\n"
				 "total,4535168\n");
	free(csv);
	/* negative sizes (a diff gone the other way): b/ to a/,
	 * getname_flags -1179648 B = -1.125 MiB -> -1.1MiB */
	t = table(diffdb, NULL, "diff --from 2 --to 1 --human --columns "
				"site,delta_bytes --top 100");
	{
		char *l = strstr(t, "\ngetname_flags.part.0+0x24 "), *end;

		assert_non_null(l);
		end = strchr(l + 1, '\n');
		assert_non_null(end);
		assert_memory_equal(end - 9, "  -1.1MiB", 9);
	}
	free(t);
}

/* --columns: chosen and ordered, the total row by name; unknown names
 * refused with the report's list. */
static void test_columns(void **state)
{
	char *csv;
	struct run r;

	(void)state;
	csv = report_csv(uma, "zones --columns used,name --top 2");
	assert_string_equal(csv, "used,name\n174,UMA Kegs\n200,mbuf\n"
				 "1622,total\n");
	free(csv);
	run(&r, "'%s' report -d '%s' zones --columns name,nope -f json",
	    env("MEMDB"), uma);
	assert_run_status(&r, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "no column 'nope'; the columns are "
				      "name, pos, allocator, size, limit, "
				      "used, free, requests, fails, sleeps, "
				      "xdomain, bytes, unused_pct, "
				      "object_size, allocated, total, slabs, "
				      "flags"));
	run_free(&r);
	run(&r, "'%s' report -d '%s' zones --columns name,,used",
	    env("MEMDB"), uma);
	assert_run_status(&r, 2);
	run_free(&r);
	/* JSON: the total without its label */
	run(&r, "'%s' report -d '%s' zones --columns name,used --top 1 "
	    "-f json", env("MEMDB"), uma);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "\"rows\": [\n  {\"name\": \"UMA Kegs\", "
				      "\"used\": 174}\n], \"total\": "
				      "{\"used\": 1622}}"));
	run_free(&r);
}

/*
 * $COLUMNS: text cut with "..." down to 20 characters (or the header),
 * numbers never.  site + delta_bytes need 25 + 2 + 11 = 38 columns;
 * at 30 the site is cut to 20: 17 characters and "...".
 */
static void test_width(void **state)
{
	char *t, *csv;

	(void)state;
	t = table(diffdb, "COLUMNS=30", "diff --from 1 --to 2 --columns "
					 "site,delta_bytes --top 2");
	assert_string_equal(t,
		"site                  delta_bytes\n"
		"---------------------------------\n"
		"getname_flags.par...    1,179,648\n"
		"sk_prot_alloc+0x32        473,600\n"
		"---------------------------------\n"
		"total                   2,514,696\n");
	free(t);
	/* wide enough: nothing cut */
	t = table(diffdb, "COLUMNS=38", "diff --from 1 --to 2 --columns "
					 "site,delta_bytes --top 1");
	assert_non_null(strstr(t, "\ngetname_flags.part.0+0x24    "
				  "1,179,648\n"));
	free(t);
	/* no terminal, no $COLUMNS: no limit */
	t = table(diffdb, NULL, "diff --from 1 --to 2 --top 1");
	assert_non_null(strstr(t, "\ngetname_flags.part.0+0x24  changed"));
	free(t);
	/* CSV keeps the whole text */
	t = strf("COLUMNS=30 '%s' report -d '%s' diff --from 1 --to 2 "
		 "--columns site --top 1 -f csv", env("MEMDB"), diffdb);
	{
		struct run r;

		run(&r, "%s", t);
		assert_string_equal(r.out, "site\ngetname_flags.part.0+0x24\n"
					   "total\n");
		run_free(&r);
	}
	free(t);
	/* a text column as the last one is cut too */
	csv = table(diffdb, "COLUMNS=25", "diff --from 1 --to 2 --columns "
					   "delta_hits,site --top 1");
	assert_non_null(strstr(csv, "\n       288  getname_flags.par...\n"));
	free(csv);
}

/* zones --sort: the UMA zones (uma_csv) by name (byte order), by used;
 * the default is snapshot order; an unknown key is refused. */
static void test_zones_sort(void **state)
{
	char *csv;
	struct run r;

	(void)state;
	csv = report_csv(uma, "zones --sort name --columns name,pos");
	assert_string_equal(csv, "name,pos\n128 Bucket,4\n64 pcpu,7\n"
				 "UMA Kegs,1\nmbuf,2\nmbuf_packet,3\n"
				 "socket,8\nvm pgcache,5\nvm pgcache,6\n"
				 "total,\n");
	free(csv);
	/* used: 1020, 200, 174, 138, 60, 20, 10, 0 */
	csv = report_csv(uma, "zones --sort used --columns pos");
	assert_string_equal(csv, "pos\n5\n2\n1\n4\n8\n3\n6\n7\n\n");
	free(csv);
	csv = report_csv(uma, "zones --columns pos");
	assert_string_equal(csv, "pos\n1\n2\n3\n4\n5\n6\n7\n8\n\n");
	free(csv);
	run(&r, "'%s' report -d '%s' zones --sort hits", env("MEMDB"), uma);
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--sort KEY[,KEY...], each one of: "
				      "pos, name, size, used, free, requests, "
				      "fails, bytes, unused_pct; not 'hits'"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_zones_sort),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
