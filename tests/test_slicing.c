// SPDX-License-Identifier: MIT
/*
 * perf kmem's slicing in the trace reports: --sort KEY[,KEY...] gives
 * perf kmem's order on the same capture (perf's own output, committed
 * with testdata/real-perf/), --time windows count what an independent
 * script counts over the text (tests/time_window.py), and each filter
 * (--cache, --site, --pid, --comm) gives the figures counted by hand on
 * testdata/slicing/trace.txt (its README has the table).  The one scan
 * that selects (slab_scan over a source's blocks, report/scan.c, with the
 * blocks' zone maps, db/schema-12.sql) is checked on a generated trace
 * against tests/slice_count.py, which pairs the events itself, and on a
 * perf capture with stacks against SQL over its alloc rows; a database of
 * schema 11 (with the slicing index it replaced) is migrated and reads
 * the same figures.  The ORDER BY the scan does itself is held against
 * SQLite's own sort, allocs' order for every --sort key against SQL over
 * the alloc rows grouped per address, and leaks (at the end, at a point,
 * --min-age, --comm) against SQL over the alloc rows, and its grouping of
 * the page allocations against SQL's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "../db/allocvt.h"
#include "../db/db.h"
#include "../report/scan.h"
#include "testlib.h"

static char *tmp, *kt_db, *slab_db, *hand_db, *text_db, *page_db, *text;
static char *gen_db, *gen, *v11_db, *cg_db;

/* slice_count.py's lines for check_windows(), counted once per run
 * (freed by teardown_all). */
static char *slice_counts;

/* report_csv(@db, @args), run once per pair: test_schema11() holds a
 * database against the same reference's rows (freed by teardown_all). */
static struct ref_rows {
	char *db, *args, *csv;
} *refs;
static size_t nrefs;

/*
 * @db as memdb before version 12 wrote it: the slicing index's tables
 * (slice_col was gone at 11), and no zone map nor kinds in alloc_blk.
 */
static void db_as_schema11(const char *db)
{
	char *sql = strf("%s; DROP TABLE slice_col; "
			 "ALTER TABLE alloc_blk DROP COLUMN min_ts; "
			 "ALTER TABLE alloc_blk DROP COLUMN max_ts; "
			 "ALTER TABLE alloc_blk DROP COLUMN kinds; "
			 "PRAGMA user_version = 11", slicing_tables_sql);

	db_as_schema12(db);
	db_exec(db, sql);
	free(sql);
}

static char *out_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *out_of(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *cmd, *s;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run(&r, "%s", cmd);
	assert_run_ok(&r);
	s = strdup(r.out);
	run_free(&r);
	free(cmd);
	return s;
}

static int setup_all(void **state)
{
	const char *td = env("TESTDATA");

	(void)state;
	tmp = tmpdir("slicing");
	slab_db = fresh_db(tmp, "slab.db");
	hand_db = fresh_db(tmp, "hand.db");
	text_db = fresh_db(tmp, "text.db");
	page_db = fresh_db(tmp, "page.db");
	kt_db = fresh_db(tmp, "kt.db");
	text = path_in(tmp, "ftrace.txt");
	free(out_of("zstd -dqf '%s/real-perf/slab.data.zst' -o '%s/slab.data'"
		    " && zstd -dqf '%s/real-6.18-small/ftrace.txt.zst' -o '%s'",
		    td, tmp, td, text));
	ingest_ok(slab_db, "'%s/slab.data'", tmp);
	ingest_ok(hand_db, "'%s/slicing/trace.txt'", td);
	ingest_ok(text_db, "'%s'", text);
	ingest_ok(kt_db, "'%s/succeed/kt-small-le'", td);
	/* tasks, live at the end, addresses allocated again while live,
	 * frees on other CPUs; 0.05 s of trace */
	gen = path_in(tmp, "gen.txt");
	gen_db = fresh_db(tmp, "gen.db");
	free(out_of("'%s' --seed 7 --events 50000 --cpus 4 --live 1000 "
		    "--sites 32 --pages 2 --leaks 50 --reuse 40 "
		    "--cross-cpu 500 --dup-frees 5 --unknown-frees 5 "
		    "--format ftrace-text '%s'", env("KTGEN"), gen));
	ingest_ok(gen_db, "'%s'", gen);
	/* as schema 11 kept it, then migrated by an ingest of another
	 * trace (source 2) */
	v11_db = path_in(tmp, "v11.db");
	free(out_of("cp '%s' '%s'", gen_db, v11_db));
	db_as_schema11(v11_db);
	ingest_ok(v11_db, "'%s/slicing/trace.txt'", td);
	/* perf record -g: slab allocations with stacks */
	cg_db = fresh_db(tmp, "cg.db");
	free(out_of("zstd -dqf '%s/real-perf/cg.data.zst' -o '%s/cg.data'",
		    td, tmp));
	ingest_ok(cg_db, "'%s/cg.data'", tmp);
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	free(slab_db);
	free(hand_db);
	free(text_db);
	free(page_db);
	free(kt_db);
	free(text);
	free(gen);
	free(gen_db);
	free(v11_db);
	free(cg_db);
	free(slice_counts);
	for (size_t i = 0; i < nrefs; i++) {
		free(refs[i].db);
		free(refs[i].args);
		free(refs[i].csv);
	}
	free(refs);
	return 0;
}

/*
 * The rows of memdb report @args (CSV, all rows) as "hits,req,alloc,pp"
 * lines, in order; the CSV columns are named in @cols (cut -f list).
 */
static char *memdb_rows(const char *db, const char *args, const char *cols)
{
	return out_of("'%s' report %s --top 0 --format csv -d '%s' | "
		      "sed '1d;/^total,/d' | cut -d, -f%s", env("MEMDB"), args,
		      db, cols);
}

/* perf kmem's table rows of @file as "hits,req,alloc,pp" lines. */
static char *perf_rows(const char *file)
{
	return out_of("%s '%s' | awk -F'|' '/\\|/ && !/Callsite|Alloc Ptr/ "
		      "{ split($2, al, \"/\"); split($3, rq, \"/\"); "
		      "gsub(/ /, \"\", al[1]); gsub(/ /, \"\", rq[1]); "
		      "gsub(/ /, \"\", $4); gsub(/ /, \"\", $5); "
		      "print $4 \",\" rq[1] \",\" al[1] \",\" $5 }'",
		      strstr(file, ".zst") ? "zstd -dc" : "cat", file);
}

