// SPDX-License-Identifier: MIT
/*
 * trace-cmd's trace.dat (ingest/trace/tracedat.c).
 *
 * testdata/real-tracedat holds three real 6.18 captures, file version 6,
 * version 7 and version 7 with zstd-compressed sections, each with its
 * own `trace-cmd report` text (see its README): the binary decoder
 * (libtracecmd and the file's event formats) and the text decoder,
 * independent of each other, must give the same reports; so must
 * big-endian copies of the uncompressed ones, re-encoded by
 * tests/tracedat_swap.py (no big-endian capture is at hand).  The kallsyms
 * the file carries is kept, so `memdb symbolize` needs no option.  Cut
 * and corrupt files are refused with file and offset, the database
 * unchanged; a zlib-compressed v7 file is refused by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "../ingest/trace/tep_kmem.h"

#include "testlib.h"

static char *dir, *fix;

/* each file, its trace-cmd report text, the uname -r it was made on and
 * the kallsyms lines it carries */
static const char *const captures[][4] = {
	{ "v6.dat.zst", "v6.txt.zst", "kernel-release", "kallsyms" },
	{ "v7.dat.zst", "v7.txt.zst", "kernel-release", "kallsyms" },
	{ "v7-zstd.dat", "v7-zstd.txt.zst", "kernel-release", "kallsyms" },
	/* with the formats of ext4 and dma, two of which the format checks
	 * once refused (tests/fixtures/mk-tracedat-other.sh) */
	{ "v7-other.dat.zst", "v7-other.txt.zst", "v7-other.kernel-release",
	  "v7-other.kallsyms" },
};

static int setup(void **state)
{
	(void)state;
	dir = tmpdir("tracedat");
	if (asprintf(&fix, "%s/real-tracedat", env("TESTDATA")) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(fix);
	free(dir);
	return 0;
}

/* memdb symbolize of @db with the fixtures' kallsyms file @ks, or with
 * the file's own when @ks is NULL. */
static void symbolize_with(const char *db, const char *ks)
{
	struct run r;

	if (ks)
		run_memdb(&r, db, "symbolize --kallsyms '%s/%s'", fix, ks);
	else
		run_memdb(&r, db, "symbolize");
	assert_run_ok_msg(&r, "symbolize");
	run_free(&r);
}

static void symbolize(const char *db, int with_option)
{
	symbolize_with(db, with_option ? "kallsyms" : NULL);
}

static void same_reports(const char *a_db, const char *b_db,
			 const char *what)
{
	static const char *const reports[] = { "summary", "fragmentation",
					       "callsites", "pingpong",
					       "callsites --by comm",
					       "callsites --by pid", "pages" };

	for (size_t i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
		char *a = report_csv(a_db, reports[i]);
		char *b = report_csv(b_db, reports[i]);

		if (strcmp(a, b))
			fail_msg("%s: %s differs:\n%s\n---\n%s", what,
				 reports[i], a, b);
		free(a);
		free(b);
	}
}

/* Each binary and its own trace-cmd report text: the same reports. */
static void test_same_as_text(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
		char *bin = fresh_db(dir, "bin.db");
		char *text = fresh_db(dir, "text.db"), *src;
		char *rel_path = path_in(fix, captures[i][2]);
		char *release = slurp(rel_path, NULL);

		assert_non_null(release);
		release[strcspn(release, "\n")] = '\0';
		ingest_ok(bin, "'%s/%s'", fix, captures[i][0]);
		ingest_ok(text, "--kallsyms '%s/%s' '%s/%s'", fix,
			  captures[i][3], fix, captures[i][1]);
		src = db_text(bin, "SELECT format, byte_order, abi_version, "
				   "kernel_release FROM source");
		/* the version as the file name says, the release as uname */
		if (strncmp(src, "trace-dat,little,", 17) ||
		    src[17] != captures[i][0][1] || !strstr(src, release))
			fail_msg("%s: source %s", captures[i][0], src);
		free(src);
		assert_true(db_int(bin, "SELECT events FROM source") > 1000);
		assert_int_equal(db_int(bin, "SELECT events FROM source"),
				 db_int(text, "SELECT events FROM source"));
		symbolize_with(bin, captures[i][3]);
		symbolize_with(text, captures[i][3]);
		same_reports(bin, text, captures[i][0]);
		free(bin);
		free(text);
		free(release);
		free(rel_path);
	}
}

