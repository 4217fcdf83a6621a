// SPDX-License-Identifier: MIT
/*
 * memdb end to end, through the binary: ingest of the committed kmemtrace
 * fixtures with figures worked out by hand, byte-identical reports from
 * little- and big-endian captures, seq_num wraparound, rejected inputs
 * that leave the database unchanged, re-ingest, and large generated
 * captures checked against an independent awk replay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>

#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("cli");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* memdb with @db: "memdb" "ARGS" as a command line. */
#define MEMDB(r, db, ...) run_memdb(r, db, __VA_ARGS__)

/*
 * kt-small (tests/mkfixtures.c) by hand.  Slab ALLOCs per call site:
 *   S1 0xffffffff81234567: seq 1 (100/128), seq 3 (30/32), seq 8 (0/0,
 *      ZERO_SIZE_PTR) -> hits 3, req 130, alloc 160, waste 30,
 *      frag 100 - 100 * 130 / 160 = 18.75
 *   S2 0xffffffff81345678: seq 2 (200/256), seq 14 (200/256)
 *      -> hits 2, req 400, alloc 512, waste 112, frag 21.875
 *   S3 0xffffffff81456789: seq 6 (60/64), seq 7 (50/64, NULL)
 *      -> hits 2, req 110, alloc 128, waste 18, frag 14.0625
 *   total: hits 7, req 640, alloc 800, waste 160, frag 20
 * Sorted by waste: S2, S1, S3.  The page pair (seq 12/13) is not a slab
 * figure.
 */
static const char small_csv[] =
	"call_site,symbol,hits,bytes_req,bytes_alloc,waste,frag_pct\n"
	"0xffffffff81345678,??,2,400,512,112,21.875000\n"
	"0xffffffff81234567,??,3,130,160,30,18.750000\n"
	"0xffffffff81456789,??,2,110,128,18,14.062500\n"
	"total,,7,640,800,160,20.000000\n";

static void test_small_by_hand(void **state)
{
	char *db = fresh_db(tmp, "small.db"), *dir, *t;
	struct run r;

	(void)state;
	dir = path_in(env("TESTDATA"), "succeed/kt-small-le");
	ingest_ok(db, "'%s'", dir);

	MEMDB(&r, db, "report fragmentation --format csv");
	assert_run_ok(&r);
	assert_string_equal(r.out, small_csv);
	run_free(&r);

	/* seq:state:end_seq:free_cpu of each lifetime, as worked out above */
	t = db_text(db, "SELECT seq, state, end_seq, free_cpu, free_type "
			"FROM alloc ORDER BY seq");
	assert_string_equal(t,
			    "1,1,4,1,0\n"    /* freed on cpu1: ping-pong */
			    "2,1,5,0,0\n"    /* cache object freed by kfree */
			    "3,2,6,,\n"      /* free not traced */
			    "6,1,16,1,1\n"   /* kmem_cache_free of kmalloc */
			    "7,3,,,\n"       /* NULL */
			    "8,4,,,\n"       /* ZERO_SIZE_PTR */
			    "12,1,13,0,2\n"  /* page, freed on cpu0 */
			    "14,0,,,\n");    /* live at the end */
	free(t);
	t = db_text(db, "SELECT seq, class, coalesce(prev_seq, '') "
			"FROM bad_free ORDER BY seq");
	assert_string_equal(t, "9,1,\n"     /* kfree(NULL) */
			       "10,3,4\n"   /* P1 freed again, first at 4 */
			       "11,2,\n");  /* P4 never seen */
	free(t);
	t = db_text(db, "SELECT sum(pingpong), sum(mismatched), sum(live), "
			"sum(live_bytes), sum(not_traced), sum(failed), "
			"sum(zero_size) FROM site_stats WHERE type < 2");
	assert_string_equal(t, "2,2,1,256,1,1,1\n");
	free(t);
	t = db_text(db, "SELECT records, events, unknown, feature_bytes, "
			"overruns, seq_missing, byte_order, ncpus "
			"FROM source");
	assert_string_equal(t, "16,15,1,8,0,0,little,2\n");
	free(t);
	t = db_text(db, "SELECT mismatch FROM v_allocations "
			"WHERE mismatch IS NOT NULL ORDER BY seq");
	assert_string_equal(t, "kfree_of_cache\ncache_free_of_kmalloc\n");
	free(t);

	/* an idle CPU's empty file changes nothing */
	free(db);
	db = fresh_db(tmp, "small-idle.db");
	free(dir);
	dir = path_in(env("TESTDATA"), "succeed/kt-small-idle-cpu");
	ingest_ok(db, "'%s'", dir);
	MEMDB(&r, db, "report fragmentation --format csv");
	assert_string_equal(r.out, small_csv);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT ncpus FROM source"), 3);
	free(dir);
	free(db);
}