/* --sort frag,hit,bytes (and other keys) orders call sites as perf. */
static void test_sort_as_perf_caller(void **state)
{
	static const char *const sorts[][2] = {
		{ "frag,hit,bytes", "slab.kmem-caller.txt" },
		{ "hit,bytes", "slab.kmem-caller-s-hit_bytes.txt" },
		{ "bytes,frag", "slab.kmem-caller-s-bytes_frag.txt" },
		{ "pingpong,callsite",
		  "slab.kmem-caller-s-pingpong_callsite.txt" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++) {
		char *args = strf("callsites --sort %s", sorts[i][0]);
		char *file = strf("%s/real-perf/%s", env("TESTDATA"),
				  sorts[i][1]);
		char *got = memdb_rows(slab_db, args, "3,4,5,10");
		char *want = perf_rows(file);

		assert_true(strlen(want) > 1000);
		assert_string_equal(got, want);
		free(got);
		free(want);
		free(args);
		free(file);
	}
}

/* report allocs is perf kmem --alloc, in its default order. */
static void test_allocs_as_perf(void **state)
{
	char *file = strf("%s/real-perf/slab.kmem-alloc.txt.zst",
			  env("TESTDATA"));
	char *got = memdb_rows(slab_db, "allocs", "2,3,4,9");
	char *want = perf_rows(file);
	char *ptrs = memdb_rows(slab_db, "allocs --sort frag,hit,bytes",
				"1");
	char *pptr = out_of("zstd -dc '%s' | awk -F'|' '/\\| / && "
			    "!/Alloc Ptr/ { gsub(/ /, \"\", $1); print $1 }'",
			    file);

	(void)state;
	assert_true(strlen(want) > 10000);
	assert_string_equal(got, want);
	assert_string_equal(ptrs, pptr); /* ties by address, as perf */
	free(got);
	free(want);
	free(ptrs);
	free(pptr);
	free(file);
}

/* "hits,bytes_req,bytes_alloc" of @report's total row with @opts. */
static char *total_of(const char *db, const char *report, const char *opts,
		      const char *cols)
{
	return out_of("'%s' report %s %s --format csv -d '%s' | "
		      "grep '^total,' | cut -d, -f%s", env("MEMDB"), report,
		      opts, db, cols);
}

/* --time windows: counts equal tests/time_window.py's over the text. */
static void test_time_windows(void **state)
{
	static const char *const win[][2] = {
		{ "1778.1", "1778.2" }, { "", "1778.05" }, { "1778.15", "" },
		{ "", "" }, { "1778.296221", "1778.296221" },
		{ "1778.296220", "1778.296221" },
		{ "1778.296221", "1778.332342" }, { "0", "1" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
		char *opt = strf("--time '%s,%s'", win[i][0], win[i][1]);
		char *want = out_of("python3 '%s/time_window.py' '%s' '%s' < "
				    "'%s'", env("TESTS_DIR"), win[i][0],
				    win[i][1], text);
		char *cs = total_of(text_db, "callsites", opt, "3,4,5");
		char *fr = total_of(text_db, "fragmentation", opt, "3,4,5");
		char *al = total_of(text_db, "allocs", opt, "2,3,4");
		char *cm = total_of(text_db, "callsites --by comm", opt,
				    "2,3,4");

		assert_string_equal(cs, want);
		assert_string_equal(fr, want);
		assert_string_equal(al, want);
		assert_string_equal(cm, want);
		free(opt);
		free(want);
		free(cs);
		free(fr);
		free(al);
		free(cm);
	}
}

/*
 * Each filter on the hand-made trace: hits, bytes_req, bytes_alloc,
 * freed, pingpong, live of the total row, counted by hand from the
 * table of testdata/slicing/README.md.
 */
static void test_filters_by_hand(void **state)
{
	static const char *const cases[][2] = {
		{ "", "6,674,736,3,1,3" },
		{ "--comm bash", "4,382,416,3,1,1" },    /* #1 2 3 6 */
		{ "--comm cat", "2,292,320,0,0,2" },     /* #4 5 */
		{ "--comm nobody", "0,0,0,0,0,0" },
		{ "--pid 100", "3,322,352,2,1,1" },      /* #1 2 6 */
		{ "--pid 101", "1,60,64,1,0,0" },        /* #3 */
		{ "--site foo_alloc", "3,190,224,2,0,1" }, /* #1 3 6 */
		{ "--site bar_new+0x20", "2,384,384,1,1,1" }, /* #2 5 */
		{ "--site bar_new+0x2", "0,0,0,0,0,0" },
		{ "--cache dentry", "2,384,384,1,1,1" }, /* #2 5 */
		{ "--cache kmalloc-128", "2,200,256,1,0,1" }, /* #1 4 */
		{ "--cache kmalloc-32", "1,30,32,0,0,1" }, /* #6 */
		/* frees after END are not seen: #1 2 3 live at .000004 */
		{ "--time 100.000002,100.000004", "3,352,384,0,0,3" },
		{ "--time 100.000002,100.000009", "5,574,608,2,1,3" },
		{ "--time ,100.000001", "1,100,128,0,0,1" },
		{ "--comm bash --time 100.000003,", "2,90,96,1,0,1" },
		{ "--pid 100 --cache dentry", "1,192,192,1,1,0" }, /* #2 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = total_of(hand_db, "callsites", cases[i][0],
				     "3,4,5,9,10,11");
		char *want = strf("%s\n", cases[i][1]);
		char *al = total_of(hand_db, "allocs", cases[i][0],
				    "2,3,4,8,9,10");

		if (strcmp(got, want))
			fail_msg("callsites %s: %s, not %s", cases[i][0], got,
				 want);
		assert_string_equal(al, want);
		free(got);
		free(al);
		free(want);
	}
}

/* pingpong: frees after --time's END are not seen (#2's is at .000009). */
static void test_pingpong_window(void **state)
{
	char *a = total_of(hand_db, "pingpong", "--time ,100.000008", "3,4,5");
	char *b = total_of(hand_db, "pingpong", "--time ,100.000009", "3,4,5");
	char *c = total_of(hand_db, "pingpong", "--comm cat", "3,4,5");

	(void)state;
	assert_string_equal(a, "0,0,2\n");   /* #1 #3 freed by then */
	assert_string_equal(b, "1,192,3\n"); /* #2: CPU 0 -> 1 */
	assert_string_equal(c, "0,0,0\n");   /* #4 #5 live */
	free(a);
	free(b);
	free(c);
}

/* @ns as the seconds --time takes ("S.NNNNNNNNN"; @ns >= 0). */
static char *secs_of(long long ns)
{
	return strf("%lld.%09lld", ns / 1000000000, ns % 1000000000);
}

/*
 * pingpong --by cpu with --time and the filters: per CPU pair, the
 * allocations the options select that a FREE on another CPU ended by
 * END, and their bytes, as SQL over the alloc rows counts them (on the
 * generated trace, four CPUs, and the real ftrace text); by hand on the
 * fixture of testdata/slicing (#2: CPU 0 -> 1, freed at .000009).
 */
static void test_pingpong_cpu_slices(void **state)
{
	const char *dbs[] = { gen_db, text_db };
	char *h = memdb_rows(hand_db, "pingpong --by cpu --time ,100.000009",
			     "1-4");
	char *h2 = memdb_rows(hand_db, "pingpong --by cpu --time ,100.000008",
			      "1-4");

	(void)state;
	assert_string_equal(h, "0,1,1,192\n");
	assert_string_equal(h2, "");
	free(h);
	free(h2);
	for (size_t d = 0; d < 2; d++) {
		long long lo = db_int(dbs[d], "SELECT min(ts) FROM alloc "
					      "WHERE type < 2");
		long long hi = db_int(dbs[d], "SELECT max(ts) FROM alloc "
					      "WHERE type < 2");
		long long mid = lo + (hi - lo) / 2;
		long long pid = db_int(dbs[d], "SELECT pid FROM alloc WHERE "
				       "type < 2 AND state = 1 AND free_cpu "
				       "<> cpu GROUP BY pid ORDER BY count(*) "
				       "DESC, pid LIMIT 1");
		char *s_lo = secs_of(lo), *s_mid = secs_of(mid);
		/* options; the SQL condition on the row that selects alike */
		char *sel[][2] = {
			{ strdup(""), strdup("1") },
			{ strf("--time %s,%s", s_lo, s_mid),
			  strf("ts BETWEEN %lld AND %lld AND "
			       "coalesce(end_ts <= %lld, 1)", lo, mid, mid) },
			{ strf("--time %s,", s_mid),
			  strf("ts >= %lld", mid) },
			{ strf("--pid %lld", pid), strf("pid = %lld", pid) },
			{ strf("--pid %lld --time ,%s", pid, s_mid),
			  strf("pid = %lld AND ts <= %lld AND "
			       "coalesce(end_ts <= %lld, 1)", pid, mid, mid) },
		};
		size_t rows = 0;

		for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++) {
			char *args = strf("pingpong --by cpu %s", sel[i][0]);
			char *got = memdb_rows(dbs[d], args, "1-4");
			char *want = out_of("'%s' sql -f csv -d '%s' \"SELECT "
				"cpu, free_cpu, count(*), sum(bytes_alloc) "
				"FROM alloc WHERE type < 2 AND state = 1 AND "
				"free_cpu <> cpu AND %s GROUP BY cpu, free_cpu "
				"ORDER BY count(*) DESC, cpu, free_cpu\" | "
				"sed 1d", env("MEMDB"), dbs[d], sel[i][1]);

			if (strcmp(got, want))
				fail_msg("pingpong --by cpu %s on %s:\n%s\nnot\n%s",
					 sel[i][0], dbs[d], got, want);
			rows += strlen(want) > 0;
			free(args);
			free(got);
			free(want);
			free(sel[i][0]);
			free(sel[i][1]);
		}
		assert_true(rows >= 4);
		free(s_lo);
		free(s_mid);
	}
}

/* leaks: the filters keep what they select; --time what the window made. */
static void test_leaks_slices(void **state)
{
	char *a = total_of(hand_db, "leaks", "--comm cat", "3,4");
	char *b = total_of(hand_db, "leaks", "--time 100.000001,100.000004 "
			   "--at 100.000004s", "3,4");
	char *c = total_of(hand_db, "leaks", "--site foo_alloc", "3,4");
	char *d = total_of(hand_db, "leaks", "--time 100.000001,100.000004",
			   "3,4");

	(void)state;
	assert_string_equal(a, "2,320\n"); /* #4 #5 */
	assert_string_equal(b, "4,512\n"); /* #1 to #4, none freed yet */
	assert_string_equal(c, "1,32\n");  /* #6 */
	assert_string_equal(d, "1,128\n"); /* #4: live at the end */
	free(a);
	free(b);
	free(c);
	free(d);
}

/*
 * allocs --sort KEY: slab_scan orders the addresses itself (an ORDER BY
 * of its columns, done in C); SQL over the alloc rows, grouped per
 * address and ordered by SQLite, gives the same addresses in the same
 * order, for every key, on the generated trace (addresses allocated
 * again, frees on other CPUs) and on the perf capture.
 */
static void test_allocs_orders(void **state)
{
	/* the key, and the ORDER BY of the reference */
	static const char *const keys[][2] = {
		{ "frag", "frag_pct DESC" },
		{ "frag,hit,bytes", "frag_pct DESC, hits DESC, alloc DESC" },
		{ "ptr", "ptr < 0 DESC, ptr DESC" },
		{ "callsite", "addr < 0 DESC, addr DESC" },
		{ "bytes", "alloc DESC" },
		{ "hit", "hits DESC" },
		{ "pingpong", "pp DESC" },
		{ "waste", "alloc - req DESC" },
		{ "bytes_req", "req DESC" },
		{ "freed", "freed DESC" },
		{ "live", "live DESC" },
		{ "hit,callsite", "hits DESC, addr < 0 DESC, addr DESC" },
	};
	const char *dbs[] = { gen_db, slab_db };

	(void)state;
	for (size_t d = 0; d < 2; d++)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			char *args = strf("allocs --sort %s", keys[i][0]);
			char *got = memdb_rows(dbs[d], args, "1");
			char *want = out_of(
				"'%s' sql -f csv -d '%s' \"WITH g AS ("
				"SELECT ptr, count(*) AS hits, "
				"sum(bytes_req) AS req, "
				"sum(bytes_alloc) AS alloc, "
				"sum(state = 1) AS freed, sum(state = 1 AND "
				"free_cpu <> cpu) AS pp, sum(state = 0) AS "
				"live, CASE WHEN sum(bytes_alloc) = 0 "
				"THEN 0.0 ELSE 100.0 - 100.0 * "
				"sum(bytes_req) / sum(bytes_alloc) END AS "
				"frag_pct, site_id, max(seq) FROM alloc "
				"WHERE type < 2 GROUP BY ptr) "
				"SELECT printf('0x%%x', ptr) FROM g "
				"JOIN site t ON t.source_id = 1 AND "
				"t.id = g.site_id "
				"ORDER BY %s, ptr < 0, ptr\" | sed 1d",
				env("MEMDB"), dbs[d], keys[i][1]);

			assert_true(strlen(want) > 1000);
			if (strcmp(got, want))
				fail_msg("%s on %s: not SQL's order", args,
					 dbs[d]);
			free(args);
			free(got);
			free(want);
		}
}

/* The rows of @sql on @db, a line each, columns separated by '|'. */
static char *rows_of(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int rc;

	assert_non_null(f);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++)
			fprintf(f, "%s%s", c ? "|" : "",
				sqlite3_column_type(st, c) == SQLITE_NULL ?
				"NULL" : (const char *)sqlite3_column_text(st, c));
		fputc('\n', f);
	}
	if (rc != SQLITE_DONE)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	fclose(f);
	return out;
}

