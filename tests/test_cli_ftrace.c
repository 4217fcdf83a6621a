// SPDX-License-Identifier: MIT
/*
 * memdb ingest of ftrace text and ftrace-era kmemtrace binary, end to end
 * through the binary:
 *   - one generated slab sequence written in every form (relay, text with
 *     raw and with symbolic call sites plus a kallsyms, ftrace-era binary
 *     LP64/ILP32 in both byte orders, with and without the bin prefix)
 *     gives identical fragmentation and live sets, equal to the awk
 *     replay of the generator's dump;
 *   - the real 6.18 trace, as text with real and with hashed pointers,
 *     gives the figures of its README, and with its kallsyms the call
 *     sites of the binary capture of the same events;
 *   - malformed lines: warnings with line numbers, --strict an error that
 *     leaves the database unchanged;
 *   - the committed ftrace-era fixtures give the kt-small figures;
 *   - options: --page-size, --format, --kallsyms, capture directories.
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

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("cli-ftrace");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* Output of a shell command line that must succeed. */
static char *out_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *out_of(const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *s, *cmd;

	va_start(ap, fmt);
	cmd = vstrf(fmt, ap);
	va_end(ap);
	run(&r, "%s", cmd);
	assert_run_ok(&r);
	s = strdup(r.out);
	run_free(&r);
	free(cmd);
	return s;
}

/* fragmentation as CSV, with the symbol column (2) cut out or alone */
static char *frag(const char *db, const char *cut)
{
	return out_of("'%s' report fragmentation -d '%s' --top 0 --format csv "
		      "2>/dev/null | cut -d, %s", env("MEMDB"), db, cut);
}

/* The live set at the end: slab allocations never freed. */
#define LIVE_SQL                                                           \
	"SELECT printf('%x', a.ptr), printf('%x', s.addr), a.bytes_alloc " \
	"FROM alloc a JOIN site s ON s.source_id = a.source_id AND "       \
	"s.id = a.site_id WHERE a.state = 0 AND a.type < 2 ORDER BY 1"

/*
 * Every anomaly class and state, by type.  A traced allocation freed twice
 * is a duplicate free (class 3) in the kmemtrace-era forms and a suspect
 * (class 4) in text, whose kernels have untraced allocation paths: both
 * count as 3 here, and DUP_SQL tells them apart.
 */
#define CLASSES_SQL                                                        \
	"SELECT 'alloc', type, state, count(*), sum(bytes_alloc) FROM alloc " \
	"GROUP BY 2, 3 UNION ALL SELECT 'bad', type, min(class, 3), "      \
	"count(*), 0 FROM bad_free GROUP BY 2, 3"
#define DUP_SQL                                                            \
	"SELECT count(*) FILTER (WHERE class = 3), count(*) FILTER "       \
	"(WHERE class = 4) FROM bad_free"

struct form {
	const char *name;
	const char *gen;    /* ktgen options besides the sequence's */
	const char *ingest; /* memdb ingest arguments */
	int symbolic;       /* call sites printed as func+0xoff/0xsize */
};