/* Ingest @capture copied to one fixed path, and print three reports. */
static void reports_of(const char *capture, const char *db, char **out)
{
	static const char *const fmt[3] = { "table", "csv", "json" };
	char *cap = path_in(tmp, "capture");
	struct run r;

	run(&r, "rm -rf '%s' && cp -r '%s' '%s'", cap, capture, cap);
	assert_run_ok(&r);
	run_free(&r);
	ingest_ok(db, "'%s'", cap);
	for (int i = 0; i < 3; i++) {
		MEMDB(&r, db, "report fragmentation --top 0 --format %s",
		      fmt[i]);
		assert_run_ok(&r);
		out[i] = strdup(r.out);
		run_free(&r);
	}
	free(cap);
}

static void compare_endian(const char *le, const char *be)
{
	char *a[3], *b[3], *dba = fresh_db(tmp, "le.db");
	char *dbb = fresh_db(tmp, "be.db");

	reports_of(le, dba, a);
	reports_of(be, dbb, b);
	for (int i = 0; i < 3; i++) {
		assert_true(strlen(a[i]) > 100);
		assert_string_equal(a[i], b[i]);
		free(a[i]);
		free(b[i]);
	}
	{
		char *ta = db_text(dba, "SELECT byte_order FROM source");
		char *tb = db_text(dbb, "SELECT byte_order FROM source");

		assert_string_equal(ta, "little\n");
		assert_string_equal(tb, "big\n");
		free(ta);
		free(tb);
	}
	free(dba);
	free(dbb);
}

static void test_endian_identical(void **state)
{
	char *le = path_in(env("TESTDATA"), "succeed/kt-small-le");
	char *be = path_in(env("TESTDATA"), "succeed/kt-small-be");
	char *gle = path_in(tmp, "gen-le"), *gbe = path_in(tmp, "gen-be");
	struct run r;

	(void)state;
	compare_endian(le, be);
	/* a generated capture with every anomaly, in both byte orders */
	run(&r, "'%s' --seed 7 --events 200000 --cpus 8 --pages 5 "
		"--leaks 40 --dup-frees 5 --unknown-frees 5 --reuse 20 "
		"--cross-cpu 30 --kfree-cache 3 --cache-free-kmalloc 3 "
		"--null-allocs 4 --zero-allocs 4 --null-frees 9 "
		"--unknown-records 3 --feature-records 50 '%s' && "
		"'%s' --seed 7 --events 200000 --cpus 8 --pages 5 "
		"--leaks 40 --dup-frees 5 --unknown-frees 5 --reuse 20 "
		"--cross-cpu 30 --kfree-cache 3 --cache-free-kmalloc 3 "
		"--null-allocs 4 --zero-allocs 4 --null-frees 9 "
		"--unknown-records 3 --feature-records 50 --endian big '%s'",
	    env("KTGEN"), gle, env("KTGEN"), gbe);
	assert_run_ok(&r);
	run_free(&r);
	compare_endian(gle, gbe);
	free(le);
	free(be);
	free(gle);
	free(gbe);
}

