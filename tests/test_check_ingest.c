// SPDX-License-Identifier: MIT
/*
 * memdb check reports what memdb ingest stores: both run on the same
 * capture, and every figure check prints is compared with the rows the
 * database holds (counted with SQL over alloc, bad_free and source, not
 * with the derived tables check shares with ingest).
 *
 *   - the real 6.18 capture (testdata/real-6.18-small) as ftrace text and
 *     as kmemtrace relay files; the text's slab figures are also those
 *     its README gives (a separate replay script);
 *   - text without a CPU count in a header: check prints the CPUs ingest
 *     stores (perf script fixture, CPUs 0 and 1 by hand);
 *   - a symbolic call site (rcu_do_batch+0x1b7) in a verdict: named as
 *     ingest stores it, with its address when --kallsyms resolves it.
 */
#include <inttypes.h>
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

/* What memdb check printed for one PATH (digit groups removed). */
struct checked {
	char format[64], endian[16];
	long ncpus;
	uint64_t events, unknown, feature_bytes, malformed;
	int64_t first_seq, last_seq;
	uint64_t seq_missing, seq_disorder;
	int overruns_known;
	uint64_t overruns;
	uint64_t allocs, failed, zero, undersized;
	uint64_t frees, null_frees, unknown_frees, dup_frees, suspect_frees;
	uint64_t not_traced;
	uint64_t cache_free_kmalloc, kfree_cache;
	uint64_t live, live_bytes;
	int has_pages;
	uint64_t pages, page_paired, page_unknown, page_dup;
	int clean;
};

static void strip_commas(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (*s != ',' || !(s[1] >= '0' && s[1] <= '9'))
			*o++ = *s;
	*o = '\0';
}

/* The line of @out starting with @prefix, past the prefix; fails if none. */
static const char *line_of(const char *out, const char *prefix)
{
	const char *p = strstr(out, prefix);

	if (!p)
		fail_msg("no line '%s' in:\n%s", prefix, out);
	return p + strlen(prefix);
}

static void parse_header(struct checked *c, const char *out, const char *path)
{
	char *head;
	const char *p;

	if (asprintf(&head, "%s: ", path) < 0)
		fail();
	p = line_of(out, head);
	free(head);
	assert_int_equal(sscanf(p, "%63[^,]", c->format), 1);
	p += strlen(c->format) + 2;
	c->endian[0] = '\0';
	if (strstr(p, "-endian, ") && strstr(p, "-endian, ") <
	    strchr(p, '\n')) {
		assert_int_equal(sscanf(p, "%15[a-z]-endian, ", c->endian), 1);
		p = strstr(p, "-endian, ") + 9;
	}
	assert_int_equal(sscanf(p, "%ld CPU", &c->ncpus), 1);
}

static void parse_records(struct checked *c, const char *out)
{
	const char *p = line_of(out, "  records       ");

	assert_int_equal(sscanf(p, "%" SCNu64 " events, %" SCNu64 " with "
				"unknown ids skipped, %" SCNu64 " feature bytes",
				&c->events, &c->unknown, &c->feature_bytes), 3);
	p = strchr(p, '\n');
	c->malformed = 0;
	if (strstr(out, " malformed lines skipped") &&
	    strstr(out, " malformed lines skipped") < p)
		assert_int_equal(sscanf(strstr(out, "feature bytes, "),
					"feature bytes, %" SCNu64, &c->malformed),
				 1);
	p = line_of(out, "  sequence      ");
	assert_int_equal(sscanf(p, "%" SCNd64 " .. %" SCNd64 ", %" SCNu64
				" missing, %" SCNu64 " out of order",
				&c->first_seq, &c->last_seq, &c->seq_missing,
				&c->seq_disorder), 4);
	p = line_of(out, "  lost          overruns ");
	c->overruns_known = sscanf(p, "%" SCNu64, &c->overruns) == 1;
}

