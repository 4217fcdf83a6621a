// SPDX-License-Identifier: MIT
/*
 * memdb report diff: two traces compared per call site.
 *
 * testdata/real-diff holds two real captures of this project's machine
 * (see its README): a/ a small base workload, b/ the same plus 200 TCP
 * connects.  The diff of the two is checked against tests/diff_sites.awk,
 * an independent per-site count over the captures' `trace` text (the
 * kernel's own rendering of the call sites, each function checked
 * against the kallsyms the capture carries); a source diffed with itself
 * gives no rows; sites join by symbol, so a text ingest without
 * addresses and the raw pages of the same buffer are the same.
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

static char *dir, *fix;

static int setup(void **state)
{
	(void)state;
	dir = tmpdir("diff");
	fix = path_in(env("TESTDATA"), "real-diff");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(fix);
	free(dir);
	return 0;
}

/* The output of the shell command, failing the test on an error. */
static char *sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *sh_out(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *cmd, *s;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run(&r, "%s", cmd);
	assert_run_ok(&r);
	s = r.out;
	r.out = NULL;
	run_free(&r);
	free(cmd);
	return s;
}

/* Capture @cap ("a", "b") of real-diff into @db, symbolized by its own
 * kallsyms. */
static void ingest_cap(const char *db, const char *cap)
{
	struct run r;

	ingest_ok(db, "'%s/%s'", fix, cap);
	run_memdb(&r, db, "symbolize -q --source %lld --kallsyms "
		  "'%s/%s/kallsyms'",
		  (long long)db_int(db, "SELECT max(id) FROM source"), fix,
		  cap);
	assert_run_ok(&r);
	run_free(&r);
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A source diffed with itself: no rows, a total of 0 deltas. */
static void test_self_is_empty(void **state)
{
	char *db = fresh_db(dir, "self.db"), *csv, *want;
	struct run r;

	(void)state;
	ingest_cap(db, "a");
	csv = report_csv(db, "diff --from 1 --to 1");
	/* a/: 83 kmalloc + 1022 kmem_cache_alloc = 1105 hits; bytes and
	 * live bytes as the callsites report's total; 812891 of 817560
	 * bytes requested: 100 x 4669 / 817560 = 0.571090 % waste */
	want = strf("site,status,hits_a,hits_b,delta_hits,bytes_a,bytes_b,"
		    "delta_bytes,frag_a,frag_b,delta_frag,live_bytes_a,"
		    "live_bytes_b,delta_live_bytes\n"
		    "total,,1105,1105,0,817560,817560,0,%s,%s,0.000000,"
		    "80704,80704,0\n", "0.571090", "0.571090");
	assert_string_equal(csv, want);
	free(csv);
	free(want);
	csv = sh_out("zstd -dc '%s/a/trace.txt.zst' | grep -cE "
		     "' (kmalloc|kmem_cache_alloc): '", fix);
	assert_string_equal(csv, "1105\n");
	free(csv);
	/* the table says so; --show all keeps the sites, all 'same' */
	run_memdb(&r, db, "report diff --from 1 --to 1");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "(no rows)"));
	run_free(&r);
	csv = report_csv(db, "diff --from 1 --to 1 --show all");
	run(&r, "printf '%%s' '%s' | awk -F, 'NR > 1 && $1 != \"total\" && "
	    "($2 != \"same\" || $5 || $8 || $11 != \"0.000000\" || $14)'",
	    csv);
	assert_string_equal(r.out, "");
	run_free(&r);
	/* 55 sites in a/ (diff_sites.awk over its text), header, total */
	assert_int_equal(lines(csv), 55 + 2);
	free(csv);
	free(db);
}

/*
 * a/ against b/: every site with the hits and bytes of the independent
 * count, 'new' exactly where the awk script finds a site only in b/;
 * the connects' sites among them.
 */
static void test_step_sites(void **state)
{
	char *db = fresh_db(dir, "ab.db"), *csv, *mine, *awk;
	struct run r;

	(void)state;
	ingest_cap(db, "a");
	ingest_cap(db, "b");
	csv = report_csv(db, "diff --from 1 --to 2 --show all");
	mine = path_in(dir, "mine.csv");
	run(&r, "printf '%%s' '%s' | awk -F, 'NR > 1 && $1 != \"total\" { "
	    "s = $2; if (s == \"changed\" || s == \"same\") s = \"both\"; "
	    "print $1 \",\" s \",\" $3 \",\" $4 \",\" $5 \",\" $6 \",\" $7 "
	    "\",\" $8 }' | sort > '%s'", csv, mine);
	assert_run_ok(&r);
	run_free(&r);
	/* the independent count: tests/diff_sites.awk over the texts */
	awk = sh_out("cd '%s' && zstd -dc a/trace.txt.zst > '%s/a.txt' && "
		     "zstd -dc b/trace.txt.zst > '%s/b.txt' && "
		     "awk -f '%s/diff_sites.awk' a/kallsyms '%s/a.txt' "
		     "b/kallsyms '%s/b.txt' | sort | tee '%s/awk.csv'", fix,
		     dir, dir, env("TESTS_DIR"), dir, dir, dir);
	assert_null(strstr(awk, "missing"));
	assert_int_equal(lines(awk), 63);
	free(csv);
	csv = slurp(mine, NULL);
	assert_string_equal(csv, awk);
	free(csv);
	free(awk);
	/* the sites the step adds, as the awk script names them */
	awk = sh_out("awk -F, '$2 == \"new\"' '%s/awk.csv' | cut -d, -f1,4",
		     dir);
	assert_string_equal(awk, "__alloc_skb+0x147,400\n"
				 "__inet_hash_connect+0x290,200\n"
				 "alloc_slab_obj_exts+0x58,13\n"
				 "inet_bind2_bucket_create+0x2a,200\n"
				 "kmalloc_reserve+0x9e,400\n"
				 "sk_prot_alloc+0x32,200\n"
				 "sock_alloc_inode+0x1e,200\n"
				 "tty_open+0x54,1\n");
	free(awk);
	/* by growth: getname_flags 593920 -> 1773568 (+1179648), then
	 * sk_prot_alloc, new: 200 x 2368 = 473600 */
	csv = report_csv(db, "diff --from 1 --to 2 --top 2");
	assert_non_null(strstr(csv, "\ngetname_flags.part.0+0x24,changed,145,"
				    "433,288,593920,1773568,1179648,"));
	assert_non_null(strstr(csv, "\nsk_prot_alloc+0x32,new,0,200,200,0,"
				    "473600,473600,,2.702703,,0,0,0\n"));
	free(csv);
	/* b/ against a/: the same sites gone */
	csv = report_csv(db, "diff --from 2 --to 1 --columns site,status");
	assert_non_null(strstr(csv, "\nsk_prot_alloc+0x32,gone\n"));
	assert_null(strstr(csv, ",new\n"));
	free(csv);
	free(mine);
	free(db);
}

