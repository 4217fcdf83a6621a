// SPDX-License-Identifier: MIT
/*
 * perf kmem's slicing in the trace reports: --sort KEY[,KEY...] gives
 * perf kmem's order on the same capture (perf's own output, committed
 * with testdata/real-perf/), --time windows count what an independent
 * script counts over the text (tests/time_window.py), and each filter
 * (--cache, --site, --pid, --comm) gives the figures counted by hand on
 * testdata/slicing/trace.txt (its README has the table).  The slicing
 * index (db/schema-5.sql, schema-6.sql, schema-7.sql) is checked on a
 * generated trace against tests/slice_count.py, which pairs the events
 * itself, and on a perf capture with stacks against SQL over its alloc
 * rows.  The generated trace is small: ingested once as it is (no level
 * 7 tables) and once as a large source would be (MEMDB_TEST_SLICE_BIG=0
 * lowers the size from which a source gets them, docs/design.md §3.3).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../db/db.h"
#include "testlib.h"

static char *tmp, *kt_db, *slab_db, *hand_db, *text_db, *page_db, *text;
static char *gen_db, *old_db, *gen, *v5_db, *v6_db, *cg_db, *cg_old_db;
static char *big_db, *big7_db, *cg_big_db;

/* slice_count.py's lines for check_windows(@few): the same for every
 * database, so counted once per run (freed by teardown_all). */
static char *slice_counts[2];

/* report_csv(@db, @args), run once per pair: same_rows() and
 * test_slice_schema6() hold several databases against the same
 * reference's rows (freed by teardown_all). */
static struct ref_rows {
	char *db, *args, *csv;
} *refs;
static size_t nrefs;

/* db/schema-10.sql's additions undone */
#define UNDO_10 "ALTER TABLE source DROP COLUMN cpu_node; " \
	"ALTER TABLE source DROP COLUMN perf_frees; " \
	"ALTER TABLE source DROP COLUMN perf_freed_bytes; " \
	"ALTER TABLE source DROP COLUMN perf_pingpong; "

/* db/schema-8.sql's additions undone */
#define UNDO_8 "DROP TABLE slice_col; " \
	"ALTER TABLE slice_meta DROP COLUMN col_lo; " \
	"ALTER TABLE slice_meta DROP COLUMN col_hi; "

/* db/schema-7.sql's additions undone */
#define UNDO_7 "DROP TABLE slice_ptr; DROP TABLE slice_bucket_pid; " \
	"DROP TABLE slice_pp_pid; " \
	"ALTER TABLE slice_meta DROP COLUMN bpid_lo; " \
	"ALTER TABLE slice_meta DROP COLUMN bpid_hi; " \
	"ALTER TABLE slice_meta DROP COLUMN ppid_lo; " \
	"ALTER TABLE slice_meta DROP COLUMN ppid_hi; " \
	"ALTER TABLE slice_meta DROP COLUMN bpid_shift; "

/* Ingest as a large source (the level 7 tables, db/schema-7.sql, and
 * packed columns, db/schema-8.sql). */