static void parse_slab(struct checked *c, const char *out)
{
	const char *p = line_of(out, "  slab allocs   ");

	assert_int_equal(sscanf(p, "%" SCNu64 ": %" SCNu64 " failed, %" SCNu64
				" zero-size requests, %" SCNu64 " with",
				&c->allocs, &c->failed, &c->zero,
				&c->undersized), 4);
	p = line_of(out, "  slab frees    ");
	assert_int_equal(sscanf(p, "%" SCNu64 ": %" SCNu64 " NULL, %" SCNu64
				" unknown, %" SCNu64 " duplicate, %" SCNu64
				" suspect duplicate, %" SCNu64 " not traced",
				&c->frees, &c->null_frees, &c->unknown_frees,
				&c->dup_frees, &c->suspect_frees,
				&c->not_traced), 6);
	p = line_of(out, "  mismatches    ");
	assert_int_equal(sscanf(p, "%" SCNu64 " kmem_cache_free of kmalloc, "
				"%" SCNu64 " kfree", &c->cache_free_kmalloc,
				&c->kfree_cache), 2);
	p = line_of(out, "  live at end   ");
	assert_int_equal(sscanf(p, "%" SCNu64 " slab allocations, %" SCNu64
				" bytes", &c->live, &c->live_bytes), 2);
	c->has_pages = strstr(out, "  pages         ") != NULL;
	if (c->has_pages)
		assert_int_equal(sscanf(line_of(out, "  pages         "),
					"%" SCNu64 " allocations, %" SCNu64
					" paired frees, %" SCNu64 " unknown, %"
					SCNu64 " duplicate", &c->pages,
					&c->page_paired, &c->page_unknown,
					&c->page_dup), 4);
}

/* memdb check @path (with @opts); its figures in @c. */
static void run_check(struct checked *c, const char *opts, const char *path)
{
	struct run r;
	char *verdict;

	memset(c, 0, sizeof(*c));
	run(&r, "'%s' check %s '%s'", env("MEMDB"), opts, path);
	assert_true(r.status == 0 || r.status == 3);
	strip_commas(r.out);
	parse_header(c, r.out, path);
	parse_records(c, r.out);
	parse_slab(c, r.out);
	if (asprintf(&verdict, "%s: clean\n", path) < 0)
		fail();
	c->clean = strstr(r.out, verdict) != NULL;
	assert_int_equal(c->clean, r.status == 0);
	free(verdict);
	run_free(&r);
}

/* @sql on @db must give @v. */
static void same(const char *db, const char *what, int64_t v,
		 const char *sql)
{
	int64_t d = db_int(db, sql);

	if (d != v)
		fail_msg("%s: check printed %" PRId64 ", the database holds "
			 "%" PRId64 " (%s)", what, v, d, sql);
}

static void compare_source(const struct checked *c, const char *db)
{
	char *sql;

	if (asprintf(&sql, "SELECT format = '%s' AND coalesce(byte_order, "
		     "'') = '%s' FROM source", c->format, c->endian) < 0)
		fail();
	same(db, "format, byte order", 1, sql);
	free(sql);
	same(db, "CPUs", c->ncpus, "SELECT coalesce(ncpus, 0) FROM source");
	same(db, "events", (int64_t)c->events, "SELECT events FROM source");
	same(db, "unknown", (int64_t)c->unknown, "SELECT unknown FROM source");
	same(db, "feature bytes", (int64_t)c->feature_bytes,
	     "SELECT feature_bytes FROM source");
	same(db, "malformed", (int64_t)c->malformed,
	     "SELECT malformed FROM source");
	same(db, "first seq", c->first_seq, "SELECT first_seq FROM source");
	same(db, "last seq", c->last_seq, "SELECT last_seq FROM source");
	same(db, "seq missing", (int64_t)c->seq_missing,
	     "SELECT seq_missing FROM source");
	same(db, "seq disorder", (int64_t)c->seq_disorder,
	     "SELECT seq_disorder FROM source");
	same(db, "overruns known", c->overruns_known,
	     "SELECT overruns IS NOT NULL FROM source");
	if (c->overruns_known)
		same(db, "overruns", (int64_t)c->overruns,
		     "SELECT overruns FROM source");
}