/* @s with every "@OUT@" replaced by @out (malloc'ed). */
static char *subst(const char *s, const char *out)
{
	size_t n = strlen(out);
	char *r = malloc(strlen(s) * (n + 1) + 1), *w = r;

	assert_non_null(r);
	while (*s) {
		if (!strncmp(s, "@OUT@", 5)) {
			memcpy(w, out, n);
			w += n;
			s += 5;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
	return r;
}

/*
 * One seeded sequence of slab events in every form: identical
 * fragmentation rows (every column but the symbol, which names the
 * printed function for symbolic text and is '??' for addresses), live
 * sets and anomaly counts; and for the 64-bit sequence, rows equal to
 * the awk replay of the generator's dump.
 */
static void run_forms(const char *seq, const struct form *forms, size_t n,
		      int word, const char *ks)
{
	char *base = NULL, *base_live = NULL, *base_classes = NULL;
	char *full = NULL, *ksyms;

	for (size_t i = 0; i < n; i++) {
		char name[64], *out, *db, *rows, *live, *classes, *gen, *args;
		char *dups;
		struct run r;

		snprintf(name, sizeof(name), "w%d-%s", word, forms[i].name);
		out = path_in(tmp, name);
		gen = subst(forms[i].gen, out);
		args = subst(forms[i].ingest, out);
		run(&r, "rm -rf '%s' && mkdir -p '%s'", out, out);
		run_free(&r);
		run(&r, "'%s' %s --word %d %s", env("KTGEN"), seq, word, gen);
		assert_run_ok_msg(&r, "ktgen %s", gen);
		run_free(&r);
		snprintf(name, sizeof(name), "w%d-%s.db", word, forms[i].name);
		db = fresh_db(tmp, name);
		ingest_ok(db, "%s", args);

		rows = frag(db, "-f1,3-");
		live = db_text(db, LIVE_SQL);
		classes = db_text(db, CLASSES_SQL);
		dups = db_text(db, DUP_SQL);
		/* SEQ plants 3: relay and kmemtrace-ftrace are kmemtrace-era */
		assert_string_equal(dups, strstr(forms[i].name, "relay") ||
					  strstr(forms[i].name, "bin") ?
					  "3,0\n" : "0,3\n");
		free(dups);
		assert_true(strlen(rows) > 1000);
		assert_true(strlen(live) > 100);
		if (!base) {
			base = rows;
			base_live = live;
			base_classes = classes;
		} else {
			if (strcmp(base, rows))
				fail_msg("%s: fragmentation differs", name);
			assert_string_equal(base_live, live);
			assert_string_equal(base_classes, classes);
			free(rows);
			free(live);
			free(classes);
		}
		/* symbols: the printed functions, or ?? for addresses */
		{
			char *sym = frag(db, "-f2");
			const char *p = strchr(sym, '\n') + 1;
			int rows_seen = 0;

			for (; *p != '\n'; p = strchr(p, '\n') + 1, rows_seen++)
				assert_true(forms[i].symbolic ?
					    !strncmp(p, "ktgen_", 6) :
					    !strncmp(p, "??\n", 3));
			assert_true(rows_seen > 50);
			free(sym);
		}
		free(args);
		free(gen);
		free(db);
		free(out);
	}

	/*
	 * Symbolized with the generated kallsyms, every form gives the very
	 * same report, the symbol column included: the symbolic text form
	 * and the address forms name their call sites alike.
	 */
	ksyms = path_in(tmp, ks);
	for (size_t i = 0; i < n; i++) {
		char *db, *rows;
		struct run r;

		if (asprintf(&db, "%s/w%d-%s.db", tmp, word,
			     forms[i].name) < 0)
			fail();
		run(&r, "'%s' symbolize -d '%s' --kallsyms '%s'", env("MEMDB"),
		    db, ksyms);
		assert_run_ok_msg(&r, "symbolize %s", db);
		run_free(&r);
		rows = frag(db, "-f1-");
		assert_null(strstr(rows, "??"));
		if (!full) {
			full = rows;
		} else {
			if (strcmp(full, rows))
				fail_msg("%s: symbolized fragmentation differs",
					 db);
			free(rows);
		}
		free(db);
	}
	free(full);
	free(ksyms);
	free(base);
	free(base_live);
	free(base_classes);
}

#define SEQ "--seed 5 --events 60000 --cpus 4 --live 2000 --sites 64 " \
	    "--leaks 20 --leak-sites 3 --dup-frees 3 --unknown-frees 3 "  \
	    "--reuse 5 --cross-cpu 10 --kfree-cache 2 " \
	    "--cache-free-kmalloc 2 --null-allocs 3 --zero-allocs 3 "     \
	    "--null-frees 4 --undersized 3 --unknown-records 2"

static const struct form forms64[] = {
	{ "relay", "@OUT@/cap", "@OUT@/cap", 0 },
	{ "text", "--format ftrace-text @OUT@/trace", "@OUT@/trace", 0 },
	/* a capture directory: trace + kallsyms */
	{ "sym", "--format ftrace-text-sym --kallsyms @OUT@/kallsyms "
	  "@OUT@/trace", "@OUT@", 1 },
	{ "bin-le", "--format ftrace-bin @OUT@/f.bin", "@OUT@/f.bin", 0 },
	{ "bin-be", "--format ftrace-bin --endian big @OUT@/f.bin",
	  "@OUT@/f.bin", 0 },
	{ "bin-le-prefix", "--format ftrace-bin --bin-prefix @OUT@/f.bin",
	  "@OUT@/f.bin", 0 },
};

static const struct form forms32[] = {
	{ "relay", "@OUT@/cap", "@OUT@/cap", 0 },
	{ "text", "--format ftrace-text @OUT@/trace", "@OUT@/trace", 0 },
	/* --kallsyms with a lone file */
	{ "sym", "--format ftrace-text-sym --kallsyms @OUT@/ks @OUT@/t.txt",
	  "--kallsyms @OUT@/ks @OUT@/t.txt", 1 },
	{ "bin-le", "--format ftrace-bin @OUT@/f.bin", "@OUT@/f.bin", 0 },
	{ "bin-be", "--format ftrace-bin --endian big @OUT@/f.bin",
	  "@OUT@/f.bin", 0 },
	{ "bin-be-prefix", "--format ftrace-bin --endian big --bin-prefix "
	  "@OUT@/f.bin", "@OUT@/f.bin", 0 },
};

static void test_forms_identical(void **state)
{
	char *dump = path_in(tmp, "forms.dump"), *db, *awk, *a, *m;

	(void)state;
	run_forms(SEQ, forms64, sizeof(forms64) / sizeof(forms64[0]), 8,
		  "w8-sym/kallsyms");
	run_forms(SEQ, forms32, sizeof(forms32) / sizeof(forms32[0]), 4,
		  "w4-sym/ks");

	/* the rows are the independent replay's */
	awk = path_in(env("TESTS_DIR"), "kt_replay.awk");
	free(out_of("'%s' %s --dump '%s' '%s/w8-dump-cap'", env("KTGEN"), SEQ,
		    dump, tmp));
	db = path_in(tmp, "w8-sym.db");
	a = out_of("awk -f '%s' '%s' | grep '^site ' | sed 's/^site //' | "
		   "sort", awk, dump);
	m = out_of("'%s' report fragmentation -d '%s' --top 0 --format csv | "
		   "sed -n '2,$p' | grep -v '^total,' | cut -d, -f1,3- | sort",
		   env("MEMDB"), db);
	assert_true(strlen(a) > 1000);
	assert_string_equal(a, m);
	free(a);
	free(m);
	free(db);
	free(awk);
	free(dump);
}

/* Unpack the real capture's files into @dir. */
static void unpack_real(const char *dir)
{
	const char *td = env("TESTDATA");

	free(out_of("rm -rf '%s' && mkdir -p '%s/kt' && cd '%s' && "
		    "zstd -dqf '%s/real-6.18-small/ftrace.txt.zst' -o ftrace.txt "
		    "&& zstd -dqf '%s/real-6.18-small/ftrace-hashed.txt.zst' "
		    "-o hashed.txt && zstd -dqf '%s/real-6.18-small/kallsyms.zst'"
		    " -o kallsyms && cp '%s/real-6.18-small/kmemtrace-v1-le/"
		    "abi_version' kt/ && zstd -dqf '%s/real-6.18-small/"
		    "kmemtrace-v1-le/cpu0.out.zst' -o kt/cpu0.out && zstd -dqf "
		    "'%s/real-6.18-small/kmemtrace-v1-le/cpu1.out.zst' -o "
		    "kt/cpu1.out", dir, dir, dir, td, td, td, td, td, td));
}

#define README_SQL                                                         \
	"SELECT "                                                          \
	"(SELECT count(*) FROM alloc WHERE type < 2 AND state = 1),"      \
	"(SELECT count(*) FROM bad_free WHERE type < 2 AND class = 1),"   \
	"(SELECT count(*) FROM bad_free WHERE type < 2 AND class > 1),"   \
	"(SELECT count(*) FROM bad_free WHERE type < 2 AND class = 3),"   \
	"(SELECT count(*) FROM alloc WHERE type < 2 AND state = 2),"      \
	"(SELECT sum(pingpong) FROM site_stats WHERE type < 2),"          \
	"(SELECT count(*) FROM alloc WHERE type < 2 AND state = 0),"      \
	"(SELECT sum(bytes_alloc) FROM alloc WHERE type < 2 AND state = 0)"

/* Per call site address: slab hits, and allocations ended by a free. */
#define SITES_SQL                                                          \
	"SELECT printf('%x', t.addr), sum(k.hits), sum(k.freed) "         \
	"FROM site_stats k JOIN site t ON t.source_id = k.source_id AND "  \
	"t.id = k.site_id WHERE k.type < 2 GROUP BY t.addr ORDER BY 1"

static void check_readme_figures(const char *db)
{
	char *t = out_of("'%s' report fragmentation -d '%s' --format csv "
			 "--top 1", env("MEMDB"), db);

	/* README: hits, requested, allocated, waste */
	assert_non_null(strstr(t, "\ntotal,,23355,26605594,26675464,69870,"));
	free(t);
	t = db_text(db, README_SQL);
	/* frees that ended an allocation 18,520; NULL frees 4,392; frees of
	 * non-live pointers 7, no duplicates; free not traced 3,323;
	 * ping-pong 1,567; live at the end 1,512 allocations, 383,368 B */
	assert_string_equal(t, "18520,4392,7,0,3323,1567,1512,383368\n");
	free(t);
}

/*
 * The real 6.18 trace: both text files give the README's figures; with
 * the boot's kallsyms the symbolic call sites become the addresses the
 * binary capture of the same events carries, with the same hits.
 */
static void test_real_text(void **state)
{
	char *dir = path_in(tmp, "real"), *db, *t, *s_bin, *s_text;

	(void)state;
	unpack_real(dir);

	db = fresh_db(tmp, "real-text.db");
	ingest_ok(db, "'%s/ftrace.txt'", dir);
	check_readme_figures(db);
	t = db_text(db, "SELECT format, records, events, unknown, malformed, "
			"lost_events, ncpus, word_size, hashed_ptrs, first_seq, "
			"last_seq, first_ts, last_ts FROM source");
	assert_string_equal(t, "ftrace-text,74452,74440,0,0,0,2,8,0,13,74452,"
			       "1778013467000,1779014714000\n");
	free(t);
	free(db);

	db = fresh_db(tmp, "real-hashed.db");
	ingest_ok(db, "'%s/hashed.txt'", dir);
	check_readme_figures(db);
	assert_int_equal(db_int(db, "SELECT hashed_ptrs FROM source"), 1);
	free(db);

	/* call sites through the kallsyms = the binary capture's */
	db = fresh_db(tmp, "real-bin.db");
	ingest_ok(db, "'%s/kt'", dir);
	s_bin = db_text(db, SITES_SQL);
	free(db);
	db = fresh_db(tmp, "real-ksyms.db");
	ingest_ok(db, "--kallsyms '%s/kallsyms' '%s/hashed.txt'", dir, dir);
	check_readme_figures(db);
	s_text = db_text(db, SITES_SQL);
	assert_true(strlen(s_bin) > 1000);
	assert_string_equal(s_bin, s_text);
	/* every symbolic site resolved */
	assert_int_equal(db_int(db, "SELECT count(*) FROM site WHERE "
				    "text IS NOT NULL AND addr IS NULL"), 0);
	free(s_bin);
	free(s_text);
	free(db);
	free(dir);
}

/* Malformed lines: warnings with line numbers; --strict: an error and
 * the database unchanged. */
static void test_malformed(void **state)
{
	char *db = fresh_db(tmp, "malformed.db"), *before, *after, *want;
	char *trace = path_in(env("TESTDATA"),
			      "succeed/ftrace-malformed/trace");
	char *good = path_in(env("TESTDATA"), "succeed/ftrace-2.6.30");
	struct run r;

	(void)state;
	run(&r, "'%s' ingest -d '%s' '%s'", env("MEMDB"), db, trace);
	assert_run_ok(&r);
	if (asprintf(&want,
		     "memdb: warning: '%s': line=4: not a trace line\n"
		     "memdb: warning: '%s': line=5: truncated kmalloc event "
		     "(no bytes_alloc=)\n"
		     "memdb: warning: '%s': line=6: truncated ptr= value in "
		     "kfree event (12 hex digits, the file's pointers have 16)\n"
		     "memdb: warning: '%s': line=7: truncated line (event name "
		     "cut short)\n"
		     "memdb: warning: '%s': line=8: bad bytes_req= value in "
		     "kmalloc event\n"
		     "memdb: warning: '%s': 7 malformed lines skipped\n",
		     trace, trace, trace, trace, trace, trace) < 0)
		fail();
	assert_string_equal(r.err, want);
	free(want);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT malformed FROM source"), 7);
	assert_int_equal(db_int(db, "SELECT events FROM source"), 2);

	/* strict: exit 1, the first malformed line named, nothing written */
	free(db);
	db = fresh_db(tmp, "strict.db");
	ingest_ok(db, "%s", good);
	before = db_counts(db);
	run(&r, "'%s' ingest --strict -d '%s' '%s'", env("MEMDB"), db, trace);
	after = db_counts(db);
	assert_run_status(&r, 1);
	if (asprintf(&want, "memdb: malformed line in '%s': line=4 not a trace "
			    "line\nmemdb: hint: without --strict, malformed "
			    "lines are counted and skipped\n", trace) < 0)
		fail();
	assert_string_equal(r.err, want);
	assert_string_equal(r.out, "");
	assert_string_equal(before, after);
	free(want);
	run_free(&r);
	/* --strict on a clean trace changes nothing */
	run(&r, "'%s' ingest -q --strict --force -d '%s' '%s'", env("MEMDB"),
	    db, good);
	assert_run_ok(&r);
	run_free(&r);
	free(before);
	free(after);
	free(good);
	free(trace);
	free(db);
}

/* kt-small by hand (tests/test_cli.c): the same figures from the
 * ftrace-era tracer files, 32-bit files with 32-bit call sites. */
static void test_ktf_fixtures(void **state)
{
	static const char csv64[] =
		"call_site,symbol,hits,bytes_req,bytes_alloc,waste,frag_pct\n"
		"0xffffffff81345678,??,2,400,512,112,21.875000\n"
		"0xffffffff81234567,??,3,130,160,30,18.750000\n"
		"0xffffffff81456789,??,2,110,128,18,14.062500\n"
		"total,,7,640,800,160,20.000000\n";
	static const char csv32[] =
		"call_site,symbol,hits,bytes_req,bytes_alloc,waste,frag_pct\n"
		"0x81345678,??,2,400,512,112,21.875000\n"
		"0x81234567,??,3,130,160,30,18.750000\n"
		"0x81456789,??,2,110,128,18,14.062500\n"
		"total,,7,640,800,160,20.000000\n";
	static const struct {
		const char *file, *order;
		int word;
	} fx[] = {
		{ "ktf-small-lp64-le.bin", "little", 8 },
		{ "ktf-small-lp64-be.bin", "big", 8 },
		{ "ktf-small-ilp32-le.bin", "little", 4 },
		{ "ktf-small-ilp32-be.bin", "big", 4 },
		{ "ktf-small-lp64-le-prefix.bin", "little", 8 },
		{ "ktf-small-ilp32-be-prefix.bin", "big", 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		char *db = fresh_db(tmp, "ktf.db"), *f, *t, want[128];
		struct run r;

		f = path_in(env("TESTDATA"), "succeed");
		t = path_in(f, fx[i].file);
		free(f);
		ingest_ok(db, "%s", t);
		free(t);
		run(&r, "'%s' report fragmentation -d '%s' --format csv",
		    env("MEMDB"), db);
		assert_run_ok(&r);
		assert_string_equal(r.out, fx[i].word == 8 ? csv64 : csv32);
		run_free(&r);
		/* as kt-small: seq:state:end_seq:free_cpu of each lifetime */
		t = db_text(db, "SELECT seq, state, end_seq, free_cpu, "
				"free_type FROM alloc ORDER BY seq");
		assert_string_equal(t, "1,1,4,1,0\n2,1,5,0,0\n3,2,6,,\n"
				       "6,1,16,1,1\n7,3,,,\n8,4,,,\n"
				       "12,1,13,0,2\n14,0,,,\n");
		free(t);
		t = db_text(db, "SELECT format, byte_order, word_size, ncpus, "
				"records, events, unknown, first_ts, last_ts "
				"FROM source");
		snprintf(want, sizeof(want), "kmemtrace-ftrace,%s,%d,2,16,15,1,"
			 "1000001000,1000016000\n", fx[i].order, fx[i].word);
		assert_string_equal(t, want);
		free(t);
		free(db);
	}
}

/* A capture directory with its kallsyms; --page-size; --format. */
static void test_options(void **state)
{
	char *db = fresh_db(tmp, "opts.db"), *t;
	char *d618 = path_in(env("TESTDATA"), "succeed/ftrace-6.18");
	char *d232 = path_in(env("TESTDATA"), "succeed/ftrace-2.6.32");
	char *tr232 = path_in(d232, "trace");
	struct run r;

	(void)state;
	/* the directory's kallsyms resolves its call sites */
	ingest_ok(db, "%s", d618);
	t = db_text(db, "SELECT printf('%x', addr), text FROM site "
			"ORDER BY id LIMIT 2");
	assert_string_equal(t, "ffffffff810c8b8a,copy_process+0x18a/0x1c80\n"
			       "ffffffff8140003b,lsm_blob_alloc+0x3b/0x60\n");
	free(t);
	assert_int_equal(db_int(db, "SELECT lost_events FROM source"), 1234);
	assert_int_equal(db_int(db, "SELECT ncpus FROM source"), 2);

	/* --page-size: 64 KiB pages, orders 0, 2, 3 */
	free(db);
	db = fresh_db(tmp, "pages.db");
	run(&r, "'%s' ingest -q --page-size 65536 -d '%s' '%s'", env("MEMDB"),
	    db, tr232);
	assert_run_ok(&r);
	run_free(&r);
	t = db_text(db, "SELECT state, bytes_alloc FROM alloc WHERE type = 2 "
			"ORDER BY seq");
	assert_string_equal(t, "1,65536\n1,262144\n3,524288\n");
	free(t);
	run(&r, "'%s' ingest --page-size 1000 -d '%s' '%s'", env("MEMDB"), db,
	    tr232);
	assert_run_status(&r, 2);
	assert_non_null(strstr(r.err, "--page-size"));
	run_free(&r);

	/* --format: forced, refused when it does not fit, unknown names */
	run(&r, "'%s' ingest --format kmemtrace-ftrace -d '%s' '%s'",
	    env("MEMDB"), db, tr232);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "not a kmemtrace-ftrace input in"));
	run_free(&r);
	run(&r, "'%s' ingest -q --force --format ftrace-text -d '%s' '%s'",
	    env("MEMDB"), db, tr232);
	assert_run_ok(&r);
	run_free(&r);
	run(&r, "'%s' ingest --format gzip -d '%s' '%s'", env("MEMDB"), db,
	    tr232);
	assert_run_status(&r, 2);
	run_free(&r);
	/* a kallsyms that is not there */
	run(&r, "'%s' ingest --kallsyms /nonexistent -d '%s' '%s'",
	    env("MEMDB"), db, d618);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "/nonexistent"));
	run_free(&r);
	free(tr232);
	free(d232);
	free(d618);
	free(db);
}

