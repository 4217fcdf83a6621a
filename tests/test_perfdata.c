// SPDX-License-Identifier: MIT
/*
 * perf.data ingest, end to end through the binary, on the real captures
 * of testdata/real-perf/ (see its README):
 *   - the figures of `perf kmem stat`, `perf kmem --caller stat` and
 *     `perf kmem --page stat`, as perf printed them when the fixtures were
 *     made (read by tests/perf_kmem.awk), equal memdb's; where memdb
 *     differs from perf on purpose (a pointer freed twice), the test
 *     adds perf's extra count, computed from memdb's own rows, back;
 *   - every capture (file and pipe mode, slab, page, callchains, lossy,
 *     zstd-compressed records of perf record -z)
 *     gives the very allocations and reports of its own `perf script`
 *     text;
 *   - a big-endian copy re-encoded by tests/perf_to_be.py gives the same;
 *   - the zstd-compressed file and the file piped into `memdb ingest -`
 *     give the same allocations;
 *   - lost events are counted once (perf's "lost" figure);
 *   - read round by round (PERF_RECORD_FINISHED_ROUND, what memdb
 *     ingest does) every capture gives the rows and reports it gives in
 *     two passes (walk and sort everything first); a copy with one
 *     sample moved back in time by tests/perf_retime.py is noticed and
 *     read again in two passes, with the same result (a task record
 *     moved back too); the content hash,
 *     written last then, is the same, and the file ingested again is
 *     recognised;
 *   - truncated and corrupted files: an error naming the file and the
 *     offset, the database unchanged; a --threads directory is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

static char *tmp;

static const char *const captures[] = { "slab", "page", "cg", "pipe",
					"lossy", "zrec" };
#define NCAPTURES (sizeof(captures) / sizeof(captures[0]))

/* Output of a shell command line that must succeed. */
static char *out_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *out_of(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *cmd = NULL, *s;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		fail_msg("out of memory");
	va_end(ap);
	run(&r, "%s", cmd);
	assert_run_ok(&r);
	s = strdup(r.out);
	run_free(&r);
	free(cmd);
	return s;
}

static char *fixture(const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/real-perf/%s", env("TESTDATA"), name) < 0)
		fail_msg("out of memory");
	return p;
}

/* @name@suffix in the test's directory. */
static char *tmp_file(const char *name, const char *suffix)
{
	char *base = NULL, *p;

	if (asprintf(&base, "%s%s", name, suffix) < 0)
		fail_msg("out of memory");
	p = path_in(tmp, base);
	free(base);
	return p;
}