static void compare_slab(const struct checked *c, const char *db)
{
	same(db, "slab allocs", (int64_t)c->allocs,
	     "SELECT count(*) FROM alloc WHERE type < 2");
	same(db, "failed", (int64_t)c->failed,
	     "SELECT count(*) FROM alloc WHERE type < 2 AND state = 3");
	same(db, "zero-size", (int64_t)c->zero,
	     "SELECT count(*) FROM alloc WHERE type < 2 AND bytes_req = 0");
	same(db, "undersized", (int64_t)c->undersized,
	     "SELECT count(*) FROM alloc WHERE type < 2 AND "
	     "bytes_alloc < bytes_req");
	same(db, "slab frees", (int64_t)c->frees,
	     "SELECT (SELECT count(*) FROM alloc WHERE type < 2 AND "
	     "state = 1) + (SELECT count(*) FROM bad_free WHERE type < 2)");
	same(db, "NULL frees", (int64_t)c->null_frees,
	     "SELECT count(*) FROM bad_free WHERE type < 2 AND class = 1");
	same(db, "unknown frees", (int64_t)c->unknown_frees,
	     "SELECT count(*) FROM bad_free WHERE type < 2 AND class = 2");
	same(db, "duplicate frees", (int64_t)c->dup_frees,
	     "SELECT count(*) FROM bad_free WHERE type < 2 AND class = 3");
	same(db, "suspect duplicate frees", (int64_t)c->suspect_frees,
	     "SELECT count(*) FROM bad_free WHERE type < 2 AND class = 4");
	same(db, "not traced", (int64_t)c->not_traced,
	     "SELECT count(*) FROM alloc WHERE type < 2 AND state = 2");
	same(db, "kmem_cache_free of kmalloc", (int64_t)c->cache_free_kmalloc,
	     "SELECT count(*) FROM alloc WHERE state = 1 AND type = 0 AND "
	     "free_type = 1");
	same(db, "kfree of kmem_cache", (int64_t)c->kfree_cache,
	     "SELECT count(*) FROM alloc WHERE state = 1 AND type = 1 AND "
	     "free_type = 0");
	same(db, "live", (int64_t)c->live,
	     "SELECT count(*) FROM alloc WHERE type < 2 AND state = 0");
	same(db, "live bytes", (int64_t)c->live_bytes,
	     "SELECT coalesce(sum(bytes_alloc), 0) FROM alloc WHERE "
	     "type < 2 AND state = 0");
	same(db, "pages", (int64_t)c->pages,
	     "SELECT count(*) FROM alloc WHERE type = 2");
	same(db, "paired page frees", (int64_t)c->page_paired,
	     "SELECT count(*) FROM alloc WHERE type = 2 AND state = 1");
	same(db, "unknown page frees", (int64_t)c->page_unknown,
	     "SELECT count(*) FROM bad_free WHERE type = 2 AND class = 2");
	same(db, "duplicate page frees", (int64_t)c->page_dup,
	     "SELECT count(*) FROM bad_free WHERE type = 2 AND "
	     "class IN (3, 4)");
}

/* check and ingest of @path (with @opts) agree on every figure. */
static void check_vs_ingest(const char *name, const char *opts,
			    const char *path, struct checked *c)
{
	char *db = fresh_db(tmp, name);

	run_check(c, opts, path);
	ingest_ok(db, "%s '%s'", opts, path);
	compare_source(c, db);
	compare_slab(c, db);
	/* the verdict: clean is no error class and nothing lost */
	same(db, "clean", c->clean,
	     "SELECT (SELECT count(*) FROM anomaly WHERE page = 0 AND "
	     "class IN (3, 4, 9)) = 0 AND (SELECT coalesce(overruns, 0) + "
	     "lost_events + seq_disorder + seq_missing * whole_capture "
	     "FROM source) = 0");
	free(db);
}

