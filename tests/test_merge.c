// SPDX-License-Identifier: MIT
/*
 * memdb merge: two hosts' databases (every kind of source: allocinfo,
 * slabinfo and memstat snapshots, a tracefs capture with its kallsyms
 * kept, perf.data traces with the large-source slicing tables, an ftrace
 * trace with stacks and symbols, a core dump) merged into one.  Every
 * table with a source_id column is compared row by row with the input,
 * ids aside; each rowid range (source.alloc_lo ..., bad_lo ...)
 * checked to hold exactly its source's rows in order; the slicing
 * reports of a merged source equal those of the input.  Content already
 * there is skipped, merging again adds nothing, an older schema is
 * migrated in a copy (the input unchanged), a newer one refused, and an
 * input that fails half-way leaves the output as it was.  Also: deleting
 * a source leaves no row of it in any table (stacks were left behind).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "../db/db.h"
#include "testlib.h"

static char *tmp, *h1, *h2;

/* TESTDATA/@name */
static char *fixture(const char *name)
{
	return path_in(env("TESTDATA"), name);
}

/* memdb ingest ARGS TESTDATA/@name into @db, labelled @label. */
static void ingest_fx(const char *db, const char *label, const char *args,
		      const char *name)
{
	char *p = fixture(name);

	ingest_ok(db, "--label %s %s '%s'", label, args, p);
	free(p);
}

static int setup_all(void **state)
{
	char *k, *opt;

	(void)state;
	tmp = tmpdir("merge");
	h1 = fresh_db(tmp, "h1.db");
	h2 = fresh_db(tmp, "h2.db");
	ingest_fx(h1, "h1", "--time 2026-01-01T00:00Z",
		  "succeed/snapshots/allocinfo-t0.txt");
	ingest_fx(h1, "h1", "--time 2026-01-01T01:00Z",
		  "succeed/snapshots/allocinfo-t1.txt");
	ingest_fx(h1, "h1", "", "real-6.18-small/slabinfo.before");
	ingest_fx(h1, "h1", "", "succeed/memstat/zone_stats-le-4.bin");
	ingest_fx(h1, "h1", "", "real-tracefs");
	ingest_fx(h1, "h1", "", "real-perf/slab.data.zst");
	ingest_fx(h1, "h1", "", "real-perf/cg.data.zst");
	k = fixture("vmcore/nokaslr.kallsyms.zst");
	opt = strf("--kallsyms '%s'", k);
	ingest_fx(h1, "h1", opt, "vmcore/nokaslr.kdump");
	free(opt);
	free(k);
	k = fixture("real-ftrace-stacks/kallsyms");
	opt = strf("--kallsyms '%s'", k);
	ingest_fx(h2, "h2", opt, "real-ftrace-stacks/trace.zst");
	free(opt);
	free(k);
	/* the same content as h1's: stored once */
	ingest_fx(h2, "h2", "", "real-6.18-small/slabinfo.before");
	ingest_fx(h2, "h2", "--time 2026-01-01T02:00Z",
		  "succeed/snapshots/allocinfo-v2.txt");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(h1);
	free(h2);
	free(tmp);
	return 0;
}

static sqlite3 *open_ro(const char *path)
{
	sqlite3 *h;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL))
		fail_msg("cannot open %s", path);
	return h;
}

