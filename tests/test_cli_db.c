// SPDX-License-Identifier: MIT
/*
 * The database as users meet it, through the binary: which source a
 * report takes by default (the latest of the kind it reads), sources of
 * the wrong kind, re-ingest with a new --label, untrusted strings on a
 * terminal, `memdb sql` that cannot write, read-only databases, what a
 * rejected ingest leaves behind, waiting for another memdb, and the exit
 * codes the README promises.
 */
#include <fcntl.h>
#include <libgen.h>
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
#include <jansson.h>
#include <sqlite3.h>

#include "testlib.h"
#include "../db/db.h"
#include "../db/migrations.h"

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
	assert_run_ok(&r);
	assert_has(r.out, "source 1: kmemtrace-relay");
	assert_null(strstr(r.out, "(no rows)"));
	run_free(&r);
	MEMDB(&r, db, "report fragmentation --format csv");
	assert_run_ok(&r);
	assert_has(r.out, small_total);
	run_free(&r);
	MEMDB(&r, db, "report summary --format json");
	assert_run_ok(&r);
	assert_has(r.out, "\"source\": 1,");
	run_free(&r);

	/* symbolize, too, takes the latest trace (snapshots have no call
	 * sites) */
	{
		char *ks = path_in(tmp, "kallsyms");
		FILE *f = fopen(ks, "w");

		assert_non_null(f);
		fputs("ffffffff81000000 T _stext\n"
		      "ffffffff81234500 T small_site\n", f);
		fclose(f);
		MEMDB(&r, db, "symbolize --kallsyms '%s'", ks);
		assert_run_ok(&r);
		assert_has(r.out, "source 1: ");
		run_free(&r);
		free(ks);
	}

	/* a snapshot report the latest snapshot, even after a trace */
	ingest_ok(db, "'%s/succeed/kt-small-be'", env("TESTDATA"));
	MEMDB(&r, db, "report zones --format json --top 1");
	assert_run_ok(&r);
	assert_has(r.out, "\"source\": 3,");
	run_free(&r);
	MEMDB(&r, db, "report growth --format json --top 1");
	assert_run_ok(&r);
	assert_has(r.out, "\"source\": {\"from\": 2, \"to\": 3}");
	run_free(&r);

	/* allocinfo reads tags: there are none */
	MEMDB(&r, db, "report allocinfo");
	assert_run_status(&r, 1);
	assert_has(r.err, "allocation-tag snapshot");
	assert_has(r.err, "holds no source of the kind");
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
	assert_run_status(&r, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "reads a trace");
	assert_has(r.err, "source 3 is a zone snapshot");
	run_free(&r);
	MEMDB(&r, db, "report zones --source 1");
	assert_run_status(&r, 2);
	assert_has(r.err, "source 1 is a trace");
	run_free(&r);
	MEMDB(&r, db, "report growth --source 1");
	assert_run_status(&r, 2);
	run_free(&r);
	MEMDB(&r, db, "report growth --from 1 --to 3");
	assert_run_status(&r, 2);
	assert_has(r.err, "source 1 is a trace");
	run_free(&r);

	/* growth across kinds: allocinfo (4) against vmstat -z (5) */
	ingest_ok(db, "--label x '%s'", ai);
	ingest_ok(db, "--label x '%s'", vz);
	MEMDB(&r, db, "report growth --from 4 --to 5");
	assert_run_status(&r, 2);
	assert_string_equal(r.out, "");
	assert_has(r.err, "different kinds");
	run_free(&r);
	MEMDB(&r, db, "report growth --from 5 --to 2");
	assert_run_ok(&r); /* two zone snapshots compare */
	run_free(&r);

	/* growth between two traces points to the diff report */
	ingest_ok(db, "'%s/succeed/kt-small-be'", env("TESTDATA"));
	MEMDB(&r, db, "report growth --from 1 --to 6");
	assert_run_status(&r, 2);
	assert_has(r.err, "are traces");
	assert_has(r.err, "'memdb report diff --from");
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
	assert_run_status(&r, 2);
	assert_has(r.err, "'memdb report diff --from 1 --to 2'");
	run_free(&r);
	/* which runs: the two traces compared per call site */
	MEMDB(&r, db, "report diff --from 1 --to 2");
	assert_run_ok(&r);
	assert_has(r.out, "delta_bytes");
	run_free(&r);
	MEMDB(&r, db, "report growth");
	assert_run_status(&r, 1);
	assert_has(r.err, "holds no source of the kind");
	run_free(&r);
	free(db);
}

/* Every report, variants too, declares the kinds of source it reads
 * (_shared.sql holds fragments, not a report). */
static void test_reports_declare_kind(void **state)
{
	struct run r;

	(void)state;
	run(&r, "cd '%s/../queries' && for f in [!_]*.sql; do "
		"grep -Eq '^-- source: (trace|tags\\|zones|tags|zones)$' "
		"\"$f\" || echo \"$f\"; done", env("TESTS_DIR"));
	assert_run_ok(&r);
	assert_string_equal(r.out, "");
	run_free(&r);
}

/* ---- re-ingest with a new --label ----------------------------------- */