static int setup(void **state)
{
	struct run r;

	(void)state;
	tmp = tmpdir("check_ingest");
	run(&r, "cd '%s' && mkdir kt && zstd -dqf "
		"'%s/real-6.18-small/ftrace.txt.zst' -o ftrace.txt && "
		"zstd -dqf '%s/real-6.18-small/kallsyms.zst' -o kallsyms && "
		"cp '%s/real-6.18-small/kmemtrace-v1-le/abi_version' "
		"'%s/real-6.18-small/kmemtrace-v1-le/total_overruns' kt/ && "
		"zstd -dqf '%s/real-6.18-small/kmemtrace-v1-le/cpu0.out.zst' "
		"-o kt/cpu0.out && zstd -dqf "
		"'%s/real-6.18-small/kmemtrace-v1-le/cpu1.out.zst' "
		"-o kt/cpu1.out", tmp, env("TESTDATA"), env("TESTDATA"),
	    env("TESTDATA"), env("TESTDATA"), env("TESTDATA"),
	    env("TESTDATA"));
	assert_run_ok(&r);
	run_free(&r);
	return 0;
}

static void test_real_text(void **state)
{
	struct checked c;
	char *path = path_in(tmp, "ftrace.txt"), *opts;

	(void)state;
	if (asprintf(&opts, "--kallsyms '%s/kallsyms'", tmp) < 0)
		fail();
	check_vs_ingest("text.db", "", path, &c);
	assert_string_equal(c.format, "ftrace-text");
	assert_int_equal(c.ncpus, 2);
	/* the README's figures, from a separate replay script */
	assert_int_equal(c.events, 74440);
	assert_int_equal(c.allocs, 23355);
	assert_int_equal(c.null_frees, 4392);
	assert_int_equal(c.unknown_frees + c.dup_frees + c.suspect_frees, 7);
	assert_int_equal(c.not_traced, 3323);
	assert_int_equal(c.live, 1512);
	assert_int_equal(c.live_bytes, 383368);
	check_vs_ingest("text-ksyms.db", opts, path, &c);
	free(opts);
	free(path);
}

static void test_real_relay(void **state)
{
	struct checked c;
	char *path = path_in(tmp, "kt");

	(void)state;
	check_vs_ingest("relay.db", "", path, &c);
	assert_string_equal(c.format, "kmemtrace-relay");
	assert_string_equal(c.endian, "little");
	assert_int_equal(c.ncpus, 2);
	assert_int_equal(c.allocs, 23355);
	assert_int_equal(c.live, 1512);
	free(path);
}

/* A generated capture with every error class planted (counts told
 * apart), page events and overruns: not clean, and the same figures. */
static void test_planted(void **state)
{
	struct checked c;
	char *path = path_in(tmp, "planted");
	struct run r;

	(void)state;
	run(&r, "'%s' --seed 5 --events 60000 --cpus 3 --pages 2 "
		"--dup-frees 7 --cache-free-kmalloc 11 --kfree-cache 13 "
		"--unknown-frees 17 --reuse 23 --null-allocs 29 "
		"--zero-allocs 31 --null-frees 37 --undersized 41 "
		"--overruns 3 '%s'", env("KTGEN"), path);
	assert_run_ok(&r);
	run_free(&r);
	check_vs_ingest("planted.db", "", path, &c);
	assert_false(c.clean);
	assert_int_equal(c.dup_frees, 7);
	assert_int_equal(c.cache_free_kmalloc, 11);
	assert_int_equal(c.kfree_cache, 13);
	assert_int_equal(c.undersized, 41);
	assert_int_equal(c.overruns, 3);
	assert_true(c.has_pages && c.pages > 0);
	free(path);
}

/* perf script text has no CPU count: both learn 2 CPUs ([000], [001]). */
static void test_text_cpus(void **state)
{
	struct checked c;
	char *path;

	(void)state;
	if (asprintf(&path, "%s/succeed/ftrace-perf-script",
		     env("TESTDATA")) < 0)
		fail();
	check_vs_ingest("perf.db", "", path, &c);
	assert_int_equal(c.ncpus, 2);
	free(path);
}

