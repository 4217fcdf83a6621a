// SPDX-License-Identifier: MIT
/*
 * A trace.dat that changes while memdb reads it (issue 24).  libtracecmd
 * reads the file itself: metadata and compressed chunks with read(2),
 * where a cut file just ends the records early, and uncompressed CPU data
 * through its own mmap(2), where a cut file raises SIGBUS.  Either way
 * the decode must fail naming the file, "the file shrank while memdb read
 * it", and nothing is kept.  The file is changed between the opening
 * (which reads the metadata and each CPU's first page) and the decode,
 * in this process: no timing, no hook.
 */
#include <fcntl.h>
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

#include "../common/file.h"
#include "../db/db.h"
#include "../ingest/ingest.h"
#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("edges-trace");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* A shell command that must succeed. */
#define SH(...)                                                  \
	do {                                                     \
		struct run r_;                                   \
		run(&r_, __VA_ARGS__);                           \
		if (r_.status)                                   \
			fail_msg("shell: %s", r_.err);           \
		run_free(&r_);                                   \
	} while (0)

/* The real capture @name (testdata/real-tracedat), uncompressed, as
 * @tmp/@as. */
static char *fixture(const char *name, const char *as)
{
	char *p = path_in(tmp, as);

	if (strstr(name, ".zst"))
		SH("zstd -dqf '%s/real-tracedat/%s' -o '%s'", env("TESTDATA"),
		   name, p);
	else
		SH("cp '%s/real-tracedat/%s' '%s'", env("TESTDATA"), name, p);
	return p;
}

static int count_event(void *ctx, const struct mdb_event *ev)
{
	(void)ev;
	(*(uint64_t *)ctx)++;
	return 0;
}

/* What to do to the file between opening and decoding. */
enum change { CUT, GROW, TOUCH };

static void change(const char *path, enum change how, off_t keep)
{
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
	FILE *f;

	switch (how) {
	case CUT:
		assert_int_equal(truncate(path, keep), 0);
		break;
	case GROW:
		/* still being written to: bytes appended */
		f = fopen(path, "ab");
		assert_non_null(f);
		assert_int_equal(fputs("more", f) >= 0, 1);
		assert_int_equal(fclose(f), 0);
		break;
	case TOUCH:
		/* rewritten in place, same size: only the mtime tells */
		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
		break;
	}
}

/*
 * Open @path, change it (@how, @keep bytes kept when cut), decode: an I/O
 * error naming it, with @words, at offset @off.  Returns the events the
 * decoder gave before it stopped.
 */
static uint64_t changed_decode(const char *path, enum change how, off_t keep,
			       const char *words, int64_t off)
{
	struct mdb_ingest_opts o;
	struct mdb_input *in;
	struct mdb_decode_stats st;
	struct mdb_error e;
	uint64_t n = 0;
	struct mdb_sink sink = { &n, count_event, NULL };

	mdb_ingest_opts_init(&o);
	mdb_error_clear(&e);
	if (mdb_input_open(path, &o, &in, &e) < 0 ||
	    mdb_input_prepare(in, &e) < 0)
		fail_msg("open %s: %s %s", path, e.msg, e.detail);
	change(path, how, keep);
	assert_int_equal(mdb_input_decode(in, &sink, &st, &e), -MDB_E_IO);
	assert_string_equal(e.file, path);
	assert_string_equal(e.msg, words);
	assert_int_equal(e.offset, off);
	mdb_input_close(in);
	/* reported once: the next check is clean */
	assert_int_equal(mdb_map_check(0, &e), 0);
	return n;
}

/* The events of @path, read whole. */
static uint64_t whole_decode(const char *path)
{
	struct mdb_ingest_opts o;
	struct mdb_input *in;
	struct mdb_decode_stats st;
	struct mdb_error e;
	uint64_t n = 0;
	struct mdb_sink sink = { &n, count_event, NULL };

	mdb_ingest_opts_init(&o);
	mdb_error_clear(&e);
	if (mdb_input_open(path, &o, &in, &e) < 0 ||
	    mdb_input_prepare(in, &e) < 0 ||
	    mdb_input_decode(in, &sink, &st, &e) < 0)
		fail_msg("%s: %s %s", path, e.msg, e.detail);
	mdb_input_close(in);
	return n;
}