/*
 * An ORDER BY that slab_scan does itself gives SQLite's order: each
 * visible column, ascending and descending, alone (equals as SQLite's
 * sort of the unordered rows leaves them) and before the key, for the
 * groupings by address, site, cache and CPU pair, on the generated
 * trace (two threads' groups) and the perf capture.  The unary '+'
 * keeps SQLite from handing the ORDER BY to the table: the reference.
 * Per address there are hundreds of groups: the scan's first rows are
 * picked in one pass, the rest come from a heap (report/scan.c,
 * order_make()), and every row is compared; per site, a few dozen, all
 * in the heap.
 */
static void test_scan_orders(void **state)
{
	static const char *const cols[] = {
		"rk", "k2", "k3", "hits", "bytes_req", "bytes_alloc", "freed",
		"pingpong", "pp_bytes", "live", "live_bytes", "last_seq",
		"site_id", "waste", "frag_pct", "rk_u", "site_u",
	};
	static const char *const bys[] = { "ptr", "site", "cache", "pp" };
	const char *dbs[] = { gen_db, slab_db };
	size_t checked = 0;

	(void)state;
	for (size_t d = 0; d < 2; d++) {
		sqlite3 *db;

		assert_int_equal(sqlite3_open_v2(dbs[d], &db,
						 SQLITE_OPEN_READONLY, NULL),
				 SQLITE_OK);
		assert_int_equal(mdb_scan_register(db), SQLITE_OK);
		{
			char *n = rows_of(db, "SELECT count(*) > 500 FROM "
					      "slab_scan(1, 'ptr')");

			assert_string_equal(n, "1\n");
			free(n);
		}
		for (size_t b = 0; b < sizeof(bys) / sizeof(bys[0]); b++)
			for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]);
			     i++)
				for (int desc = 0; desc < 2; desc++) {
					const char *dir = desc ? "DESC" : "";
					char *q = strf("SELECT rk, k2, k3, %s FROM "
						"slab_scan(1, '%s') ORDER BY "
						"%s %s", cols[i], bys[b], cols[i],
						dir);
					char *r = strf("SELECT rk, k2, k3, %s FROM "
						"slab_scan(1, '%s') ORDER BY "
						"+%s %s", cols[i], bys[b], cols[i],
						dir);
					char *got = rows_of(db, q);
					char *want = rows_of(db, r);

					char *pq = strf("EXPLAIN QUERY PLAN %s",
							q);
					char *plan = rows_of(db, pq);

					if (strcmp(got, want))
						fail_msg("%s on %s: not SQLite's "
							 "order", q, dbs[d]);
					assert_true(strlen(want) > 10);
					/* the scan sorted it, not SQLite */
					assert_null(strstr(plan, "ORDER BY"));
					free(pq);
					free(plan);
					pq = strf("EXPLAIN QUERY PLAN %s", r);
					plan = rows_of(db, pq);
					assert_non_null(strstr(plan, "ORDER BY"));
					free(pq);
					free(plan);
					checked++;
					free(q);
					free(r);
					free(got);
					free(want);
				}
		sqlite3_close(db);
	}
	assert_int_equal(checked, 2 * 4 * 17 * 2);
}

