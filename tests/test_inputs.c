// SPDX-License-Identifier: MIT
/*
 * Inputs that hang, crash or mislead (issue 11): FIFOs given as PATH,
 * inside a capture directory, as --kallsyms or as a report's --cpu-node
 * are refused at once; a file
 * that shrinks while it is read is an error naming it, with the database
 * unchanged; a text file cut mid-line never stores its cut line; headerless
 * vmstat -m excerpts of every layout are read.  The expected figures are
 * the fixtures' own lines, counted by hand in the comments.
 */
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
#include "../ingest/snapshot.h"
#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("inputs");
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
		assert_run_ok(&r_);                              \
		run_free(&r_);                                   \
	} while (0)

/* Write @text to @dir/@name; the path, malloc'ed. */
static char *write_file(const char *dir, const char *name, const char *text)
{
	char *p = path_in(dir, name);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	return p;
}

/* ---- FIFOs ------------------------------------------------------------- */

/*
 * memdb ARGS (with a 20 s timeout: a hang is the bug) must fail at once
 * naming @what as a FIFO.
 */
static void refused_fifo(const char *db, const char *args, const char *what)
{
	struct run r;

	run(&r, "timeout 20 '%s' %s -d '%s'", env("MEMDB"), args, db);
	if (r.status == 124)
		fail_msg("memdb %s hangs", args);
	assert_int_not_equal(r.status, 0);
	if (!strstr(r.err, "a FIFO") || !strstr(r.err, what))
		fail_msg("memdb %s: '%s' does not name %s as a FIFO", args,
			 r.err, what);
	run_free(&r);
}

static void test_fifo_refused(void **state)
{
	char *dir = path_in(tmp, "fifo"), *db, *fifo, *cap, *ft;
	const char *td = env("TESTDATA");
	char *before, *after, *args;
	struct run r;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	db = fresh_db(dir, "f.db");
	fifo = path_in(dir, "pipe");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	ingest_ok(db, "'%s/succeed/ftrace-6.18/trace'", td);
	before = db_counts(db);

	/* as PATH, to ingest and to check, with and without --format */
	if (asprintf(&args, "ingest '%s'", fifo) < 0)
		fail();
	refused_fifo(db, args, "pipe");
	free(args);
	if (asprintf(&args, "ingest --format allocinfo '%s'", fifo) < 0)
		fail();
	refused_fifo(db, args, "pipe");
	free(args);
	run(&r, "timeout 20 '%s' check '%s'", env("MEMDB"), fifo);
	assert_int_not_equal(r.status, 124);
	assert_non_null(strstr(r.err, "a FIFO"));
	run_free(&r);

	/* as --kallsyms */
	if (asprintf(&args, "ingest --kallsyms '%s' '%s/succeed/ftrace-6.18/"
		     "trace'", fifo, td) < 0)
		fail();
	refused_fifo(db, args, "pipe");
	free(args);

	/* a report's --cpu-node map */
	if (asprintf(&args, "report summary --cpu-node '%s'", fifo) < 0)
		fail();
	refused_fifo(db, args, "pipe");
	free(args);

	/* inside a relay capture: a per-CPU file, then abi_version */
	cap = path_in(dir, "relay");
	SH("mkdir -p '%s' && cp '%s'/succeed/kt-small-le/* '%s'", cap, td, cap);
	SH("cd '%s' && rm cpu1.out && mkfifo cpu1.out", cap);
	if (asprintf(&args, "ingest '%s'", cap) < 0)
		fail();
	refused_fifo(db, args, "cpu1.out");
	SH("cd '%s' && rm cpu1.out abi_version && mkfifo abi_version && "
	   "cp '%s'/succeed/kt-small-le/cpu1.out .", cap, td);
	refused_fifo(db, args, "abi_version");
	free(args);
	/* kernel-release is optional: a FIFO there is skipped, not waited on */
	SH("cd '%s' && rm abi_version && mkfifo kernel-release", cap);
	run_memdb(&r, db, "ingest -q '%s'", cap);
	assert_run_ok(&r);
	run_free(&r);

	/* inside an ftrace capture: its kallsyms */
	ft = path_in(dir, "ftcap");
	SH("mkdir -p '%s' && cp '%s'/succeed/ftrace-6.18/trace '%s'", ft, td,
	   ft);
	SH("mkfifo '%s/kallsyms'", ft);
	if (asprintf(&args, "ingest '%s'", ft) < 0)
		fail();
	refused_fifo(db, args, "kallsyms");
	free(args);

	after = db_counts(db);
	/* the relay capture was ingested; nothing else */
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 2);
	assert_string_not_equal(before, after);
	free(before);
	free(after);
	free(ft);
	free(cap);
	free(fifo);
	free(db);
	free(dir);
}

