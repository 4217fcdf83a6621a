// SPDX-License-Identifier: MIT
/*
 * Every trace form on s390x (big-endian), i386 (32-bit) and arm64: the
 * real captures of testdata/arch/ARCH/ (each README says how they were
 * made in the architecture's own guest), held against the texts the
 * guest's own kernel, trace-cmd and perf printed, read by an
 * independent script (tests/kmem_events.py), never against memdb:
 *   - the tracefs copy, in memdb record's layout (header_page at the
 *     top) and as `cp -r` of tracefs lays it out (header_page and
 *     header_event under events/, the trace text beside): every event in
 *     order (kind, type, CPU, pointer, bytes) as the kernel's `trace`
 *     text of the same buffer prints it, hits and bytes per call site
 *     (named by the boot's kallsyms), page allocations per order and
 *     migratetype, slab allocations per task (tests/task_hits.awk); the
 *     byte order and word size of the architecture;
 *   - the kernel's `trace` text itself (s390x's kernel prints every
 *     gfp_flags= and name= empty: read as unknown, not malformed);
 *   - trace.dat v6 and v7-zstd against their `trace-cmd report` texts,
 *     and those texts;
 *   - perf kmem's slab and page perf.data against `perf script` (in time
 *     order: perf script prints a sample recorded out of order where it
 *     came), `perf kmem stat` and `--caller` (tests/perf_kmem.awk, as
 *     tests/test_perfdata.c), `perf kmem --page stat` where perf could
 *     read its file (not on arm64: libtraceevent cannot parse the page
 *     events' print fmt there), and the `perf script` texts.
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

#include "testlib.h"

static const struct arch {
	const char *name, *order;
	int word;
	/* libtraceevent cannot parse its page events' print fmt (and leaks
	 * on it when libtracecmd hands it the trace.dat's formats) */
	int tep_fails;
} arches[] = {
	{ "s390x", "big", 8, 0 },
	{ "i386", "little", 4, 0 },
	{ "arm64", "little", 8, 1 },
};
#define NARCH (sizeof(arches) / sizeof(arches[0]))

static char *tmp;

/* Every kmem event of a source in its order: what kmem_events.py
 * stream prints (a page's pointer is its pfn << 12). */
#define STREAM_SQL                                                         \
	"SELECT k, t, c, printf('%x', p), r, b FROM ("                     \
	"SELECT seq AS s, 'alloc' AS k, type AS t, cpu AS c, ptr AS p, "   \
	"bytes_req AS r, bytes_alloc AS b FROM alloc UNION ALL "           \
	"SELECT end_seq, 'free', free_type, free_cpu, ptr, '', '' FROM "   \
	"alloc WHERE state = 1 UNION ALL SELECT seq, 'free', type, cpu, "  \
	"ptr, '', '' FROM bad_free) ORDER BY s"

/* Hits and bytes per call site of the slab allocations, the site named
 * func+0xoff (without a module's " [name]"). */
#define SITES_SQL                                                          \
	"SELECT CASE WHEN instr(symbol, ' [') THEN substr(symbol, 1, "     \
	"instr(symbol, ' [') - 1) ELSE coalesce(symbol, call_site) END "   \
	"AS k, sum(hits), sum(bytes_req), sum(bytes_alloc) FROM "          \
	"v_callsites WHERE type <> 'page' GROUP BY k ORDER BY k"

/* Output of a shell command line that must succeed. */
static char *out_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *out_of(const char *fmt, ...)
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

static char *fixture(const struct arch *a, const char *name)
{
	return strf("%s/arch/%s/%s", env("TESTDATA"), a->name, name);
}

/* @name in the architecture's directory under tmp. */
static char *work(const struct arch *a, const char *name)
{
	return strf("%s/%s/%s", tmp, a->name, name);
}

/*
 * The references read so far, by architecture, mode and text: several
 * sources of one architecture are held against the same text (the
 * tracefs copy in two layouts and the kernel's text against trace.txt,
 * a trace.dat and its report against the report), read once.
 */
static struct ref {
	char *key, *out;
	struct ref *next;
} *refs;

static void free_refs(void)
{
	while (refs) {
		struct ref *r = refs;

		refs = r->next;
		free(r->key);
		free(r->out);
		free(r);
	}
}