/* The FREEs after the seq_num wrap must follow their ALLOCs. */
static void test_wraparound(void **state)
{
	char *db = fresh_db(tmp, "wrap.db"), *t;
	char *dir = path_in(env("TESTDATA"), "succeed/kt-wrap");
	char *gen = path_in(tmp, "gen-wrap"), *dump = path_in(tmp, "wrap.dump");
	char *awk;
	struct run r;

	(void)state;
	ingest_ok(db, "'%s'", dir);
	t = db_text(db, "SELECT seq, state, end_seq FROM alloc ORDER BY seq");
	assert_string_equal(t, "2147483646,1,2147483648\n"
			       "2147483647,1,2147483649\n");
	free(t);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free"), 0);

	/* 100k generated events starting 50k before the wrap */
	free(db);
	db = fresh_db(tmp, "wrap-gen.db");
	run(&r, "'%s' --seed 3 --events 100000 --cpus 3 --seq-start %u "
		"--dump '%s' '%s'", env("KTGEN"), 0x7fffffffu - 50000u, dump,
	    gen);
	assert_run_ok(&r);
	run_free(&r);
	ingest_ok(db, "'%s'", gen);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc "
				    "WHERE state <> 1"), 0);
	assert_int_equal(db_int(db, "SELECT seq_missing + seq_disorder "
				    "FROM source"), 0);
	/* positions equal the dump's unwrapped seq */
	awk = path_in(env("TESTS_DIR"), "kt_replay.awk");
	run(&r, "awk '$3 == \"A\" { n++; s += $1 } END "
		"{ printf \"%%.0f %%.0f\\n\", n, s }' '%s'", dump);
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc"),
			 strtoll(r.out, NULL, 10));
	assert_int_equal(db_int(db, "SELECT sum(seq) FROM alloc"),
			 strtoll(strchr(r.out, ' ') + 1, NULL, 10));
	run_free(&r);
	free(awk);
	free(dump);
	free(gen);
	free(dir);
	free(db);
}

/* Every testdata/fail entry: its message, status 1, database unchanged. */
static void test_bad_inputs(void **state)
{
	char *failpath = path_in(env("TESTDATA"), "fail");
	char *db = fresh_db(tmp, "bad.db"), *good;
	DIR *d = opendir(failpath);
	struct dirent *de;
	int n = 0;

	(void)state;
	assert_non_null(d);
	good = path_in(env("TESTDATA"), "succeed/kt-small-le");
	ingest_ok(db, "'%s'", good);
	while ((de = readdir(d))) {
		char *entry, *errfile, *expect, *before, *after, *at;
		struct run r;
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".err"))
			continue;
		errfile = path_in(failpath, de->d_name);
		entry = strndup(errfile, strlen(errfile) - 4);
		expect = slurp(errfile, NULL);
		assert_non_null(expect);
		/* replace @PATH@ with the path given */
		while ((at = strstr(expect, "@PATH@"))) {
			char *e2;

			*at = '\0';
			if (asprintf(&e2, "%s%s%s", expect, entry, at + 6) < 0)
				fail();
			free(expect);
			expect = e2;
		}
		before = db_counts(db);
		MEMDB(&r, db, "ingest '%s'", entry);
		after = db_counts(db);
		if (r.status != 1 || strcmp(r.err, expect))
			fail_run(&r, "%s: expected exit status 1, stderr:\n%s",
				 de->d_name, expect);
		assert_string_equal(r.out, "");
		assert_string_equal(before, after);
		run_free(&r);
		free(before);
		free(after);
		free(expect);
		free(entry);
		free(errfile);
		n++;
	}
	closedir(d);
	assert_true(n >= 8);
	/* --abi 1 reads the version-2 capture as version 1, with a note */
	{
		struct run r;
		char *e = path_in(failpath, "abi-version-2");

		MEMDB(&r, db, "ingest --abi 1 '%s'", e);
		assert_run_ok(&r);
		assert_non_null(strstr(r.err, "abi_version says 2"));
		run_free(&r);
		free(e);
	}
	free(good);
	free(db);
	free(failpath);
}

/* Same bytes twice: a no-op; --force replaces; --delete removes. */
static void test_reingest(void **state)
{
	char *db = fresh_db(tmp, "re.db"), *before, *after;
	char *le = path_in(env("TESTDATA"), "succeed/kt-small-le");
	char *be = path_in(env("TESTDATA"), "succeed/kt-small-be");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s'", le);
	before = db_counts(db);
	MEMDB(&r, db, "ingest '%s'", le);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "already ingested"));
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(after);

	MEMDB(&r, db, "ingest --force '%s'", le);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "source 2:"));
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after); /* replaced, not added */
	free(after);
	assert_int_equal(db_int(db, "SELECT group_concat(id) FROM source"), 2);

	/* different bytes (big-endian) are a new source */
	ingest_ok(db, "'%s'", be);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 2);
	MEMDB(&r, db, "sources --delete 3");
	assert_run_ok(&r);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(after);
	MEMDB(&r, db, "sources --delete 3");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "no such source"));
	run_free(&r);

	/* memdb sql cannot change the database */
	MEMDB(&r, db, "sql 'DELETE FROM alloc'");
	assert_run_status(&r, 1);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(after);
	free(before);
	free(le);
	free(be);
	free(db);
}

