// SPDX-License-Identifier: MIT
/*
 * `memdb report summary` gives the figures of `perf kmem stat` as perf
 * counts them, on the real captures of testdata/real-perf/ (see its
 * README):
 *   - "Cross CPU allocations: X/Y": X is cross_cpu_allocations (plus
 *     allocations_on_unmapped_cpus, node -1 to perf), by the CPU-to-node
 *     map the perf.data header records (HEADER_NUMA_TOPOLOGY), Y the
 *     allocations; against perf's saved outputs, perf run here, and with
 *     other topologies written into copies of a capture in both byte
 *     orders (tests/perf_to_be.py --numa), against perf run under the same
 *     topology (tests/perf_fake_numa.sh) and tests/perf_kmem_replay.py;
 *     'unknown' only where the capture records none (perf script text,
 *     kmemtrace) and no --cpu-node is given; a topology that cannot be
 *     read is warned about and leaves the figure unknown;
 *   - perf's "Total bytes freed", "Net total bytes allocated" and the
 *     ping-pong of its --caller table: memdb's own where they agree, else
 *     a row FIGURE_as_perf_kmem with perf's value and a note naming the
 *     frees perf counts that memdb does not (the suspect duplicate free of
 *     cg; in a copy of slab whose one allocation failed, the 1,758 NULL
 *     frees after it); the pairing's part of that on hand-made events.
 * Each test says what it skipped (no perf, no root for the topology).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../analysis/pair.h"
#include "../ingest/event.h"
#include "testlib.h"

static char *tmp;
static int have_perf, can_fake; /* perf runs; perf_fake_numa.sh works */

static const char *const stat_captures[] = { "slab", "cg", "lossy", "zrec" };
#define NSTAT (sizeof(stat_captures) / sizeof(stat_captures[0]))

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
	if (r.status)
		fail_msg("%s: status %d: %s", cmd, r.status, r.err);
	s = strdup(r.out);
	run_free(&r);
	free(cmd);
	return s;
}

/* The field @col (0 figure, 1 slab, 2 page, 3 note) of row @fig of a
 * summary CSV, malloc'd; NULL when there is no such row.  Only the note
 * may hold a comma, and it is the last field. */
static char *field(const char *csv, const char *fig, int col)
{
	char *key = strf("\n%s,", fig);
	const char *p = strstr(csv, key), *end;

	free(key);
	if (!p)
		return NULL;
	p++;
	for (int i = 0; i < col; i++)
		p = strchr(p, ',') + 1;
	end = col == 3 ? strchr(p, '\n') : strpbrk(p, ",\n");
	return strndup(p, (size_t)(end - p));
}

static int64_t ifield(const char *csv, const char *fig)
{
	char *v = field(csv, fig, 1), *end;
	int64_t n;

	if (!v)
		fail_msg("no row %s in:\n%s", fig, csv);
	n = strtoll(v, &end, 10);
	if (*end || end == v)
		fail_msg("row %s: '%s' is not a number", fig, v);
	free(v);
	return n;
}

/* A figure as perf counts it: FIGURE_as_perf_kmem where memdb shows one,
 * else memdb's own. */
static int64_t as_perf(const char *csv, const char *fig)
{
	char *name = strf("%s_as_perf_kmem", fig), *v = field(csv, name, 1);
	int64_t n = v ? ifield(csv, name) : ifield(csv, fig);

	free(v);
	free(name);
	return n;
}

/* "figure,value" lines (tests/perf_kmem.awk, tests/perf_kmem_replay.py):
 * the value of @fig as text, malloc'd. */
static char *kvs(const char *text, const char *fig)
{
	char *key = strf("%s,", fig);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, strlen(key))) {
			p += strlen(key);
			free(key);
			return strndup(p, strcspn(p, "\n"));
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	fail_msg("no %s in:\n%s", key, text);
	return NULL;
}

static int64_t kv(const char *text, const char *fig)
{
	char *v = kvs(text, fig);
	int64_t n = strtoll(v, NULL, 10);

	free(v);
	return n;
}

static char *summary(const char *db, const char *opts)
{
	return out_of("'%s' report summary -d '%s' --format csv %s 2>/dev/null",
		      env("MEMDB"), db, opts);
}