/* ---- files that shrink while read -------------------------------------- */

static int count_event(void *ctx, const struct mdb_event *ev)
{
	(void)ev;
	(*(uint64_t *)ctx)++;
	return 0;
}

/*
 * Open @path, cut it to @keep bytes, decode: the decoder must stop with an
 * I/O error naming @who instead of dying of SIGBUS.
 */
static void shrink_decode(const char *path, off_t keep, const char *who)
{
	struct mdb_ingest_opts o;
	struct mdb_input *in;
	struct mdb_decode_stats st;
	struct mdb_error e;
	uint64_t n = 0;
	struct mdb_sink sink = { &n, count_event, NULL };

	mdb_ingest_opts_init(&o);
	mdb_error_clear(&e);
	if (mdb_input_open(path, &o, &in, &e) < 0)
		fail_msg("open %s: %s %s", path, e.msg, e.detail);
	assert_int_equal(truncate(who, keep), 0);
	assert_int_equal(mdb_input_decode(in, &sink, &st, &e), -MDB_E_IO);
	assert_string_equal(e.file, who);
	assert_non_null(strstr(e.msg, "shrank"));
	assert_true(e.offset >= 0 && e.offset <= keep);
	mdb_input_close(in);
	/* reported once: the next check is clean */
	assert_int_equal(mdb_map_check(0, &e), 0);
}

static void test_shrink_trace(void **state)
{
	char *dir = path_in(tmp, "shrink"), *trace, *cpu0;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	trace = path_in(dir, "trace.txt");
	SH("'%s' --format ftrace-text --events 20000 '%s' >/dev/null",
	   env("KTGEN"), trace);
	shrink_decode(trace, 4096, trace);
	/* a relay capture: one per-CPU file shrinks to nothing */
	SH("'%s' --events 20000 --cpus 2 '%s/relay' >/dev/null", env("KTGEN"),
	   dir);
	cpu0 = path_in(dir, "relay/cpu0");
	if (access(cpu0, F_OK)) {
		free(cpu0);
		cpu0 = path_in(dir, "relay/cpu0.out");
	}
	SH("test -f '%s'", cpu0);
	{
		char *relay = path_in(dir, "relay");

		shrink_decode(relay, 0, cpu0);
		free(relay);
	}
	free(cpu0);
	free(trace);
	free(dir);
}

/*
 * perf.data reads all its records, and takes its hash on another
 * thread, in mdb_input_prepare(): a file cut short after the opening is
 * an error there, with the file's name.
 */
static void test_shrink_perf_prepare(void **state)
{
	char *dir = path_in(tmp, "shrink-perf"), *data;
	struct mdb_ingest_opts o;
	struct mdb_input *in;
	struct mdb_error e;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	data = path_in(dir, "slab.data");
	SH("zstd -dqf '%s/real-perf/slab.data.zst' -o '%s'", env("TESTDATA"),
	   data);
	mdb_ingest_opts_init(&o);
	mdb_error_clear(&e);
	assert_int_equal(mdb_input_open(data, &o, &in, &e), 0);
	assert_int_equal(truncate(data, 4096), 0);
	assert_int_equal(mdb_input_prepare(in, &e), -MDB_E_IO);
	assert_string_equal(e.file, data);
	assert_non_null(strstr(e.msg, "shrank"));
	mdb_input_close(in);
	assert_int_equal(mdb_map_check(0, &e), 0);
	free(data);
	free(dir);
}

static int count_tag(void *ctx, const struct mdb_tag *t)
{
	(void)t;
	(*(uint64_t *)ctx)++;
	return 0;
}