/* Decompress the captures and their texts; ingest and symbolize both. */
static int setup_all(void **state)
{
	char *ks = fixture("kallsyms");

	(void)state;
	tmp = tmpdir("perfdata");
	for (size_t i = 0; i < NCAPTURES; i++) {
		const char *c = captures[i];
		char *z = fixture(c), *db = tmp_file(c, ".db");
		char *tdb = tmp_file(c, "-text.db");

		free(out_of("cd '%s' && zstd -dqf '%s.data.zst' -o %s.data && "
			    "zstd -dqf '%s.script.zst' -o %s.script", tmp, z,
			    c, z, c));
		ingest_ok(db, "'%s/%s.data'", tmp, c);
		ingest_ok(tdb, "--kallsyms '%s' '%s/%s.script'", ks, tmp, c);
		free(out_of("'%s' symbolize -q --kallsyms '%s' -d '%s' && "
			    "'%s' symbolize -q --kallsyms '%s' -d '%s'",
			    env("MEMDB"), ks, db, env("MEMDB"), ks, tdb));
		free(z);
		free(db);
		free(tdb);
	}
	free(ks);
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

static char *report(const char *db, const char *rep)
{
	return out_of("'%s' report %s -d '%s' --top 0 --format csv "
		      "2>/dev/null", env("MEMDB"), rep, db);
}

/* perf kmem's figures of @file (a fixture), by tests/perf_kmem.awk. */
static char *perf_figures(const char *file, const char *filter)
{
	char *f = fixture(file);
	char *s = out_of("awk -f '%s/perf_kmem.awk' '%s' | %s",
			 env("TESTS_DIR"), f, filter);

	free(f);
	return s;
}

/*
 * perf counts a free of a pointer whose last traced allocation was
 * already freed (a duplicate free, class 3; class 4, a suspect, in a
 * perf.data, whose kernel has untraced allocation paths) again: its bytes
 * as freed, and as a ping-pong of that allocation's call site (its CPU
 * was reset to -1).  memdb counts the pointer freed once.  These are
 * perf's extra counts, from memdb's own rows.
 * The duplicate frees (b) and the allocations of their pointers (l) are
 * read once: a subquery on the alloc virtual table for each free would
 * unpack all of it again each time.
 */
#define DUP_WITH                                                            \
	"WITH b AS MATERIALIZED (SELECT rowid AS r, source_id, ptr, seq "   \
	"FROM bad_free WHERE class IN (3, 4) AND type < 2), l AS "          \
	"MATERIALIZED (SELECT source_id, ptr, seq, site_id, bytes_alloc "   \
	"FROM alloc WHERE type < 2 AND ptr IN (SELECT ptr FROM b)) "
#define LAST_ALLOC(col)                                                     \
	"(SELECT " col " FROM l a JOIN site s ON s.source_id = "            \
	"a.source_id AND s.id = a.site_id WHERE a.source_id = b.source_id " \
	"AND a.ptr = b.ptr AND a.seq < b.seq ORDER BY a.seq DESC LIMIT 1)"
#define DUP_FREE "FROM b ORDER BY b.r"

static void check_stat(const char *c)
{
	char *db = tmp_file(c, ".db"), *file = NULL;
	int64_t dup = db_int(db, DUP_WITH "SELECT coalesce(sum(" LAST_ALLOC(
				     "a.bytes_alloc") "), 0) " DUP_FREE);
	char *want, *got;

	if (asprintf(&file, "%s.kmem-stat.txt", c) < 0)
		fail_msg("out of memory");
	want = perf_figures(file, "grep -v samples_with_lost | sort");
	got = out_of("'%s' report summary -d '%s' --format csv 2>/dev/null | "
		     "awk -F, -v dup=%lld '$1 == \"bytes_freed\" { $2 += dup } "
		     "$1 == \"net_bytes_allocated\" { $2 -= dup } "
		     "$1 ~ /^(allocations|bytes_(requested|allocated|freed|"
		     "wasted)|net_bytes_allocated|fragmentation_pct|"
		     "cross_cpu_allocations)$/ "
		     "{ print $1 \",\" $2 }' | sort", env("MEMDB"), db,
		     (long long)dup);
	assert_string_equal(got, want);
	assert_int_equal(strlen(want) > 100, 1);
	free(want);
	free(got);
	free(file);
	free(db);
}

/* perf kmem stat: the SUMMARY of the slab allocator. */
static void test_perf_kmem_stat(void **state)
{
	(void)state;
	check_stat("slab");
	check_stat("cg");
	check_stat("lossy");
	check_stat("zrec");
}

static void check_caller(const char *c)
{
	char *db = tmp_file(c, ".db"), *dups = tmp_file(c, ".dups");
	char *file = NULL, *want, *got;

	if (asprintf(&file, "%s.kmem-caller.txt", c) < 0)
		fail_msg("out of memory");
	free(out_of("'%s' sql -d '%s' -f csv \"" DUP_WITH "SELECT " LAST_ALLOC(
			    "printf('0x%%x', s.addr)") " " DUP_FREE "\" | "
		    "tail -n +2 > '%s'", env("MEMDB"), db, dups));
	got = out_of("'%s' report callsites -d '%s' --top 0 --format csv "
		     "2>/dev/null | awk -F, 'FILENAME == ARGV[1] { n[$1]++; next } "
		     "FNR > 1 && $1 != \"total\" && $3 > 0 { print $2 \",\" "
		     "$3 \",\" $4 \",\" $5 \",\" $10 + n[$1] }' '%s' - | "
		     "LC_ALL=C sort", env("MEMDB"), db, dups);
	want = perf_figures(file, "awk -F, 'NF == 5' | LC_ALL=C sort");
	assert_string_equal(got, want);
	assert_int_equal(strlen(want) > 300, 1);
	free(want);
	free(got);
	free(file);
	free(dups);
	free(db);
}

/* perf kmem --caller stat: hits, bytes and ping-pong per call site. */
static void test_perf_kmem_caller(void **state)
{
	(void)state;
	check_caller("slab");
	check_caller("cg");
	check_caller("lossy");
	check_caller("zrec");
}

/*
 * perf kmem --page stat's SUMMARY from memdb's page figures.  perf's KB
 * of free requests and free-only requests are left out: memdb keeps no
 * size for a free it cannot pair with an allocation.
 */
static void test_perf_kmem_page(void **state)
{
	char *db = tmp_file("page", ".db");
	int64_t fail_kb = db_int(db, "SELECT coalesce(sum(bytes_alloc), 0) "
				     "/ 1024 FROM alloc WHERE type = 2 AND "
				     "ptr = 0");
	char *want = perf_figures("page.kmem-page.txt",
				  "grep -v '^free.*_kb,' | grep -v '^order_' | "
				  "sort");
	char *got = out_of(
		"'%s' report summary -d '%s' --format csv 2>/dev/null | "
		"awk -F, -v fkb=%lld '{ v[$1] = $3 } END { "
		"print \"allocation_requests,\" v[\"allocations\"]; "
		"print \"allocation_requests_kb,\" v[\"bytes_allocated\"] / 1024; "
		"print \"alloc_freed_requests,\" v[\"frees_ending_an_allocation\"]; "
		"print \"alloc_freed_requests_kb,\" v[\"bytes_freed\"] / 1024; "
		"print \"alloc_only_requests,\" v[\"live_at_end\"] + "
		"v[\"frees_not_traced\"]; "
		"print \"alloc_only_requests_kb,\" (v[\"bytes_allocated\"] - "
		"v[\"bytes_freed\"]) / 1024; "
		"fo = v[\"unknown_frees\"] + v[\"duplicate_frees\"] + "
		"v[\"duplicate_frees_suspect\"]; "
		"print \"free_only_requests,\" fo; "
		"print \"free_requests,\" fo + v[\"frees_ending_an_allocation\"]; "
		"print \"allocation_failures,\" v[\"allocation_failures\"]; "
		"print \"allocation_failures_kb,\" fkb }' | sort", env("MEMDB"),
		db, (long long)fail_kb);

	(void)state;
	assert_string_equal(got, want);
	free(want);
	free(got);
	free(db);
}

/* Every allocation, in order, with what ended it. */
#define ALLOC_SQL                                                          \
	"SELECT a.seq > 0, a.cpu, a.type, printf('%x', s.addr), "          \
	"printf('%x', a.ptr), a.bytes_req, a.bytes_alloc, a.node, a.state, " \
	"a.free_cpu, (SELECT text FROM str t WHERE t.source_id = "          \
	"a.source_id AND t.id = a.cache_id) FROM alloc a JOIN site s ON "   \
	"s.source_id = a.source_id AND s.id = a.site_id ORDER BY a.id"

static void same_reports(const char *a, const char *b, int text)
{
	static const char *const reps[] = { "fragmentation", "callsites",
					    "pingpong", "callsites --by comm",
					    "callsites --by pid", "pages",
					    "stacks" };
	/* text: perf script prints neither the stack frames as events nor
	 * the lost records, nor the NUMA topology (cross-CPU figures) */
	const char *drop = text ? "grep -v '^unknown_records_skipped,\\|"
				  "^events_lost,\\|^cross_cpu_allocations,"
				  "\\|^allocations_on_unmapped_cpus,'" : "cat";
	char *x, *y;

	for (size_t i = 0; i < sizeof(reps) / sizeof(reps[0]); i++) {
		x = report(a, reps[i]);
		y = report(b, reps[i]);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	x = out_of("'%s' report summary -d '%s' --format csv 2>/dev/null | %s",
		   env("MEMDB"), a, drop);
	y = out_of("'%s' report summary -d '%s' --format csv 2>/dev/null | %s",
		   env("MEMDB"), b, drop);
	assert_string_equal(x, y);
	free(x);
	free(y);
	x = db_text(a, ALLOC_SQL);
	y = db_text(b, ALLOC_SQL);
	assert_string_equal(x, y);
	assert_int_equal(strlen(x) > 1000, 1);
	free(x);
	free(y);
}

/* Each capture gives the events of its own perf script text. */
static void test_same_as_perf_script(void **state)
{
	(void)state;
	for (size_t i = 0; i < NCAPTURES; i++) {
		char *db = tmp_file(captures[i], ".db");
		char *tdb = tmp_file(captures[i], "-text.db");

		same_reports(db, tdb, 1);
		free(db);
		free(tdb);
	}
}

/* A big-endian copy made by an independent script: the same events. */
static void test_big_endian(void **state)
{
	(void)state;
	for (size_t i = 0; i < NCAPTURES; i++) {
		const char *c = captures[i];
		char *db, *bdb, *ks;

		/* the script re-encodes neither pipe mode nor -z records */
		if (!strcmp(c, "pipe") || !strcmp(c, "zrec"))
			continue;
		db = tmp_file(c, ".db");
		bdb = fresh_db(tmp, "be.db");
		ks = fixture("kallsyms");
		free(out_of("python3 '%s/perf_to_be.py' '%s/%s.data' "
			    "'%s/%s.be'", env("TESTS_DIR"), tmp, c, tmp, c));
		ingest_ok(bdb, "'%s/%s.be'", tmp, c);
		free(out_of("'%s' symbolize -q --kallsyms '%s' -d '%s'",
			    env("MEMDB"), ks, bdb));
		assert_int_equal(db_int(bdb, "SELECT count(*) FROM source "
					     "WHERE byte_order = 'big'"), 1);
		same_reports(db, bdb, 0);
		free(ks);
		free(db);
		free(bdb);
	}
}

/* Compressed, and piped into standard input: the same allocations. */
static void test_zstd_and_stdin(void **state)
{
	char *db = tmp_file("slab", ".db"), *z = fixture("slab.data.zst");
	char *zdb = fresh_db(tmp, "zst.db"), *sdb = fresh_db(tmp, "stdin.db");
	char *a, *b, *c;

	(void)state;
	ingest_ok(zdb, "'%s'", z);
	free(out_of("zstd -dc '%s' | '%s' ingest -q -d '%s' -", z,
		    env("MEMDB"), sdb));
	a = db_text(db, ALLOC_SQL);
	b = db_text(zdb, ALLOC_SQL);
	c = db_text(sdb, ALLOC_SQL);
	assert_string_equal(a, b);
	assert_string_equal(a, c);
	assert_int_equal(db_int(zdb, "SELECT count(*) FROM source WHERE "
				     "format = 'perf-data'"), 1);
	free(a);
	free(b);
	free(c);
	free(sdb);
	free(zdb);
	free(z);
	free(db);
}

#define BAD_SQL                                                            \
	"SELECT seq, ts, cpu, type, printf('%x', ptr), class, prev_seq, pid " \
	"FROM bad_free ORDER BY id"

/* The rows and reports of @db equal those of the same @file read in two
 * passes (MEMDB_TEST_TWO_PASS) into @tdb. */
static void same_as_two_pass(const char *db, const char *tdb,
			     const char *file)
{
	char *a, *b;
	char *ks = fixture("kallsyms");

	free(out_of("MEMDB_TEST_TWO_PASS=1 '%s' ingest -q -d '%s' '%s' && "
		    "'%s' symbolize -q --kallsyms '%s' -d '%s' && "
		    "'%s' symbolize -q --kallsyms '%s' -d '%s'", env("MEMDB"),
		    tdb, file, env("MEMDB"), ks, tdb, env("MEMDB"), ks, db));
	free(ks);
	/* same_reports() compares the alloc rows too (ALLOC_SQL) */
	a = db_text(db, BAD_SQL);
	b = db_text(tdb, BAD_SQL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	same_reports(db, tdb, 0);
}

/* Round by round (memdb ingest) = in two passes, on every capture. */
static void test_rounds(void **state)
{
	(void)state;
	for (size_t i = 0; i < NCAPTURES; i++) {
		char *db = tmp_file(captures[i], ".db");
		char *tdb = fresh_db(tmp, "two-pass.db"), *file = NULL;

		if (asprintf(&file, "%s/%s.data", tmp, captures[i]) < 0)
			fail_msg("out of memory");
		same_as_two_pass(db, tdb, file);
		free(file);
		free(tdb);
		free(db);
	}
}

/* A sample, or a task record, moved back before what its rounds let
 * through: noticed, the file read again in two passes, the result that
 * of two passes. */
static void test_rounds_broken(void **state)
{
	static const struct {
		const char *opt, *round, *name, *what;
	} cases[] = {
		{ "", "3", "retimed", "sample" },
		{ "--comm", "9", "retimed-comm", "task record" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *db, *tdb, *file = NULL, *name = NULL, *want = NULL;
		struct run r;

		if (asprintf(&file, "%s/%s.data", tmp, cases[i].name) < 0 ||
		    asprintf(&name, "%s.db", cases[i].name) < 0 ||
		    asprintf(&want, "perf.data %s out of the order of its "
			     "finished rounds: read again in two passes",
			     cases[i].what) < 0)
			fail_msg("out of memory");
		free(out_of("python3 '%s/perf_retime.py' %s '%s/slab.data' "
			    "'%s' %s", env("TESTS_DIR"), cases[i].opt, tmp,
			    file, cases[i].round));
		db = fresh_db(tmp, name);
		tdb = fresh_db(tmp, "retimed-two-pass.db");
		run_memdb(&r, db, "ingest '%s'", file);
		assert_run_ok(&r);
		if (!strstr(r.err, want))
			fail_msg("no warning of the reading again: %s",
				 r.err);
		run_free(&r);
		assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
		same_as_two_pass(db, tdb, file);
		free(want);
		free(name);
		free(file);
		free(tdb);
		free(db);
	}
}

/*
 * Read round by round, the source row is written before the content
 * hash is known when no source has the file's size, and gets it before
 * the COMMIT: the hash is the two-pass path's, and the same file again
 * (now one of that size is there: the hash is waited for first) is
 * recognised; --force replaces it.
 */
static void test_late_hash(void **state)
{
	char *db = fresh_db(tmp, "late-hash.db");
	char *tdb = fresh_db(tmp, "early-hash.db");
	char *h1, *h2;
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/slab.data'", tmp);
	/* two passes: the hash waited for, in the source row from the start */
	free(out_of("MEMDB_TEST_TWO_PASS=1 '%s' ingest -q -d '%s' "
		    "'%s/slab.data'", env("MEMDB"), tdb, tmp));
	h1 = db_text(db, "SELECT hash FROM source");
	h2 = db_text(tdb, "SELECT hash FROM source");
	assert_string_equal(h1, h2);
	assert_int_equal(strlen(h1) >= 32, 1);
	run_memdb(&r, db, "ingest '%s/slab.data'", tmp);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "already ingested"));
	run_free(&r);
	ingest_ok(db, "--force '%s/slab.data'", tmp);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	assert_int_equal(db_int(db, "SELECT min(id) FROM source"), 2);
	free(h2);
	h2 = db_text(db, "SELECT hash FROM source");
	assert_string_equal(h1, h2);
	/* another capture after it: a size no source has */
	ingest_ok(db, "'%s/page.data'", tmp);
	assert_int_equal(db_int(db, "SELECT count(DISTINCT hash) FROM source "
				    "WHERE hash <> ''"), 2);
	free(h1);
	free(h2);
	free(tdb);
	free(db);
}

/* perf: "Processed 4545 samples and lost 7.81%": 4545 = samples + lost. */
static void test_lost(void **state)
{
	char *db = tmp_file("lossy", ".db");
	char *perf = perf_figures("lossy.kmem-stat.txt",
				  "sed -n 's/^samples_with_lost,//p'");
	int64_t lost = db_int(db, "SELECT lost_events FROM source");
	int64_t events = db_int(db, "SELECT events FROM source");

	(void)state;
	assert_int_equal(lost, 355);
	assert_int_equal(lost + events, strtoll(perf, NULL, 10));
	free(perf);
	free(db);
}

/* ---- broken inputs ------------------------------------------------------ */

static uint64_t le64(const char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | (unsigned char)p[i];
	return v;
}

/* Ingest @buf of @len as @name: must fail, name it and @want, and leave
 * the database as it was. */
static void refused(const char *buf, size_t len, const char *name,
		    const char *want)
{
	char *db = tmp_file("slab", ".db"), *path = path_in(tmp, name);
	char *before = db_counts(db), *after;
	FILE *f = fopen(path, "wb");
	struct run r;

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	run_memdb(&r, db, "ingest -q '%s'", path);
	if (!r.status || !strstr(r.err, name) || !strstr(r.err, want))
		fail_run(&r, "%s: expected a refusal naming it and '%s'", name,
			 want);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(path);
	free(db);
}

static void test_broken(void **state)
{
	char *path = tmp_file("slab", ".data"), *buf, *cp;
	size_t len;
	uint64_t data, dsize, feat;
	char want[64];

	(void)state;
	buf = slurp(path, &len);
	assert_non_null(buf);
	data = le64(buf + 40);
	dsize = le64(buf + 48);
	feat = le64(buf + data + dsize); /* the tracing data (feature 1) */
	cp = malloc(len);
	assert_non_null(cp);

	refused(buf, 50, "cut-header.data", "offset=50");
	snprintf(want, sizeof(want), "offset=%llu",
		 (unsigned long long)data + dsize);
	refused(buf, data + dsize, "cut-features.data", want);
	refused(buf, data + 5000, "cut-data.data", "offset=");
	memcpy(cp, buf, len);
	cp[data + 6] = 4; /* the first record's size: 4 */
	cp[data + 7] = 0;
	snprintf(want, sizeof(want), "offset=%llu", (unsigned long long)data);
	refused(cp, len, "bad-size.data", want);
	memcpy(cp, buf, len);
	cp[feat] ^= 0xff;
	snprintf(want, sizeof(want), "offset=%llu", (unsigned long long)feat);
	refused(cp, len, "bad-tracing.data", want);
	memcpy(cp, buf, len);
	cp[16] = 7; /* attr_size */
	refused(cp, len, "bad-attr.data", "offset=16");
	free(cp);
	free(buf);
	free(path);
}

static void test_threads_dir(void **state)
{
	char *db = tmp_file("slab", ".db");
	struct run r;

	(void)state;
	free(out_of("mkdir -p '%s/threads.data' && cp '%s/slab.data' "
		    "'%s/threads.data/data'", tmp, tmp, tmp));
	run_memdb(&r, db, "ingest -q '%s/threads.data'", tmp);
	assert_int_not_equal(r.status, 0);
	if (!strstr(r.err, "--threads"))
		fail_msg("stderr: %s", r.err);
	run_free(&r);
	free(db);
}

/*
 * memdb report stacks of the -g capture equals tests/fold_perf_script.py
 * folding perf script's text of it, with frames symbolized by the
 * kallsyms lines of the functions the callchains name.
 */
static void test_folded_stacks(void **state)
{
	char *db = tmp_file("cg", "-stacks.db");
	char *ks = fixture("stacks.kallsyms");
	char *want, *got;

	(void)state;
	ingest_ok(db, "'%s/cg.data'", tmp);
	free(out_of("'%s' symbolize -q --kallsyms '%s' -d '%s'",
		    env("MEMDB"), ks, db));
	got = out_of("'%s' report stacks -d '%s'", env("MEMDB"), db);
	want = out_of("python3 '%s/fold_perf_script.py' < '%s/cg.script'",
		      env("TESTS_DIR"), tmp);
	assert_true(strlen(want) > 1000);
	assert_string_equal(got, want);
	free(got);
	got = out_of("'%s' report stacks --format folded -d '%s'",
		     env("MEMDB"), db);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(ks);
	free(db);
}

/*
 * callsites --by comm and --by pid: hits and bytes_alloc per task equal
 * an awk count over perf script's kmalloc lines (comm, tid): the names
 * as perf gives them, COMM and FORK records replayed in time order.
 */
static void test_by_task(void **state)
{
	static const char *const by[] = { "comm", "pid" };
	char *db = tmp_file("cg", ".db");

	(void)state;
	for (int i = 0; i < 2; i++) {
		char *got = out_of(
			"'%s' report callsites --by %s -d '%s' --top 0 "
			"--format csv | awk -F, 'NR > 1 && $1 != \"total\" "
			"{ print $1 \",\" $2 \",\" $4 }' | LC_ALL=C sort",
			env("MEMDB"), by[i], db);
		char *want = out_of(
			"awk '/^[^ \t].* kmem:kmalloc: / { "
			"for (f = 1; f <= NF; f++) if ($f ~ /^\\[[0-9]+\\]$/) "
			"break; k = %s; "
			"for (j = f; j <= NF; j++) if ($j ~ /^bytes_alloc=/) "
			"{ split($j, b, \"=\"); n[k]++; s[k] += b[2] } } "
			"END { for (k in n) print k \",\" n[k] \",\" s[k] }' "
			"'%s/cg.script' | LC_ALL=C sort",
			i ? "$(f - 1)" : "$1", tmp);

		assert_true(strlen(want) > 50);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	free(db);
}

/*
 * memdb report pages: every figure of perf kmem --page stat's SUMMARY
 * (with its KB) and its order x migratetype table, column i of perf's
 * table being migratetype value i (tests/perf_kmem.awk).
 */
static void test_pages(void **state)
{
	char *db = tmp_file("page", ".db");
	char *want = perf_figures("page.kmem-page.txt", "LC_ALL=C sort");
	char *got = out_of(
		"'%s' report pages -d '%s' --format csv | awk -F, '"
		"$1 ~ /^[0-9]+$/ { print \"order_\" $1 \",\" $2 \",\" $3 "
		"\",\" $4 \",\" $5 \",\" $6 } "
		"$1 == \"total\" { split(\"allocation_requests "
		"allocation_requests_kb free_requests free_requests_kb "
		"alloc_freed_requests alloc_freed_requests_kb "
		"alloc_only_requests alloc_only_requests_kb free_only_requests "
		"free_only_requests_kb allocation_failures "
		"allocation_failures_kb\", k, \" \"); "
		"for (i = 1; i <= 12; i++) print k[i] \",\" $(i + 1) }' | "
		"LC_ALL=C sort", env("MEMDB"), db);

	(void)state;
	assert_true(strlen(want) > 200);
	assert_string_equal(got, want);
	free(want);
	free(got);
	free(db);
}

/*
 * pages --by caller: hits per caller, order and migratetype equal
 * tests/page_callers.py's reading of perf script (the first kernel frame
 * outside the page allocator), frames symbolized by stacks.kallsyms.
 */
static void test_page_callers(void **state)
{
	char *db = tmp_file("page", "-stacks.db");
	char *ks = fixture("stacks.kallsyms");
	char *want, *got;

	(void)state;
	ingest_ok(db, "'%s/page.data'", tmp);
	free(out_of("'%s' symbolize -q --kallsyms '%s' -d '%s'",
		    env("MEMDB"), ks, db));
	got = out_of("'%s' report pages --by caller --top 0 -d '%s' "
		     "--format csv | awk -F, 'NR > 1 && $1 != \"total\" { "
		     "mt = $5; sub(/^Unmovable$/, 0, mt); "
		     "sub(/^Movable$/, 1, mt); sub(/^Reclaimable$/, 2, mt); "
		     "sub(/^HighAtomic$/, 3, mt); "
		     "n[$1 \",\" $4 \",\" mt] += $3 } END { for (k in n) { "
		     "split(k, f, \",\"); print f[1] \",\" n[k] \",\" f[2] "
		     "\",\" f[3] } }' | LC_ALL=C sort", env("MEMDB"), db);
	want = out_of("python3 '%s/page_callers.py' < '%s/page.script' | "
		      "LC_ALL=C sort", env("TESTS_DIR"), tmp);
	assert_true(strlen(want) > 500);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(ks);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_kmem_stat),
		cmocka_unit_test(test_perf_kmem_caller),
		cmocka_unit_test(test_perf_kmem_page),
		cmocka_unit_test(test_same_as_perf_script),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_zstd_and_stdin),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_rounds_broken),
		cmocka_unit_test(test_late_hash),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_threads_dir),
		cmocka_unit_test(test_folded_stacks),
		cmocka_unit_test(test_by_task),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_page_callers),
	};

	return cmocka_run_group_tests_name("memdb ingest of perf.data", tests,
					   setup_all, teardown_all);
}