/* perf kmem stat's SUMMARY (a saved file or perf's output) and the
 * ping-pong of its --caller table, as "figure,value" lines. */
static char *perf_awk(const char *stat, const char *caller)
{
	return out_of("awk -f '%s/perf_kmem.awk' '%s' && awk -f "
		      "'%s/perf_kmem.awk' '%s' | awk -F, 'NF == 5 { s += $5 } "
		      "END { print \"pingpong,\" s + 0 }'", env("TESTS_DIR"),
		      stat, env("TESTS_DIR"), caller);
}

/*
 * memdb's summary @csv against perf's figures @perf: every SUMMARY line
 * and the --caller table's ping-pong as perf counts them, X and Y of
 * "Cross CPU allocations: X/Y" (the note says "perf kmem prints X/Y" too);
 * a row _as_perf_kmem exactly where memdb's own figure differs, its note
 * naming the frees.
 */
static void same_as_perf(const char *what, const char *csv, const char *perf)
{
	static const char *const figs[] = {
		"bytes_requested", "bytes_allocated", "bytes_wasted",
	};
	static const char *const shadowed[] = {
		"bytes_freed", "net_bytes_allocated", "pingpong",
	};
	int64_t x = ifield(csv, "cross_cpu_allocations") +
		    ifield(csv, "allocations_on_unmapped_cpus"),
		y = ifield(csv, "allocations");
	char *note = field(csv, "cross_cpu_allocations", 3),
	     *want = strf("perf kmem prints %lld/%lld", (long long)x,
			  (long long)y), *fr, *pf;

	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++)
		if (ifield(csv, figs[i]) != kv(perf, figs[i]))
			fail_msg("%s: %s memdb %lld, perf %lld", what, figs[i],
				 (long long)ifield(csv, figs[i]),
				 (long long)kv(perf, figs[i]));
	/* both print 6 decimals */
	fr = field(csv, "fragmentation_pct", 1);
	pf = kvs(perf, "fragmentation_pct");
	if (strcmp(fr, pf))
		fail_msg("%s: fragmentation memdb %s, perf %s", what, fr, pf);
	free(fr);
	free(pf);
	for (size_t i = 0; i < sizeof(shadowed) / sizeof(shadowed[0]); i++) {
		char *name = strf("%s_as_perf_kmem", shadowed[i]),
		     *row = field(csv, name, 1);
		int64_t own = ifield(csv, shadowed[i]);

		if (as_perf(csv, shadowed[i]) != kv(perf, shadowed[i]))
			fail_msg("%s: %s as perf counts %lld, perf %lld", what,
				 shadowed[i],
				 (long long)as_perf(csv, shadowed[i]),
				 (long long)kv(perf, shadowed[i]));
		/* the row is there exactly where memdb's figure differs */
		if (!row != (own == kv(perf, shadowed[i])))
			fail_msg("%s: row %s %s", what, name,
				 row ? "where memdb's figure is perf's" :
				       "missing");
		if (row) {
			char *n = field(csv, name, 3);

			assert_non_null(strstr(n, "perf kmem counts the "));
			free(n);
		}
		free(row);
		free(name);
	}
	if (x != kv(perf, "cross_cpu_allocations") ||
	    y != kv(perf, "allocations"))
		fail_msg("%s: cross CPU memdb %lld/%lld, perf %lld/%lld", what,
			 (long long)x, (long long)y,
			 (long long)kv(perf, "cross_cpu_allocations"),
			 (long long)kv(perf, "allocations"));
	if (!strstr(note, want))
		fail_msg("%s: cross_cpu_allocations note '%s', not '%s'",
			 what, note, want);
	free(want);
	free(note);
}

/* ---- the pairing: what perf counts beyond memdb's frees ------------------ */

struct pout {
	struct mdb_free bf[16];
	int nbf;
};

static int p_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	(void)ctx;
	(void)lt;
	return 0;
}

static int p_bad_free(void *ctx, const struct mdb_free *f)
{
	struct pout *o = ctx;

	assert_true(o->nbf < 16);
	o->bf[o->nbf++] = *f;
	return 0;
}