/* A snapshot read through the database: rolled back, nothing kept. */
static void test_shrink_snapshot_db(void **state)
{
	char *dir = path_in(tmp, "shrink-db"), *db, *ai, *before, *after;
	struct mdb_ingest_opts o;
	struct mdb_load_opts lo = { 0 };
	struct mdb_load_result res;
	struct mdb_snap_load *load;
	struct mdb_snap_info info;
	struct mdb_input *in;
	struct mdb_error e;
	struct mdb_db h;
	FILE *f;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	db = fresh_db(dir, "s.db");
	ingest_ok(db, "'%s/succeed/snapshots/allocinfo-v1.txt'",
		  env("TESTDATA"));
	before = db_counts(db);
	/* 20000 tags, about 900 KiB */
	ai = path_in(dir, "allocinfo");
	f = fopen(ai, "w");
	assert_non_null(f);
	fprintf(f, "allocinfo - version: 1.0\n");
	for (int i = 0; i < 20000; i++)
		fprintf(f, "%12d %8d mm/file%d.c:%d func:function_%d\n",
			4096 * i, i, i, i, i);
	assert_int_equal(fclose(f), 0);

	mdb_ingest_opts_init(&o);
	mdb_error_clear(&e);
	assert_int_equal(mdb_db_open(&h, db, 0, &e), 0);
	assert_int_equal(mdb_input_open(ai, &o, &in, &e), 0);
	assert_int_equal(mdb_snap_begin(&h, ai, mdb_input_meta(in), &lo, &load,
					&res, &e), 0);
	assert_int_equal(truncate(ai, 100), 0);
	assert_int_equal(mdb_input_decode_snap(in, mdb_snap_load_sink(load),
					       &info, &e), -MDB_E_IO);
	mdb_snap_abort(load);
	assert_string_equal(e.file, ai);
	assert_non_null(strstr(e.msg, "shrank"));
	mdb_input_close(in);
	assert_int_equal(mdb_db_close(&h, &e), 0);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(ai);
	free(db);
	free(dir);
}

/* The same through the decoder alone, with a counting sink. */
static void test_shrink_snapshot(void **state)
{
	char *dir = path_in(tmp, "shrink-snap"), *ai;
	struct mdb_ingest_opts o;
	struct mdb_snap_info info;
	struct mdb_input *in;
	struct mdb_error e;
	uint64_t n = 0;
	struct mdb_snap_sink sink = { .ctx = &n, .tag = count_tag };
	FILE *f;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	ai = path_in(dir, "allocinfo");
	f = fopen(ai, "w");
	assert_non_null(f);
	for (int i = 0; i < 5000; i++)
		fprintf(f, "%12d %8d mm/f.c:%d func:f%d\n", i, i, i, i);
	assert_int_equal(fclose(f), 0);
	mdb_ingest_opts_init(&o);
	mdb_error_clear(&e);
	assert_int_equal(mdb_input_open(ai, &o, &in, &e), 0);
	assert_int_equal(truncate(ai, 0), 0);
	assert_int_equal(mdb_input_decode_snap(in, &sink, &info, &e),
			 -MDB_E_IO);
	assert_string_equal(e.file, ai);
	assert_int_equal(e.offset, 0);
	mdb_input_close(in);
	free(ai);
	free(dir);
}

/* ---- text cut mid-line ------------------------------------------------- */

/* memdb ingest ARGS of @file into a fresh database: exit status, and the
 * stderr in *@err (malloc'ed) when @err is not NULL. */
static int ingest_status(const char *db, const char *args, char **err)
{
	struct run r;
	int st;

	run_memdb(&r, db, "ingest %s", args);
	st = r.status;
	if (err)
		*err = strdup(r.err);
	run_free(&r);
	return st;
}

/*
 * A trace whose last line is cut in its ptr value: "ptr=0xfff" of
 * "ptr=0xffff888100a3c200".  Without --strict the line is counted as
 * malformed and warned about, the events before it kept; with --strict
 * the ingest fails at that line.  Nothing stores the cut pointer.
 */