#define SHRANK "the file shrank while memdb read it"

/*
 * Uncompressed CPU data, which libtracecmd maps: v6 (two CPUs, data at
 * 122880 and 266240 of 385024 bytes) and v7.  Cut in the middle, the
 * pages past the cut fault in the library (SIGBUS, no longer fatal);
 * cut to the first CPU's first pages, read at the opening, the same.
 */
static void test_shrink_mapped(void **state)
{
	static const char *const names[] = { "v6.dat.zst", "v7.dat.zst" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = fixture(names[i], "mapped.dat");
		struct stat sb;
		uint64_t all = whole_decode(p), n;

		assert_int_equal(stat(p, &sb), 0);
		n = changed_decode(p, CUT, sb.st_size / 2, SHRANK,
				   sb.st_size / 2);
		assert_true(n < all);
		SH("rm -f '%s'", p);
		free(p);
		p = fixture(names[i], "mapped.dat");
		n = changed_decode(p, CUT, 4096, SHRANK, 4096);
		assert_true(n < all);
		free(p);
	}
}

/*
 * zstd-compressed CPU data, which libtracecmd reads chunk by chunk with
 * read(2) (1 CPU, seven chunks from 28672 to 66429): cut after the
 * second chunk, the third reads short and the records end there, with
 * no error from the library.  Before the file's stamp was compared, that
 * was stored as the whole capture.
 */
static void test_shrink_compressed(void **state)
{
	char *p = fixture("v7-zstd.dat", "zstd.dat");
	uint64_t all = whole_decode(p), n;

	(void)state;
	assert_int_equal(all, 4826);
	n = changed_decode(p, CUT, 40000, SHRANK, 40000);
	assert_true(n > 0 && n < all);
	free(p);
}

/* Grown or rewritten in place: changed, not shrunk, and refused too. */
static void test_changed(void **state)
{
	static const char *const names[] = { "v6.dat.zst", "v7-zstd.dat" };
	static const char *changed = "the file changed while memdb read it";

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = fixture(names[i], "changed.dat");

		changed_decode(p, GROW, 0, changed, -1);
		free(p);
		p = fixture(names[i], "changed.dat");
		changed_decode(p, TOUCH, 0, changed, -1);
		free(p);
	}
}

/*
 * As memdb ingest goes (cli/cmd_ingest.c): the source begun, the events
 * written as decoded, the decode failing: rolled back, the database as
 * it was.
 */
static void test_shrink_db_unchanged(void **state)
{
	static const char *const names[] = { "v6.dat.zst", "v7-zstd.dat" };
	char *db = fresh_db(tmp, "t.db"), *before, *after;

	(void)state;
	ingest_ok(db, "'%s/real-tracedat/v7.dat.zst'", env("TESTDATA"));
	before = db_counts(db);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = fixture(names[i], "db.dat");
		struct mdb_ingest_opts o;
		struct mdb_load_opts lo = { 0 };
		struct mdb_load_result res;
		struct mdb_decode_stats st;
		struct mdb_load *load;
		struct mdb_input *in;
		struct mdb_error e;
		struct mdb_db h;

		mdb_ingest_opts_init(&o);
		mdb_error_clear(&e);
		assert_int_equal(mdb_db_open(&h, db, 0, &e), 0);
		assert_int_equal(mdb_input_open(p, &o, &in, &e), 0);
		assert_int_equal(mdb_input_prepare(in, &e), 0);
		assert_int_equal(mdb_load_begin(&h, p, mdb_input_meta(in), &lo,
						&load, &res, &e), 0);
		assert_int_equal(truncate(p, 40000), 0);
		memset(&st, 0, sizeof(st));
		assert_int_equal(mdb_input_decode(in, mdb_load_sink(load), &st,
						  &e), -MDB_E_IO);
		mdb_load_abort(load);
		assert_string_equal(e.msg, SHRANK);
		mdb_input_close(in);
		assert_int_equal(mdb_db_close(&h, &e), 0);
		free(p);
	}
	after = db_counts(db);
	assert_string_equal(before, after);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	free(before);
	free(after);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shrink_mapped),
		cmocka_unit_test(test_shrink_compressed),
		cmocka_unit_test(test_changed),
		cmocka_unit_test(test_shrink_db_unchanged),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