static void p_alloc(struct mdb_pair *p, int64_t seq, int cpu, int type,
		    uint64_t ptr, uint64_t size)
{
	struct mdb_lifetime lt = {
		.seq = seq, .ts = MDB_NO_TS, .ptr = ptr, .bytes_req = size,
		.bytes_alloc = size, .site_id = 1, .cpu = cpu, .node = -1,
		.type = (uint8_t)type,
	};

	assert_int_equal(mdb_pair_alloc(p, &lt), 0);
}

static void p_free(struct mdb_pair *p, int64_t seq, int cpu, int type,
		   uint64_t ptr)
{
	struct mdb_free f = {
		.seq = seq, .ts = MDB_NO_TS, .ptr = ptr, .site_id = 2,
		.cpu = cpu, .type = (uint8_t)type,
	};

	assert_int_equal(mdb_pair_free(p, &f), 0);
}

/* bad free @i: its class, whether perf counts it, bytes, ping-pong */
static void p_check(const struct pout *o, int i, int cls, int counted,
		    uint64_t bytes, int pingpong)
{
	assert_true(i < o->nbf);
	assert_int_equal(o->bf[i].class, cls);
	assert_int_equal(o->bf[i].perf_counted, counted);
	assert_int_equal(o->bf[i].perf_bytes, bytes);
	assert_int_equal(o->bf[i].perf_pingpong, pingpong);
}

/*
 * Hand-made events, the outcome written out from perf's rules: a second
 * free counts the pointer's latest ALLOC again (its bytes; a ping-pong,
 * its CPU being -1 after the first free), also after the address was
 * allocated again and freed; NULL frees after a failed ALLOC count it,
 * a ping-pong unless the first comes on the ALLOC's CPU; a NULL free with
 * no failed ALLOC, an unknown free and page frees are not counted.
 */
static void test_pairing(void **state)
{
	struct pout o = { .nbf = 0 };
	struct mdb_pair_ops ops = { &o, p_lifetime, p_bad_free };
	struct mdb_pair p;

	(void)state;
	mdb_pair_init(&p, &ops);
	p_free(&p, 1, 0, MDB_TYPE_KMALLOC, 0);          /* no failure yet */
	p_alloc(&p, 2, 0, MDB_TYPE_KMALLOC, 0x1000, 64);
	p_free(&p, 3, 0, MDB_TYPE_KMALLOC, 0x1000);
	p_free(&p, 4, 0, MDB_TYPE_CACHE, 0x1000);       /* suspect: 64 */
	p_free(&p, 5, 1, MDB_TYPE_KMALLOC, 0x1000);     /* again: 64 */
	p_alloc(&p, 6, 1, MDB_TYPE_CACHE, 0x1000, 128); /* record reused */
	p_alloc(&p, 7, 1, MDB_TYPE_KMALLOC, 0x2000, 32);
	p_free(&p, 8, 1, MDB_TYPE_CACHE, 0x1000);
	p_free(&p, 9, 1, MDB_TYPE_CACHE, 0x1000);       /* 128 */
	p_free(&p, 10, 0, MDB_TYPE_KMALLOC, 0x9000);    /* unknown */
	p_alloc(&p, 11, 1, MDB_TYPE_KMALLOC, 0, 96);    /* failed */
	p_free(&p, 12, 1, MDB_TYPE_KMALLOC, 0);         /* 96, same CPU */
	p_free(&p, 13, 1, MDB_TYPE_KMALLOC, 0);         /* 96, CPU -1 */
	p_alloc(&p, 14, 0, MDB_TYPE_PAGE, 0x40000, 4096);
	p_free(&p, 15, 0, MDB_TYPE_PAGE, 0x40000);
	p_free(&p, 16, 0, MDB_TYPE_PAGE, 0x40000);      /* pages: perf --page */
	p_free(&p, 17, 0, MDB_TYPE_PAGE, 0);
	p_check(&o, 0, MDB_FREE_NULL, 0, 0, 0);
	p_check(&o, 1, MDB_FREE_DUPLICATE_SUSPECT, 1, 64, 1);
	assert_int_equal(o.bf[1].prev_seq, 3);
	p_check(&o, 2, MDB_FREE_DUPLICATE_SUSPECT, 1, 64, 1);
	assert_int_equal(o.bf[2].prev_seq, 4);
	p_check(&o, 3, MDB_FREE_DUPLICATE_SUSPECT, 1, 128, 1);
	assert_int_equal(o.bf[3].prev_seq, 8);
	p_check(&o, 4, MDB_FREE_UNKNOWN, 0, 0, 0);
	p_check(&o, 5, MDB_FREE_NULL, 1, 96, 0);
	p_check(&o, 6, MDB_FREE_NULL, 1, 96, 1);
	p_check(&o, 7, MDB_FREE_DUPLICATE_SUSPECT, 0, 0, 0);
	p_check(&o, 8, MDB_FREE_NULL, 0, 0, 0);
	assert_int_equal(o.nbf, 9);
	assert_int_equal(mdb_pair_finish(&p), 0);
	mdb_pair_release(&p);
}