static void ingest_big(const char *db, const char *path)
{
	setenv("MEMDB_TEST_SLICE_BIG", "0", 1);
	ingest_ok(db, "'%s'", path);
	unsetenv("MEMDB_TEST_SLICE_BIG");
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
	 * frees on other CPUs; 0.05 s of trace: buckets of 2^19 ns */
	gen = path_in(tmp, "gen.txt");
	gen_db = fresh_db(tmp, "gen.db");
	old_db = path_in(tmp, "old.db");
	free(out_of("'%s' --seed 7 --events 50000 --cpus 4 --live 1000 "
		    "--sites 32 --pages 2 --leaks 50 --reuse 40 "
		    "--cross-cpu 500 --dup-frees 5 --unknown-frees 5 "
		    "--format ftrace-text '%s'", env("KTGEN"), gen));
	ingest_ok(gen_db, "'%s'", gen);
	big_db = fresh_db(tmp, "big.db");
	ingest_big(big_db, gen);
	/* as a source ingested before the index: no slice_meta row */
	free(out_of("cp '%s' '%s' && sqlite3 '%s' 'DELETE FROM slice_meta'",
		    gen_db, old_db, old_db));
	/* as a source indexed by schema 5 (db/schema-6.sql's and
	 * schema-7.sql's additions undone), then migrated by an ingest that
	 * finds it present; the same by schema 6 (the large source's
	 * level 7 tables undone), then a source added as a large one */
	v5_db = path_in(tmp, "v5.db");
	v6_db = path_in(tmp, "v6.db");
	free(out_of("cp '%s' '%s'", big_db, v6_db));
	db_as_schema10(v6_db);
	free(out_of("sqlite3 '%s' '" UNDO_10 UNDO_8 UNDO_7
		    "UPDATE slice_meta SET level = 6; "
		    "PRAGMA user_version = 6'", v6_db));
	ingest_ok(v6_db, "'%s'", gen);
	ingest_big(v6_db, text);
	free(out_of("cp '%s' '%s'", gen_db, v5_db));
	db_as_schema10(v5_db);
	free(out_of("sqlite3 '%s' '" UNDO_10 UNDO_8 UNDO_7
		    "DROP TABLE slice_pp; "
		    "DROP TABLE slice_stack; DROP TABLE slice_bucket_comm; "
		    "ALTER TABLE slice_meta DROP COLUMN level; "
		    "ALTER TABLE slice_meta DROP COLUMN bcomm_lo; "
		    "ALTER TABLE slice_meta DROP COLUMN bcomm_hi; "
		    "ALTER TABLE slice_meta DROP COLUMN bcomm_shift; "
		    "ALTER TABLE slice_meta DROP COLUMN pp_lo; "
		    "ALTER TABLE slice_meta DROP COLUMN pp_hi; "
		    "ALTER TABLE slice_meta DROP COLUMN stack_lo; "
		    "ALTER TABLE slice_meta DROP COLUMN stack_hi; "
		    "PRAGMA user_version = 5'", v5_db));
	ingest_ok(v5_db, "'%s'", gen);
	/* the large source by schema 7: the level 7 tables, no packed
	 * columns; migrated by an ingest that finds it present */
	big7_db = path_in(tmp, "big7.db");
	free(out_of("cp '%s' '%s'", big_db, big7_db));
	db_as_schema10(big7_db);
	free(out_of("sqlite3 '%s' '" UNDO_10 UNDO_8
		    "PRAGMA user_version = 7'", big7_db));
	ingest_ok(big7_db, "'%s'", gen);
	/* perf record -g: slab allocations with stacks, 4 ms buckets */
	cg_db = fresh_db(tmp, "cg.db");
	cg_old_db = path_in(tmp, "cg-old.db");
	free(out_of("zstd -dqf '%s/real-perf/cg.data.zst' -o '%s/cg.data'",
		    td, tmp));
	ingest_ok(cg_db, "'%s/cg.data'", tmp);
	cg_big_db = fresh_db(tmp, "cg-big.db");
	{
		char *cg = path_in(tmp, "cg.data");

		ingest_big(cg_big_db, cg);
		free(cg);
	}
	free(out_of("cp '%s' '%s' && sqlite3 '%s' 'DELETE FROM slice_meta'",
		    cg_db, cg_old_db, cg_old_db));
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
	free(old_db);
	free(v5_db);
	free(v6_db);
	free(big_db);
	free(big7_db);
	free(cg_big_db);
	free(cg_db);
	free(cg_old_db);
	free(slice_counts[0]);
	free(slice_counts[1]);
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
 * every filter, the others alone and with --pid; with @few every window
 * alone and with --pid only (the selections level 7 has tables for).
 * Under the sanitizers only the first three windows run (whole 2^22 ns
 * buckets, the same cut by 1 ns at both ends, and the open window), alone,
 * with --pid and with --comm and --cache: they take each read path's code
 * at a bucket's edges, inside it and unbounded, which is what the
 * sanitizers watch; the other figures are the plain build's to check. */
static int window_filter(size_t i, size_t f, int few)
{
	if (under_sanitizers() && (i >= 3 || (f && f != 2 && f != 5)))
		return 0;
	if (few)
		return !f || f == 2;
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
 * row, and the per-site rows, as slice_count.py counts them (@few: see
 * window_filter()). */
static void check_windows(const char *db, int few)
{
	/* bucket edges: 1.000341504 s is bucket 1908's first ns (2^19 ns
	 * each); windows inside one bucket, across one edge, across many,
	 * empty between events, beyond the capture, and covering it; the
	 * first few with each filter too */
	static const char *const win[] = {
		/* slice_bucket_pid's wider buckets: 2^22 ns, 239 to 245
		 * whole; cut by 1 ns at both ends */
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

			if (!window_filter(i, f, few))
				continue;
			q = strf("%s '%s %s'", qs, win[i], filt[f]);
			free(qs);
			qs = q;
		}
	if (!slice_counts[few])
		slice_counts[few] = out_of("python3 '%s/slice_count.py' %s < "
					   "'%s'", env("TESTS_DIR"), qs, gen);
	at = slice_counts[few];
	for (size_t i = 0; i < nw; i++)
		for (size_t f = 0; f < nf; f++) {
			if (window_filter(i, f, few))
				check_window(db, win[i], filt[f], &at);
		}
	free(qs);
}

/* The slicing index: the source has one, and every window and filter
 * reads the figures slice_count.py counts. */
static void test_slice_index(void **state)
{
	(void)state;
	assert_int_equal(db_int(gen_db, "SELECT width FROM slice_meta"),
			 1 << 19);
	assert_int_equal(db_int(gen_db, "SELECT count(*) FROM slice_meta "
				"WHERE min_ts = 1000001000"), 1);
	/* the buckets and keys hold every slab allocation */
	assert_int_equal(db_int(gen_db, "SELECT sum(hits) FROM slice_bucket"),
			 db_int(gen_db, "SELECT count(*) FROM alloc "
				"WHERE type < 2"));
	assert_int_equal(db_int(gen_db, "SELECT sum(hits) FROM slice_key"),
			 db_int(gen_db, "SELECT count(*) FROM alloc "
				"WHERE type < 2"));
	/* a small source: no level 7 tables (db/schema-7.sql) */
	assert_int_equal(db_int(gen_db, "SELECT level FROM slice_meta"), 6);
	assert_int_equal(db_int(gen_db, "SELECT (SELECT count(*) FROM "
				"slice_ptr) + (SELECT count(*) FROM "
				"slice_bucket_pid) + (SELECT count(*) FROM "
				"slice_pp_pid)"), 0);
	check_windows(gen_db, 0);
}

/* The same trace as a large source: level 7, whose tables hold every
 * slab allocation, and every window and filter reads the same figures. */
static void test_slice_index_big(void **state)
{
	const long long slab = db_int(big_db, "SELECT count(*) FROM alloc "
				      "WHERE type < 2");

	(void)state;
	assert_int_equal(db_int(big_db, "SELECT level FROM slice_meta"), 7);
	assert_int_equal(db_int(big_db, "SELECT bpid_shift FROM slice_meta"),
			 3);
	/* per address, summed over its buckets: its last row holds all */
	assert_int_equal(db_int(big_db, "SELECT sum(hits) FROM slice_ptr p "
				"WHERE bucket = (SELECT max(bucket) FROM "
				"slice_ptr x WHERE x.ptr = p.ptr)"), slab);
	assert_int_equal(db_int(big_db, "SELECT count(*) FROM (SELECT "
				"DISTINCT ptr FROM slice_ptr)"),
			 db_int(big_db, "SELECT count(DISTINCT ptr) FROM "
				"alloc WHERE type < 2"));
	assert_int_equal(db_int(big_db, "SELECT count(*) FROM (SELECT "
				"DISTINCT ptr, ts >> 19 FROM alloc WHERE "
				"type < 2)"),
			 db_int(big_db, "SELECT count(*) FROM slice_ptr"));
	assert_int_equal(db_int(big_db, "SELECT sum(hits) FROM "
				"slice_bucket_pid"), slab);
	assert_int_equal(db_int(big_db, "SELECT count(*) FROM (SELECT "
				"DISTINCT ts >> 22, site_id, type, cache_id, "
				"pid FROM alloc WHERE type < 2)"),
			 db_int(big_db, "SELECT count(*) FROM "
				"slice_bucket_pid"));
	assert_int_equal(db_int(big_db, "SELECT sum(hits) FROM "
				"slice_pp_pid"),
			 db_int(big_db, "SELECT count(*) FROM alloc WHERE "
				"type < 2 AND state = 1 AND cpu <> free_cpu"));
	/* the blocks: one per 1024 allocations, the last id of each its
	 * id, read by the reports (col_lo, col_hi the source's ids) */
	assert_int_equal(db_int(big_db, "SELECT count(*) FROM alloc_blk"),
			 db_int(big_db, "SELECT (count(*) + 1023) / 1024 "
				"FROM alloc"));
	assert_int_equal(db_int(big_db, "SELECT count(*) FROM alloc_blk b, "
				"source s WHERE (b.id - s.alloc_lo + 1) % 1024 "
				"<> 0 AND b.id <> s.alloc_hi"), 0);
	assert_int_equal(db_int(big_db, "SELECT count(*) FROM slice_meta m "
				"JOIN source s ON s.id = m.source_id WHERE "
				"col_lo = alloc_lo AND col_hi = alloc_hi"), 1);
	check_windows(big_db, 0);
}

/* A large source of schema 7 (level 7 tables, no packed columns) reads
 * them, as before: every window, alone and with --pid (the selections
 * its level 7 tables serve; the others read level 6's, checked on
 * gen_db, and same_rows() compares its rows), has the same figures. */
static void test_slice_index_big7(void **state)
{
	(void)state;
	assert_int_equal(db_int(big7_db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(big7_db, "SELECT count(*) FROM slice_meta "
				"WHERE level = 7 AND col_lo IS NULL"), 1);
	check_windows(big7_db, 1);
}

/*
 * The large source's reports read the level 7 tables: with their
 * figures changed, allocs --time, and callsites, fragmentation and
 * pingpong with --pid and --time, change (the rows equal to the raw
 * path's are not the raw path's own).
 */
static void test_slice_big_reads(void **state)
{
	static const char *const reps[][2] = {
		{ "allocs", "" }, { "callsites", "--pid 1003" },
		{ "callsites --by pid", "" },
		{ "fragmentation", "--pid 1003" },
		{ "pingpong", "--pid 1003" },
	};
	static const char *const col_reps[][2] = {
		{ "allocs", "--pid 1003" }, { "allocs", "--comm tar" },
		{ "callsites", "--cache kmalloc-64 --pid 1003" },
		{ "callsites --by pid", "--time 1.0005,1.03" },
		{ "callsites --by cache", "--time 1.0005,1.03" },
	};
	char *bad = path_in(tmp, "bad.db");
	struct run r;

	(void)state;
	free(out_of("cp '%s' '%s' && sqlite3 '%s' 'UPDATE slice_ptr SET "
		    "hits = hits + 1000; UPDATE slice_bucket_pid SET hits = "
		    "hits + 1000, freed = freed + 1000; UPDATE slice_pp_pid "
		    "SET hits = hits + 1000'", big7_db, bad, bad));
	for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++) {
		char *opt = strf("%s --time 1.0005,1.03", reps[i][1]);
		char *a = total_of(big7_db, reps[i][0], opt, "3,5");
		char *b = total_of(bad, reps[i][0], opt, "3,5");

		if (!strcmp(a, b))
			fail_msg("%s %s: %s both", reps[i][0], opt, a);
		free(opt);
		free(a);
		free(b);
	}
	/* the blocks (schema 11): with only the first, the selections no
	 * index table serves count fewer allocations */
	free(out_of("cp '%s' '%s' && sqlite3 '%s' 'DELETE FROM alloc_blk "
		    "WHERE id > (SELECT alloc_lo + 1023 FROM source WHERE "
		    "id = 1)'", big_db, bad, bad));
	for (size_t i = 0; i < sizeof(col_reps) / sizeof(col_reps[0]); i++) {
		char *a = total_of(big_db, col_reps[i][0], col_reps[i][1],
				   "2,3");
		char *b = total_of(bad, col_reps[i][0], col_reps[i][1], "2,3");

		if (!strcmp(a, b))
			fail_msg("%s %s: %s both", col_reps[i][0],
				 col_reps[i][1], a);
		free(a);
		free(b);
	}
	/* a damaged block: an error that names its row and byte */
	free(out_of("cp '%s' '%s'", big_db, bad));
	{
		int64_t blk3 = db_int(bad, "SELECT alloc_lo FROM source "
				      "WHERE id = 1") + 4 * 1024 - 1;
		char *q = strf("UPDATE alloc_blk SET data = substr(data, 1, "
			       "200) WHERE id = %lld", (long long)blk3);
		char *want = strf("alloc_blk row %lld (source 1, block 3) "
				  "offset=5: the zstd frame does not "
				  "decompress", (long long)blk3);

		free(out_of("sqlite3 '%s' '%s'", bad, q));
		run_memdb(&r, bad, "report allocs --pid 1003");
		assert_run_status(&r, 1);
		if (!strstr(r.err, want))
			fail_msg("%s", r.err);
		run_free(&r);
		free(q);
		free(want);
	}
	free(bad);
}

/* A source without the index (ingested before it) reads its alloc rows:
 * the same figures. */
static void test_slice_no_index(void **state)
{
	(void)state;
	assert_int_equal(db_int(old_db, "SELECT count(*) FROM slice_meta"),
			 0);
	check_windows(old_db, 0);
}

/* A large source's ingest that fails part way (the thread making the
 * level 7 tables stopped with rows queued) leaves the database as it
 * was; the whole trace goes in after it. */
static void test_slice_big_abort(void **state)
{
	char *bad = path_in(tmp, "bad.txt");
	char *db = fresh_db(tmp, "abort.db");
	struct run r;

	(void)state;
	free(out_of("(head -20000 '%s' && echo '  tar-1003 [001] ..... "
		    "1.030000000: kmalloc: truncated') > '%s'", gen, bad));
	setenv("MEMDB_TEST_SLICE_BIG", "0", 1);
	run_memdb(&r, db, "ingest --strict -q '%s'", bad);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "line=20001 truncated kmalloc"));
	run_free(&r);
	unsetenv("MEMDB_TEST_SLICE_BIG");
	ingest_big(db, gen);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	assert_int_equal(db_int(db, "SELECT level FROM slice_meta"), 7);
	free(bad);
	free(db);
}