/*
 * memdb report leaks @opt on @db against SQL over the alloc rows live by
 * @cond (a condition on row a, with its source s), ages counted from
 * @ref (SQL; NULL for none): per call site, the number, the bytes, the
 * oldest and youngest positions, and the ages (the report's seconds to
 * the microsecond).
 */
static void leaks_check(const char *db, const char *opt, const char *cond,
			const char *ref)
{
	char *got = out_of("'%s' report leaks %s --sort callsite --top 0 "
			   "--format csv -d '%s' | sed '1d;/^total,/d' | "
			   "cut -d, -f1,3,4,7-10", env("MEMDB"), opt, db);
	char *want = out_of("'%s' sql -f csv -d '%s' \"SELECT "
			    "coalesce(t.call_site, ''), count(*), "
			    "sum(a.bytes_alloc), min(a.seq), max(a.seq), "
			    "%s - min(a.ts), %s - max(a.ts) "
			    "FROM alloc a JOIN source s ON s.id = "
			    "a.source_id JOIN v_sites t ON t.source_id = "
			    "a.source_id AND t.site_id = a.site_id "
			    "WHERE a.type < 2 AND %s "
			    "GROUP BY t.call_site, t.symbol ORDER BY "
			    "t.addr < 0 DESC, t.addr DESC, t.symbol\" | "
			    "sed 1d",
			    env("MEMDB"), db, ref, ref, cond);
	char *bad;
	FILE *f;
	char *gf = path_in(tmp, "leaks-got"), *wf = path_in(tmp, "leaks-want");

	assert_non_null(f = fopen(gf, "w"));
	fputs(got, f);
	fclose(f);
	assert_non_null(f = fopen(wf, "w"));
	fputs(want, f);
	fclose(f);
	/* the same lines, an age in seconds within 0.6 us of SQL's ns */
	bad = out_of("paste -d, '%s' '%s' | awk -F, 'function off(s, n) { "
		     "return s == \"\" ? n != \"\" : (n == \"\" || "
		     "s * 1e9 - n > 600 || n - s * 1e9 > 600) } "
		     "$1 != $8 || $2 != $9 || $3 != $10 || $4 != $11 || "
		     "$5 != $12 || off($6, $13) || off($7, $14) "
		     "{ print NR \": \" $0 }'", gf, wf);
	if (*bad)
		fail_msg("leaks %s on %s:\n%s", opt, db, bad);
	if (!*opt)
		assert_true(strlen(want) > 50);
	free(bad);
	free(got);
	free(want);
	free(gf);
	free(wf);
}

/*
 * leaks: slab_scan's 'leak' grouping gives what SQL over the alloc rows
 * gives, live at the end, at a position, at a time, with --min-age and
 * with the filters, on the generated trace and the real ftrace text.
 */
static void test_leaks_as_rows(void **state)
{
	const char *dbs[] = { gen_db, text_db };

	(void)state;
	for (size_t d = 0; d < 2; d++) {
		long long mid = db_int(dbs[d], "SELECT (first_ts + last_ts) "
				       "/ 2 FROM source");
		long long seq = db_int(dbs[d], "SELECT max(seq) / 3 FROM "
				       "alloc");
		char *at_ts = strf("--at %lld.%09llds", mid / 1000000000,
				   mid % 1000000000);
		char *ts_cond = strf("a.state < 3 AND a.ts <= %lld AND "
				     "(a.end_seq IS NULL OR (a.end_seq IS "
				     "NOT NULL AND a.end_ts > %lld))", mid,
				     mid);
		char *ts_ref = strf("%lld", mid);
		char *at_seq = strf("--at %lld", seq);
		char *seq_cond = strf("a.state < 3 AND a.seq <= %lld AND "
				      "(a.end_seq IS NULL OR a.end_seq > "
				      "%lld)", seq, seq);

		leaks_check(dbs[d], "", "a.state = 0", "s.last_ts");
		leaks_check(dbs[d], at_seq, seq_cond, "NULL");
		leaks_check(dbs[d], at_ts, ts_cond, ts_ref);
		leaks_check(dbs[d], "--min-age 20ms", "a.state = 0 AND "
			    "s.last_ts - a.ts >= 20000000", "s.last_ts");
		leaks_check(dbs[d], "--comm bash", "a.state = 0 AND "
			    "a.comm_id IN (SELECT id FROM str WHERE text = "
			    "'bash')", "s.last_ts");
		free(at_ts);
		free(ts_cond);
		free(ts_ref);
		free(at_seq);
		free(seq_cond);
	}
}

/* The filters select rows too: one row per site left, right figures. */
static void test_filter_rows(void **state)
{
	char *rows = memdb_rows(hand_db, "callsites --comm bash --sort hit",
				"2,3,4,5");
	char *fr = memdb_rows(hand_db, "fragmentation --cache kmalloc-128 "
			      "--sort callsite", "2,3");

	(void)state;
	assert_string_equal(rows, "foo_alloc+0x10/0x40,3,190,224\n"
				  "bar_new+0x20/0x80,1,192,192\n");
	/* no addresses (the text printed symbols): ties by symbol */
	assert_string_equal(fr, "baz_get+0x8/0x20,1\n"
				"foo_alloc+0x10/0x40,1\n");
	free(rows);
	free(fr);
}

/*
 * pages --by caller takes perf kmem --page's keys: by order, then hits,
 * each largest first (checked by awk on the rows, whatever they are).
 */
static void test_pages_sort(void **state)
{
	char *bad;

	(void)state;
	free(out_of("cd '%s' && zstd -dqf '%s/real-perf/page.data.zst' -o "
		    "page.data", tmp, env("TESTDATA")));
	ingest_ok(page_db, "'%s/page.data'", tmp);
	bad = out_of("'%s' report pages --by caller --sort order,hit --top 0 "
		     "--format csv -d '%s' | sed '1d;/^total,/d' | "
		     "awk -F, 'NR > 1 && ($4 > o || ($4 == o && $3 > h)) "
		     "{ print NR \": \" $0 } { o = $4; h = $3 } "
		     "END { if (NR < 10) print \"only \" NR \" rows\" }'",
		     env("MEMDB"), page_db);
	assert_string_equal(bad, "");
	free(bad);
	bad = out_of("'%s' report pages --by caller --sort migtype,gfp "
		     "--top 0 --format csv -d '%s' | sed '1d;/^total,/d' | "
		     "cut -d, -f5 | uniq | tr '\\n' ' '", env("MEMDB"),
		     page_db);
	assert_string_equal(bad, "Reclaimable Movable Unmovable ");
	free(bad);
}