/* @acc with @fmt appended (printf-style), @acc freed. */
static char *append(char *acc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *append(char *acc, const char *fmt, ...)
{
	va_list ap;
	char *more, *s;

	va_start(ap, fmt);
	more = vstrf(fmt, ap);
	va_end(ap);
	s = strf("%s%s", acc, more);
	free(acc);
	free(more);
	return s;
}

/* The tables of @h with a source_id column, blank-separated (not the
 * virtual tables alloc and bad_free: their rows are alloc_blk's and
 * bad_free_blk's). */
static char *source_tables(sqlite3 *h)
{
	sqlite3_stmt *st;
	char *acc = strdup(" ");

	if (sqlite3_prepare_v2(h, "SELECT m.name FROM sqlite_master m, "
			       "pragma_table_info(m.name) p WHERE m.type = "
			       "'table' AND p.name = 'source_id' AND m.sql "
			       "NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY 1",
			       -1, &st, NULL))
		fail_msg("%s", sqlite3_errmsg(h));
	while (sqlite3_step(st) == SQLITE_ROW)
		acc = append(acc, "%s ", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return acc;
}

/* Is @col a column merge may change: ids and rowid ranges. */
static int renumbered(const char *table, const char *col)
{
	size_t n = strlen(col);

	if (!strcmp(col, "source_id"))
		return 1;
	if (!strcmp(table, "source"))
		return !strcmp(col, "id") || (n > 3 &&
			(!strcmp(col + n - 3, "_lo") ||
			 !strcmp(col + n - 3, "_hi")));
	/* the rowid aliases of alloc, alloc_blk, bad_free, bad_free_blk,
	 * source_file */
	return !strcmp(col, "id") && (!strcmp(table, "alloc") ||
				      !strcmp(table, "alloc_blk") ||
				      !strcmp(table, "bad_free") ||
				      !strcmp(table, "bad_free_blk") ||
				      !strcmp(table, "source_file"));
}

/*
 * The rows of source @id in @table of @h as text, in rowid order (the
 * order a range keeps) or, without rowid, by every column; columns
 * merge renumbers left out.
 */
static char *dump(sqlite3 *h, sqlite3 *schema, const char *table,
		  int64_t id)
{
	sqlite3_stmt *st;
	char *cols = strdup(""), *sql, *acc = NULL;
	size_t len;
	FILE *f;
	int rowid;

	/* the columns of @schema's table (an input of an older schema) */
	sql = strf("SELECT name FROM pragma_table_info('%s') ORDER BY cid",
		   table);
	if (sqlite3_prepare_v2(schema, sql, -1, &st, NULL))
		fail_msg("%s", sqlite3_errmsg(schema));
	free(sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		if (!renumbered(table, c))
			cols = append(cols, "%squote(\"%s\")",
				      *cols ? " || ',' || " : "", c);
	}
	sqlite3_finalize(st);
	sql = strf("SELECT rowid FROM \"%s\" LIMIT 0", table);
	rowid = sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK;
	sqlite3_finalize(st);
	free(sql);
	sql = strf("SELECT %s FROM \"%s\" WHERE %s = %lld ORDER BY %s", cols,
		   table, strcmp(table, "source") ? "source_id" : "id",
		   (long long)id, rowid ? "rowid" : "1");
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL))
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
	/* a stream, not append(): a table's rows are many, and copying the
	 * whole text again for each row is quadratic */
	f = open_memstream(&acc, &len);
	if (!f)
		fail_msg("open_memstream failed");
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(f, "%s\n", sqlite3_column_text(st, 0));
	if (fclose(f))
		fail_msg("open_memstream: cannot write");
	sqlite3_finalize(st);
	free(sql);
	free(cols);
	return acc;
}