/* Windows and filters whose rows the raw-row path must give alike. */
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
	"--time 1.0003,1.0004 --pid 1003", "--time , --pid 1003",
};

/* Under the sanitizers every fourth of same_opts: windows, filters and
 * both together, the read paths' code (what the sanitizers watch); the
 * plain build compares every option's figures. */
static int same_opt_runs(size_t o)
{
	return !under_sanitizers() || o % 4 == 0;
}

/* Every row of @reports with each of same_opts on @db equals @ref's. */
static void same_rows(const char *db, const char *ref,
		      const char *const *reports, size_t nrep)
{
	const size_t no = sizeof(same_opts) / sizeof(same_opts[0]);

	for (size_t i = 0; i < nrep; i++)
		for (size_t o = 0; o < no; o++) {
			char *args, *a;
			const char *b;

			if (!same_opt_runs(o))
				continue;
			args = strf("%s --top 0 %s", reports[i], same_opts[o]);
			a = report_csv(db, args);
			b = ref_csv(ref, args);

			if (strcmp(a, b))
				fail_msg("%s:\n%s\nnot\n%s", args, a, b);
			free(args);
			free(a);
		}
}

/* pingpong (the CPU pair seen most too), --comm and --by comm with a
 * window: the rows of the index's whole buckets and edges equal those of
 * the alloc rows (whose totals check_windows checks). */