/*
 * slab_scan's 'page' grouping (pages, pages --by caller) against SQL's
 * GROUP BY over the alloc rows of the page allocator: per stack, size,
 * migratetype, gfp flags and text, and state, the allocations and their
 * bytes, with no selection and with each selection (windows, --pid,
 * --comm, --cache's made-up names, --site), on the real perf capture
 * (stacks, gfp numbers), the real ftrace text (gfp text) and the
 * generated trace (tasks).
 */
static void test_page_scan(void **state)
{
	const char *dbs[] = { page_db, text_db, gen_db };
	size_t checked = 0;

	(void)state;
	for (size_t d = 0; d < 3; d++) {
		const char *cond = "a.source_id = 1 AND a.type = 2";
		char *sql[4] = {
			strf("SELECT min(ts) FROM alloc a WHERE %s", cond),
			strf("SELECT max(ts) FROM alloc a WHERE %s", cond),
			strf("SELECT pid FROM alloc a WHERE %s AND pid IS NOT "
			     "NULL GROUP BY pid ORDER BY count(*) DESC, pid "
			     "LIMIT 1", cond),
			strf("SELECT t.addr FROM alloc a JOIN site t ON "
			     "t.source_id = 1 AND t.id = a.site_id WHERE %s "
			     "AND t.addr IS NOT NULL GROUP BY t.addr ORDER BY "
			     "count(*) DESC, t.addr LIMIT 1", cond),
		};
		long long lo = db_int(dbs[d], sql[0]);
		long long hi = db_int(dbs[d], sql[1]);
		long long pid = db_int(dbs[d], sql[2]);
		long long site = db_int(dbs[d], sql[3]);
		long long mid = lo + (hi - lo) / 2;
		/* slab_scan's selection arguments; the same as SQL */
		char *sel[][2] = {
			{ strf("0, NULL, NULL, NULL, NULL, NULL, NULL"),
			  strf("1") },
			{ strf("1, %lld, %lld, NULL, NULL, NULL, NULL", lo, mid),
			  strf("a.ts BETWEEN %lld AND %lld", lo, mid) },
			{ strf("1, %lld, %lld, NULL, NULL, NULL, NULL", mid,
			       mid), strf("a.ts = %lld", mid) },
			{ strf("0, NULL, NULL, %lld, NULL, NULL, NULL", pid),
			  strf("a.pid = %lld", pid) },
			{ strf("0, NULL, NULL, NULL, (SELECT s.text FROM str s "
			       "JOIN alloc a ON a.comm_id = s.id WHERE "
			       "s.source_id = 1 AND a.type = 2 GROUP BY 1 "
			       "ORDER BY count(*) DESC LIMIT 1), NULL, NULL"),
			  strf("a.comm_id = (SELECT s.id FROM str s JOIN alloc "
			       "a ON a.comm_id = s.id WHERE s.source_id = 1 "
			       "AND a.type = 2 GROUP BY 1 ORDER BY count(*) "
			       "DESC LIMIT 1)") },
			{ strf("0, NULL, NULL, NULL, NULL, 'kmalloc-4096', NULL"),
			  strf("coalesce(a.cache_id, 0) = 0 AND "
			       "a.bytes_alloc = 4096") },
			{ strf("0, NULL, NULL, NULL, NULL, 'kmalloc-large', "
			       "NULL"),
			  strf("coalesce(a.cache_id, 0) = 0 AND "
			       "a.bytes_alloc > 8192") },
			{ strf("0, NULL, NULL, NULL, NULL, NULL, '0x%llx'", site),
			  strf("a.site_id IN (SELECT id FROM site WHERE "
			       "source_id = 1 AND addr = %lld)", site) },
		};
		sqlite3 *db;

		for (int k = 0; k < 4; k++)
			free(sql[k]);
		assert_int_equal(sqlite3_open_v2(dbs[d], &db,
						 SQLITE_OPEN_READONLY, NULL),
				 SQLITE_OK);
		assert_int_equal(mdb_scan_register(db), SQLITE_OK);
		assert_int_equal(mdb_allocvt_register(db), SQLITE_OK);
		for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++) {
			char *q = strf("SELECT quote(rk), quote(k2), quote(k3), "
				"quote(k4), quote(k5), quote(k6), hits, "
				"bytes_alloc FROM slab_scan(1, 'page', %s) "
				"ORDER BY 1, 2, 3, 4, 5, 6", sel[i][0]);
			char *r = strf("SELECT quote(stack_id), "
				"quote(bytes_alloc), quote(migratetype), "
				"quote(gfp), quote(gfp_id), quote(state), "
				"count(*), coalesce(sum(bytes_alloc), 0) FROM "
				"alloc a WHERE %s AND %s GROUP BY stack_id, "
				"bytes_alloc, migratetype, gfp, gfp_id, state "
				"ORDER BY 1, 2, 3, 4, 5, 6", cond, sel[i][1]);
			char *got = rows_of(db, q), *want = rows_of(db, r);

			if (strcmp(got, want))
				fail_msg("%s on %s:\n%s\nnot\n%s", q, dbs[d],
					 got, want);
			/* every selection selects, but the site where the
			 * trace printed symbols, and a size none has */
			if (i == 0)
				assert_true(strlen(want) > 20);
			checked += *want != 0;
			free(q);
			free(r);
			free(got);
			free(want);
			free(sel[i][0]);
			free(sel[i][1]);
		}
		sqlite3_close(db);
	}
	/* most of the 24 select rows */
	assert_true(checked >= 15);
}

/*
 * An open window selects every allocation: the figures from the alloc
 * rows equal those the reports read from the tables built at ingest.
 */
static void test_open_window_is_whole(void **state)
{
	static const char *const reps[] = {
		"callsites", "callsites --by cache", "callsites --by type",
		"callsites --by comm", "callsites --by pid", "fragmentation",
		"pages --by caller", "stacks", "pingpong", "leaks",
	};
	const char *dbs[] = { slab_db, text_db };

	(void)state;
	for (size_t d = 0; d < 2; d++)
		for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++) {
			char *all = strf("%s --top 0", reps[i]);
			char *win = strf("%s --top 0 --time ,", reps[i]);
			char *a = report_csv(dbs[d], all);
			char *w = report_csv(dbs[d], win);

			assert_string_equal(w, a);
			free(all);
			free(win);
			free(a);
			free(w);
		}
}

/*
 * Sums of bytes past int64 (sizes no kernel has, as a damaged capture
 * can carry): the scan's sum is then SQL's total() of the rows, a double
 * (the reports show it cast back, INT64_MAX), never a wrapped integer.
 * 6,000 allocations at one site, four of 2^62 and 2^61 bytes in blocks
 * 0, 1, 4 and 5: the scan's two threads (every other four blocks) each
 * stay within int64, their sums together do not, and the scan reads
 * the source again on one thread.
 */