/* Parse "name value" lines of the awk replay into a lookup. */
static long long fig(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	fail_msg("figure %s missing", name);
	return -1;
}

/*
 * A generated capture with planted anomalies: every fragmentation row
 * and every anomaly count equals the awk replay of the generator's dump
 * and the counts the generator planted.
 */
static void test_generated_vs_awk(void **state)
{
	char *db = fresh_db(tmp, "gen.db"), *cap = path_in(tmp, "gen1m");
	char *dump = path_in(tmp, "gen1m.dump"), *man = path_in(tmp, "gen1m.man");
	char *awk = path_in(env("TESTS_DIR"), "kt_replay.awk"), *figs, *t;
	struct run r;

	(void)state;
	run(&r, "'%s' --seed 11 --events 1000000 --cpus 4 --live 5000 "
		"--sites 200 --pages 3 --leaks 77 --leak-sites 5 "
		"--dup-frees 13 --cache-free-kmalloc 17 --kfree-cache 19 "
		"--unknown-frees 23 --cross-cpu 29 --reuse 31 "
		"--null-allocs 37 --zero-allocs 41 --null-frees 43 "
		"--undersized 47 --unknown-records 7 --feature-records 100 "
		"--overruns 0 --dump '%s' --manifest '%s' '%s'",
	    env("KTGEN"), dump, man, cap);
	assert_run_ok(&r);
	run_free(&r);
	ingest_ok(db, "'%s'", cap);

	/* fragmentation rows: same set as awk's, sorted by waste */
	run(&r, "'%s' report fragmentation -d '%s' --top 0 --format csv | "
		"sed -n '2,$p' | grep -v '^total,' | "
		"awk -F, '{ print \"site \" $1 \",\" $3 \",\" $4 \",\" $5 \",\" "
		"$6 \",\" $7 }' | sort > '%s/memdb.rows' && "
		"awk -f '%s' '%s' | grep '^site ' | sort > '%s/awk.rows' && "
		"diff '%s/memdb.rows' '%s/awk.rows' && wc -l < '%s/awk.rows'",
	    env("MEMDB"), db, tmp, awk, dump, tmp, tmp, tmp, tmp);
	if (r.status)
		fail_run(&r, "fragmentation rows differ from awk:\n%s", r.out);
	assert_true(atoi(r.out) > 200);
	run_free(&r);
	run(&r, "'%s' report fragmentation -d '%s' --top 0 --format csv | "
		"awk -F, 'NR > 2 && $1 != \"total\" && $6 > prev { bad = 1 } "
		"NR > 1 { prev = $6 } END { exit bad }'", env("MEMDB"), db);
	assert_run_ok(&r); /* waste never rises */
	run_free(&r);

	run(&r, "awk -f '%s' '%s' | grep -v '^site '", awk, dump);
	assert_run_ok(&r);
	figs = strdup(r.out);
	run_free(&r);

	/* totals */
	t = db_text(db, "SELECT hits, bytes_req, bytes_alloc, waste FROM "
			"(SELECT 1) LEFT JOIN (SELECT sum(hits) hits, "
			"sum(bytes_req) bytes_req, sum(bytes_alloc) bytes_alloc, "
			"sum(bytes_alloc) - sum(bytes_req) waste "
			"FROM site_stats WHERE type < 2)");
	{
		char want[256];

		snprintf(want, sizeof(want), "%lld,%lld,%lld,%lld\n",
			 fig(figs, "hits"), fig(figs, "bytes_req"),
			 fig(figs, "bytes_alloc"), fig(figs, "waste"));
		assert_string_equal(t, want);
	}
	free(t);
	MEMDB(&r, db, "report fragmentation --format csv --top 1");
	{
		char want[256];

		snprintf(want, sizeof(want), "total,,%lld,%lld,%lld,%lld,",
			 fig(figs, "hits"), fig(figs, "bytes_req"),
			 fig(figs, "bytes_alloc"), fig(figs, "waste"));
		assert_non_null(strstr(r.out, want));
	}
	run_free(&r);

	/* anomalies: awk replay, generator's plan, memdb */
#define SLAB "FROM alloc WHERE type < 2 AND "
	assert_int_equal(fig(figs, "failed"), 37);
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB "state = 3"), 37);
	assert_int_equal(fig(figs, "zero_size"), 41);
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB "state = 4"), 41);
	assert_int_equal(fig(figs, "not_traced"), 31);
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc "
				    "WHERE state = 2"), 31);
	assert_int_equal(fig(figs, "live"), 77);
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB "state = 0"), 77);
	assert_int_equal(db_int(db, "SELECT sum(bytes_alloc) " SLAB
				    "state = 0"), fig(figs, "live_bytes"));
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB "state = 1"),
			 fig(figs, "freed"));
	assert_int_equal(db_int(db, "SELECT sum(bytes_alloc) " SLAB
				    "state = 1"), fig(figs, "freed_bytes"));
	assert_int_equal(fig(figs, "pingpong"), 29);
	assert_int_equal(db_int(db, "SELECT sum(pingpong) FROM site_stats "
				    "WHERE type < 2"), 29);
	assert_int_equal(fig(figs, "cache_free_kmalloc"), 17);
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB "state = 1 AND "
				    "type = 0 AND free_type = 1"), 17);
	assert_int_equal(fig(figs, "kfree_cache"), 19);
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB "state = 1 AND "
				    "type = 1 AND free_type = 0"), 19);
	assert_int_equal(fig(figs, "null_frees"), 43);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free "
				    "WHERE class = 1"), 43);
	assert_int_equal(fig(figs, "unknown_frees"), 23);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free "
				    "WHERE class = 2"), 23);
	assert_int_equal(fig(figs, "dup_frees"), 13);
	assert_int_equal(db_int(db, "SELECT count(*) FROM bad_free "
				    "WHERE class = 3"), 13);
	assert_int_equal(db_int(db, "SELECT count(*) " SLAB
				    "bytes_alloc < bytes_req"), 47);
	assert_int_equal(db_int(db, "SELECT unknown FROM source"), 7);
	assert_int_equal(db_int(db, "SELECT feature_bytes FROM source"), 800);
	assert_int_equal(db_int(db, "SELECT seq_missing FROM source"), 0);