/* ---- against perf kmem stat ------------------------------------------- */

static char *tmp_file(const char *name, const char *suffix)
{
	char *base = strf("%s%s", name, suffix), *p = path_in(tmp, base);

	free(base);
	return p;
}

/* Saved: perf's figures as printed when the captures were made. */
static void test_saved(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSTAT; i++) {
		const char *c = stat_captures[i];
		char *db = tmp_file(c, ".db"), *csv = summary(db, ""),
		     *st = strf("%s/real-perf/%s.kmem-stat.txt",
				env("TESTDATA"), c),
		     *ca = strf("%s/real-perf/%s.kmem-caller.txt",
				env("TESTDATA"), c),
		     *perf = perf_awk(st, ca);

		same_as_perf(c, csv, perf);
		print_message("%s: memdb = perf kmem stat (saved): freed %lld, "
			      "net %lld, ping-pong %lld, cross CPU %lld/%lld\n",
			      c, (long long)kv(perf, "bytes_freed"),
			      (long long)kv(perf, "net_bytes_allocated"),
			      (long long)kv(perf, "pingpong"),
			      (long long)kv(perf, "cross_cpu_allocations"),
			      (long long)kv(perf, "allocations"));
		free(perf);
		free(ca);
		free(st);
		free(csv);
		free(db);
	}
	/* cg's one suspect duplicate free: the rows and their reason */
	{
		char *db = tmp_file("cg", ".db"), *csv = summary(db, ""),
		     *n = field(csv, "bytes_freed_as_perf_kmem", 3);

		assert_int_equal(ifield(csv, "duplicate_frees_suspect"), 1);
		assert_string_equal(n, "perf kmem counts the 1 suspect "
				       "duplicate free");
		assert_int_equal(ifield(csv, "bytes_freed_as_perf_kmem") -
				 ifield(csv, "bytes_freed"), 1024);
		assert_null(field(csv, "zzz", 1));
		free(n);
		free(csv);
		free(db);
	}
}

/* perf kmem stat and --caller stat run here on @data: "figure,value". */
static char *perf_live(const char *data, const char *numa)
{
	char *st = tmp_file("live", ".stat"), *ca = tmp_file("live", ".caller"),
	     *pre = numa ? strf("sh '%s/perf_fake_numa.sh' '%s' ",
				env("TESTS_DIR"), numa) : strf("%s", ""),
	     *out;

	free(out_of("%sperf kmem -i '%s' stat > '%s' 2>/dev/null && "
		    "%sperf kmem -i '%s' --caller stat > '%s' 2>/dev/null",
		    pre, data, st, pre, data, ca));
	out = perf_awk(st, ca);
	free(pre);
	free(ca);
	free(st);
	return out;
}

/*
 * perf run here: the four captures, and a copy of slab with one kmalloc
 * failed (tests/perf_fail_alloc.py), whose NULL frees perf counts; that
 * copy also against tests/perf_kmem_replay.py, with or without perf.
 */