/* Has @h a table @name? */
static int has_table(sqlite3 *h, const char *name)
{
	sqlite3_stmt *st;
	int has;

	if (sqlite3_prepare_v2(h, "SELECT 1 FROM sqlite_master WHERE type = "
			       "'table' AND name = ?1", -1, &st, NULL))
		fail_msg("%s", sqlite3_errmsg(h));
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

/* Every row of source @in_id of @in is in @out as source @out_id. */
static void same_rows(const char *in, int64_t in_id, const char *out,
		      int64_t out_id)
{
	sqlite3 *a = open_ro(in), *b = open_ro(out);
	char *tables = source_tables(a), *t, *save = NULL;

	for (t = strtok_r(tables, " ", &save); t; t = strtok_r(NULL, " ",
							       &save)) {
		char *x, *y;

		/* an older input's table the migration drops (slice_*) */
		if (!has_table(b, t))
			continue;
		x = dump(a, a, t, in_id);
		y = dump(b, a, t, out_id);

		if (strcmp(x, y))
			fail_msg("table %s: source %lld of %s differs from "
				 "source %lld of %s", t, (long long)in_id, in,
				 (long long)out_id, out);
		free(x);
		free(y);
	}
	for (int i = 0; i < 2; i++) {
		const char *tb = i ? "alloc" : "source";
		char *x = dump(a, a, tb, in_id), *y = dump(b, a, tb, out_id);

		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	free(tables);
	sqlite3_close(a);
	sqlite3_close(b);
}

/*
 * Each rowid range of @db (source.alloc_lo ..., bad_lo ...)
 * holds exactly the rows of its source, and ranges do not overlap.
 */
static void ranges_hold_their_rows(const char *db)
{
	static const char *const r[][4] = {
		{ "alloc", "source", "id", "alloc" },
		{ "bad_free", "source", "id", "bad" },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		char *q = strf("SELECT count(*) FROM %s o LEFT JOIN (SELECT "
			       "source_id, count(*) AS n, min(rowid) AS lo, "
			       "max(rowid) AS hi FROM %s GROUP BY source_id) "
			       "t ON t.source_id = o.%s WHERE coalesce(t.n, 0) "
			       "<> coalesce(o.%s_hi - o.%s_lo + 1, 0) OR "
			       "t.lo IS NOT o.%s_lo OR t.hi IS NOT o.%s_hi",
			       r[i][1], r[i][0], r[i][2], r[i][3], r[i][3],
			       r[i][3], r[i][3]);

		if (db_int(db, q) != 0)
			fail_msg("%s: a range of %s does not hold its rows",
				 db, r[i][0]);
		free(q);
	}
}

/* memdb merge @out @ins... succeeds; its output. */
static char *merge_ok(const char *out, const char *ins)
{
	struct run r;
	char *s;

	run(&r, "'%s' merge '%s' %s", env("MEMDB"), out, ins);
	assert_run_ok(&r);
	s = r.out;
	r.out = NULL;
	run_free(&r);
	return s;
}

/* The id in @db of the source whose path ends in @tail and label is
 * @label. */
static int64_t id_of(const char *db, const char *label, const char *tail)
{
	char *q = strf("SELECT id FROM source WHERE label = '%s' AND path "
		       "LIKE '%%%s'", label, tail);
	int64_t id = db_int(db, q);

	free(q);
	if (id <= 0)
		fail_msg("%s: no source %s of %s", db, tail, label);
	return id;
}

static void test_merge_copies_every_row(void **state)
{
	char *out = fresh_db(tmp, "out.db"), *msg, *ins;
	sqlite3 *h;
	int64_t n1 = db_int(h1, "SELECT count(*) FROM source");

	(void)state;
	ins = strf("'%s' '%s'", h1, h2);
	msg = merge_ok(out, ins);
	/* h2's slabinfo is h1's */
	assert_non_null(strstr(msg, "': 8 sources merged"));
	assert_non_null(strstr(msg, "': 2 sources merged"));
	assert_non_null(strstr(msg, ", 1 already in"));
	assert_int_equal(db_int(out, "SELECT count(*) FROM source"), n1 + 2);
	for (int64_t id = 1; id <= n1; id++)
		same_rows(h1, id, out, id);
	same_rows(h2, 1, out, n1 + 1);
	same_rows(h2, 3, out, n1 + 2);
	ranges_hold_their_rows(out);
	/* every table the schema has with a source_id column got rows */
	h = open_ro(out);
	{
		char *tables = source_tables(h), *t, *save = NULL;

		for (t = strtok_r(tables, " ", &save); t;
		     t = strtok_r(NULL, " ", &save)) {
			char *q = strf("SELECT count(*) FROM \"%s\"", t);

			if (db_int(out, q) <= 0)
				fail_msg("the fixtures fill no row of %s", t);
			free(q);
		}
		free(tables);
	}
	sqlite3_close(h);
	free(msg);
	free(ins);
	free(out);
}

/* h2 first, then h1: every id of h1 moves, the reports stay. */
static void test_merged_reports_equal(void **state)
{
	char *out = fresh_db(tmp, "out2.db"), *msg, *ins;
	static const char *const reports[] = {
		"callsites --time 260.28,260.31", "allocs --time 260.28,260.31",
		"pingpong --time 260.28,260.31", "stacks",
		"callsites --by pid --time 260.28,",
		"callsites --by comm --time ,260.3", "leaks", "summary",
		"errors", "timeline", "fragmentation --comm perf",
	};
	int64_t a, b;

	(void)state;
	ins = strf("'%s' '%s'", h2, h1);
	msg = merge_ok(out, ins);
	ranges_hold_their_rows(out);
	a = id_of(h1, "h1", "slab.data.zst");
	b = id_of(out, "h1", "slab.data.zst");
	assert_true(b != a);
	same_rows(h1, a, out, b);
	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
		struct run x, y;

		run_memdb(&x, h1, "report %s -s %lld --format csv", reports[i],
			  (long long)a);
		run_memdb(&y, out, "report %s -s %lld --format csv",
			  reports[i], (long long)b);
		assert_run_ok(&x);
		assert_run_ok(&y);
		if (strcmp(x.out, y.out))
			fail_msg("report %s: source %lld of h1.db and %lld of "
				 "the merged database differ", reports[i],
				 (long long)a, (long long)b);
		run_free(&x);
		run_free(&y);
	}
	free(msg);
	free(ins);
	free(out);
}

/* Merging again adds nothing; the skipped sources are named. */
static void test_merge_again_adds_nothing(void **state)
{
	char *out = fresh_db(tmp, "again.db"), *msg, *ins, *before;

	(void)state;
	ins = strf("'%s'", h2);
	free(merge_ok(out, ins));
	before = db_counts(out);
	msg = merge_ok(out, ins);
	assert_non_null(strstr(msg, "0 sources merged"));
	assert_non_null(strstr(msg, "3 already in"));
	assert_non_null(strstr(msg, "source 2 (h2): skipped, its data is "
			       "source 2 (h2) already"));
	{
		char *after = db_counts(out);

		assert_string_equal(before, after);
		free(after);
	}
	free(msg);
	free(ins);
	free(before);
	free(out);
}

/* A copy of @src at @dst (the file, after a checkpoint). */
static void copy_db(const char *src, const char *dst)
{
	struct run r;

	run(&r, "sqlite3 '%s' 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null && "
	    "cp '%s' '%s' && rm -f '%s-wal' '%s-shm'", src, src, dst, dst,
	    dst);
	assert_run_ok(&r);
	run_free(&r);
}

static void sql_on(const char *db, const char *sql)
{
	sqlite3 *h;
	char *msg = NULL;

	if (sqlite3_open(db, &h) ||
	    sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : sqlite3_errmsg(h));
	sqlite3_close(h);
}

/* A schema 9 database (before source.cpu_node and perf_*) is read from a
 * migrated copy; the file itself is not touched. */
static void test_older_schema_migrated(void **state)
{
	char *old = fresh_db(tmp, "v9.db"), *out = fresh_db(tmp, "v9out.db");
	char *msg, *ins, *sum0, *sum1;
	struct run r;

	(void)state;
	copy_db(h2, old);
	db_as_schema10(old);
	sql_on(old, "ALTER TABLE source DROP COLUMN cpu_node; "
		    "ALTER TABLE source DROP COLUMN perf_frees; "
		    "ALTER TABLE source DROP COLUMN perf_freed_bytes; "
		    "ALTER TABLE source DROP COLUMN perf_pingpong; "
		    "PRAGMA user_version = 9");
	run(&r, "md5sum < '%s'", old);
	sum0 = strdup(r.out);
	run_free(&r);
	ins = strf("'%s'", old);
	msg = merge_ok(out, ins);
	assert_non_null(strstr(msg, "read from a copy migrated from schema "
			       "9"));
	assert_non_null(strstr(msg, "3 sources merged"));
	run(&r, "md5sum < '%s'", old);
	sum1 = strdup(r.out);
	run_free(&r);
	assert_string_equal(sum0, sum1);
	assert_int_equal(db_int(old, "PRAGMA user_version"), 9);
	assert_int_equal(db_int(out, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	same_rows(old, 1, out, 1);
	same_rows(old, 3, out, 3);
	/* no migrated copy left behind */
	run(&r, "ls \"${TMPDIR:-/tmp}\" | grep -c '^memdb-merge-' || true");
	assert_string_equal(r.out, "0\n");
	run_free(&r);
	free(sum0);
	free(sum1);
	free(msg);
	free(ins);
	free(out);
	free(old);
}

/* A newer schema is refused, naming it; the other inputs still merge. */
static void test_newer_schema_refused(void **state)
{
	char *new = fresh_db(tmp, "v99.db"), *out = fresh_db(tmp, "v99out.db");
	struct run r;

	(void)state;
	copy_db(h2, new);
	sql_on(new, "PRAGMA user_version = 99");
	run(&r, "'%s' merge '%s' '%s' '%s'", env("MEMDB"), out, new, h2);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "written by a newer memdb (schema 99; "
				      "this one reads up to"));
	assert_non_null(strstr(r.err, "v99.db"));
	assert_non_null(strstr(r.out, "3 sources merged"));
	run_free(&r);
	free(new);
	free(out);
}

/* An input whose second source cannot be written: the output is as it
 * was, the first source's rows rolled back too. */
static void test_failed_input_leaves_output(void **state)
{
	char *bad = fresh_db(tmp, "bad.db"), *out = fresh_db(tmp, "bad-out.db");
	char *before, *after, *ins;
	struct run r;

	(void)state;
	ins = strf("'%s'", h2);
	free(merge_ok(out, ins));
	copy_db(h1, bad);
	/* tag.file may be NULL in this copy only: the output refuses it,
	 * in the second allocinfo source, after the first one's rows */
	sql_on(bad, "PRAGMA legacy_alter_table = 1; "
		    "CREATE TABLE t2 AS SELECT * FROM tag; DROP TABLE tag; "
		    "ALTER TABLE t2 RENAME TO tag; "
		    "UPDATE tag SET file = NULL WHERE source_id = 2");
	before = db_counts(out);
	run(&r, "'%s' merge '%s' '%s' /nonexistent/x.db '%s'", env("MEMDB"),
	    out, bad, out);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "bad.db"));
	assert_non_null(strstr(r.err, "NOT NULL"));
	assert_non_null(strstr(r.err, "/nonexistent/x.db"));
	assert_non_null(strstr(r.err, "the database is the one merged into"));
	assert_string_equal(r.out, "");
	run_free(&r);
	after = db_counts(out);
	assert_string_equal(before, after);
	/* usage */
	run(&r, "'%s' merge '%s'", env("MEMDB"), out);
	assert_run_status(&r, 2);
	run_free(&r);
	free(before);
	free(after);
	free(ins);
	free(bad);
	free(out);
}