#undef SLAB

	/* site_stats is exactly the aggregate of the alloc rows */
	assert_int_equal(db_int(db,
		"SELECT count(*) FROM (SELECT site_id, type, "
		"coalesce(cache_id, 0) c, count(*) h, sum(bytes_req) q, "
		"sum(bytes_alloc) a, sum(state = 1) f, "
		"sum(CASE WHEN state = 1 THEN bytes_alloc ELSE 0 END) fb, "
		"sum(state = 1 AND free_cpu <> cpu) pp, sum(state = 0) l "
		"FROM alloc GROUP BY 1, 2, 3 EXCEPT SELECT site_id, type, "
		"cache_id, hits, bytes_req, bytes_alloc, freed, freed_bytes, "
		"pingpong, live FROM site_stats)"), 0);
	free(figs);
	free(awk);
	free(man);
	free(dump);
	free(cap);
	free(db);
}

/* The real 6.18 capture gives the figures its README states. */
static void test_real_capture(void **state)
{
	char *db = fresh_db(tmp, "real.db"), *cap = path_in(tmp, "real-kt"), *t;
	struct run r;

	(void)state;
	run(&r, "rm -rf '%s' && mkdir -p '%s' && cd '%s' && "
		"cp '%s/real-6.18-small/kmemtrace-v1-le/abi_version' "
		"'%s/real-6.18-small/kmemtrace-v1-le/total_overruns' . && "
		"zstd -dq '%s/real-6.18-small/kmemtrace-v1-le/cpu0.out.zst' "
		"-o cpu0.out && "
		"zstd -dq '%s/real-6.18-small/kmemtrace-v1-le/cpu1.out.zst' "
		"-o cpu1.out", cap, cap, cap, env("TESTDATA"), env("TESTDATA"),
	    env("TESTDATA"), env("TESTDATA"));
	assert_run_ok_msg(&r, "cannot unpack the real capture");
	run_free(&r);
	ingest_ok(db, "'%s'", cap);
	/* README: hits, requested, allocated, waste */
	MEMDB(&r, db, "report fragmentation --format csv --top 1");
	assert_non_null(strstr(r.out, "\ntotal,,23355,26605594,26675464,"
				      "69870,"));
	run_free(&r);
	t = db_text(db, "SELECT "
			"(SELECT count(*) FROM alloc WHERE type < 2 AND state = 1),"
			"(SELECT count(*) FROM bad_free WHERE type < 2 AND class = 1),"
			"(SELECT count(*) FROM bad_free WHERE type < 2 AND class > 1),"
			"(SELECT count(*) FROM bad_free WHERE type < 2 AND class = 3),"
			"(SELECT count(*) FROM alloc WHERE type < 2 AND state = 2),"
			"(SELECT sum(pingpong) FROM site_stats WHERE type < 2),"
			"(SELECT count(*) FROM alloc WHERE type < 2 AND state = 0),"
			"(SELECT sum(bytes_alloc) FROM alloc WHERE type < 2 "
			"AND state = 0)");
	/* frees that ended an allocation 18,520; NULL frees 4,392; frees of
	 * non-live pointers 7, no duplicates; free not traced 3,323;
	 * ping-pong 1,567; live at the end 1,512 allocations, 383,368 B */
	assert_string_equal(t, "18520,4392,7,0,3323,1567,1512,383368\n");
	free(t);
	free(cap);
	free(db);
}