static void test_live(void **state)
{
	char *fd = tmp_file("fail", ".data"), *fs = tmp_file("fail", ".script"),
	     *db = fresh_db(tmp, "fail.db"), *csv, *rp, *n;

	(void)state;
	free(out_of("python3 '%s/perf_fail_alloc.py' '%s/slab.data' "
		    "'%s/slab.script' '%s' '%s'", env("TESTS_DIR"), tmp, tmp,
		    fd, fs));
	ingest_ok(db, "'%s'", fd);
	csv = summary(db, "");
	rp = out_of("python3 '%s/perf_kmem_replay.py' '%s' --map '0:0 1:0'",
		    env("TESTS_DIR"), fs);
	same_as_perf("slab, one kmalloc failed (replay)", csv, rp);
	assert_int_equal(ifield(csv, "allocation_failures"), 1);
	n = field(csv, "pingpong_as_perf_kmem", 3);
	assert_string_equal(n, "perf kmem counts the 1758 NULL frees after "
			       "a failed or zero-size allocation");
	print_message("slab, one kmalloc failed: freed as perf %lld (memdb "
		      "%lld), ping-pong %lld (memdb %lld) = replay\n",
		      (long long)as_perf(csv, "bytes_freed"),
		      (long long)ifield(csv, "bytes_freed"),
		      (long long)as_perf(csv, "pingpong"),
		      (long long)ifield(csv, "pingpong"));
	if (!have_perf) {
		print_message("skipped perf run here: no perf\n");
		goto out;
	}
	for (size_t i = 0; i < NSTAT; i++) {
		char *data = strf("%s/%s.data", tmp, stat_captures[i]),
		     *d = tmp_file(stat_captures[i], ".db"),
		     *c = summary(d, ""), *perf = perf_live(data, NULL);

		same_as_perf(stat_captures[i], c, perf);
		free(perf);
		free(c);
		free(d);
		free(data);
	}
	{
		char *perf = perf_live(fd, NULL);

		same_as_perf("slab, one kmalloc failed (perf)", csv, perf);
		assert_int_equal(kv(perf, "bytes_freed"),
				 kv(rp, "bytes_freed"));
		free(perf);
	}
	print_message("the four captures and the failed copy: memdb = perf "
		      "kmem stat run here\n");
out:
	free(n);
	free(rp);
	free(csv);
	free(db);
	free(fs);
	free(fd);
}

/*
 * The header's topology in both byte orders, and other topologies written
 * into copies of slab: memdb's X/Y against the replay under that map, and
 * against perf run under it (the little-endian copies: perf 6.1 reads no
 * big-endian tracepoint data).  slab has 25 allocations asking for node 0,
 * 6 of them on CPU 1.
 */
