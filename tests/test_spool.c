// SPDX-License-Identifier: MIT
/*
 * Standard input and compressed inputs (ingest/spool.c): the same capture
 * given as a file, piped to `memdb ingest -`, or compressed with zstd,
 * gzip or xz (told by magic, whatever the name) is the same source: the
 * same content hash, the same rows.  Damaged compressed data is refused
 * with its offset and the database is unchanged.  The fixture is the real
 * 6.18 ftrace capture of testdata/real-6.18-small.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../ingest/spool.h"
#include "testlib.h"

static char *dir, *text;

static int setup(void **state)
{
	struct run r;

	(void)state;
	dir = tmpdir("spool");
	text = path_in(dir, "trace.txt");
	run(&r, "zstd -dqc '%s/real-6.18-small/ftrace.txt.zst' > '%s' && "
		"cd '%s' && zstd -q trace.txt -o a.zst && gzip -c trace.txt "
		"> b.gz && xz -c trace.txt > c.xz && cp a.zst noext && "
		"head -c 100000 a.zst > cut.zst",
	    env("TESTDATA"), text, dir);
	assert_run_ok(&r);
	run_free(&r);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(text);
	free(dir);
	return 0;
}

/* What identifies the source's content: hash, counts, the rows' sums. */
static char *content(const char *db)
{
	return db_text(db, "SELECT s.hash, s.events, s.allocations, "
			   "(SELECT count(*) FROM allocation), "
			   "(SELECT sum(bytes_alloc) FROM allocation) "
			   "FROM source s");
}

/* Ingest @text into one database and, by the command after @how, into
 * another (the command's %1$s is memdb, %2$s the database, %3$s the
 * fixture directory); both hold the same content. */
static void same_as_file(const char *how, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void same_as_file(const char *how, const char *fmt, ...)
{
	char *db1 = fresh_db(dir, "file.db"), *db2 = fresh_db(dir, "x.db");
	/* the caller's command names x.db, made fresh again above */
	char *a, *b;
	struct run r;

	va_list ap;
	char *cmd;

	ingest_ok(db1, "'%s'", text);
	va_start(ap, fmt);
	assert_true(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	run(&r, "%s", cmd);
	free(cmd);
	assert_run_ok_msg(&r, "%s", how);
	run_free(&r);
	a = content(db1);
	b = content(db2);
	if (strcmp(a, b))
		fail_msg("%s: '%s' != '%s'", how, b, a);
	free(a);
	free(b);
	free(db1);
	free(db2);
}

static void test_stdin(void **state)
{
	char *db = fresh_db(dir, "x.db");

	(void)state;
	same_as_file("stdin", "%s ingest -q -d '%s' - < '%s/trace.txt'",
		     env("MEMDB"), db, dir);
	same_as_file("zstd -dc | ingest -",
		     "zstd -dc '%s/a.zst' | %s ingest -q -d '%s' -", dir,
		     env("MEMDB"), db);
	same_as_file("compressed stdin", "%s ingest -q -d '%s' - < '%s/b.gz'",
		     env("MEMDB"), db, dir);
	free(db);
}

static void test_compressed_files(void **state)
{
	char *db = fresh_db(dir, "x.db");

	(void)state;
	same_as_file("zstd", "%s ingest -q -d '%s' '%s/a.zst'", env("MEMDB"),
		     db, dir);
	same_as_file("gzip", "%s ingest -q -d '%s' '%s/b.gz'", env("MEMDB"),
		     db, dir);
	same_as_file("xz", "%s ingest -q -d '%s' '%s/c.xz'", env("MEMDB"),
		     db, dir);
	same_as_file("zstd, no suffix", "%s ingest -q -d '%s' '%s/noext'", env("MEMDB"),
		     db, dir);
	free(db);
}

/* A compressed file cut short: refused with an offset, nothing stored. */
static void test_cut(void **state)
{
	char *db = fresh_db(dir, "cut.db"), *before;
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/b.gz'", dir);
	before = db_counts(db);
	run_memdb(&r, db, "ingest '%s/cut.zst'", dir);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "damaged zstd-compressed data"));
	assert_non_null(strstr(r.err, "cut.zst"));
	assert_non_null(strstr(r.err, "offset="));
	run_free(&r);
	{
		char *after = db_counts(db);

		assert_string_equal(before, after);
		free(after);
	}
	free(before);
	free(db);
}

/* Unknown binary input says what it looks like. */
static void test_looks_like(void **state)
{
	char *db = fresh_db(dir, "elf.db");
	struct run r;

	(void)state;
	run_memdb(&r, db, "ingest '%s'", env("MEMDB"));
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "it looks like an ELF file"));
	assert_non_null(strstr(r.err, "offset=0"));
	run_free(&r);
	free(db);
}

/* The magics, and nothing else, decide. */
static void test_magic(void **state)
{
	static const unsigned char zst[] = { 0x28, 0xb5, 0x2f, 0xfd, 0 };
	static const unsigned char gz[] = { 0x1f, 0x8b, 8 };
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	(void)state;
	assert_int_equal(mdb_compression_of(zst, sizeof(zst)), MDB_COMP_ZSTD);
	assert_int_equal(mdb_compression_of(gz, sizeof(gz)), MDB_COMP_GZIP);
	assert_int_equal(mdb_compression_of(xz, sizeof(xz)), MDB_COMP_XZ);
	assert_int_equal(mdb_compression_of(xz, 5), MDB_COMP_NONE);
	assert_int_equal(mdb_compression_of("trace", 5), MDB_COMP_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_magic),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_compressed_files),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_looks_like),
	};

	return cmocka_run_group_tests_name("standard input and compression",
					   tests, setup, teardown);
}