static void test_slice_rows_as_raw(void **state)
{
	static const char *const reps[] = {
		"pingpong", "callsites --by comm", "callsites",
		"fragmentation", "allocs", "callsites --by pid",
	};

	(void)state;
	/* every slab allocation freed on another CPU, in slice_pp */
	assert_int_equal(db_int(gen_db, "SELECT sum(hits) FROM slice_pp"),
			 db_int(gen_db, "SELECT count(*) FROM alloc WHERE "
				"type < 2 AND state = 1 AND cpu <> free_cpu"));
	assert_true(db_int(gen_db, "SELECT sum(hits) FROM slice_pp") > 400);
	assert_int_equal(db_int(gen_db, "SELECT sum(hits) FROM "
				"slice_bucket_comm"),
			 db_int(gen_db, "SELECT count(*) FROM alloc "
				"WHERE type < 2"));
	same_rows(gen_db, old_db, reps, sizeof(reps) / sizeof(reps[0]));
	same_rows(big_db, old_db, reps, sizeof(reps) / sizeof(reps[0]));
	same_rows(big7_db, old_db, reps, sizeof(reps) / sizeof(reps[0]));
	/* no option: allocs reads a large source's slice_ptr then too */
	for (size_t i = 0; i < 2; i++) {
		static const char *const plain[] = { "allocs --top 0",
						     "allocs --top 0 --sort ptr" };
		char *a = report_csv(big_db, plain[i]);
		char *b = report_csv(old_db, plain[i]);

		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

/* A database indexed by schema 5, migrated: its source has no level-6
 * tables (slice_meta.level NULL) and reads the paths of before, with the
 * same rows. */
static void test_slice_schema5(void **state)
{
	static const char *const reps[] = {
		"pingpong", "callsites --by comm", "callsites",
		"fragmentation", "allocs", "stacks",
	};

	(void)state;
	assert_int_equal(db_int(v5_db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(v5_db, "SELECT count(*) FROM slice_meta "
				"WHERE level IS NULL AND bucket_lo > 0"), 1);
	assert_int_equal(db_int(v5_db, "SELECT count(*) FROM slice_pp"), 0);
	same_rows(v5_db, gen_db, reps, sizeof(reps) / sizeof(reps[0]));
}

/* A database indexed by schema 6, migrated: its source keeps level 6,
 * without rows in the level 7 tables, and reads the alloc rows as
 * before, with the same rows; a large source added after has level 7. */
static void test_slice_schema6(void **state)
{
	static const char *const reps[] = {
		"allocs", "callsites", "fragmentation", "pingpong",
		"callsites --by pid",
	};
	const size_t no = sizeof(same_opts) / sizeof(same_opts[0]);

	(void)state;
	assert_int_equal(db_int(v6_db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(v6_db, "SELECT group_concat(level, '') FROM "
				"(SELECT level FROM slice_meta ORDER BY "
				"source_id)"), 67);
	assert_int_equal(db_int(v6_db, "SELECT count(*) FROM slice_meta "
				"WHERE source_id = 1 AND coalesce(bpid_lo, "
				"ppid_lo, bpid_shift) IS NULL"), 1);
	assert_int_equal(db_int(v6_db, "SELECT count(*) FROM slice_ptr "
				"WHERE source_id = 1"), 0);
	assert_true(db_int(v6_db, "SELECT count(*) FROM slice_ptr "
			   "WHERE source_id = 2") > 0);
	for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++)
		for (size_t o = 0; o < no; o++) {
			char *args, *one, *a;
			const char *b;

			if (!same_opt_runs(o))
				continue;
			args = strf("%s --top 0 %s", reps[i], same_opts[o]);
			one = strf("%s --source 1", args);
			a = report_csv(v6_db, one);
			b = ref_csv(old_db, args);

			if (strcmp(a, b))
				fail_msg("%s:\n%s\nnot\n%s", one, a, b);
			free(args);
			free(one);
			free(a);
		}
}

/*
 * stacks with --time on a perf capture with callchains: the bytes per
 * stack equal those of the alloc rows (the capture without its index),
 * and their sum the SQL sum over the alloc rows in the window (buckets
 * of 4194304 ns from 268.928770414 s: windows inside one, across edges,
 * at one allocation, beyond the capture).
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

	(void)state;
	assert_int_equal(db_int(cg_db, "SELECT level FROM slice_meta"), 6);
	assert_int_equal(db_int(cg_db, "SELECT sum(bytes) FROM slice_stack"),
			 db_int(cg_db, "SELECT sum(bytes_alloc) FROM alloc "
				"WHERE type < 2 AND state <> 3 AND stack_id "
				"IS NOT NULL"));
	for (size_t i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
		char *args = strf("stacks --time '%s,%s'", win[i].lo,
				  win[i].hi);
		char *a = report_csv(cg_db, args);
		char *b = report_csv(cg_old_db, args);
		char *sum = out_of("'%s' report %s -d '%s' | awk "
				   "'{ s += $NF } END { print s + 0 }'",
				   env("MEMDB"), args, cg_db);
		char *sql = strf("SELECT coalesce(sum(bytes_alloc), 0) FROM "
				 "alloc WHERE type < 2 AND state <> 3 AND "
				 "stack_id IS NOT NULL AND (%lld < 0 OR ts >= "
				 "%lld) AND (%lld < 0 OR ts <= %lld)",
				 win[i].nlo, win[i].nlo, win[i].nhi,
				 win[i].nhi);
		long long want = db_int(cg_db, sql);

		if (strcmp(a, b))
			fail_msg("%s:\n%s\nnot\n%s", args, a, b);
		if (atoll(sum) != want)
			fail_msg("%s: %s bytes, not %lld", args, sum, want);
		free(args);
		free(a);
		free(b);
		free(sum);
		free(sql);
	}
	/* as a large source: the packed columns (db/schema-8.sql) give the
	 * alloc rows' stacks, with windows and with filters */
	assert_int_equal(db_int(cg_big_db, "SELECT count(*) FROM slice_meta "
				"WHERE col_lo IS NOT NULL"), 1);
	for (size_t i = 0; i < 2 * sizeof(win) / sizeof(win[0]); i++) {
		size_t w = i % (sizeof(win) / sizeof(win[0]));
		char *args = strf("stacks --time '%s,%s'%s", win[w].lo,
				  win[w].hi, i == w ? "" :
				  " --comm cat --cache kmalloc-4096");
		char *a = report_csv(cg_big_db, args);
		char *b = report_csv(cg_old_db, args);

		if (strcmp(a, b))
			fail_msg("%s:\n%s\nnot\n%s", args, a, b);
		free(args);
		free(a);
		free(b);
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
		cmocka_unit_test(test_leaks_slices),
		cmocka_unit_test(test_pages_sort),
		cmocka_unit_test(test_open_window_is_whole),
		cmocka_unit_test(test_site_forms),
		cmocka_unit_test(test_slice_index),
		cmocka_unit_test(test_slice_index_big),
		cmocka_unit_test(test_slice_index_big7),
		cmocka_unit_test(test_slice_big_reads),
		cmocka_unit_test(test_slice_big_abort),
		cmocka_unit_test(test_slice_no_index),
		cmocka_unit_test(test_slice_rows_as_raw),
		cmocka_unit_test(test_slice_schema5),
		cmocka_unit_test(test_slice_schema6),
		cmocka_unit_test(test_slice_stacks),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