static void test_sums_past_int64(void **state)
{
	char *trace = path_in(tmp, "huge.txt"), *db = path_in(tmp, "huge.db");
	char *csv;
	FILE *f = fopen(trace, "w");
	struct run r;

	(void)state;
	assert_non_null(f);
	fprintf(f, "# tracer: nop\n#\n");
	for (int i = 0; i < 6000; i++) {
		unsigned long long bytes = 64;

		if (i == 10 || i == 4096 + 10)
			bytes = 1ULL << 62;
		else if (i == 1024 + 10 || i == 5120 + 10)
			bytes = 1ULL << 61;
		fprintf(f, "            bash-100     [000] .....   %d.%06d: "
			"kmalloc: call_site=foo_alloc+0x10/0x40 "
			"ptr=ffff8881%08x bytes_req=32 bytes_alloc=%llu "
			"gfp_flags=GFP_KERNEL node=-1 accounted=false\n",
			100 + i / 1000000, i % 1000000, i * 64, bytes);
	}
	fclose(f);
	run_memdb(&r, db, "ingest -q '%s'", trace);
	assert_run_ok(&r);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc_blk"), 6);
	csv = report_csv(db, "callsites --time , --top 0");
	if (!strstr(csv, ",6000,192000,9223372036854775807,"))
		fail_msg("callsites --time ,: %s", csv);
	free(csv);
	csv = report_csv(db, "allocs --time , --sort bytes --top 1");
	if (!strstr(csv, ",1,32,4611686018427387904,"))
		fail_msg("allocs --time ,: %s", csv);
	free(csv);
	free(trace);
	free(db);
}

/*
 * --site by address, by function and by function+0xoff, on the perf
 * capture symbolized: perf kmem --caller prints this site as
 * "alloc_slab_obj_exts+58 | 11648/465 | 7200/288 | 25".
 */
static void test_site_forms(void **state)
{
	static const char *const forms[] = {
		"0xffffffff8162c5c8", "FFFFFFFF8162C5C8", "alloc_slab_obj_exts",
		"alloc_slab_obj_exts+0x58",
	};

	(void)state;
	free(out_of("'%s' symbolize -q --kallsyms '%s/real-perf/kallsyms' "
		    "-d '%s'", env("MEMDB"), env("TESTDATA"), slab_db));
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *opt = strf("--site %s", forms[i]);
		char *got = total_of(slab_db, "callsites", opt, "3,4,5");

		if (strcmp(got, "25,7200,11648\n"))
			fail_msg("%s: %s", opt, got);
		free(got);
		free(opt);
	}
}

/* Window @i of check_windows() with filter @f: the first windows with
 * every filter, the others alone and with --pid.  Under the sanitizers
 * only the first three windows run (2^22 ns from a block's edge, the
 * same cut by 1 ns at both ends, and the open window), alone, with
 * --pid and with --comm and --cache: they take the scan's code at a
 * window's edges, inside it and unbounded, which is what the sanitizers
 * watch; the other figures are the plain build's to check. */
static int window_filter(size_t i, size_t f)
{
	if (under_sanitizers() && (i >= 3 || (f && f != 2 && f != 5)))
		return 0;
	return i < 9 || !f || f == 2;
}

static const char *ref_csv(const char *db, const char *args)
{
	struct ref_rows *n;

	for (size_t i = 0; i < nrefs; i++)
		if (!strcmp(refs[i].db, db) && !strcmp(refs[i].args, args))
			return refs[i].csv;
	n = realloc(refs, (nrefs + 1) * sizeof(*refs));
	assert_non_null(n);
	refs = n;
	refs[nrefs].db = strdup(db);
	refs[nrefs].args = strdup(args);
	refs[nrefs].csv = report_csv(db, args);
	return refs[nrefs++].csv;
}

/* Window @win with filter @filt on @db against slice_count.py's lines
 * at *@at (moved past them). */
static void check_window(const char *db, const char *win, const char *filt,
			 char **at)
{
	char *opt = strf("--time '%s' %s", win, filt);
	char *end = strstr(*at, "==\n"), *rows, *want, *nl;
	char *cs = total_of(db, "callsites", opt,
			    "3,4,5,9,10,11");
	char *ca = total_of(db, "callsites --by cache", opt,
			    "2,3,4,8,9,10");
	char *fr = total_of(db, "fragmentation", opt,
			    "3,4,5");
	char *al = total_of(db, "allocs", opt,
			    "2,3,4,8,9,10");
	char *bp = total_of(db, "callsites --by pid", opt,
			    "2,3,4,8,9,10");
	char *bc = total_of(db, "callsites --by comm", opt,
			    "2,3,4,8,9,10");
	char *pp = total_of(db, "pingpong", opt, "3,5");
	char *args = strf("callsites %s", opt);
	char *got = memdb_rows(db, args, "1,3,4,5,9,10,11");
	char *sorted = out_of("printf '%%s' '%s' | LC_ALL=C "
			      "sort", got);

	assert_non_null(end);
	rows = strndup(*at, (size_t)(end - *at));
	*at = end + 3;
	/* the total is the last line of the rows */
	nl = strrchr(rows, '\n');
	*nl = '\0';
	nl = strrchr(rows, '\n');
	want = strf("%s\n", nl ? nl + 1 : rows);
	if (nl)
		nl[1] = '\0';
	else
		rows[0] = '\0';
	if (strcmp(cs, want))
		fail_msg("callsites %s: %s, not %s", opt, cs,
			 want);
	assert_string_equal(ca, want);
	assert_string_equal(al, want);
	assert_string_equal(bp, want);
	assert_string_equal(bc, want);
	/* pingpong's pingpong and freed: the 5th and 4th */
	{
		long long v[6];
		char *ppw;

		assert_int_equal(sscanf(want, "%lld,%lld,"
					"%lld,%lld,%lld,%lld",
					&v[0], &v[1], &v[2],
					&v[3], &v[4], &v[5]),
				 6);
		ppw = strf("%lld,%lld\n", v[4], v[3]);
		if (strcmp(pp, ppw))
			fail_msg("pingpong %s: %s, not %s",
				 opt, pp, ppw);
		free(ppw);
	}
	/* hits, bytes_req, bytes_alloc */
	assert_int_equal(strncmp(fr, want, strlen(fr) - 1),
			 0);
	if (strcmp(sorted, rows))
		fail_msg("callsites %s rows:\n%s\nnot\n%s",
			 opt, sorted, rows);
	free(opt);
	free(rows);
	free(want);
	free(cs);
	free(ca);
	free(fr);
	free(al);
	free(bp);
	free(bc);
	free(pp);
	free(args);
	free(got);
	free(sorted);
}

/* Windows, with and without filters, on @db: every figure of the total
 * row, and the per-site rows, as slice_count.py counts them (which ones:
 * window_filter()). */