/*
 * Per architecture: top/ (memdb's layout) and tracefs/ (tracefs's: the
 * page layout under events/ only, the trace text beside as `trace`) with
 * their raw pages decompressed; the kallsyms and the texts decompressed.
 */
static int setup(void **state)
{
	(void)state;
	tmp = tmpdir("arch");
	for (size_t i = 0; i < NARCH; i++) {
		const struct arch *a = &arches[i];
		char *fix = fixture(a, ""), *w = work(a, "");

		free(out_of(
			"set -e; mkdir -p '%s'; cd '%s'; "
			"cp -r '%s/tracefs' top; rm top/trace.txt.zst; "
			"for c in top/per_cpu/cpu*; do zstd -dqf --rm "
			"$c/trace_pipe_raw.zst; done; cp -r top tracefs; "
			"rm tracefs/header_page tracefs/header_event; "
			"test -f tracefs/events/header_page; "
			"zstd -dqf '%s/tracefs/trace.txt.zst' -o trace.txt; "
			"cp trace.txt tracefs/trace; "
			"zstd -dqf '%s/kallsyms.zst' -o kallsyms; "
			"for t in v6 v7-zstd; do zstd -dqf '%s/tracedat/'$t.txt.zst"
			" -o $t.txt; done; "
			"for t in slab page; do zstd -dqf '%s/perf/'$t.script.zst "
			"-o $t.script; done", w, w, fix, fix, fix, fix, fix));
		free(fix);
		free(w);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free_refs();
	free(tmp);
	return 0;
}

#define WITH_KALLSYMS 1
#define LIB_LEAKS 2 /* libtraceevent leaks on the file's formats */

/* Ingest @input (WITH_KALLSYMS: with the boot's kallsyms) and name the
 * call sites with the boot's whole kallsyms: the database's path. */
static char *ingest(const struct arch *a, const char *tag, const char *input,
		    int flags)
{
	char *name = strf("%s-%s.db", a->name, tag), *db = fresh_db(tmp, name);
	char *k = work(a, "kallsyms");
	char *ks = flags & WITH_KALLSYMS ? strf("--kallsyms '%s' ", k) :
					   strf("%s", "");
	struct run r;

	if (flags & LIB_LEAKS)
		run(&r, "LSAN_OPTIONS=suppressions='%s/libtraceevent.lsan' "
			"'%s' ingest -q %s'%s' -d '%s'", env("TESTS_DIR"),
		    env("MEMDB"), ks, input, db);
	else
		run_memdb(&r, db, "ingest -q %s'%s'", ks, input);
	assert_run_ok_msg(&r, "ingest %s", input);
	run_free(&r);
	run_memdb(&r, db, "symbolize -q --kallsyms '%s'", k);
	assert_run_ok_msg(&r, "symbolize %s", input);
	run_free(&r);
	free(ks);
	free(k);
	free(name);
	return db;
}

/*
 * The source's format, byte order (when @order: the architecture's),
 * word size (when @word: the architecture's; perf.data and texts with
 * 0x pointers do not tell it) and CPUs, and that no line or record of it
 * was skipped.
 */
static void check_source(const struct arch *a, const char *db,
			 const char *format, int order, int word)
{
	char *want = strf("%s,%s,%s,2,0,0\n", format, order ? a->order : "",
			  word ? (a->word == 4 ? "4" : "8") : "");
	char *got = db_text(db, "SELECT format, coalesce(byte_order, ''), "
				"coalesce(word_size, ''), ncpus, malformed, "
				"unknown FROM source");

	if (strcmp(got, want))
		fail_msg("%s %s: source %s, expected %s", a->name, format, got,
			 want);
	free(got);
	free(want);
}

/* kmem_events.py @mode over the text @text of architecture @a. */
static char *reference(const struct arch *a, const char *mode,
		       const char *text)
{
	char *key = strf("%s %s %s", a->name, mode, text), *t, *k;
	struct ref *r;

	for (r = refs; r; r = r->next)
		if (!strcmp(r->key, key)) {
			free(key);
			return strdup(r->out);
		}
	t = work(a, text);
	k = work(a, "kallsyms");
	r = malloc(sizeof(*r));
	assert_non_null(r);
	r->key = key;
	r->out = out_of("python3 '%s/kmem_events.py' %s%s%s < '%s'",
			env("TESTS_DIR"), mode,
			strcmp(mode, "sites") ? "" : " ",
			strcmp(mode, "sites") ? "" : k, t);
	r->next = refs;
	refs = r;
	free(k);
	free(t);
	return strdup(r->out);
}

/* @got equals @want (longer than @min bytes); else the first line that
 * differs, not 20,000 of them. */
static void same(const char *what, const char *got, const char *want,
		 size_t min)
{
	size_t i = 0, start = 0, line = 1;

	if (strcmp(got, want)) {
		while (got[i] && got[i] == want[i])
			if (got[i++] == '\n') {
				line++;
				start = i;
			}
		fail_msg("%s: line %zu differs:\nmemdb: %.*s\nguest: %.*s",
			 what, line, (int)strcspn(got + start, "\n"),
			 got + start, (int)strcspn(want + start, "\n"),
			 want + start);
	}
	assert_true(strlen(want) > min);
}

/* Every event in order, as kmem_events.py reads @text (@bytime: in time
 * order). */
static void same_stream(const struct arch *a, const char *db,
			const char *text, int bytime, const char *what)
{
	char *got = db_text(db, STREAM_SQL);
	char *want = reference(a, bytime ? "stream --by-time" : "stream", text);
	char *m = strf("%s %s: events", a->name, what);

	same(m, got, want, 10000);
	free(m);
	free(got);
	free(want);
}

static void same_sites(const struct arch *a, const char *db, const char *text,
		       const char *what)
{
	char *got = db_text(db, SITES_SQL);
	char *want = reference(a, "sites", text);
	char *m = strf("%s %s: call sites", a->name, what);

	same(m, got, want, 500);
	free(m);
	free(got);
	free(want);
}

/* memdb report pages' order x migratetype table. */
static void same_pages(const struct arch *a, const char *db, const char *text,
		       const char *what)
{
	char *got = out_of("'%s' report pages -d '%s' --format csv | awk -F, "
			   "'$1 ~ /^[0-9]+$/ { print \"order_\" $1 \",\" $2 "
			   "\",\" $3 \",\" $4 \",\" $5 \",\" $6 }'",
			   env("MEMDB"), db);
	char *want = reference(a, "pages", text);
	char *m = strf("%s %s: pages", a->name, what);

	/* memdb's columns: unmovable, movable, reclaimable, highatomic
	 * (migratetypes 0 to 3 of 6.1), other */
	same(m, got, want, 100);
	free(m);
	free(got);
	free(want);
}

/* Slab allocations per comm and per pid: tests/task_hits.awk's count of
 * @text (a `trace` or `trace-cmd report` text). */
static void same_tasks(const struct arch *a, const char *db, const char *text,
		       const char *what)
{
	static const char *const by[] = { "comm", "pid" };
	char *t = work(a, text);

	for (size_t i = 0; i < 2; i++) {
		char *got = out_of("'%s' report callsites --by %s --top 0 "
				   "--format csv -d '%s' | awk -F, 'NR > 1 && "
				   "$1 != \"total\" { print $1 \",\" $2 }' | "
				   "LC_ALL=C sort", env("MEMDB"), by[i], db);
		char *want = out_of("awk -v by=%s -f '%s/task_hits.awk' '%s' | "
				    "LC_ALL=C sort", by[i], env("TESTS_DIR"),
				    t);
		char *m = strf("%s %s: hits by %s", a->name, what, by[i]);

		same(m, got, want, 20);
		free(m);
		free(got);
		free(want);
	}
	free(t);
}

/* The tracefs copy in both layouts: the kernel's own text of the buffer. */
static void test_tracefs(void **state)
{
	static const char *const layouts[] = { "top", "tracefs" };

	(void)state;
	for (size_t i = 0; i < NARCH; i++) {
		const struct arch *a = &arches[i];

		for (size_t l = 0; l < 2; l++) {
			char *dir = work(a, layouts[l]);
			char *db = ingest(a, layouts[l], dir, 0);

			check_source(a, db, "tracefs", 1, 1);
			same_stream(a, db, "trace.txt", 0, layouts[l]);
			same_sites(a, db, "trace.txt", layouts[l]);
			same_pages(a, db, "trace.txt", layouts[l]);
			same_tasks(a, db, "trace.txt", layouts[l]);
			print_message("%s %s: %lld events as the kernel's "
				      "trace text\n", a->name, layouts[l],
				      (long long)db_int(db, "SELECT events "
							"FROM source"));
			free(db);
			free(dir);
		}
	}
}

/*
 * The kernel's `trace` text: every line read.  s390x's kernel prints
 * gfp_flags= and kmem_cache_free's name= empty: the flags are unknown
 * (no number, no name), the events read; elsewhere every allocation
 * has its symbolic flags.
 */
static void test_kernel_text(void **state)
{
	(void)state;
	for (size_t i = 0; i < NARCH; i++) {
		const struct arch *a = &arches[i];
		char *t = work(a, "trace.txt");
		char *db = ingest(a, "text", t, WITH_KALLSYMS);
		int64_t gfp = db_int(db, "SELECT count(gfp_id) + count(gfp) "
					 "FROM alloc");

		check_source(a, db, "ftrace-text", 0, 1);
		same_stream(a, db, "trace.txt", 0, "trace text");
		same_sites(a, db, "trace.txt", "trace text");
		same_pages(a, db, "trace.txt", "trace text");
		same_tasks(a, db, "trace.txt", "trace text");
		if (!strcmp(a->name, "s390x"))
			assert_int_equal(gfp, 0);
		else
			assert_int_equal(gfp, db_int(db, "SELECT count(*) "
							 "FROM alloc"));
		free(db);
		free(t);
	}
}

/* trace.dat v6 and v7-zstd and their trace-cmd report texts. */
static void test_tracedat(void **state)
{
	static const char *const files[][2] = {
		{ "tracedat/v6.dat.zst", "v6.txt" },
		{ "tracedat/v7-zstd.dat", "v7-zstd.txt" },
	};

	(void)state;
	for (size_t i = 0; i < NARCH; i++) {
		const struct arch *a = &arches[i];

		for (size_t f = 0; f < 2; f++) {
			char *bin = fixture(a, files[f][0]);
			char *text = work(a, files[f][1]);
			char *db = ingest(a, "dat", bin,
					  a->tep_fails ? LIB_LEAKS : 0);
			char *tdb = ingest(a, "report", text, WITH_KALLSYMS);

			check_source(a, db, "trace-dat", 1, 1);
			same_stream(a, db, files[f][1], 0, files[f][0]);
			same_sites(a, db, files[f][1], files[f][0]);
			same_tasks(a, db, files[f][1], files[f][0]);
			check_source(a, tdb, "ftrace-text", 0, 0);
			same_stream(a, tdb, files[f][1], 0, files[f][1]);
			same_sites(a, tdb, files[f][1], files[f][1]);
			free(tdb);
			free(db);
			free(text);
			free(bin);
		}
	}
}

/*
 * perf counts a free of a pointer whose last traced allocation was
 * already freed again (tests/test_perfdata.c says more): perf's extra
 * counts, from memdb's own rows.
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

/* perf kmem's figures of @file, by tests/perf_kmem.awk. */
static char *perf_figures(const struct arch *a, const char *file,
			  const char *filter)
{
	char *f = fixture(a, file);
	char *s = out_of("awk -f '%s/perf_kmem.awk' '%s' | %s",
			 env("TESTS_DIR"), f, filter);

	free(f);
	return s;
}

/* perf kmem stat's SUMMARY and perf kmem --caller stat's table. */
static void perf_slab(const struct arch *a, const char *db)
{
	int64_t dup = db_int(db, DUP_WITH "SELECT coalesce(sum(" LAST_ALLOC(
				     "a.bytes_alloc") "), 0) " DUP_FREE);
	char *dups = work(a, "dups"), *want, *got, *m;

	/* the guest had no NUMA map perf could read: perf printed 0 cross-CPU
	 * allocations of all of them, which memdb calls unknown; perf 6.1
	 * prints no net total */
	want = perf_figures(a, "perf/slab.kmem-stat.txt",
			    "grep -v 'samples_with_lost\\|cross_cpu' | sort");
	got = out_of("'%s' report summary -d '%s' --format csv | "
		     "awk -F, -v dup=%lld '$1 == \"bytes_freed\" { $2 += dup } "
		     "$1 ~ /^(allocations|bytes_(requested|allocated|freed|"
		     "wasted)|fragmentation_pct)$/ "
		     "{ print $1 \",\" $2 }' | sort", env("MEMDB"), db,
		     (long long)dup);
	m = strf("%s perf kmem stat", a->name);
	same(m, got, want, 100);
	free(m);
	free(want);
	free(got);
	free(out_of("'%s' sql -d '%s' -f csv \"" DUP_WITH "SELECT " LAST_ALLOC(
			    "printf('0x%%x', s.addr)") " " DUP_FREE "\" | "
		    "tail -n +2 > '%s'", env("MEMDB"), db, dups));
	want = perf_figures(a, "perf/slab.kmem-caller.txt",
			    "awk -F, 'NF == 5' | LC_ALL=C sort");
	/* a site perf could not name (s390x: one in the 9pnet module) it
	 * prints as its address: memdb's address there */
	got = out_of("printf '%%s' '%s' | awk -F, '$1 ~ /^0x/ { print $1 }' > "
		     "'%s.addr' && '%s' report callsites -d '%s' --top 0 "
		     "--format csv | awk -F, 'FILENAME == ARGV[1] { n[$1]++; "
		     "next } FILENAME == ARGV[2] { addr[$1]; next } "
		     "FNR > 1 && $1 != \"total\" && $3 > 0 { "
		     "sub(/ \\[.*\\]$/, \"\", $2); if ($1 in addr) $2 = $1; "
		     "print $2 \",\" $3 \",\" $4 \",\" $5 \",\" $10 + n[$1] }' "
		     "'%s' '%s.addr' - | LC_ALL=C sort", want, dups,
		     env("MEMDB"), db, dups, dups);
	m = strf("%s perf kmem --caller stat", a->name);
	same(m, got, want, 300);
	free(m);
	free(want);
	free(got);
	free(dups);
}

/* perf kmem --page stat's SUMMARY and order x migratetype table. */
static void perf_page(const struct arch *a, const char *db)
{
	char *want = perf_figures(a, "perf/page.kmem-page.txt",
				  "LC_ALL=C sort");
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
	char *m = strf("%s perf kmem --page stat", a->name);

	same(m, got, want, 200);
	free(m);
	free(want);
	free(got);
}

/* perf kmem's slab and page captures and their perf script texts. */
static void test_perf(void **state)
{
	(void)state;
	for (size_t i = 0; i < NARCH; i++) {
		const struct arch *a = &arches[i];
		char *slab = fixture(a, "perf/slab.data.zst");
		char *page = fixture(a, "perf/page.data.zst");
		char *st = work(a, "slab.script"), *pt = work(a, "page.script");
		char *sdb = ingest(a, "slab", slab, 0);
		char *pdb = ingest(a, "page", page, 0);
		char *stdb = ingest(a, "slab-text", st, WITH_KALLSYMS);
		char *ptdb = ingest(a, "page-text", pt, WITH_KALLSYMS);
		char *kp = fixture(a, "perf/page.kmem-page.txt");
		struct stat sb;

		check_source(a, sdb, "perf-data", 1, 0);
		check_source(a, pdb, "perf-data", 1, 0);
		same_stream(a, sdb, "slab.script", 1, "perf slab.data");
		same_sites(a, sdb, "slab.script", "perf slab.data");
		same_stream(a, pdb, "page.script", 1, "perf page.data");
		same_pages(a, pdb, "page.script", "perf page.data");
		perf_slab(a, sdb);
		if (stat(kp, &sb) == 0 && sb.st_size > 0)
			perf_page(a, pdb);
		else
			print_message("%s: perf kmem --page stat printed "
				      "nothing (perf/page.kmem-page.err): "
				      "perf script's page events only\n",
				      a->name);
		/* the texts in their own order (docs/formats.md §3.1) */
		same_stream(a, stdb, "slab.script", 0, "perf slab.script");
		same_sites(a, stdb, "slab.script", "perf slab.script");
		same_stream(a, ptdb, "page.script", 0, "perf page.script");
		same_pages(a, ptdb, "page.script", "perf page.script");
		free(kp);
		free(ptdb);
		free(stdb);
		free(pdb);
		free(sdb);
		free(pt);
		free(st);
		free(page);
		free(slab);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracefs),
		cmocka_unit_test(test_kernel_text),
		cmocka_unit_test(test_tracedat),
		cmocka_unit_test(test_perf),
	};

	return cmocka_run_group_tests_name("trace forms of s390x, i386, arm64",
					   tests, setup, teardown);
}
