/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the cmocka tests that drive the memdb binary: run a command
 * and capture its output, temporary directories, scalar SQL queries.
 * Paths come from the environment the Makefile sets: MEMDB, KTGEN,
 * TESTDATA, TESTS_DIR, TEST_TMP.
 */
#ifndef MDB_TESTLIB_H
#define MDB_TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct run {
	int status;   /* exit status, or 128 + signal */
	int wstatus;  /* the shell's wait status (waitpid), for messages */
	char *out;    /* stdout, NUL-terminated */
	char *err;    /* stderr */
	char *cmd;    /* the command line run */
};

/* printf into a malloc'ed string (fails the test on ENOMEM). */
char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *vstrf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* strf() that frees @old: "p = restrf(p, ...)". */
char *restrf(char *old, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Run a shell command line (printf-style) with sh -c; output captured in
 * @r.  A command killed by a signal is seen by the shell, which exits
 * 128 + the signal; the shell's own death (kill $$) is a signal.
 */
int run(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void run_free(struct run *r);

/* memdb with database @db: run(r, "exec $MEMDB ARGS -d DB"), so that
 * memdb killed by a signal is seen as such. */
int run_memdb(struct run *r, const char *db, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * How @r ended, for a failure message: "exit status N" or "killed by
 * signal N (SIGNAME)" (an exit 129-192 also names the signal a shell
 * would report so), then "$ " and the command, then its stderr, escaped,
 * the middle cut when long.  Malloc'ed.
 */
char *run_describe(const struct run *r);

/*
 * Fail the test at @file:@line, saying @fmt (printf-style; NULL: no
 * more) and run_describe(@r), unless @ok.  Through the macros below.
 */
void run_expect(int ok, const struct run *r, const char *file, int line,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* @r exited 0 (a run expected to succeed). */
#define assert_run_ok(r) \
	run_expect((r)->status == 0, (r), __FILE__, __LINE__, NULL)
/* ... with what was run, printf-style. */
#define assert_run_ok_msg(r, ...) \
	run_expect((r)->status == 0, (r), __FILE__, __LINE__, __VA_ARGS__)
/* @r exited @want. */
#define assert_run_status(r, want) \
	run_expect((r)->status == (want), (r), __FILE__, __LINE__, \
		   "expected exit status %d", (want))
/* Fail, saying @... (printf-style) and how @r ended. */
#define fail_run(r, ...) run_expect(0, (r), __FILE__, __LINE__, __VA_ARGS__)

/* A database path "@dir/@name" whose file (and WAL) does not exist. */
char *fresh_db(const char *dir, const char *name);

/* "@dir/@name", malloc'ed. */
char *path_in(const char *dir, const char *name);

/* 1 in the sanitizer build's run (MEMDB_SAN set, not empty or "0"),
 * where a test may run a documented part of a sweep the plain build's
 * run makes whole (each run costs several times more there). */
int under_sanitizers(void);

/* An environment variable, failing the test when it is not set. */
const char *env(const char *name);

/* A fresh empty directory under $TEST_TMP named after @name. */
char *tmpdir(const char *name);

/* Whole file into a NUL-terminated malloc'ed buffer (NULL on error). */
char *slurp(const char *path, size_t *len);

/* First column of the first row of @sql against database @db. */
int64_t db_int(const char *db, const char *sql);

/* Every table's row count, joined as "name=count;..." (for "unchanged"). */
char *db_counts(const char *db);

/* Turn database @db of the current schema into one of schema 12, the
 * last whose bad_free was a table of rows: the same rows, as rows, and
 * alloc_blk without the columns schema 14 added. */
void db_as_schema12(const char *db);

/* Turn database @db of the current schema into one of schema 10, the
 * last whose alloc was a table of rows: the same rows, as rows, and the
 * slicing index's tables of then, empty (slicing_tables_sql). */
void db_as_schema10(const char *db);

/* The tables of the slicing index, which versions 5 to 8 made and
 * versions 11 (slice_col) and 12 drop (db/migrations.h): only their
 * names matter. */
extern const char slicing_tables_sql[];

/* The SQL (";"-joined) of what schema @version's migrations make where
 * @where holds over sqlite_master (e.g. "tbl_name = 'alloc'"); failing
 * the test when nothing does.  Malloc'ed. */
char *schema_of_version(int version, const char *where);

/* Run @sql on database @db, failing the test when it fails. */
void db_exec(const char *db, const char *sql);

/* memdb ingest -q ARGS into @db, failing the test when it fails. */
/* Run a shell command that must succeed (fails the test otherwise). */
void run_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void ingest_ok(const char *db, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* memdb report ARGS --format csv on @db, failing the test on an error. */
char *report_csv(const char *db, const char *args);

/* The rows of @sql on @db as CSV without the header line (memdb sql). */
char *db_text(const char *db, const char *sql);

#endif