static void check_windows(const char *db)
{
	/* windows at one allocation's time and 1 ns beside it, inside
	 * one block's times, across blocks, empty between events, beyond
	 * the capture, and covering it; the first few with each filter
	 * too */
	static const char *const win[] = {
		/* 2^22 ns multiples, and cut by 1 ns at both ends */
		"1.002438656,1.031798783", "1.002438657,1.031798782",
		",", "1.022361600,1.043333119", "1.000341503,1.022361600",
		"1.0005,1.03", "1.000341505,1.000865791", "1.04,", ",1.01",
		"1.0,1.000341503", "1.000341504,1.049624575", "1.0003,1.0004",
		"1.0000015,1.0000016", "5,6", "0,0.5", "0,9", "1.000001,1.05",
		"1.000001,1.049", "1.022361600,1.022361600",
	};
	static const char *const filt[] = {
		"", "--comm tar", "--pid 1003", "--site ffffffff811016fb",
		"--cache kmalloc-64", "--comm tar --cache kmalloc-64",
		"--pid 1003 --cache kmalloc-64",
	};
	const size_t nw = sizeof(win) / sizeof(win[0]);
	const size_t nf = sizeof(filt) / sizeof(filt[0]);
	char *qs = strdup(""), *at;

	for (size_t i = 0; i < nw; i++)
		for (size_t f = 0; f < nf; f++) {
			char *q;

			if (!window_filter(i, f))
				continue;
			q = strf("%s '%s %s'", qs, win[i], filt[f]);
			free(qs);
			qs = q;
		}
	if (!slice_counts)
		slice_counts = out_of("python3 '%s/slice_count.py' %s < "
					   "'%s'", env("TESTS_DIR"), qs, gen);
	at = slice_counts;
	for (size_t i = 0; i < nw; i++)
		for (size_t f = 0; f < nf; f++) {
			if (window_filter(i, f))
				check_window(db, win[i], filt[f], &at);
		}
	free(qs);
}

/* The scan's blocks: one per 1,024 allocations, each with the time
 * range of its allocations (its zone map, as SQL over the alloc rows
 * finds it), and every window and filter reads the figures
 * slice_count.py counts. */
static void test_scan_windows(void **state)
{
	(void)state;
	assert_int_equal(db_int(gen_db, "SELECT count(*) FROM alloc_blk"),
			 db_int(gen_db, "SELECT (count(*) + 1023) / 1024 "
				"FROM alloc"));
	assert_int_equal(db_int(gen_db, "SELECT count(*) FROM alloc_blk b "
				"JOIN source s ON s.id = b.source_id WHERE "
				"b.min_ts IS NOT (SELECT min(a.ts) FROM alloc "
				"a WHERE a.id BETWEEN s.alloc_lo AND "
				"s.alloc_hi AND (a.id - s.alloc_lo) / 1024 = "
				"(b.id - s.alloc_lo) / 1024) OR b.max_ts IS "
				"NOT (SELECT max(a.ts) FROM alloc a WHERE a.id "
				"BETWEEN s.alloc_lo AND s.alloc_hi AND (a.id - "
				"s.alloc_lo) / 1024 = (b.id - s.alloc_lo) / "
				"1024)"), 0);
	assert_int_equal(db_int(gen_db, "SELECT count(*) FROM alloc_blk "
				"WHERE min_ts IS NULL"), 0);
	check_windows(gen_db);
}

/* Damage block @k of source 1 of @db (cut its blob to @len bytes); its
 * row. */
static int64_t damage_to(const char *db, int k, int len)
{
	int64_t row = db_int(db, "SELECT alloc_lo FROM source WHERE id = 1") +
		      (int64_t)(k + 1) * 1024 - 1;
	char *q = strf("UPDATE alloc_blk SET data = substr(data, 1, %d) "
		       "WHERE id = %lld", len, (long long)row);

	free(out_of("sqlite3 '%s' '%s'", db, q));
	free(q);
	return row;
}

/* Damage block @k of source 1 of @db (cut its blob short); its row. */
static int64_t damage(const char *db, int k)
{
	return damage_to(db, k, 200);
}

/* Every report of @reps on @db fails naming block @k at @row, with
 * @what (offset and reason). */
static void refused_for(const char *db, int64_t row, int k, const char *what)
{
	static const char *const reps[] = {
		"allocs --pid 1003", "callsites --time ,",
		"pingpong --comm tar",
	};
	char *want = strf("alloc_blk row %lld (source 1, block %d) %s",
			  (long long)row, k, what);
	struct run r;

	for (int i = 0; i < 3; i++) {
		run_memdb(&r, db, "report %s", reps[i]);
		assert_run_status(&r, 1);
		if (!strstr(r.err, want))
			fail_msg("%s: %s", reps[i], r.err);
		run_free(&r);
	}
	free(want);
}

/* Every report of @reps on @db fails naming block @k at @row. */
static void refused_at(const char *db, int64_t row, int k)
{
	refused_for(db, row, k,
		    "offset=200: column headers run past the end");
}

/*
 * A damaged block, with blocks before and after it: the scan's error
 * names its row, block and byte.  The scan sums every other four blocks
 * on a second thread (report/scan.c): a damaged block there, and two
 * damaged blocks one on each thread, name the first of them.
 */
static void test_damaged_block(void **state)
{
	char *bad = path_in(tmp, "damaged.db");
	int64_t row;

	(void)state;
	free(out_of("cp '%s' '%s'", gen_db, bad));
	assert_true(db_int(bad, "SELECT count(*) FROM alloc_blk") > 10);
	row = damage(bad, 3);
	refused_at(bad, row, 3);
	free(out_of("cp '%s' '%s'", gen_db, bad));
	row = damage(bad, 5);           /* the second thread's */
	refused_at(bad, row, 5);
	damage(bad, 9);                 /* the first thread's, after it */
	refused_at(bad, row, 5);
	free(out_of("cp '%s' '%s'", gen_db, bad));
	damage(bad, 6);                 /* the second thread's, after */
	row = damage(bad, 2);
	refused_at(bad, row, 2);
	/* an empty blob (SQLite gives no pointer for it) on the second
	 * thread, whose job copies the blobs */
	free(out_of("cp '%s' '%s'", gen_db, bad));
	row = damage_to(bad, 5, 0);
	refused_for(bad, row, 5, "offset=0: shorter than the header");
	free(bad);
}

/* An ingest that fails part way leaves the database as it was; the
 * whole trace goes in after it. */
static void test_abort(void **state)
{
	char *bad = path_in(tmp, "bad.txt");
	char *db = fresh_db(tmp, "abort.db");
	struct run r;

	(void)state;
	free(out_of("(head -20000 '%s' && echo '  tar-1003 [001] ..... "
		    "1.030000000: kmalloc: truncated') > '%s'", gen, bad));
	run_memdb(&r, db, "ingest --strict -q '%s'", bad);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "line=20001 truncated kmalloc"));
	run_free(&r);
	ingest_ok(db, "'%s'", gen);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc"),
			 db_int(gen_db, "SELECT count(*) FROM alloc"));
	free(bad);
	free(db);
}

/* Windows and filters for test_schema11(). */
static const char *const same_opts[] = {
	"--time 1.022361600,1.043333119", "--time 1.000341503,1.022361600",
	"--time 1.0005,1.03", "--time 1.04,", "--time ,1.01", "--time ,",
	"--time 1.0005,1.03 --comm tar", "--time 1.04, --comm tar",
	"--time 1.0005,1.03 --cache kmalloc-64", "--comm tar",
	"--time 1.0005,1.03 --site ffffffff811016fb", "--pid 1003",
	"--time 1.0005,1.03 --pid 1003", "--cache kmalloc-64",
	"--time 1.002438656,1.031798783 --pid 1003",
	"--time 1.002438657,1.031798782 --pid 1003",
	"--time 1.002438656,1.031798783", "--time 5,6 --pid 1003",
	"--time 1.0003,1.0004 --pid 1003", "--time , --pid 1003", "",
};

/* Under the sanitizers every fourth of same_opts: windows, filters and
 * both together, the scan's code (what the sanitizers watch); the plain
 * build compares every option's figures. */
static int same_opt_runs(size_t o)
{
	return !under_sanitizers() || o % 4 == 0;
}