static void test_relabel_on_reingest(void **state)
{
	char *db = fresh_db(tmp, "label.db");
	char *ai = fixture("succeed/snapshots/allocinfo-t0.txt");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s'", ai);
	assert_int_equal(db_int(db, "SELECT label IS NULL FROM source"), 1);
	MEMDB(&r, db, "ingest --label web1 '%s'", ai);
	assert_run_ok(&r);
	assert_has(r.out, "already ingested");
	assert_has(r.out, "its label is now 'web1'");
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source WHERE "
				    "label = 'web1'"), 1);
	/* the same label again changes nothing, and says what it is */
	MEMDB(&r, db, "ingest --label web1 '%s'", ai);
	assert_run_ok(&r);
	assert_has(r.out, "its label is 'web1'");
	run_free(&r);
	/* without --label a re-ingest keeps the label */
	ingest_ok(db, "'%s'", ai);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source WHERE "
				    "label = 'web1'"), 1);
	free(ai);
	free(db);
}

/* ---- untrusted strings on a terminal --------------------------------- */

/* An allocinfo whose function names carry terminal escapes, in a file
 * whose name carries one: returns its path. */
static char *hostile_allocinfo(void)
{
	char *p = path_in(tmp, "evil\033[31m.txt");
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs("        4096        1 mm/x.c:1 func:bad\033]0;pwned\007fn\n"
	      "        8192        2 mm/y.c:2 func:c1_\302\233x\n", f);
	fclose(f);
	return p;
}

static void test_escapes_on_terminal(void **state)
{
	char *db = fresh_db(tmp, "esc.db"), *ai = hostile_allocinfo();
	char *bad = path_in(tmp, "bad\033[2J.txt");
	json_error_t jerr;
	json_t *doc;
	struct run r;

	(void)state;
	MEMDB(&r, db, "ingest --label 'l\033[2J' '%s'", ai);
	assert_run_ok(&r);
	assert_null(strchr(r.out, '\033'));
	assert_has(r.out, "evil\\x1b[31m.txt");
	assert_has(r.out, "l\\x1b[2J");
	run_free(&r);
	/* stored as given */
	assert_int_equal(db_int(db, "SELECT count(*) FROM tag WHERE function"
				    " = 'bad' || char(27) || ']0;pwned' || "
				    "char(7) || 'fn'"), 1);
	/* tables escape (header: file name and label; cells: names) */
	MEMDB(&r, db, "report allocinfo");
	assert_run_ok(&r);
	assert_null(strchr(r.out, '\033'));
	assert_null(strchr(r.out, '\007'));
	assert_has(r.out, "bad\\x1b]0;pwned\\x07fn");
	assert_has(r.out, "c1_\\u009bx");
	assert_has(r.out, "(l\\x1b[2J)");
	run_free(&r);
	MEMDB(&r, db, "sources");
	assert_null(strchr(r.out, '\033'));
	run_free(&r);
	/* CSV to a pipe keeps the data */
	MEMDB(&r, db, "report allocinfo --format csv");
	assert_has(r.out, "bad\033]0;pwned\007fn");
	run_free(&r);
	/* JSON is valid and carries the same strings */
	MEMDB(&r, db, "report allocinfo --format json");
	assert_run_ok(&r);
	assert_null(strchr(r.out, '\033'));
	doc = json_loads(r.out, 0, &jerr);
	if (!doc)
		fail_msg("invalid JSON: %s: %s", jerr.text, r.out);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(doc, "rows"), 1), "function")),
			    "bad\033]0;pwned\007fn");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(doc, "rows"), 0), "function")),
			    "c1_\302\233x");
	json_decref(doc);
	run_free(&r);
	/* messages: a rejected file's name */
	run(&r, "printf 'garbage\\001\\002' > '%s'", bad);
	run_free(&r);
	MEMDB(&r, db, "ingest '%s'", bad);
	assert_run_status(&r, 1);
	assert_null(strchr(r.err, '\033'));
	assert_has(r.err, "bad\\x1b[2J.txt");
	run_free(&r);
	/* CSV on a terminal is for a person: escaped (script(1) gives the
	 * pty; COLUMNS=0 as some terminals report must change nothing) */
	run(&r, "command -v script");
	if (r.status == 0) {
		run_free(&r);
		run(&r, "COLUMNS=0 script -qec \"'%s' report allocinfo -d "
			"'%s' --format csv\" /dev/null", env("MEMDB"), db);
		assert_run_ok(&r);
		assert_null(strchr(r.out, '\033'));
		assert_has(r.out, "bad\\x1b]0;pwned\\x07fn");
	}
	run_free(&r);
	free(bad);
	free(ai);
	free(db);
}

/* ---- schema 10's alloc rows become blocks ---------------------------- */