/* Every table with a source_id column is one delete and merge know;
 * deleting a source leaves none of its rows anywhere. */
static void test_delete_leaves_no_row(void **state)
{
	char *db = fresh_db(tmp, "del.db"), *tables, *t, *save = NULL;
	size_t n;
	const struct mdb_source_table *st = mdb_source_tables(&n);
	struct run r;
	sqlite3 *h;

	(void)state;
	copy_db(h1, db);
	h = open_ro(db);
	tables = source_tables(h);
	sqlite3_close(h);
	for (t = strtok_r(tables, " ", &save); t; t = strtok_r(NULL, " ",
							       &save)) {
		size_t i = 0;

		while (i < n && strcmp(st[i].name, t))
			i++;
		if (i == n)
			fail_msg("table %s is not in mdb_source_tables()", t);
	}
	free(tables);
	for (int64_t id = 1; id <= db_int(h1, "SELECT max(id) FROM source");
	     id++) {
		run_memdb(&r, db, "sources --delete %lld", (long long)id);
		assert_run_ok(&r);
		run_free(&r);
	}
	h = open_ro(db);
	tables = source_tables(h);
	sqlite3_close(h);
	save = NULL;
	for (t = strtok_r(tables, " ", &save); t; t = strtok_r(NULL, " ",
							       &save)) {
		char *q = strf("SELECT count(*) FROM \"%s\"", t);

		if (db_int(db, q) != 0)
			fail_msg("rows of deleted sources left in %s", t);
		free(q);
	}
	free(tables);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_copies_every_row),
		cmocka_unit_test(test_merged_reports_equal),
		cmocka_unit_test(test_merge_again_adds_nothing),
		cmocka_unit_test(test_older_schema_migrated),
		cmocka_unit_test(test_newer_schema_refused),
		cmocka_unit_test(test_failed_input_leaves_output),
		cmocka_unit_test(test_delete_leaves_no_row),
	};

	return cmocka_run_group_tests_name("merge", tests, setup_all,
					   teardown_all);
}