/* The text of a/ ingested without kallsyms (sites 'func+0xoff/0xsize',
 * no address) joins the raw pages of a/ by symbol: nothing changed. */
static void test_join_by_symbol(void **state)
{
	char *db = fresh_db(dir, "join.db"), *csv;

	(void)state;
	ingest_ok(db, "'%s/a/trace.txt.zst'", fix);
	ingest_cap(db, "a");
	/* the 55 allocating sites of a/, none with an address */
	assert_int_equal(db_int(db, "SELECT count(*) FROM site WHERE "
				    "source_id = 1 AND addr IS NULL AND text "
				    "LIKE '%/0x%' AND id IN (SELECT site_id "
				    "FROM site_stats WHERE source_id = 1)"),
			 55);
	csv = report_csv(db, "diff --from 1 --to 2 --columns site,status");
	assert_string_equal(csv, "site,status\ntotal,\n");
	free(csv);
	free(db);
}

/*
 * Unsymbolized, a/ and b/ join by address (one boot: the same addresses)
 * and give the figures the symbolized diff gives, row for row.
 */
static void test_join_by_address(void **state)
{
	char *db = fresh_db(dir, "addr.db"), *sdb = fresh_db(dir, "sym.db");
	char *plain, *sym, *cut;
	struct run r;

	(void)state;
	/* ingest would name the sites with the capture's own kallsyms */
	ingest_ok(db, "--no-symbolize '%s/a'", fix);
	ingest_ok(db, "--no-symbolize '%s/b'", fix);
	ingest_cap(sdb, "a");
	ingest_cap(sdb, "b");
	plain = report_csv(db, "diff --from 1 --to 2 --show all");
	sym = report_csv(sdb, "diff --from 1 --to 2 --show all");
	/* every site an address */
	run(&r, "printf '%%s' '%s' | awk -F, 'NR > 1 && $1 != \"total\" && "
	    "$1 !~ /^0xffffffff8[0-9a-f]+$/'", plain);
	assert_string_equal(r.out, "");
	run_free(&r);
	cut = strf("cut -d, -f2- | sort");
	run(&r, "printf '%%s' '%s' | %s > '%s/plain.txt' && printf '%%s' '%s' "
	    "| %s | cmp - '%s/plain.txt'", plain, cut, dir, sym, cut, dir);
	assert_run_ok(&r);
	run_free(&r);
	assert_int_equal(lines(plain), 63 + 2);
	free(cut);
	free(plain);
	free(sym);
	free(sdb);
	free(db);
}

/* --from and --to take labels too: the latest trace of each. */
static void test_labels(void **state)
{
	char *db = fresh_db(dir, "labels.db"), *ids, *labels;
	struct run r;

	(void)state;
	ingest_ok(db, "--label before '%s/a'", fix);
	ingest_ok(db, "--label after '%s/b'", fix);
	ingest_ok(db, "--label before '%s/real-6.18-tracefs/slabinfo.after'",
		  env("TESTDATA"));
	ids = report_csv(db, "diff --from 1 --to 2");
	/* the slabinfo (3) is the latest 'before', but no trace */
	labels = report_csv(db, "diff --from before --to after");
	assert_string_equal(labels, ids);
	free(labels);
	labels = report_csv(db, "diff --from before --to 2");
	assert_string_equal(labels, ids);
	free(labels);
	free(ids);
	run_memdb(&r, db, "report diff --from before --to later");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "no source labelled 'later' that is "
				      "a trace"));
	run_free(&r);
	free(db);
}

/* diff reads traces: a snapshot is refused, naming what it is. */
static void test_refusals(void **state)
{
	char *db = fresh_db(dir, "kinds.db");
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/a'", fix);
	ingest_ok(db, "'%s/real-6.18-tracefs/slabinfo.before'",
		  env("TESTDATA"));
	run_memdb(&r, db, "report diff --from 1 --to 2");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "source 2 is a zone snapshot"));
	run_free(&r);
	run_memdb(&r, db, "report diff --from 1 --to 1 --show some");
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--show changed|all, not 'some'"));
	run_free(&r);
	/* one trace in the series: nothing to compare */
	run_memdb(&r, db, "report diff");
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "one trace in the series"));
	run_free(&r);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_is_empty),
		cmocka_unit_test(test_step_sites),
		cmocka_unit_test(test_join_by_symbol),
		cmocka_unit_test(test_join_by_address),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