/*
 * A database of schema 11, with the slicing index it kept then, migrated
 * by an ingest of another trace: the slicing tables are gone, its blocks'
 * zone maps are those an ingest now writes, and its first source's rows equal
 * those of the same trace ingested now (which test_scan_windows() holds
 * against slice_count.py) with every window and filter.
 */
static void test_schema11(void **state)
{
	static const char *const reps[] = {
		"allocs", "callsites", "callsites --by comm",
		"callsites --by pid", "callsites --by cache", "fragmentation",
		"pingpong",
	};
	const size_t no = sizeof(same_opts) / sizeof(same_opts[0]);
	const char *zones = "SELECT group_concat(min_ts || ',' || max_ts || "
			    "',' || min_seq || ',' || max_seq, ' ') FROM "
			    "alloc_blk WHERE source_id = 1";
	char *a, *b;

	(void)state;
	assert_int_equal(db_int(v11_db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(v11_db, "SELECT count(*) FROM sqlite_master "
				"WHERE name LIKE 'slice%'"), 0);
	a = db_text(v11_db, zones);
	b = db_text(gen_db, zones);
	assert_string_equal(a, b);
	free(a);
	free(b);
	assert_int_equal(db_int(v11_db, "SELECT count(*) FROM alloc_blk "
				"WHERE source_id = 2 AND min_ts IS NULL"), 0);
	/* kinds: unknown for the blocks from before, so always read */
	assert_int_equal(db_int(v11_db, "SELECT count(*) FROM alloc_blk "
				"WHERE (source_id = 1) = (kinds IS NOT NULL)"),
			 0);
	/* the reports alloc's virtual table serves, kinds or not */
	for (size_t i = 0; i < 3; i++) {
		static const char *const vt[] = { "leaks --top 0", "pages",
						   "pages --by caller" };
		char *one = strf("%s --source 1", vt[i]);

		a = report_csv(v11_db, one);
		if (strcmp(a, ref_csv(gen_db, vt[i])))
			fail_msg("%s:\n%s\nnot\n%s", one, a,
				 ref_csv(gen_db, vt[i]));
		free(one);
		free(a);
	}
	for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++)
		for (size_t o = 0; o < no; o++) {
			char *args, *one;
			const char *want;

			if (!same_opt_runs(o))
				continue;
			args = strf("%s --top 0 %s", reps[i], same_opts[o]);
			one = strf("%s --source 1", args);
			a = report_csv(v11_db, one);
			want = ref_csv(gen_db, args);
			if (strcmp(a, want))
				fail_msg("%s:\n%s\nnot\n%s", one, a, want);
			free(args);
			free(one);
			free(a);
		}
}

/*
 * stacks with --time, alone and with --pid, on a perf capture with
 * callchains: the sum of its bytes is the SQL sum over the alloc rows in
 * the window (windows inside the capture, across it, at one allocation,
 * beyond it, open at either end).
 */
static void test_slice_stacks(void **state)
{
	/* START, END; the same in ns for SQL (-1: open) */
	static const struct {
		const char *lo, *hi;
		long long nlo, nhi;
	} win[] = {
		{ "268.95", "269.1", 268950000000, 269100000000 },
		{ "268.9", "268.95", 268900000000, 268950000000 },
		{ "269.0", "269.0042", 269000000000, 269004200000 },
		{ "269.1", "", 269100000000, -1 },
		{ "", "269.05", -1, 269050000000 },
		{ "268.928770414", "268.928770414", 268928770414,
		  268928770414 },
		{ "300", "301", 300000000000, 301000000000 },
		{ "", "", -1, -1 },
		{ "269.004", "269.2", 269004000000, 269200000000 },
	};
	const size_t nw = sizeof(win) / sizeof(win[0]);
	/* the task with the most allocations with a stack */
	const long long pid = db_int(cg_db, "SELECT pid FROM alloc WHERE "
				     "stack_id IS NOT NULL GROUP BY pid "
				     "ORDER BY count(*) DESC, pid LIMIT 1");

	(void)state;
	assert_true(db_int(cg_db, "SELECT count(*) FROM alloc WHERE "
			   "stack_id IS NOT NULL") > 500);
	for (size_t i = 0; i < 2 * nw; i++) {
		size_t w = i % nw;
		char *args = i < nw ? strf("stacks --time '%s,%s'", win[w].lo,
					   win[w].hi) :
			     strf("stacks --time '%s,%s' --pid %lld",
				  win[w].lo, win[w].hi, pid);
		char *sum = out_of("'%s' report %s -d '%s' | awk "
				   "'{ s += $NF } END { print s + 0 }'",
				   env("MEMDB"), args, cg_db);
		char *sql = strf("SELECT coalesce(sum(bytes_alloc), 0) FROM "
				 "alloc WHERE type < 2 AND state <> 3 AND "
				 "stack_id IS NOT NULL AND (%lld < 0 OR ts >= "
				 "%lld) AND (%lld < 0 OR ts <= %lld) AND "
				 "(%d OR pid = %lld)",
				 win[w].nlo, win[w].nlo, win[w].nhi,
				 win[w].nhi, i < nw, pid);
		long long want = db_int(cg_db, sql);

		if (atoll(sum) != want)
			fail_msg("%s: %s bytes, not %lld", args, sum, want);
		free(args);
		free(sum);
		free(sql);
	}
}

/* Usage errors: exit 2 with the valid keys or what the value must be. */
static void test_refusals(void **state)
{
	struct run r;

	(void)state;
	run_memdb(&r, hand_db, "report callsites --sort frag,nope");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "each one of: bytes, callsite, hit, "
				      "pingpong, frag, "));
	assert_non_null(strstr(r.err, "not 'nope'"));
	run_free(&r);
	run_memdb(&r, hand_db, "report callsites --time 5");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--time takes START,END"));
	run_free(&r);
	run_memdb(&r, hand_db, "report summary --comm bash");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "takes no --comm"));
	run_free(&r);
	run_memdb(&r, kt_db, "report callsites --comm bash");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "the source names no tasks, which "
				      "--comm needs"));
	run_free(&r);
	run_memdb(&r, kt_db, "report fragmentation --pid 1");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "names no tasks, which --pid needs"));
	run_free(&r);
	run_memdb(&r, kt_db, "report fragmentation --time 1,2");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "no timestamps, which --time needs"));
	run_free(&r);
	run_memdb(&r, hand_db, "report allocs --pid x");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--pid takes a task id, not 'x'"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_as_perf_caller),
		cmocka_unit_test(test_allocs_as_perf),
		cmocka_unit_test(test_time_windows),
		cmocka_unit_test(test_filters_by_hand),
		cmocka_unit_test(test_filter_rows),
		cmocka_unit_test(test_pingpong_window),
		cmocka_unit_test(test_pingpong_cpu_slices),
		cmocka_unit_test(test_leaks_slices),
		cmocka_unit_test(test_allocs_orders),
		cmocka_unit_test(test_scan_orders),
		cmocka_unit_test(test_leaks_as_rows),
		cmocka_unit_test(test_pages_sort),
		cmocka_unit_test(test_page_scan),
		cmocka_unit_test(test_open_window_is_whole),
		cmocka_unit_test(test_sums_past_int64),
		cmocka_unit_test(test_site_forms),
		cmocka_unit_test(test_scan_windows),
		cmocka_unit_test(test_damaged_block),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_schema11),
		cmocka_unit_test(test_slice_stacks),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