/* "KEY,HITS" per task: tests/task_hits.awk over the text @cat prints. */
static char *awk_hits(const char *cat, const char *by)
{
	struct run r;
	char *out;

	run(&r, "%s | awk -v by=%s -f '%s/task_hits.awk' | LC_ALL=C sort",
	    cat, by, env("TESTS_DIR"));
	assert_run_ok_msg(&r, "task_hits.awk");
	out = r.out;
	r.out = NULL;
	run_free(&r);
	return out;
}

/* "KEY,HITS" per task: memdb's callsites --by @by. */
static char *memdb_hits(const char *db, const char *by)
{
	struct run r;
	char *out;

	run(&r, "'%s' report callsites --by %s --format csv -d '%s' | "
		"awk -F, 'NR > 1 && $1 != \"total\" { print $1 \",\" $2 }' | "
		"LC_ALL=C sort", env("MEMDB"), by, db);
	assert_run_ok_msg(&r, "report");
	out = r.out;
	r.out = NULL;
	run_free(&r);
	return out;
}

/* The hits per comm and per pid of @db: those awk counts in @cat. */
static void same_hits(const char *db, const char *cat, const char *what)
{
	static const char *const by[] = { "comm", "pid" };

	for (size_t i = 0; i < 2; i++) {
		char *a = memdb_hits(db, by[i]), *b = awk_hits(cat, by[i]);

		if (strcmp(a, b) || !strchr(a, ','))
			fail_msg("%s: hits by %s:\n%s\n--- awk:\n%s", what,
				 by[i], a, b);
		free(a);
		free(b);
	}
}

/*
 * Each capture's tasks: the allocations of each comm and each pid, as
 * awk counts them in the trace-cmd report text.
 */
static void test_task_hits(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(captures) / sizeof(captures[0]); i++) {
		char *bin = fresh_db(dir, "bin.db"), *cat;

		ingest_ok(bin, "'%s/%s'", fix, captures[i][0]);
		/* every event names its task; all of them are named */
		assert_int_equal(db_int(bin, "SELECT count(*) FROM alloc "
					     "WHERE pid IS NULL OR "
					     "comm_id IS NULL"), 0);
		cat = strf("zstd -dc '%s/%s'", fix, captures[i][1]);
		same_hits(bin, cat, captures[i][0]);
		free(cat);
		free(bin);
	}
}

/*
 * @name ("v6") re-encoded by tests/tracedat_swap.py as a big-endian
 * machine's trace-cmd writes it, as @out in @dir, then the shell @edit
 * (NULL: none) on it: its path.  The little-endian original is left
 * decompressed beside it as @name.dat.
 */
static char *big_endian(const char *name, const char *out, const char *edit)
{
	char *be = path_in(dir, out);
	struct run r;

	run(&r, "cd '%s' && zstd -dcfq '%s/%s.dat.zst' -o %s.dat && "
		"F='%s' && python3 '%s/tracedat_swap.py' %s.dat \"$F\" && "
		"! cmp -s %s.dat \"$F\" && %s", dir, fix, name, name, be,
	    env("TESTS_DIR"), name, name, edit ? edit : "true");
	assert_run_ok_msg(&r, "tracedat_swap.py %s", name);
	run_free(&r);
	return be;
}

/*
 * The uncompressed captures (v6, v7) as a big-endian machine writes
 * them (tests/tracedat_swap.py, an encoder independent of memdb's
 * reader; `trace-cmd report` prints the same events for both copies):
 * the same reports as the little-endian original and as its trace-cmd
 * report text, and the same hits per comm and pid as awk counts there.
 */