/*
 * Thousands of per-CPU files: a 64-CPU capture spread over CPU numbers up
 * to 3780 among 4000 files, the rest empty, gives the figures of the
 * 64-file original.
 */
static void test_thousands_of_cpus(void **state)
{
	char *orig = path_in(tmp, "cpus64"), *wide = path_in(tmp, "cpus4000");
	char *dba = fresh_db(tmp, "cpus64.db"), *dbb = fresh_db(tmp, "cpus4000.db");
	char *a, *b;
	struct run r;

	(void)state;
	run(&r, "rm -rf '%s' '%s' && '%s' --seed 8 --events 100000 --cpus 64 "
		"--cross-cpu 100 '%s' && mkdir '%s' && cd '%s' && "
		"for i in $(seq 0 3999); do : > cpu$i.out; done && "
		"for i in $(seq 0 63); do cp '%s'/cpu$i.out cpu$((i * 60)).out; "
		"done && ls | wc -l", orig, wide, env("KTGEN"), orig, wide, wide,
	    orig);
	assert_run_ok(&r);
	assert_int_equal(atoi(r.out), 4000);
	run_free(&r);
	ingest_ok(dba, "'%s'", orig);
	ingest_ok(dbb, "'%s'", wide);
	assert_int_equal(db_int(dbb, "SELECT ncpus FROM source"), 4000);
	a = db_text(dba, "SELECT events, allocations, bad_frees FROM source");
	b = db_text(dbb, "SELECT events, allocations, bad_frees FROM source");
	assert_string_equal(a, b);
	free(a);
	free(b);
	MEMDB(&r, dba, "report callsites --top 0 --format csv");
	a = strdup(r.out);
	run_free(&r);
	MEMDB(&r, dbb, "report callsites --top 0 --format csv");
	assert_string_equal(a, r.out);
	run_free(&r);
	free(a);
	free(orig);
	free(wide);
	free(dba);
	free(dbb);
}

static void test_help_and_usage(void **state)
{
	static const char *const cmds[] = { "ingest", "sources", "report",
					    "sql", "symbolize" };
	struct run r;

	(void)state;
	run(&r, "'%s' --help", env("MEMDB"));
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "usage: memdb"));
	run_free(&r);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		run(&r, "'%s' %s --help", env("MEMDB"), cmds[i]);
		assert_run_ok(&r);
		assert_non_null(strstr(r.out, "usage: memdb"));
		assert_non_null(strstr(r.out, cmds[i]));
		run_free(&r);
		run(&r, "'%s' help %s", env("MEMDB"), cmds[i]);
		assert_run_ok(&r);
		run_free(&r);
	}
	run(&r, "'%s' frobnicate", env("MEMDB"));
	assert_run_status(&r, 2);
	run_free(&r);
	run(&r, "'%s' ingest --endian middle x", env("MEMDB"));
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--endian"));
	run_free(&r);
	run(&r, "'%s' report list", env("MEMDB"));
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "fragmentation"));
	run_free(&r);
	run(&r, "cd '%s' && '%s' report fragmentation -d nonexistent.db",
	    tmp, env("MEMDB"));
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "nonexistent.db"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_by_hand),
		cmocka_unit_test(test_endian_identical),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_reingest),
		cmocka_unit_test(test_generated_vs_awk),
		cmocka_unit_test(test_real_capture),
		cmocka_unit_test(test_thousands_of_cpus),
		cmocka_unit_test(test_help_and_usage),
	};

	return cmocka_run_group_tests_name("memdb ingest and report", tests,
					   setup_all, teardown_all);
}