static void test_cut_trace(void **state)
{
	static const char *const lines =
		"# tracer: nop\n"
		"#\n"
		"  bash-1 [000] .....   1.000001: kmalloc: call_site=f+0x1/0x2 "
		"ptr=0xffff888100a3c200 bytes_req=8 bytes_alloc=8 "
		"gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"  bash-1 [000] .....   1.000002: kmalloc: call_site=f+0x1/0x2 "
		"ptr=0xffff888100a3c300 bytes_req=8 bytes_alloc=8 "
		"gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
		"  bash-1 [000] .....   1.000003: kfree: call_site=g+0x1/0x2 "
		"ptr=0xffff888100a3c200\n";
	char *dir = path_in(tmp, "cut-trace"), *full, *cut, *db, *err, *args;
	size_t n = strlen(lines);
	char *text = strdup(lines);
	struct run r;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	full = write_file(dir, "full.txt", text);
	/* cut after "ptr=0xfff" of the last line */
	text[n - 1 - strlen("f888100a3c200")] = '\0';
	assert_string_equal(text + strlen(text) - 9, "ptr=0xfff");
	cut = write_file(dir, "cut.txt", text);

	db = fresh_db(dir, "full.db");
	ingest_ok(db, "'%s'", full);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free"), 0);
	assert_int_equal(db_int(db, "SELECT events FROM source"), 3);
	free(db);

	db = fresh_db(dir, "cut.db");
	if (asprintf(&args, "--strict '%s'", cut) < 0)
		fail();
	assert_int_not_equal(ingest_status(db, args, &err), 0);
	if (!strstr(err, "line=5") || !strstr(err, "cut short"))
		fail_msg("--strict: '%s'", err);
	free(err);
	free(args);
	if (asprintf(&args, "'%s'", cut) < 0)
		fail();
	run_memdb(&r, db, "ingest %s", args);
	assert_run_ok(&r);
	if (!strstr(r.err, "cut short"))
		fail_msg("no warning: '%s'", r.err);
	run_free(&r);
	free(args);
	/* two allocations; the cut free of 0xfff is not an event */
	assert_int_equal(db_int(db, "SELECT events FROM source"), 2);
	assert_int_equal(db_int(db, "SELECT malformed FROM source"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free"), 0);
	free(db);
	free(cut);
	free(full);
	free(text);
	free(dir);
}

/*
 * Snapshots: a last line that parses but lacks its newline is refused at
 * that line, and nothing of the file is stored.
 */
static void cut_snapshot(const char *name, const char *text, int line,
			 const char *shown)
{
	char *dir = path_in(tmp, "cut-snap"), *p, *db, *err, *args, *want;
	char *before, *after;

	SH("mkdir -p '%s'", dir);
	p = write_file(dir, name, text);
	db = fresh_db(dir, "cut.db");
	ingest_ok(db, "'%s/succeed/snapshots/allocinfo-v1.txt'",
		  env("TESTDATA"));
	before = db_counts(db);
	if (asprintf(&args, "'%s'", p) < 0 ||
	    asprintf(&want, "line=%d expected=a newline at the end", line) < 0)
		fail();
	assert_int_not_equal(ingest_status(db, args, &err), 0);
	if (!strstr(err, want) || !strstr(err, shown) || !strstr(err, name))
		fail_msg("%s: '%s' lacks '%s' or '%s'", name, err, want, shown);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(want);
	free(err);
	free(args);
	free(db);
	free(p);
	free(dir);
}

static void test_cut_snapshots(void **state)
{
	(void)state;
	/* allocinfo: func:__dma_direct_alloc_pages cut to ..._pag */
	cut_snapshot("allocinfo.txt",
		     "allocinfo - version: 1.0\n"
		     "# <size> <calls> <tag info>\n"
		     "    4096        1 mm/slub.c:100 func:kmalloc_node\n"
		     "   12288        3 kernel/dma/direct.c:141 "
		     "func:__dma_direct_alloc_pag", 4,
		     "kernel/dma/direct.c:141");
	/* vmstat -m: size list 512 cut to 5 */
	cut_snapshot("vmstat-m.txt",
		     "         Type InUse MemUse Requests  Size(s)\n"
		     "       devbuf   110    44K      120  16,32,256\n"
		     "CAM dev queue     5     1K        5  5", 3,
		     "1K        5  5'");
	/* vmstat -z: the last number cut */
	cut_snapshot("vmstat-z.txt",
		     "ITEM                   SIZE  LIMIT     USED     FREE      "
		     "REQ     FAIL SLEEP XDOM\n\n"
		     "UMA Kegs:               384,      0,     174,       0,  "
		     "   174,   0,   0,   0\n"
		     "128 Bucket:            1024,      0,     138,      89,  "
		     "  2105,10295,   0,   1", 4, "got='128 Bucket:");
	/* slabinfo: <sharedavail> cut */
	cut_snapshot("slabinfo.txt",
		     "slabinfo - version: 2.1\n"
		     "# name <active_objs> <num_objs> <objsize> <objperslab> "
		     "<pagesperslab> : tunables <limit> <batchcount> "
		     "<sharedfactor> : slabdata <active_slabs> <num_slabs> "
		     "<sharedavail>\n"
		     "kmalloc-64 12288 12288 64 64 1 : tunables 0 0 0 : "
		     "slabdata 192 192 0\n"
		     "kmalloc-32 12288 12288 32 128 1 : tunables 0 0 0 : "
		     "slabdata 96 96 1", 4, "got='kmalloc-32 ");
}

/*
 * A cut kallsyms line is not a symbol: "ida_fr" of "ida_free" would turn
 * the trace's call site "ida_fr+0x10/0x40" into an address.
 */
static void test_cut_kallsyms(void **state)
{
	char *dir = path_in(tmp, "cut-ksyms"), *ks, *tr, *db;

	(void)state;
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	ks = write_file(dir, "kallsyms",
			"ffffffff81000000 T _stext\n"
			"ffffffff81a00000 T ida_alloc_range\n"
			"ffffffff81a00400 T ida_fr");
	tr = write_file(dir, "trace.txt",
			"  bash-1 [000] .....   1.000001: kmalloc: "
			"call_site=ida_fr+0x10/0x40 ptr=0xffff888100a3c200 "
			"bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL "
			"node=-1 accounted=false\n");
	db = fresh_db(dir, "k.db");
	ingest_ok(db, "--kallsyms '%s' '%s'", ks, tr);
	assert_int_equal(db_int(db, "SELECT count(*) FROM site WHERE "
				"text = 'ida_fr+0x10/0x40' AND "
				"coalesce(addr, 0) = 0"), 1);
	free(db);
	free(tr);
	free(ks);
	free(dir);
}

/* ---- headerless vmstat -m excerpts ------------------------------------- */

/* Ingest @text as vmstat -m; the rows as "name|used|bytes|sizes;". */
static char *m_rows(const char *name, const char *text)
{
	char *dir = path_in(tmp, "vmstat-m"), *p, *db, *rows;

	SH("mkdir -p '%s'", dir);
	p = write_file(dir, name, text);
	db = fresh_db(dir, "m.db");
	ingest_ok(db, "'%s'", p);
	rows = db_text(db, "SELECT group_concat(name || '|' || used || '|' || "
		       "bytes || '|' || coalesce(sizes, ''), ';') FROM "
		       "(SELECT * FROM zone ORDER BY pos)");
	free(db);
	free(p);
	free(dir);
	return rows;
}

static void test_vmstat_m_excerpts(void **state)
{
	char *rows;

	(void)state;
	/* Type InUse MemUse Requests Size(s): the first row's one size
	 * class must not make its Requests a HighUse */
	rows = m_rows("mid.txt",
		      "CAM dev queue     5     1K        5  64\n"
		      "       devbuf   110    44K      120  16,256\n");
	assert_string_equal(rows, "\"CAM dev queue|5|1024|64;"
			    "devbuf|110|45056|16,256\"\n");
	free(rows);
	/* the HighUse layout, "-" in its place */
	rows = m_rows("high.txt",
		      "CAM dev queue     5     1K       -        5  64\n"
		      "       devbuf   110    44K       -      120  16,256\n");
	assert_string_equal(rows, "\"CAM dev queue|5|1024|64;"
			    "devbuf|110|45056|16,256\"\n");
	free(rows);
	/* Type Use Memory Req Size(s): bytes */
	rows = m_rows("bytes.txt",
		      "       devbuf   110    45056      120 16,32,256\n"
		      "CAM dev queue     5     1000        5 64\n"
		      "         temp     1  1000000        4\n");
	assert_string_equal(rows, "\"devbuf|110|45056|16,32,256;"
			    "CAM dev queue|5|1000|64;temp|1|1000000|\"\n");
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_shrink_trace),
		cmocka_unit_test(test_shrink_perf_prepare),
		cmocka_unit_test(test_shrink_snapshot),
		cmocka_unit_test(test_shrink_snapshot_db),
		cmocka_unit_test(test_cut_trace),
		cmocka_unit_test(test_cut_snapshots),
		cmocka_unit_test(test_cut_kallsyms),
		cmocka_unit_test(test_vmstat_m_excerpts),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