static void test_big_endian(void **state)
{
	static const char *const names[] = { "v6", "v7" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *be = big_endian(names[i], "be.dat", NULL), *src, *cat;
		char *be_db = fresh_db(dir, "be.db");
		char *le_db = fresh_db(dir, "le.db");
		char *text = fresh_db(dir, "text.db");
		int64_t n;

		ingest_ok(be_db, "'%s'", be);
		ingest_ok(le_db, "'%s/%s.dat'", dir, names[i]);
		ingest_ok(text, "--kallsyms '%s/kallsyms' '%s/%s.txt.zst'", fix,
			  fix, names[i]);
		src = db_text(be_db, "SELECT format, byte_order, abi_version "
				     "FROM source");
		if (strncmp(src, "trace-dat,big,", 14) ||
		    src[14] != names[i][1])
			fail_msg("%s: source %s", be, src);
		free(src);
		n = db_int(be_db, "SELECT events FROM source");
		assert_true(n > 1000);
		assert_int_equal(n, db_int(le_db, "SELECT events FROM source"));
		assert_int_equal(n, db_int(text, "SELECT events FROM source"));
		symbolize(be_db, 0);
		symbolize(le_db, 0);
		symbolize(text, 1);
		same_reports(be_db, le_db, be);
		same_reports(be_db, text, be);
		cat = strf("zstd -dc '%s/%s.txt.zst'", fix, names[i]);
		same_hits(be_db, cat, be);
		free(cat);
		free(text);
		free(le_db);
		free(be_db);
		free(be);
	}
}

/* The comm ESC '[m' of task_names.py: stored as it is, shown escaped. */
static void escaped_comm(const char *db)
{
	struct run r;

	assert_true(db_int(db, "SELECT count(*) FROM alloc a JOIN str s "
			       "ON s.source_id = a.source_id AND "
			       "s.id = a.comm_id "
			       "WHERE s.text = char(27) || '[m'") > 0);
	run_memdb(&r, db, "report callsites --by comm");
	assert_run_ok(&r);
	if (strchr(r.out, 27) || !strstr(r.out, "\\x1b[m"))
		fail_msg("comm not escaped:\n%s", r.out);
	run_free(&r);
}

/* Capture @file ("v6") edited by task_names.py in @mode. */
static void task_names(const char *file, const char *mode)
{
	char *bin = fresh_db(dir, "bin.db"), *text = fresh_db(dir, "text.db");
	char *a, *b, *cat, *what = strf("%s %s", file, mode);
	struct run r;

	run(&r, "cd '%s' && zstd -dcfq '%s/%s.dat.zst' -o in.dat && "
		"zstd -dcfq '%s/%s.txt.zst' -o in.txt && "
		"python3 '%s/task_names.py' tracedat %s in.dat in.txt "
		"out.dat out.txt", dir, fix, file, fix, file,
	    env("TESTS_DIR"), mode);
	assert_run_ok_msg(&r, "%s", what);
	run_free(&r);
	ingest_ok(bin, "'%s/out.dat'", dir);
	ingest_ok(text, "'%s/out.txt'", dir);
	/* some tasks unnamed, the others named */
	assert_true(db_int(bin, "SELECT count(*) FROM alloc "
				"WHERE comm_id IS NULL") > 0);
	assert_true(db_int(bin, "SELECT count(*) FROM alloc "
				"WHERE comm_id IS NOT NULL") > 0);
	a = report_csv(bin, "callsites --by comm");
	b = report_csv(text, "callsites --by comm");
	if (strcmp(a, b))
		fail_msg("%s: by comm differs:\n%s\n---\n%s", what, a, b);
	cat = strf("cat '%s/out.txt'", dir);
	same_hits(bin, cat, what);
	if (!strcmp(mode, "names"))
		escaped_comm(bin);
	free(cat);
	free(a);
	free(b);
	free(what);
	free(text);
	free(bin);
}

/*
 * Saved command lines edited by tests/task_names.py in a v6 and a v7
 * file, and the text edited to match (what trace-cmd report prints for
 * the edited file): a task with no line, one named "<...>" and one whose
 * name is a terminal escape; then a line that is not "PID COMM", after
 * which libtraceevent names no task.  The binary, its text and awk
 * agree.
 */
static void test_task_names(void **state)
{
	(void)state;
	task_names("v6", "names");
	task_names("v6", "malformed");
	task_names("v7", "names");
	task_names("v7", "malformed");
}