/* The one value of query @q on @db, read directly, as text. */
static char *query_text(const char *db, const char *q)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	char *out;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	out = strdup(sqlite3_column_type(st, 0) == SQLITE_NULL ? "" :
		     (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return out;
}

/* Every alloc row of sources 1 and 2 of @db, every column, as text. */
static char *alloc_rows(const char *db)
{
	static const char q[] =
		"SELECT count(*) || char(10) || group_concat(quote(id) || ',' "
		"|| quote(source_id) || ',' || quote(seq) || ',' || quote(ts) "
		"|| ',' || quote(cpu) || ',' || quote(type) || ',' || "
		"quote(site_id) || ',' || quote(ptr) || ',' || quote(bytes_req) "
		"|| ',' || quote(bytes_alloc) || ',' || quote(gfp) || ',' || "
		"quote(gfp_id) || ',' || quote(node) || ',' || quote(cache_id) "
		"|| ',' || quote(state) || ',' || quote(end_seq) || ',' || "
		"quote(end_ts) || ',' || quote(free_cpu) || ',' || "
		"quote(free_site_id) || ',' || quote(free_type) || ',' || "
		"quote(pid) || ',' || quote(comm_id) || ',' || "
		"quote(migratetype) || ',' || quote(stack_id), char(10)) "
		"FROM (SELECT * FROM alloc WHERE source_id <= 2 ORDER BY id)";

	return query_text(db, q);
}

/* A report of @db over every source, as CSV. */
static char *report_all(const char *db, const char *name)
{
	struct run r;
	char *out;

	MEMDB(&r, db, "report %s --source all --format csv", name);
	assert_run_ok(&r);
	out = r.out;
	r.out = NULL;
	run_free(&r);
	return out;
}

/*
 * A database of schema 10 (alloc a table of rows) is refused read-only
 * with how to convert it, and an ingest converts it: the same rows, now
 * blocks of alloc_blk read through the virtual table, and the same
 * reports.  real-tracefs has more allocations than a block holds
 * (1,107).
 */
static void test_schema10_rows_become_blocks(void **state)
{
	char *db = fresh_db(tmp, "v10.db");
	char *rows, *rows10, *rows11, *cs, *cs11, *lk, *lk11;
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/real-tracefs'", env("TESTDATA"));
	ingest_ok(db, "'%s/slicing/trace.txt'", env("TESTDATA"));
	rows = alloc_rows(db);
	assert_true(atoi(rows) > 1024);
	cs = report_all(db, "callsites");
	lk = report_all(db, "leaks");
	db_as_schema10(db);
	assert_int_equal(db_int(db, "PRAGMA user_version"), 10);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'alloc' AND sql LIKE "
				"'CREATE TABLE%'"), 1);
	rows10 = alloc_rows(db);
	assert_string_equal(rows, rows10);
	MEMDB(&r, db, "report callsites");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "unsupported database schema");
	assert_has(r.err, "any 'memdb ingest' into it migrates it");
	run_free(&r);
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	assert_int_equal(db_int(db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'alloc' AND sql LIKE "
				"'CREATE VIRTUAL TABLE%'"), 1);
	assert_true(db_int(db, "SELECT count(*) FROM alloc_blk") > 2);
	rows11 = alloc_rows(db);
	assert_string_equal(rows, rows11);
	/* the reports over sources 1 and 2, as before */
	MEMDB(&r, db, "sources --delete 3");
	assert_run_ok(&r);
	run_free(&r);
	cs11 = report_all(db, "callsites");
	lk11 = report_all(db, "leaks");
	assert_string_equal(cs, cs11);
	assert_string_equal(lk, lk11);
	free(rows);
	free(rows10);
	free(rows11);
	free(cs);
	free(cs11);
	free(lk);
	free(lk11);
	free(db);
}

/* bad_free's rows of @db as text, every column, in id order */
static char *bad_rows(const char *db)
{
	return query_text(db, "SELECT count(*) || char(10) || group_concat("
		       "quote(id) || ',' || quote(source_id) || ',' || "
		       "quote(seq) || ',' || quote(ts) || ',' || quote(cpu) || "
		       "',' || quote(type) || ',' || quote(site_id) || ',' || "
		       "quote(ptr) || ',' || quote(cache_id) || ',' || "
		       "quote(class) || ',' || quote(prev_seq) || ',' || "
		       "quote(pid) || ',' || quote(comm_id) || ',' || "
		       "quote(bytes), char(10)) FROM (SELECT * FROM bad_free "
		       "ORDER BY id)");
}

/* bad_free_blk of @db as text: every block, its blob as hex */
static char *bad_blocks(const char *db)
{
	return query_text(db, "SELECT group_concat(id || ',' || source_id || "
		       "',' || quote(min_ts) || ',' || quote(max_ts) || ',' || "
		       "kinds || ',' || hex(data), char(10)) FROM (SELECT * "
		       "FROM bad_free_blk ORDER BY id)");
}

/*
 * A database of schema 12, whose bad_free was a table of rows, is
 * converted by an ingest: the same rows, now blocks of bad_free_blk
 * read through the virtual table, each block (blob, zone map, kinds)
 * byte for byte the one the writer makes.  real-diff/b has more bad
 * frees than a block holds (1,393).
 */
static void test_schema12_bad_frees_become_blocks(void **state)
{
	char *db = fresh_db(tmp, "v12.db");
	char *rows, *rows12, *rows13, *blocks, *blocks13, *er, *er13;
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/real-diff/a'", env("TESTDATA"));
	ingest_ok(db, "'%s/real-diff/b'", env("TESTDATA"));
	rows = bad_rows(db);
	assert_int_equal(atoi(rows), 251 + 1393);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free_blk"),
			 1 + 2);
	blocks = bad_blocks(db);
	er = report_all(db, "pages");
	db_as_schema12(db);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'bad_free' AND sql LIKE "
				"'CREATE TABLE%'"), 1);
	rows12 = bad_rows(db);
	assert_string_equal(rows, rows12);
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	assert_int_equal(db_int(db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master "
				"WHERE name = 'bad_free' AND sql LIKE "
				"'CREATE VIRTUAL TABLE%'"), 1);
	MEMDB(&r, db, "sources --delete 3");
	assert_run_ok(&r);
	run_free(&r);
	rows13 = bad_rows(db);
	assert_string_equal(rows, rows13);
	blocks13 = bad_blocks(db);
	assert_string_equal(blocks, blocks13);
	er13 = report_all(db, "pages");
	assert_string_equal(er, er13);
	free(rows);
	free(rows12);
	free(rows13);
	free(blocks);
	free(blocks13);
	free(er);
	free(er13);
	free(db);
}