/*
 * An ftrace trace of the stacktrace trigger (testdata/real-ftrace-stacks):
 * the stacks report equals tests/fold_ftrace.py's folding of the text,
 * stack traces of two CPUs interleaved in it; each task is named.
 */
static void test_ftrace_stacks(void **state)
{
	char *db = fresh_db(tmp, "stacks.db"), *got, *want;
	const char *fx = env("TESTDATA");

	(void)state;
	ingest_ok(db, "--kallsyms '%s/real-ftrace-stacks/kallsyms' "
		      "'%s/real-ftrace-stacks/trace.zst'", fx, fx);
	free(out_of("'%s' symbolize -q -d '%s' --kallsyms "
		    "'%s/real-ftrace-stacks/kallsyms'", env("MEMDB"), db, fx));
	got = out_of("'%s' report stacks -d '%s'", env("MEMDB"), db);
	want = out_of("zstd -dc '%s/real-ftrace-stacks/trace.zst' | "
		      "python3 '%s/fold_ftrace.py'", fx, env("TESTS_DIR"));
	assert_true(strlen(want) > 1000);
	assert_string_equal(got, want);
	free(got);
	free(want);
	got = out_of("'%s' report callsites --by comm -d '%s' --format csv "
		     "| cut -d, -f1,2", env("MEMDB"), db);
	assert_string_equal(got, "comm,hits\nls,291\ntotal,291\n");
	free(got);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_identical),
		cmocka_unit_test(test_real_text),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_ktf_fixtures),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_ftrace_stacks),
	};

	return cmocka_run_group_tests_name("memdb ingest of ftrace inputs",
					   tests, setup_all, teardown_all);
}