/* The file's kallsyms is kept: symbolize with no option, same result. */
static void test_kallsyms_kept(void **state)
{
	char *a = fresh_db(dir, "a.db"), *b = fresh_db(dir, "b.db"), *ks;
	struct stat st;

	(void)state;
	ingest_ok(a, "'%s/v7-zstd.dat'", fix);
	ingest_ok(b, "'%s/v7-zstd.dat'", fix);
	if (asprintf(&ks, "%s/kallsyms", fix) < 0 || stat(ks, &st))
		fail();
	assert_int_equal(db_int(a, "SELECT length(data) FROM source_file "
				   "WHERE name = 'kallsyms'"),
			 (int64_t)st.st_size);
	symbolize(a, 0);
	symbolize(b, 1);
	assert_true(db_int(a, "SELECT count(*) FROM symbol WHERE func IS NOT NULL")
		    > 50);
	same_reports(a, b, "stored kallsyms");
	free(ks);
	free(a);
	free(b);
}

/* Piped and compressed: the same content hash, one source. */
static void test_stdin(void **state)
{
	char *db = fresh_db(dir, "pipe.db");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/v6.dat.zst'", fix);
	run(&r, "zstd -dc '%s/v6.dat.zst' | '%s' ingest -q -d '%s' -", fix,
	    env("MEMDB"), db);
	assert_run_ok(&r);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	free(db);
}

/* memdb ingest of @file fails naming @what and @offset; @db unchanged. */
static void refused(const char *file, const char *what, const char *offset)
{
	char *db = fresh_db(dir, "bad.db"), *before, *after;
	struct run r;

	ingest_ok(db, "'%s/v7-zstd.dat'", fix);
	before = db_counts(db);
	run_memdb(&r, db, "ingest '%s'", file);
	assert_run_status(&r, 1);
	if (!strstr(r.err, what) || !strstr(r.err, offset) ||
	    !strstr(r.err, file))
		fail_msg("expected '%s' at %s, got: %s", what, offset, r.err);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(db);
}

/* A copy of capture @name, decompressed, then the shell @edit on it. */
static char *edited(const char *name, const char *out, const char *edit)
{
	char *p = path_in(dir, out);
	struct run r;

	run(&r, "zstd -dcf '%s/%s' > '%s' && F='%s' && %s", fix, name, p, p,
	    edit);
	assert_run_ok(&r);
	run_free(&r);
	return p;
}

/* @p, a copy of v7.dat.zst edited where memdb should not care: ingested,
 * with the allocations of the file as it was. */
static void newline_read(const char *p)
{
	char *a = fresh_db(dir, "nl-a.db"), *b = fresh_db(dir, "nl-b.db");
	const char *q = "SELECT count(*) || ' ' || total(bytes_alloc) || ' ' "
			"|| total(ptr) FROM alloc";
	char *x, *y;

	ingest_ok(a, "'%s'", p);
	ingest_ok(b, "'%s/v7.dat.zst'", fix);
	x = db_text(a, q);
	y = db_text(b, q);
	assert_string_equal(x, y);
	assert_true(db_int(a, "SELECT count(*) FROM alloc") > 0);
	free(x);
	free(y);
	free(a);
	free(b);
}