/* SELECT @sum FROM @from WHERE @cond, the same with the condition's
 * pushdown into the virtual table defeated (a unary + on its column). */
static void same_pushed(const char *db, const char *sum, const char *from,
			const char *cond)
{
	char *plain = strf("SELECT %s FROM %s WHERE %s", sum, from, cond);
	char *hidden = strf("SELECT %s FROM %s WHERE +%s", sum, from, cond);
	char *a = db_text(db, plain), *b = db_text(db, hidden);

	if (strcmp(a, b))
		fail_msg("%s: %s, not %s", cond, a, b);
	free(plain);
	free(hidden);
	free(a);
	free(b);
}

/*
 * alloc's column = value constraints, which the virtual table holds its
 * rows to in C before SQLite checks them again: the rows are those of
 * the same condition SQLite alone evaluates (+column hides it from the
 * table), with integer, real and NULL values, and two at once.
 */
static void test_alloc_equal_constraints(void **state)
{
	static const char *const conds[] = {
		"state = 0", "state = 1", "type = 1", "cpu = 1",
		"state = 1.0", "state = 1.5", "state = NULL",
		"state = 1 AND type = 0", "pid = 1", "stack_id = 1",
		"ts = (SELECT ts FROM alloc WHERE id = 500)",
		/* comparisons, and IS NULL, are held in C too */
		"seq <= 500", "seq < 500", "seq > 500", "seq >= 500",
		"seq BETWEEN 100 AND 900", "state < 1", "type >= 1",
		"end_seq > 1000", "end_seq IS NULL", "pid IS NULL",
		"seq <= 600 AND end_seq IS NULL",
		"seq <= 600 AND end_seq > 600",
		"seq <= 600 AND (end_seq IS NULL OR end_seq > 600)",
		"ts <= (SELECT ts FROM alloc WHERE id = 500)",
		"ts < (SELECT ts FROM alloc WHERE id = 500)",
		"ts > (SELECT ts FROM alloc WHERE id = 500)",
		"ts >= (SELECT ts FROM alloc WHERE id = 500)",
		"ts BETWEEN (SELECT ts FROM alloc WHERE id = 300) AND "
		"(SELECT ts FROM alloc WHERE id = 700)", "ts IS NULL",
		"end_ts > (SELECT ts FROM alloc WHERE id = 500)",
		"seq < 1.5", "seq > NULL", "seq <= 600.5",
		"seq > 9223372036854775807", "seq < -9223372036854775808",
		"bytes_alloc >= 4096 AND bytes_alloc < 8192",
		"ptr > 0 AND id > 100 AND id <= 700",
	};
	/* on bad_free; after '|', on alloc joined to the sources */
	static const char *const bad_conds[] = {
		"class = 1", "class = 2", "class <= 1", "class IS NULL",
		"prev_seq IS NULL", "prev_seq > 100", "seq > 1000",
		"seq <= 1000 AND prev_seq IS NULL", "type = 0", "cpu >= 1",
		"ts > (SELECT ts FROM bad_free WHERE id = 100)",
		"ts <= (SELECT ts FROM bad_free WHERE id = 100)",
		"|a.end_seq IS NULL", "|a.seq > 1", "|a.ts IS NULL",
		"|a.state = 0",
	};
	char *db = fresh_db(tmp, "eq.db");

	(void)state;
	ingest_ok(db, "'%s/real-tracefs'", env("TESTDATA"));
	ingest_ok(db, "'%s/slicing/trace.txt'", env("TESTDATA"));
	for (size_t i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		same_pushed(db, "count(*) || ':' || coalesce(sum(id * 7 + "
			    "seq), 0)", "alloc", conds[i]);
	/* bad_free's table, whose class and earlier free are held in
	 * state's and end_seq's columns, its zone maps of times and
	 * positions and its kinds of classes; and the table on the right
	 * of a LEFT JOIN, where SQLite keeps a WHERE's IS NULL or
	 * comparison on it away from the table (a row it has no match for
	 * passes IS NULL) */
	for (size_t i = 0; i < sizeof(bad_conds) / sizeof(bad_conds[0]);
	     i++) {
		const char *bar = strchr(bad_conds[i], '|');
		const char *sum = bar ? "count(*) || ':' || total(s.id)" :
				  "count(*) || ':' || coalesce(sum(id * 7 + "
				  "seq), 0)";
		const char *from = bar ? "source s LEFT JOIN alloc a ON "
					 "a.source_id = s.id AND a.seq < 3" :
					 "bad_free";

		same_pushed(db, sum, from, bar ? bar + 1 : bad_conds[i]);
	}
	/* each block's kinds (db/schema-12.sql), by which a block without
	 * a constraint's state or type is passed over: the bits of its
	 * rows' states and types (a sum of distinct powers of two); its
	 * zone map, by which one outside a constraint on ts is, is held by
	 * test_slicing against the rows */
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc_blk b JOIN "
				"source s ON s.id = b.source_id WHERE "
				"b.kinds IS NOT (SELECT CAST(total(DISTINCT "
				"1 << a.state) + total(DISTINCT 256 << a.type) "
				"AS INTEGER) FROM alloc a WHERE a.id BETWEEN "
				"s.alloc_lo AND s.alloc_hi AND (a.id - "
				"s.alloc_lo) / 1024 = (b.id - s.alloc_lo) / "
				"1024)"), 0);
	assert_true(db_int(db, "SELECT count(DISTINCT kinds) FROM "
			   "alloc_blk") > 1);
	/* some rows each way, so that the comparisons above are not 0 = 0 */
	assert_true(db_int(db, "SELECT count(*) FROM alloc WHERE "
			   "state = 0") > 0);
	assert_true(db_int(db, "SELECT count(*) FROM alloc WHERE "
			   "state = 1") > 500);
	free(db);
}

