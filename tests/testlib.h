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
	char *out;    /* stdout, NUL-terminated */
	char *err;    /* stderr */
};

/* printf into a malloc'ed string (fails the test on ENOMEM). */
char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *vstrf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

/* strf() that frees @old: "p = restrf(p, ...)". */
char *restrf(char *old, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Run a shell command line (printf-style); output captured in @r. */
int run(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void run_free(struct run *r);

/* memdb with database @db: run(r, "$MEMDB ARGS -d DB"). */
int run_memdb(struct run *r, const char *db, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A database path "@dir/@name" whose file (and WAL) does not exist. */
char *fresh_db(const char *dir, const char *name);

/* "@dir/@name", malloc'ed. */
char *path_in(const char *dir, const char *name);

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

/* memdb ingest -q ARGS into @db, failing the test when it fails. */
void ingest_ok(const char *db, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* memdb report ARGS --format csv on @db, failing the test on an error. */
char *report_csv(const char *db, const char *args);

/* The rows of @sql on @db as CSV without the header line (memdb sql). */
char *db_text(const char *db, const char *sql);

#endif