static void test_corrupt(void **state)
{
	char *p;

	(void)state;
	/* the header: 10 magic bytes, "6\0", byte order at 12 */
	p = edited("v6.dat.zst", "endian.dat",
		   "printf '\\007' | dd of=\"$F\" bs=1 seek=12 conv=notrunc "
		   "status=none");
	refused(p, "byte order 7", "offset=12");
	free(p);
	p = edited("v6.dat.zst", "version.dat",
		   "printf '9' | dd of=\"$F\" bs=1 seek=10 conv=notrunc "
		   "status=none");
	refused(p, "file version '9'", "offset=10");
	free(p);
	/* the commit size of CPU 0's first page (at 122880, see the
	 * README's trace-cmd dump) past the page */
	p = edited("v6.dat.zst", "commit.dat",
		   "printf '\\377\\377' | dd of=\"$F\" bs=1 seek=122889 "
		   "conv=notrunc status=none");
	refused(p, "commit size", "offset=122888");
	free(p);
	/* the same in the big-endian copy, where the commit's low bytes
	 * come last (read as little-endian, they would mask to 0) */
	p = big_endian("v6", "commit-be.dat",
		       "printf '\\377\\377' | dd of=\"$F\" bs=1 seek=122894 "
		       "conv=notrunc status=none");
	refused(p, "commit size", "offset=122888");
	free(p);
	/* a kmem format's field list damaged (libtraceevent would leak) */
	p = edited("v7.dat.zst", "field.dat",
		   "python3 -c \"import sys; p = sys.argv[1]; "
		   "d = open(p, 'rb').read().replace(b'call_site;\\\\toffset', "
		   "b'call_site;\\\\toffsex', 1); open(p, 'wb').write(d)\" \"$F\"");
	refused(p, "event format with a malformed field list", "offset=");
	free(p);
	/* a stray '#' in a print fmt (libtraceevent would leak) */
	p = edited("v7.dat.zst", "printfmt.dat",
		   "python3 -c \"import sys; p = sys.argv[1]; "
		   "d = open(p, 'rb').read().replace(b'REC->call_site, ', "
		   "b'REC->call_site# ', 1); open(p, 'wb').write(d)\" \"$F\"");
	refused(p, "event format with a malformed print fmt", "offset=");
	free(p);
	/* a newline inside the quoted format is the kernel's own (6.18's
	 * ext4_getfsmap_mapping ends its format so): read, and the same
	 * allocations as the file unedited */
	p = edited("v7.dat.zst", "newline.dat",
		   "python3 -c \"import sys; p = sys.argv[1]; "
		   "d = open(p, 'rb').read().replace(b'%s node=%d accounted', "
		   "b'%s\\nnode=%d accounted', 1); open(p, 'wb').write(d)\" "
		   "\"$F\"");
	newline_read(p);
	free(p);
	/* cut inside the header, and inside the CPU data */
	p = edited("v7.dat.zst", "cut-head.dat", "truncate -s 13 \"$F\"");
	refused(p, "file cut short", "offset=12");
	free(p);
	p = edited("v6.dat.zst", "cut-data.dat", "truncate -s 200000 \"$F\"");
	refused(p, "past the end of the file", "offset=");
	free(p);
	p = edited("v7.dat.zst", "cut-data7.dat", "truncate -s 200000 \"$F\"");
	refused(p, "past the end of the file", "offset=");
	free(p);
}

/* A format with field @decl: "name: x / ID: 1 / format: / field". */
static int decl_ok(const char *decl)
{
	char *f = strf("name: x\nID: 1\nformat:\n\tfield:%s;\toffset:8;"
		       "\tsize:4;\tsigned:0;\n\nprint fmt: \"%%d\", REC->x\n",
		       decl);
	int ok = mdb_tep_kmem_fields_ok(f, strlen(f));

	free(f);
	return ok;
}

/* Field declarations the checker before libtraceevent passes: as the
 * kernel writes them (a __data_loc type of two words, 6.18's
 * dma_sync_sg_for_device), not those libtraceevent 1.7.1 leaks on
 * (testdata/libtraceevent/README.md). */
static void test_field_decls(void **state)
{
	static const char *const good[] = {
		"int common_pid", "const void * ptr", "char comm[16]",
		"char buf[]", "__data_loc char[] name",
		"__data_loc unsigned int[] lengths", "__rel_loc u64[] addrs",
	};
	static const char *const bad[] = {
		"x[] y[]", "a[2] b", "const [void * ptr", "unsign&d long pfn",
		"__data_loc char[] name[]", "__data_loc char[] name[4]",
		"__data_loc unsigned[] int[] x",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!decl_ok(good[i]))
			fail_msg("refused: %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (decl_ok(bad[i]))
			fail_msg("passed: %s", bad[i]);
}

/* A v7 file declaring zlib: refused by name, before libtracecmd. */
static void test_zlib_refused(void **state)
{
	/* "none\0" at 18 (magic, "7\0", order, long, page size), as long */
	char *p = edited("v7.dat.zst", "zlib.dat",
			 "printf 'zlib' | dd of=\"$F\" bs=1 seek=18 "
			 "conv=notrunc status=none");

	(void)state;
	refused(p, "compressed with zlib", "offset=0");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_text),
		cmocka_unit_test(test_task_hits),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_task_names),
		cmocka_unit_test(test_kallsyms_kept),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_field_decls),
		cmocka_unit_test(test_zlib_refused),
	};

	return cmocka_run_group_tests_name("trace.dat", tests, setup,
					   teardown);
}