/* ---- memdb sql cannot write ------------------------------------------ */

static void test_sql_cannot_write(void **state)
{
	char *db = fresh_db(tmp, "sqlro.db"), *out = path_in(tmp, "copy.db");
	char *att = path_in(tmp, "attached.db"), *before;
	/* statement, then the file it names (NULL: none) */
	const char *const refused[][2] = {
		{ "VACUUM INTO", out }, { "ATTACH", att },
		{ "SELECT load_extension(", att },
		{ "PRAGMA user_version = 10", NULL },
		{ "PRAGMA journal_mode = DELETE", NULL },
		{ "DELETE FROM source", NULL }, { "CREATE TABLE t (x)", NULL },
		{ "CREATE VIRTUAL TABLE temp.v USING fts5(x)", NULL },
	};
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	before = db_counts(db);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *f = refused[i][1];
		char *sql = strf("%s%s%s%s%s", refused[i][0],
				 f ? " '" : "", f ? f : "", f ? "'" : "",
				 f && strchr(refused[i][0], '(') ? ")" :
				 f && i == 1 ? " AS x" : "");

		MEMDB(&r, db, "sql \"%s\"", sql);
		if (r.status != 1)
			fail_run(&r, "'%s' not refused: %s", sql, r.out);
		assert_has(r.err, "memdb: ");
		run_free(&r);
		free(sql);
	}
	MEMDB(&r, db, "sql \"VACUUM INTO '%s'\"", out);
	assert_has(r.err, "only reads the database");
	run_free(&r);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(access(att, F_OK), -1);
	assert_int_equal(db_int(db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	{
		char *after = db_counts(db);

		assert_string_equal(before, after);
		free(after);
	}
	/* what only reads still works: views, pragmas that read, TEMP */
	MEMDB(&r, db, "sql -f csv \"CREATE TEMP TABLE t AS SELECT count(*) AS"
		      " n FROM v_allocations; SELECT n FROM t; SELECT count(*)"
		      " > 0 AS cols FROM pragma_table_info('source'); PRAGMA "
		      "user_version\"");
	assert_run_ok(&r);
	{
		char *want = strf("n\n8\ncols\n1\nuser_version\n%d\n",
				  MDB_SCHEMA_VERSION);

		assert_string_equal(r.out, want);
		free(want);
	}
	run_free(&r);
	free(before);
	free(out);
	free(att);
	free(db);
}

/* ---- read-only databases --------------------------------------------- */

/*
 * Run memdb ARGS as a user who cannot write @dir: as root, nobody through
 * setpriv (root bypasses file modes); otherwise ourselves.  Returns 0
 * when that is impossible here.
 */
static int run_unprivileged(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* memdb as the unprivileged user runs it: a copy where that user can
 * reach it (the checkout may sit below a directory only root enters). */
static char *ro_memdb;

static int run_unprivileged(struct run *r, const char *fmt, ...)
{
	va_list ap;
	char *args;
	int ran = 1;

	va_start(ap, fmt);
	args = vstrf(fmt, ap);
	va_end(ap);
	if (geteuid() != 0) {
		run(r, "'%s' %s", env("MEMDB"), args);
	} else {
		run(r, "setpriv --reuid=65534 --regid=65534 --clear-groups "
		    "true");
		if (r->status) {
			run_free(r);
			ran = 0;
		} else {
			run_free(r);
			run(r, "setpriv --reuid=65534 --regid=65534 "
			    "--clear-groups '%s' %s",
			    ro_memdb ? ro_memdb : env("MEMDB"), args);
		}
	}
	free(args);
	return ran;
}

static void test_readonly_database(void **state)
{
	char *dir, *db, *wal, *shm;
	char base[] = "/tmp/memdb-ro-XXXXXX";
	struct run r;

	(void)state;
	/* a directory any user reaches, whatever the checkout's path (a
	 * clone under mktemp -d is root's alone) */
	assert_non_null(mkdtemp(base));
	dir = path_in(base, "ro");
	ro_memdb = path_in(base, "memdb");
	run(&r, "chmod 755 '%s' && mkdir '%s' && cp '%s' '%s' && "
	    "chmod 755 '%s'", base, dir, env("MEMDB"), ro_memdb, ro_memdb);
	assert_run_ok(&r);
	run_free(&r);
	db = path_in(dir, "memdb.db");
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	/* written in WAL mode (header bytes 18, 19 = 2), no -wal left */
	wal = path_in(dir, "memdb.db-wal");
	shm = path_in(dir, "memdb.db-shm");
	assert_int_equal(access(wal, F_OK), -1);
	run(&r, "chmod 444 '%s' && chmod 555 '%s'", db, dir);
	run_free(&r);
	if (!run_unprivileged(&r, "sources -d '%s'", db)) {
		run(&r, "chmod 755 '%s'; rm -rf '%s'", dir, base);
		run_free(&r);
		free(ro_memdb);
		ro_memdb = NULL;
		skip();
	}
	assert_run_ok_msg(&r, "sources on a read-only database");
	assert_has(r.out, "kmemtrace-relay");
	run_free(&r);
	run_unprivileged(&r, "report fragmentation -d '%s' --format csv", db);
	assert_run_ok(&r);
	assert_has(r.out, small_total);
	run_free(&r);
	run_unprivileged(&r, "sql -d '%s' \"SELECT count(*) FROM "
			 "v_allocations\"", db);
	assert_run_ok(&r);
	run_free(&r);
	run_unprivileged(&r, "report leaks -d '%s'", db); /* temp tables */
	assert_run_ok(&r);
	run_free(&r);
	/* nothing was written there */
	assert_int_equal(access(wal, F_OK), -1);
	assert_int_equal(access(shm, F_OK), -1);
	/* writing is refused with the reason */
	run_unprivileged(&r, "ingest -d '%s' '%s/succeed/kt-small-be'", db,
			 env("TESTDATA"));
	assert_run_status(&r, 1);
	assert_has(r.err, "memdb: ");
	run_free(&r);
	run(&r, "chmod 755 '%s' && chmod 644 '%s'", dir, db);
	run_free(&r);
	free(ro_memdb);
	ro_memdb = NULL;
	/* read-only media: a read-only bind mount, where root may mount */
	run(&r, "unshare -m sh -c \"mkdir -p '%s/mnt' && mount --bind -o ro "
		"'%s' '%s/mnt' && mount -o remount,bind,ro '%s/mnt' && ! touch "
		"'%s/mnt/x' 2>/dev/null || exit 77; '%s' report fragmentation "
		"-f csv -d '%s/mnt/memdb.db'\" 2>&1", tmp, dir, tmp, tmp, tmp,
	    env("MEMDB"), tmp);
	if (r.status == 77) /* no mount here: the directory above stands */
		print_message("read-only mount not possible here\n");
	else if (r.status)
		fail_run(&r, "report on read-only media: %s", r.out);
	else
		assert_has(r.out, small_total);
	run_free(&r);
	run(&r, "rm -rf '%s'", base);
	run_free(&r);
	free(wal);
	free(shm);
	free(db);
	free(dir);
}

/* ---- what a rejected ingest leaves ----------------------------------- */

static void test_rejected_ingest_leaves_no_file(void **state)
{
	char *db = fresh_db(tmp, "never.db"), *empty, *j;
	struct run r;

	(void)state;
	MEMDB(&r, db, "ingest '%s/nonexistent'", tmp);
	assert_run_status(&r, 1);
	assert_has(r.err, "not created");
	run_free(&r);
	assert_int_equal(access(db, F_OK), -1);
	j = path_in(tmp, "never.db-journal");
	assert_int_equal(access(j, F_OK), -1);
	/* a file that was there already stays, even empty */
	empty = fresh_db(tmp, "empty.db");
	run(&r, "touch '%s'", empty);
	run_free(&r);
	MEMDB(&r, empty, "ingest '%s/nonexistent'", tmp);
	assert_run_status(&r, 1);
	run_free(&r);
	assert_int_equal(access(empty, F_OK), 0);
	/* one good and one bad path: the database stays */
	MEMDB(&r, db, "ingest '%s/nonexistent' '%s/succeed/kt-small-le'", tmp,
	      env("TESTDATA"));
	assert_run_status(&r, 1);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	/* commands that only read or delete do not create one either */
	free(db);
	db = fresh_db(tmp, "never2.db");
	MEMDB(&r, db, "sources --delete 1");
	assert_run_status(&r, 1);
	run_free(&r);
	MEMDB(&r, db, "symbolize --kallsyms /dev/null");
	assert_run_status(&r, 1);
	run_free(&r);
	assert_int_equal(access(db, F_OK), -1);
	free(j);
	free(empty);
	free(db);
}

/* ---- another memdb holds the database -------------------------------- */

/* A connection of this process holding @db's write lock. */
static sqlite3 *hold_write_lock(const char *db, const char *journal)
{
	sqlite3 *h;
	char sql[200];

	if (sqlite3_open(db, &h))
		fail_msg("cannot open %s", db);
	snprintf(sql, sizeof(sql), "PRAGMA journal_mode = %s; "
		 "BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS held (x)",
		 journal);
	if (sqlite3_exec(h, sql, NULL, NULL, NULL))
		fail_msg("cannot lock %s: %s", db, sqlite3_errmsg(h));
	return h;
}

static void test_waiting_writer_says_so(void **state)
{
	char *db = fresh_db(tmp, "busy.db"), *errf = path_in(tmp, "busy.err");
	sqlite3 *h;
	struct run r;
	char *err;

	(void)state;
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	h = hold_write_lock(db, "WAL");
	/* the ingest waits; after about a second it says for what */
	run(&r, "'%s' ingest -q -d '%s' '%s/succeed/kt-small-be' 2>'%s' & "
		"pid=$!; sleep 3; echo $pid", env("MEMDB"), db,
	    env("TESTDATA"), errf);
	assert_run_ok(&r);
	err = slurp(errf, NULL);
	assert_non_null(err);
	assert_has(err, "waiting for database '");
	assert_has(err, "busy.db': another memdb holds it");
	free(err);
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(h);
	/* and then goes on */
	run_free(&r);
	run(&r, "for i in $(seq 100); do [ \"$('%s' sql -d '%s' -f csv "
		"'SELECT count(*) FROM source' | tail -n 1)\" = 2 ] && exit 0;"
		" sleep 0.1; done; exit 1", env("MEMDB"), db);
	assert_run_ok(&r);
	run_free(&r);
	free(errf);
	free(db);
}

static void test_reader_of_database_being_created(void **state)
{
	char *db = fresh_db(tmp, "creating.db");
	sqlite3 *h;
	struct run r;

	(void)state;
	/* as a first ingest holds it: new, rollback journal, write lock */
	h = hold_write_lock(db, "DELETE");
	MEMDB(&r, db, "report fragmentation");
	assert_run_status(&r, 1);
	assert_has(r.err, "being created by another memdb");
	assert_null(strstr(r.err, "not a memdb database"));
	assert_null(strstr(r.err, "locked"));
	run_free(&r);
	MEMDB(&r, db, "sql 'SELECT 1'");
	assert_run_status(&r, 1);
	assert_has(r.err, "being created");
	run_free(&r);
	sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(h);
	free(db);
}

/* ---- exit codes as the README promises --------------------------------- */

/* @s with "@DB" replaced by '@db' and "@NODB" by '@nodb', malloc'ed. */
static char *subst(const char *s, const char *db, const char *nodb)
{
	size_t n = strlen(s) + 2 * (strlen(db) + strlen(nodb)) + 8;
	char *out = malloc(n), *o = out;

	assert_non_null(out);
	while (*s) {
		const char *v = !strncmp(s, "@NODB", 5) ? nodb :
				!strncmp(s, "@DB", 3) ? db : NULL;

		if (v) {
			o += sprintf(o, "'%s'", v);
			s += v == nodb ? 5 : 3;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* sqlite3_exec() callback: the row's values, '|' between, onto *@arg. */
static int append_row(void *arg, int n, char **val, char **col)
{
	char **out = arg;

	(void)col;
	for (int i = 0; i < n; i++) {
		const char *v = val[i] ? val[i] : "(null)";
		size_t have = *out ? strlen(*out) : 0;
		char *t = realloc(*out, have + strlen(v) + 2);

		if (!t)
			return 1;
		memcpy(t + have, v, strlen(v));
		t[have + strlen(v)] = i + 1 < n ? '|' : '\n';
		t[have + strlen(v) + 1] = '\0';
		*out = t;
	}
	return 0;
}

/* What a database holds: its schema objects, then each table's rows. */
static char *db_content(sqlite3 *h)
{
	sqlite3_stmt *st;
	char *out = NULL;

	assert_int_equal(sqlite3_exec(h, "SELECT type, name, tbl_name, sql "
				      "FROM sqlite_master ORDER BY type, name",
				      append_row, &out, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "PRAGMA user_version", append_row,
				      &out, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master "
					    "WHERE type = 'table' ORDER BY "
					    "name", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *sql = sqlite3_mprintf("SELECT '%q', * FROM \"%w\"",
					    sqlite3_column_text(st, 0),
					    sqlite3_column_text(st, 0));

		assert_int_equal(sqlite3_exec(h, sql, append_row, &out, NULL),
				 SQLITE_OK);
		sqlite3_free(sql);
	}
	sqlite3_finalize(st);
	return out;
}

/* Whether the file system of @path's directory makes unnamed files. */
static int tmpfile_ok(const char *path)
{
	char *dir = strdup(path);
	int fd;

	assert_non_null(dir);
	fd = open(dirname(dir), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	free(dir);
	if (fd < 0) {
		print_message("note: no O_TMPFILE under %s: a new database is "
			      "made the SQL way\n", path);
		return 0;
	}
	close(fd);
	return 1;
}

/*
 * What mdb_db_open() makes of @path, missing or an empty file: its
 * content (db_content()) after its page size.
 */
static char *made_by_open(const char *path, int empty_file)
{
	struct mdb_db d;
	struct mdb_error e;
	struct run r;
	sqlite3 *h;
	char *content;

	unlink(path);
	if (empty_file) {
		run(&r, "touch '%s'", path);
		run_free(&r);
	}
	mdb_error_clear(&e);
	assert_int_equal(mdb_db_open(&d, path, 0, &e), 0);
	assert_int_equal(d.imaged, !empty_file && tmpfile_ok(path));
	assert_int_equal(mdb_db_close(&d, &e), 0);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	content = NULL;
	assert_int_equal(sqlite3_exec(h, "PRAGMA page_size", append_row,
				      &content, NULL), SQLITE_OK);
	assert_string_equal(content, "65536\n");
	free(content);
	content = db_content(h);
	sqlite3_close(h);
	return content;
}

/*
 * A new database gets the migrations' result at once (fresh_sql[], made
 * at build time by tools/mkschema.c, see db/migrations.h): the same
 * schema objects, word for word, and the same rows as running every
 * migration in order on an empty database, as an old one is brought up.
 * Where no file is, it starts as the file SQLite made of fresh_sql[] at
 * build time (tools/mkfresh.c); an empty file gets fresh_sql[] run on it:
 * the same database, 64 KB pages.
 */
static void test_new_database_is_the_migrations(void **state)
{
	char *path = path_in(tmp, "fresh.db");
	sqlite3 *h;
	char *made, *made_sql, *migrated, *ver;

	(void)state;
	made = made_by_open(path, 0);
	made_sql = made_by_open(path, 1);

	assert_int_equal(sqlite3_open(":memory:", &h), SQLITE_OK);
	for (int v = 0; v < MDB_NMIGRATIONS; v++)
		assert_int_equal(sqlite3_exec(h, mdb_migrations[v], NULL, NULL,
					      NULL), SQLITE_OK);
	ver = sqlite3_mprintf("PRAGMA user_version = %d", MDB_NMIGRATIONS);
	assert_int_equal(sqlite3_exec(h, ver, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(ver);
	migrated = db_content(h);
	sqlite3_close(h);

	assert_int_equal(MDB_NMIGRATIONS, MDB_SCHEMA_VERSION);
	assert_non_null(strstr(made, "table|alloc|alloc|CREATE VIRTUAL TABLE "
			       "alloc USING memdb_alloc"));
	assert_non_null(strstr(made, "free_class|4|duplicate_free_suspect"));
	assert_string_equal(made, migrated);
	assert_string_equal(made_sql, migrated);
	free(made);
	free(made_sql);
	free(migrated);
	unlink(path);
	free(path);
}

static void test_exit_codes(void **state)
{
	char *db = fresh_db(tmp, "exit.db"), *missing;
	static const struct {
		int status;
		const char *args; /* @DB: the database, @NODB: a missing one */
	} cases[] = {
		{ 2, "" }, { 2, "nosuch" }, { 2, "help nosuch" },
		{ 0, "--help" }, { 0, "--version" },
		{ 2, "ingest" }, { 2, "ingest --bogus x" },
		{ 2, "ingest --format nope x" }, { 2, "ingest --time x y" },
		{ 1, "ingest -d @DB /nonexistent" },
		{ 0, "sources -d @DB" }, { 1, "sources -d @NODB" },
		{ 2, "sources -d @DB --delete x" },
		{ 1, "sources -d @DB --delete 99" },
		{ 2, "sources -d @DB extra" },
		{ 0, "report list" }, { 2, "report -d @DB" },
		{ 2, "report nosuch -d @DB" },
		{ 0, "report summary -d @DB" },
		{ 2, "report summary -d @DB --source x" },
		{ 2, "report summary -d @DB --source 0" },
		{ 2, "report summary -d @DB --source -1" },
		{ 2, "report summary -d @DB --source 2" }, /* a snapshot */
		{ 1, "report summary -d @DB --source 99" },
		{ 1, "report summary -d @NODB" },
		{ 2, "report summary -d @DB --top x" },
		{ 2, "report zones -d @DB --from 1" },
		{ 2, "report growth -d @DB --source all" },
		{ 2, "sql -d @DB" }, { 0, "sql -d @DB 'SELECT 1'" },
		{ 1, "sql -d @DB 'SELEC 1'" }, { 1, "sql -d @NODB 'SELECT 1'" },
		{ 2, "symbolize -d @DB --source x" },
		{ 1, "symbolize -d @NODB --kallsyms /dev/null" },
		{ 2, "check" }, { 2, "check --bogus" },
		{ 1, "check /nonexistent" },
		{ 2, "record --bogus" }, { 2, "record --duration x" },
	};
	struct run r;

	(void)state;
	missing = fresh_db(tmp, "exit-missing.db");
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	ingest_ok(db, "'%s/succeed/snapshots/allocinfo-t0.txt'",
		  env("TESTDATA"));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *args = subst(cases[i].args, db, missing);

		run(&r, "'%s' %s", env("MEMDB"), args);
		if (r.status != cases[i].status)
			fail_run(&r, "memdb %s: expected exit status %d", args,
				 cases[i].status);
		run_free(&r);
		free(args);
	}
	free(missing);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_source_by_kind),
		cmocka_unit_test(test_wrong_kind_refused),
		cmocka_unit_test(test_growth_traces_only),
		cmocka_unit_test(test_reports_declare_kind),
		cmocka_unit_test(test_relabel_on_reingest),
		cmocka_unit_test(test_escapes_on_terminal),
		cmocka_unit_test(test_sql_cannot_write),
		cmocka_unit_test(test_readonly_database),
		cmocka_unit_test(test_rejected_ingest_leaves_no_file),
		cmocka_unit_test(test_waiting_writer_says_so),
		cmocka_unit_test(test_reader_of_database_being_created),
		cmocka_unit_test(test_new_database_is_the_migrations),
		cmocka_unit_test(test_schema10_rows_become_blocks),
		cmocka_unit_test(test_schema12_bad_frees_become_blocks),
		cmocka_unit_test(test_alloc_equal_constraints),
		cmocka_unit_test(test_exit_codes),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
