// SPDX-License-Identifier: MIT
/*
 * Values at the edges: kernel counters that went below zero, printed
 * unsigned at or past 2^63 (/proc/allocinfo, /proc/slabinfo), kept as
 * their 64-bit pattern (negative) with a warning, every other line
 * stored, and the reports' sums and growth worked out by hand; and the
 * test library's account of a run that did not succeed (a signal, an
 * exit status, its stderr).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "../ingest/snapshot.h"
#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("edges-values");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* Write @text to @dir/@name; returns the path. */
static char *write_file(const char *dir, const char *name, const char *text)
{
	char *p = path_in(dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

static void assert_has(const char *s, const char *want)
{
	if (!strstr(s, want))
		fail_msg("'%s' not in:\n%s", want, s);
}

/* ---- allocinfo: the decoder ---------------------------------------- */

struct seen {
	int tags, warnings;
	int64_t bytes[8], calls[8];
	struct mdb_error w[8];
};

static int see_tag(void *ctx, const struct mdb_tag *t)
{
	struct seen *s = ctx;

	assert_true(s->tags < 8);
	s->bytes[s->tags] = t->bytes;
	s->calls[s->tags++] = t->calls;
	return 0;
}

static void see_warning(void *ctx, const struct mdb_error *w)
{
	struct seen *s = ctx;

	assert_true(s->warnings < 8);
	s->w[s->warnings++] = *w;
}

/*
 * 2^64 - 1 bytes is a counter one below zero, not 16 EiB: -1, warned with
 * the file, line and printed value; 2^64 - 2 calls is -2; a humanized 16E
 * (numfmt's for a counter within a step below 2^64) the most it can be,
 * -1; the kernel's own "%lli" negative stays as printed, unwarned.
 */
static void test_allocinfo_decode(void **state)
{
	static const char text[] =
		"allocinfo - version: 1.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        4096        1 mm/a.c:1 func:a\n"
		"18446744073709551615        3 mm/b.c:2 func:b\n"
		"        8192 18446744073709551614 mm/d.c:4 func:d\n"
		"         16E        1 mm/e.c:5 func:e\n"
		"        -128        2 mm/f.c:6 func:f\n";
	struct seen s = { 0 };
	struct mdb_snap_sink sink = { .ctx = &s, .tag = see_tag,
				      .warn = see_warning };
	struct mdb_snap_info info;
	struct mdb_error e;

	(void)state;
	mdb_error_clear(&e);
	assert_int_equal(mdb_allocinfo_decode(text, sizeof(text) - 1,
					      "ai.txt", &sink, &info, &e), 0);
	assert_int_equal(s.tags, 5);
	assert_int_equal(s.bytes[0], 4096);
	assert_int_equal(s.bytes[1], -1);
	assert_int_equal(s.calls[1], 3);
	assert_int_equal(s.bytes[2], 8192);
	assert_int_equal(s.calls[2], -2);
	assert_int_equal(s.bytes[3], -1);
	assert_int_equal(s.bytes[4], -128);
	assert_int_equal(info.approx, 1);
	assert_int_equal(s.warnings, 3);
	assert_string_equal(s.w[0].file, "ai.txt");
	assert_int_equal(s.w[0].line, 4);
	assert_string_equal(s.w[0].msg, "counter underflowed (bytes "
			    "18446744073709551615): stored as -1");
	assert_int_equal(s.w[1].line, 5);
	assert_string_equal(s.w[1].msg, "counter underflowed (calls "
			    "18446744073709551614): stored as -2");
	assert_int_equal(s.w[2].line, 6);
	assert_string_equal(s.w[2].msg, "counter underflowed (bytes 16E): "
			    "stored as -1");

	/* past 2^64 is no kernel's counter; negative calls not its output */
	s.tags = s.warnings = 0;
	assert_int_equal(mdb_allocinfo_decode("18446744073709551616 1 a.c:1 "
					      "func:f\n", 35, "x", &sink,
					      &info, &e), -MDB_E_CORRUPT);
	assert_int_equal(mdb_allocinfo_decode("1 -1 a.c:1 func:f\n", 18, "x",
					      &sink, &info, &e),
			 -MDB_E_CORRUPT);
	assert_int_equal(mdb_allocinfo_decode("17E 1 a.c:1 func:f\n", 19,
					      "x", &sink, &info, &e),
			 -MDB_E_CORRUPT);
}

/* ---- allocinfo: ingest and reports --------------------------------- */

/*
 * Snapshot 1 (lines 3-6): a 4096 B 1 call; b 2^64-1 B (-1) 3 calls; c
 * 12288 B 3 calls; d 8192 B 2^64-2 calls (-2).  Sums 4096 - 1 + 12288 +
 * 8192 = 24575 B, 1 + 3 + 3 - 2 = 5 calls.
 * Snapshot 2: a 8192 B 2; b 4095 B 4; c 12288 B 3; d 8192 B 1.  Sums
 * 32767 B, 10 calls.
 * Growth: a +4096 B +1; b 4095 - (-1) = +4096 B, +1 (an underflowed
 * counter moves as the kernel's does); c 0, 0; d 0 B, 1 - (-2) = +3.
 * By bytes_delta, then count_delta, then name: a, b, d, c.  Total 24575
 * -> 32767 (+8192) B, 5 -> 10 (+5) calls.
 */
static void test_allocinfo_reports(void **state)
{
	char *db = fresh_db(tmp, "ai.db"), *out;
	char *p1 = write_file(tmp, "allocinfo.1",
		"allocinfo - version: 1.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        4096        1 mm/a.c:1 func:a\n"
		"18446744073709551615        3 mm/b.c:2 func:b\n"
		"       12288        3 mm/c.c:3 func:c\n"
		"        8192 18446744073709551614 mm/d.c:4 func:d\n");
	char *p2 = write_file(tmp, "allocinfo.2",
		"allocinfo - version: 1.0\n"
		"#     <size>  <calls> <tag info>\n"
		"        8192        2 mm/a.c:1 func:a\n"
		"        4095        4 mm/b.c:2 func:b\n"
		"       12288        3 mm/c.c:3 func:c\n"
		"        8192        1 mm/d.c:4 func:d\n");
	struct run r;

	(void)state;
	run_memdb(&r, db, "ingest --label edge --time 1700000000 '%s'", p1);
	assert_run_ok(&r);
	assert_has(r.out, ": 4 tags");
	run_free(&r);
	ingest_ok(db, "--label edge --time 1700003600 '%s'", p2);
	out = db_text(db, "SELECT input_line, bytes, calls FROM tag "
		      "WHERE source_id = 1 ORDER BY pos");
	assert_string_equal(out, "3,4096,1\n4,-1,3\n5,12288,3\n6,8192,-2\n");
	free(out);

	run_memdb(&r, db, "report allocinfo --source 1 --format csv");
	assert_run_ok(&r);
	assert_string_equal(r.out,
		"tag,function,module,bytes,calls,tags,flags\n"
		"mm/c.c:3,c,,12288,3,1,\n"
		"mm/d.c:4,d,,8192,-2,1,underflow\n"
		"mm/a.c:1,a,,4096,1,1,\n"
		"mm/b.c:2,b,,-1,3,1,underflow\n"
		"total,,,24575,5,4,\n");
	/* the warning, with its line and value, in every report of it */
	assert_has(r.err, "note: source 1: line 4: counter underflowed "
		   "(bytes 18446744073709551615): stored as -1; line 6: "
		   "counter underflowed (calls 18446744073709551614): stored "
		   "as -2");
	run_free(&r);
	run_memdb(&r, db, "report allocinfo --source 1");
	assert_run_ok(&r);
	assert_has(r.out, "allocinfo.1");
	assert_has(r.out, "line 4: counter underflowed (bytes "
		   "18446744073709551615): stored as -1");
	run_free(&r);

	out = report_csv(db, "growth --from 1 --to 2");
	assert_string_equal(out,
		"name,function,module,kind,bytes_from,bytes_to,bytes_delta,"
		"count_from,count_to,count_delta,flags\n"
		"mm/a.c:1,a,,tag,4096,8192,4096,1,2,1,\n"
		"mm/b.c:2,b,,tag,-1,4095,4096,3,4,1,underflow\n"
		"mm/d.c:4,d,,tag,8192,8192,0,-2,1,3,underflow\n"
		"mm/c.c:3,c,,tag,12288,12288,0,3,3,0,\n"
		"total,,,,24575,32767,8192,5,10,5,\n");
	free(out);
	free(p1);
	free(p2);
	free(db);
}

/* ---- slabinfo ------------------------------------------------------ */

/*
 * active_objs 2^64 - 1 (-1) of 128 objects of 256 B: used -1, free 128 -
 * (-1) = 129, bytes 128 x 256 = 32768; the other row as printed.
 */
static void test_slabinfo(void **state)
{
	char *db = fresh_db(tmp, "slab.db"), *out;
	char *p = write_file(tmp, "slabinfo",
		"slabinfo - version: 2.1\n"
		"# name            <active_objs> <num_objs> <objsize> "
		"<objperslab> <pagesperslab> : tunables <limit> <batchcount> "
		"<sharedfactor> : slabdata <active_slabs> <num_slabs> "
		"<sharedavail>\n"
		"kmalloc-64         12288  12288     64   64    1 : tunables "
		"0 0 0 : slabdata    192    192      0\n"
		"odd 18446744073709551615 128 256 16 1 : tunables 0 0 0 : "
		"slabdata 8 8 0\n");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s'", p);
	out = db_text(db, "SELECT name, active_objs, num_objs, used, free, "
		      "bytes FROM v_zones ORDER BY pos");
	assert_string_equal(out, "kmalloc-64,12288,12288,12288,0,786432\n"
			    "odd,-1,128,-1,129,32768\n");
	free(out);
	run_memdb(&r, db, "report zones --format csv");
	assert_run_ok(&r);
	assert_has(r.err, "note: source 1: line 4: counter underflowed "
		   "(active_objs 18446744073709551615): stored as -1");
	run_free(&r);
	free(p);
	free(db);
}

/* ---- the test library's account of a run --------------------------- */

/* A shell killed by SIGTERM: the signal, by number and name, and what
 * it wrote to stderr before. */
static void test_describe_signal(void **state)
{
	struct run r;
	char *d;

	(void)state;
	run(&r, "echo 'half done' >&2; kill -TERM $$");
	assert_true(WIFSIGNALED(r.wstatus));
	assert_int_equal(WTERMSIG(r.wstatus), SIGTERM);
	assert_int_equal(r.status, 128 + SIGTERM);
	d = run_describe(&r);
	assert_string_equal(d, "killed by signal 15 (SIGTERM)\n"
			    "$ echo 'half done' >&2; kill -TERM $$\n"
			    "stderr:\nhalf done");
	free(d);
	run_free(&r);

	/* exec: the command itself is the child, its signal seen as such */
	run(&r, "exec sh -c 'kill -KILL $$'");
	d = run_describe(&r);
	assert_has(d, "killed by signal 9 (SIGKILL)\n");
	assert_has(d, "\nstderr empty");
	free(d);
	run_free(&r);
}

/* An exit 143 is an exit, with the signal a shell would mean by it. */
static void test_describe_exit(void **state)
{
	struct run r;
	char *d;

	(void)state;
	run(&r, "printf 'bad\\001\\\\\\n' >&2; exit 143");
	assert_true(WIFEXITED(r.wstatus));
	assert_int_equal(r.status, 143);
	d = run_describe(&r);
	assert_string_equal(d, "exit status 143 (128 + 15: a command of the "
			    "shell killed by signal 15 (SIGTERM)?)\n"
			    /* the command escaped too: \ as \\ */
			    "$ printf 'bad\\\\001\\\\\\\\\\\\n' >&2; exit 143\n"
			    "stderr:\nbad\\x01\\\\");
	free(d);
	run_free(&r);

	run(&r, "exit 3");
	d = run_describe(&r);
	assert_string_equal(d, "exit status 3\n$ exit 3\nstderr empty");
	free(d);
	run_free(&r);
}

/* A long stderr: its start and its end, the bytes between counted. */
static void test_describe_long(void **state)
{
	struct run r;
	char *d;

	(void)state;
	run(&r, "head -c 10000 /dev/zero | tr '\\000' a >&2; echo END >&2; "
	    "exit 1");
	d = run_describe(&r);
	/* 10004 bytes less the last newline, 1024 shown, 3072 */
	assert_has(d, "exit status 1\n");
	assert_has(d, "\nstderr (10003 bytes, the middle cut):\naaaa");
	assert_has(d, "a\n[... 5907 bytes ...]\naaaa");
	assert_has(d, "aaaaEND");
	assert_int_equal(d[strlen(d) - 1], 'D');
	assert_true(strlen(d) < 4096 + 200);
	free(d);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allocinfo_decode),
		cmocka_unit_test(test_allocinfo_reports),
		cmocka_unit_test(test_slabinfo),
		cmocka_unit_test(test_describe_signal),
		cmocka_unit_test(test_describe_exit),
		cmocka_unit_test(test_describe_long),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