/* A verdict names a symbolic call site as ingest stores it. */
static void test_symbolic_site(void **state)
{
	static const char trace[] =
		"  python3  4072 [001]   258.712857: kmem:kmalloc: "
		"call_site=rcu_do_batch+0x1b7 ptr=0xffff88810024ec90 "
		"bytes_req=64 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1\n"
		"  python3  4072 [000]   258.712900: kmem:kfree: "
		"call_site=rcu_do_batch+0x1c0 ptr=0xffff88810024ec90\n";
	char *path = path_in(tmp, "sym.txt"), *ks = path_in(tmp, "sym.ks");
	char *db = fresh_db(tmp, "sym.db");
	FILE *f = fopen(path, "w");
	struct run r;

	(void)state;
	assert_non_null(f);
	fputs(trace, f);
	fclose(f);
	f = fopen(ks, "w");
	assert_non_null(f);
	fputs("ffffffff81100000 T rcu_do_batch\n", f);
	fclose(f);

	run(&r, "'%s' check '%s'", env("MEMDB"), path);
	assert_run_status(&r, 3);
	assert_non_null(strstr(r.out, ", 2 CPUs\n"));
	assert_non_null(strstr(r.out, "1 allocations with bytes_alloc < "
				      "bytes_req (first at seq 1, cpu 1, call "
				      "site rcu_do_batch+0x1b7)"));
	run_free(&r);
	ingest_ok(db, "'%s'", path);
	assert_int_equal(db_int(db, "SELECT count(*) FROM anomaly a JOIN "
				"site s ON s.source_id = a.source_id AND "
				"s.id = a.first_site_id WHERE a.class = 9 "
				"AND s.text = 'rcu_do_batch+0x1b7' AND "
				"s.addr IS NULL"), 1);
	free(db);

	/* resolved through kallsyms: 0xffffffff81100000 + 0x1b7 */
	db = fresh_db(tmp, "sym-ks.db");
	run(&r, "'%s' check --kallsyms '%s' '%s'", env("MEMDB"), ks, path);
	assert_run_status(&r, 3);
	assert_non_null(strstr(r.out, "call site rcu_do_batch+0x1b7 "
				      "(0xffffffff811001b7)"));
	run_free(&r);
	ingest_ok(db, "--kallsyms '%s' '%s'", ks, path);
	assert_int_equal(db_int(db, "SELECT count(*) FROM anomaly a JOIN "
				"site s ON s.source_id = a.source_id AND "
				"s.id = a.first_site_id WHERE a.class = 9 "
				"AND s.text = 'rcu_do_batch+0x1b7' AND "
				"s.addr = 0xffffffff811001b7"), 1);
	free(db);
	free(ks);
	free(path);
}

/* check takes ingest's options, and refuses what ingest refuses. */
static void test_options(void **state)
{
	struct run r;
	char *path;

	(void)state;
	if (asprintf(&path, "%s/succeed/ftrace-malformed", env("TESTDATA")) <
	    0)
		fail();
	run(&r, "'%s' check --strict '%s'", env("MEMDB"), path);
	assert_run_status(&r, 3);
	assert_non_null(strstr(r.out, "NOT CLEAN: corrupt: "));
	run_free(&r);
	run(&r, "'%s' check --page-size 100 '%s'", env("MEMDB"), path);
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--page-size"));
	run_free(&r);
	run(&r, "'%s' check --format nosuch '%s'", env("MEMDB"), path);
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--format"));
	run_free(&r);
	/* a forced format that does not fit: both reject the file */
	run(&r, "'%s' check -F kmemtrace-ftrace '%s/trace'", env("MEMDB"),
	    path);
	assert_run_status(&r, 1);
	run_free(&r);
	run(&r, "'%s' ingest -d '%s/forced.db' -F kmemtrace-ftrace '%s/trace'",
	    env("MEMDB"), tmp, path);
	assert_run_status(&r, 1);
	run_free(&r);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_text),
		cmocka_unit_test(test_real_relay),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_text_cpus),
		cmocka_unit_test(test_symbolic_site),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests_name("check reports what ingest stores",
					   tests, setup, NULL);
}