static void test_topology(void **state)
{
	static const struct {
		const char *numa;  /* perf_to_be.py --numa; NULL the file's */
		const char *map;   /* the same as CPU:NODE */
		const char *json;  /* source.cpu_node */
		int64_t cross, unmapped;
	} t[] = {
		{ NULL, "0:0 1:0", "[[0,1,0]]", 0, 0 },
		{ "0:0 1:1", "0:0 1:1", "[[0,0,0],[1,1,1]]", 6, 0 },
		{ "0:1 1:0", "0:1 1:0", "[[0,0,1],[1,1,0]]", 19, 0 },
		{ "1:0", "0:1", "[[0,0,1]]", 19, 6 },
		{ "0:0-1 3:", "0:0 1:0", "[[0,1,0]]", 0, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *rp = out_of("python3 '%s/perf_kmem_replay.py' "
				  "'%s/slab.script' --map '%s'",
				  env("TESTS_DIR"), tmp, t[i].map);

		for (int be = 0; be < 2; be++) {
			char *data = tmp_file("topo", be ? ".be" : ".le"),
			     *db = fresh_db(tmp, "topo.db"), *csv, *what,
			     *json, *want,
			     *opt = t[i].numa ? strf("--numa '%s'", t[i].numa)
					      : strf("%s", "");

			free(out_of("python3 '%s/perf_to_be.py' '%s/slab.data' "
				    "'%s' %s %s", env("TESTS_DIR"), tmp, data,
				    be ? "" : "--little", opt));
			ingest_ok(db, "'%s'", data);
			what = strf("slab, %s, %s-endian", t[i].numa ?
				    t[i].numa : "its own topology",
				    be ? "big" : "little");
			json = db_text(db, "SELECT cpu_node FROM source");
			want = strf("\"%s\"\n", t[i].json);
			assert_string_equal(json, want);
			free(json);
			free(want);
			csv = summary(db, "");
			same_as_perf(what, csv, rp);
			assert_int_equal(ifield(csv, "cross_cpu_allocations"),
					 t[i].cross);
			assert_int_equal(ifield(csv,
						"allocations_on_unmapped_cpus"),
					 t[i].unmapped);
			if (!be && have_perf && can_fake) {
				char *perf = perf_live(data, t[i].map);

				same_as_perf(what, csv, perf);
				free(perf);
			}
			free(csv);
			free(what);
			free(opt);
			free(db);
			free(data);
		}
		free(rp);
	}
	print_message("cross CPU 0, 6, 19 and 25 (6 of them on a CPU in no "
		      "node) of 8550 by the topologies, both byte orders: "
		      "memdb = replay%s\n", have_perf && can_fake ?
		      " = perf run under them" : " (perf not run: no perf, "
		      "or no root for perf_fake_numa.sh)");
}

/*
 * A pipe (perf record -o -): its topology comes as a HEADER_FEATURE record
 * among the first records.  perf kmem does not read the pipe ("No slab
 * allocation events found"), so against the replay of its perf script.
 */
static void test_pipe(void **state)
{
	char *db = tmp_file("pipe", ".db"), *csv = summary(db, ""),
	     *json = db_text(db, "SELECT cpu_node FROM source"),
	     *rp = out_of("python3 '%s/perf_kmem_replay.py' '%s/pipe.script' "
			  "--map '0:0 1:0'", env("TESTS_DIR"), tmp);

	(void)state;
	assert_string_equal(json, "\"[[0,1,0]]\"\n");
	same_as_perf("pipe", csv, rp);
	free(rp);
	free(json);
	free(csv);
	free(db);
}

/*
 * Captures that record no topology: cross-CPU allocations are unknown,
 * with a note, unless --cpu-node gives the map; on a perf.data, --cpu-node
 * replaces the header's.
 */
static void test_no_topology(void **state)
{
	char *map = path_in(tmp, "cpu-node"), *db = fresh_db(tmp, "text.db"),
	     *kt = fresh_db(tmp, "kt.db"), *opt = strf("--cpu-node '%s'", map),
	     *csv, *n, *rp;
	FILE *f;

	(void)state;
	ingest_ok(db, "'%s/slab.script'", tmp);
	ingest_ok(kt, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	for (int i = 0; i < 2; i++) {
		csv = summary(i ? kt : db, "");
		n = field(csv, "cross_cpu_allocations", 3);
		assert_non_null(strstr(csv, "\ncross_cpu_allocations,unknown,"
					    "unknown,"));
		assert_non_null(strstr(csv, "\nallocations_on_unmapped_cpus,"
					    "unknown,unknown,\n"));
		assert_string_equal(n, "no CPU-to-node map of the traced "
				       "machine: --cpu-node FILE gives one");
		free(n);
		free(csv);
	}
	/* the text with a map given */
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("0 0\n1 1\n", f);
	assert_int_equal(fclose(f), 0);
	csv = summary(db, opt);
	rp = out_of("python3 '%s/perf_kmem_replay.py' '%s/slab.script' "
		    "--map '0:0 1:1'", env("TESTS_DIR"), tmp);
	same_as_perf("slab.script --cpu-node", csv, rp);
	assert_int_equal(ifield(csv, "cross_cpu_allocations"), 6);
	n = field(csv, "cross_cpu_allocations", 3);
	assert_string_equal(n, "perf kmem prints 6/8550 (map: --cpu-node)");
	free(n);
	free(rp);
	free(csv);
	/* --cpu-node replaces the perf.data header's map */
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("0 1\n1 0\n", f);
	assert_int_equal(fclose(f), 0);
	free(db);
	db = tmp_file("slab", ".db");
	csv = summary(db, opt);
	assert_int_equal(ifield(csv, "cross_cpu_allocations"), 19);
	free(csv);
	free(opt);
	free(kt);
	free(db);
	free(map);
}

/* A topology that cannot be read: warned, the figure unknown, the rest of
 * the capture read as before. */
static void test_bad_topology(void **state)
{
	static const struct {
		const char *opts;  /* perf_to_be.py's */
		const char *why;
	} t[] = {
		{ "--numa '0:0-1 1:1'", "a CPU in two nodes" },
		{ "--numa '0:3-1'", "a CPU range that runs backwards" },
		{ "--numa '0:0 1:x'", "a CPU list that is not numbers" },
		{ "--numa '0:0,,1'", "a CPU list that is not numbers" },
		{ "--numa '0:0 1:1' --numa-nr 3", "a node cut short" },
		{ "--numa '0:0' --numa-nr 100000",
		  "a node count that is cut short or not possible" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *data = tmp_file("bad", ".data"),
		     *db = fresh_db(tmp, "bad.db"), *csv;
		struct run r;

		free(out_of("python3 '%s/perf_to_be.py' '%s/slab.data' '%s' "
			    "--little %s", env("TESTS_DIR"), tmp, data,
			    t[i].opts));
		run_memdb(&r, db, "ingest '%s'", data);
		assert_int_equal(r.status, 0);
		if (!strstr(r.err, t[i].why) ||
		    !strstr(r.err, "NUMA topology not read") ||
		    !strstr(r.err, "cross-CPU allocations unknown"))
			fail_msg("%s: %s", t[i].opts, r.err);
		run_free(&r);
		assert_int_equal(db_int(db, "SELECT cpu_node IS NULL FROM "
					    "source"), 1);
		csv = summary(db, "");
		assert_non_null(strstr(csv, "\ncross_cpu_allocations,unknown,"));
		assert_int_equal(ifield(csv, "allocations"), 8550);
		free(csv);
		free(db);
		free(data);
	}
}

/* A source ingested before memdb kept perf's figures (schema 10's
 * columns NULL): the rows say unknown and why, not memdb's figures. */
static void test_old_source(void **state)
{
	char *db = path_in(tmp, "old.db"), *csv, *n;

	(void)state;
	free(out_of("cp '%s/cg.db' '%s' && sqlite3 '%s' 'UPDATE source SET "
		    "cpu_node = NULL, perf_frees = NULL, perf_freed_bytes = "
		    "NULL, perf_pingpong = NULL'", tmp, db, db));
	csv = summary(db, "");
	for (int i = 0; i < 3; i++) {
		static const char *const rows[] = {
			"bytes_freed_as_perf_kmem",
			"net_bytes_allocated_as_perf_kmem",
			"pingpong_as_perf_kmem",
		};
		char *v = field(csv, rows[i], 1);

		n = field(csv, rows[i], 3);
		assert_string_equal(v, "unknown");
		assert_non_null(strstr(n, "ingest it again with --force"));
		free(n);
		free(v);
	}
	assert_non_null(strstr(csv, "\ncross_cpu_allocations,unknown,"));
	free(csv);
	free(db);
}

/* ---- set up ------------------------------------------------------------ */

static int setup(void **state)
{
	static const char *const all[] = { "slab", "cg", "lossy", "zrec",
					   "pipe" };
	struct run r;

	(void)state;
	tmp = tmpdir("perf-figures");
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		char *db = tmp_file(all[i], ".db");

		free(out_of("cd '%s' && zstd -dqf '%s/real-perf/%s.data.zst' "
			    "-o %s.data && zstd -dqf "
			    "'%s/real-perf/%s.script.zst' -o %s.script", tmp,
			    env("TESTDATA"), all[i], all[i], env("TESTDATA"),
			    all[i], all[i]));
		ingest_ok(db, "'%s/%s.data'", tmp, all[i]);
		free(db);
	}
	run(&r, "perf kmem -i '%s/slab.data' stat", tmp);
	have_perf = r.status == 0 && strstr(r.out, "Cross CPU allocations");
	run_free(&r);
	run(&r, "sh '%s/perf_fake_numa.sh' '0:0' true", env("TESTS_DIR"));
	can_fake = r.status == 0;
	run_free(&r);
	if (!have_perf)
		print_message("perf kmem does not run here: perf's saved "
			      "figures and the replay only\n");
	else if (!can_fake)
		print_message("perf_fake_numa.sh cannot run (needs root): "
			      "perf not run under other topologies\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_saved),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_no_topology),
		cmocka_unit_test(test_bad_topology),
		cmocka_unit_test(test_old_source),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
