// SPDX-License-Identifier: MIT
/*
 * Tables that fit the terminal (cli/render.c): every canned report (each
 * .sql file, variants too) and memdb sources, on real captures (the
 * perf.data slab and page captures of testdata/real-perf, the kernel core
 * dump of testdata/vmcore, allocinfo and slabinfo snapshots of
 * testdata/succeed), run under a 100-column pseudo-terminal (script(1)):
 *   - no line is wider than 100 columns (display width, by wcwidth(3));
 *   - the columns shown, those a line under the table says were left out
 *     to fit, and those empty in every row are together the CSV's
 *     columns; those left out are the report's `-- drop:` columns;
 *   - --wide shows every column the CSV has; a pipe gets every column
 *     but the empty ones, and without empty ones exactly the --wide
 *     table (nothing cut, nothing wrapped);
 *   - $COLUMNS fits a pipe as a terminal of that width; a terminal that
 *     does not say its width gets 80.
 * Task ids and CPUs print without digit grouping, text of wide
 * characters stays aligned (a trace written here), and the zones report
 * of the core dump shows no empty column and an unused_pct that agrees
 * with the row's free objects, checked against the guest's own
 * /proc/slabinfo and drgn's count of allocated objects (testdata/vmcore).
 */
#include <setjmp.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <cmocka.h>

#include "../report/queries.h"
#include "testlib.h"

/* The sources of db, in the order setup() ingests them. */
enum { SRC_SLAB = 1, SRC_PAGE, SRC_CORE, SRC_T0, SRC_T1, SRC_SLABINFO };

#define COLS 100

static char *dir, *db;

static int setup(void **state)
{
	struct run r;
	const char *td = env("TESTDATA");
	char *ks;

	(void)state;
	dir = tmpdir("fit");
	db = fresh_db(dir, "fit.db");
	ks = path_in(dir, "nokaslr.kallsyms");
	run(&r, "zstd -dqfc '%s/vmcore/nokaslr.kallsyms.zst' > '%s'", td, ks);
	assert_int_equal(r.status, 0);
	run_free(&r);
	ingest_ok(db, "'%s/real-perf/slab.data.zst'", td);
	run_memdb(&r, db, "symbolize -q --source %d --kallsyms "
		  "'%s/real-perf/kallsyms'", SRC_SLAB, td);
	assert_int_equal(r.status, 0);
	run_free(&r);
	ingest_ok(db, "'%s/real-perf/page.data.zst'", td);
	ingest_ok(db, "--kallsyms '%s' '%s/vmcore/nokaslr.kdump'", ks, td);
	ingest_ok(db, "--label box --time 1000 "
		  "'%s/succeed/snapshots/allocinfo-t0.txt'", td);
	ingest_ok(db, "--label box --time 2000 "
		  "'%s/succeed/snapshots/allocinfo-t1.txt'", td);
	ingest_ok(db, "'%s/succeed/snapshots/slabinfo-noheader.txt'", td);
	free(ks);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(db);
	free(dir);
	return 0;
}

/* ---- running memdb ---------------------------------------------------- */

/* @s without its carriage returns (a terminal's line ends). */
static char *no_cr(const char *s)
{
	char *t = strdup(s), *o = t;

	assert_non_null(t);
	for (; *s; s++)
		if (*s != '\r')
			*o++ = *s;
	*o = '\0';
	return t;
}

/* stdout of "memdb ARGS" on a terminal @cols wide (0: one that does not
 * say), $COLUMNS unset; exit status 0. */
static char *on_tty(int cols, const char *args)
{
	struct run r;
	char *out;

	run(&r, "script -qec \"stty cols %d rows 50 && exec env -u COLUMNS "
	    "'%s' %s\" /dev/null", cols, env("MEMDB"), args);
	if (r.status)
		fail_msg("memdb %s on a terminal: status %d: %s%s", args,
			 r.status, r.out, r.err);
	out = no_cr(r.out);
	run_free(&r);
	return out;
}

/* stdout of "@envs memdb ARGS" into a pipe; exit status 0. */
static char *on_pipe(const char *envs, const char *args)
{
	struct run r;
	char *out;

	run(&r, "env -u COLUMNS %s '%s' %s", envs, env("MEMDB"), args);
	if (r.status)
		fail_msg("memdb %s: status %d: %s", args, r.status, r.err);
	out = strdup(r.out);
	run_free(&r);
	return out;
}

/* ---- reading what it printed ------------------------------------------ */

/* The widest line of @s in terminal columns, escape sequences skipped. */
static size_t widest(const char *s)
{
	size_t best = 0, w = 0;
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (*s) {
		wchar_t wc;
		size_t n;
		int cw;

		if (*s == '\n') {
			w = 0;
			s++;
			continue;
		}
		if (*s == '\033') { /* CSI: ESC [ ... final byte */
			s += s[1] == '[' ? 2 : 1;
			while (*s && (*s < 0x40 || *s > 0x7e))
				s++;
			s += *s != '\0';
			continue;
		}
		n = mbrtowc(&wc, s, strlen(s), &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&st, 0, sizeof(st));
			n = 1;
			cw = 1;
		} else {
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
		}
		s += n;
		w += (size_t)cw;
		if (w > best)
			best = w;
	}
	return best;
}

#define MAXCOL 64

/* A list of column names. */
struct names {
	int n;
	char v[MAXCOL][64];
};

static void names_add(struct names *l, const char *s, size_t n)
{
	assert_true(l->n < MAXCOL && n < sizeof(l->v[0]));
	memcpy(l->v[l->n], s, n);
	l->v[l->n++][n] = '\0';
}

static int names_has(const struct names *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

/* Line @i of @s (0 first) as a malloc'ed string; NULL past the end. */
static char *line_at(const char *s, int i)
{
	for (; i > 0 && s; i--) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	return s && *s ? strndup(s, strcspn(s, "\n")) : NULL;
}

/* A rule line: dashes alone. */
static int is_rule(const char *l)
{
	return strlen(l) >= 3 && strspn(l, "-") == strlen(l);
}

/*
 * The table of @out: its header's names into @head, and the names the
 * line "left out to fit N columns: a, b (--wide shows them)" (wrapped
 * or not) gives into @left; 1 when there is such a line.
 */
static int read_table(const char *out, struct names *head,
		      struct names *left)
{
	char *l, *note, *p, *end, *save = NULL;
	int i;

	head->n = left->n = 0;
	for (i = 1; (l = line_at(out, i)) && !is_rule(l); i++)
		free(l);
	if (!l)
		fail_msg("no table in:\n%s", out);
	free(l);
	l = line_at(out, i - 1);
	for (p = l; *(p += strspn(p, " ")); p += strcspn(p, " "))
		names_add(head, p, strcspn(p, " "));
	free(l);
	p = strstr(out, "\nleft out to fit ");
	if (!p)
		return 0;
	/* the note, its continuation lines joined by a blank */
	note = strndup(p + 1, strcspn(p + 1, ")") + 1);
	assert_non_null(note);
	for (char *c = note; (c = strchr(c, '\n'));) {
		size_t sp = strspn(c + 1, " ");

		*c = ' ';
		memmove(c + 1, c + 1 + sp, strlen(c + 1 + sp) + 1);
	}
	end = strstr(note, " (--wide shows them)");
	p = strchr(note, ':');
	if (!end || !p)
		fail_msg("note without --wide: %s", note);
	*end = '\0';
	for (char *t = strtok_r(p + 1, ", ", &save); t;
	     t = strtok_r(NULL, ", ", &save))
		names_add(left, t, strlen(t));
	free(note);
	return 1;
}

/* A CSV (RFC 4180) parsed: rows of fields. */
struct csv {
	int nrows, ncols;  /* ncols: the header's */
	char ***rows;      /* rows[r][c], NULL past the row's end */
	int *len;          /* fields per row */
};

static void csv_parse(struct csv *c, const char *s)
{
	memset(c, 0, sizeof(*c));
	while (*s) {
		char **f = calloc(256, sizeof(*f));
		int n = 0;

		assert_non_null(f);
		for (;;) {
			char *v = malloc(strlen(s) + 1), *o = v;

			assert_non_null(v);
			if (*s == '"') {
				for (s++; *s && !(*s == '"' && s[1] != '"');
				     s++) {
					if (*s == '"')
						s++;
					*o++ = *s;
				}
				s += *s == '"';
			} else {
				while (*s && *s != ',' && *s != '\n')
					*o++ = *s++;
			}
			*o = '\0';
			assert_true(n < 255);
			f[n++] = v;
			if (*s != ',')
				break;
			s++;
		}
		s += *s == '\n';
		c->rows = realloc(c->rows, (size_t)(c->nrows + 1) *
						   sizeof(*c->rows));
		c->len = realloc(c->len, (size_t)(c->nrows + 1) *
						 sizeof(*c->len));
		assert_non_null(c->rows);
		assert_non_null(c->len);
		c->rows[c->nrows] = f;
		c->len[c->nrows++] = n;
	}
	assert_true(c->nrows > 0);
	c->ncols = c->len[0];
}

static void csv_free(struct csv *c)
{
	for (int r = 0; r < c->nrows; r++) {
		for (int i = 0; i < c->len[r]; i++)
			free(c->rows[r][i]);
		free(c->rows[r]);
	}
	free(c->rows);
	free(c->len);
}

/* The column named @name of @c, -1 when none. */
static int csv_col(const struct csv *c, const char *name)
{
	for (int i = 0; i < c->ncols; i++)
		if (!strcmp(c->rows[0][i], name))
			return i;
	return -1;
}

/*
 * The columns of @c empty in every row (and in a total row of the same
 * columns), as a table leaves them out: none when there is no row.
 */
static void csv_empty(const struct csv *c, struct names *e)
{
	int last = c->nrows - 1;
	int total = last > 0 && !strcmp(c->rows[last][0], "total");

	e->n = 0;
	if (c->nrows - 1 - total == 0)
		return;
	for (int i = 0; i < c->ncols; i++) {
		int any = 0;

		/* a total of other columns (pages) is no row of the table */
		for (int r = 1; r < c->nrows && !any; r++)
			any = c->len[r] == c->ncols && *c->rows[r][i];
		if (!any)
			names_add(e, c->rows[0][i], strlen(c->rows[0][i]));
	}
}

/* Is @name a word of the blank-separated @list? */
static int word_in(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *(p += strspn(p, " "));
	     p += strcspn(p, " "))
		if (strcspn(p, " ") == n && !strncmp(p, name, n))
			return 1;
	return 0;
}

/* @l as "a b c" for messages (static buffer). */
static const char *names_str(const struct names *l)
{
	static char buf[MAXCOL * 66];
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->n; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s",
				       i ? " " : "", l->v[i]);
	return buf;
}

/* ---- every table -------------------------------------------------------- */

/*
 * memdb ARGS (a table) under a COLS-column terminal, with --wide, into a
 * pipe, against its CSV; @drop the report's "-- drop:" list (NULL: it
 * has none).  Returns 1 when the whole table is wider than COLS.
 */
static int check_fit(const char *args, const char *drop)
{
	char *fit = on_tty(COLS, args), *wargs = strf("%s --wide", args),
	     *wide = on_tty(COLS, wargs), *piped = on_pipe("", args),
	     *cargs = strf("%s -f csv", args), *csvtext = on_pipe("", cargs);
	struct names fh, fl, wh, wl, ph, pl, empty;
	struct csv c;
	int had, over = widest(piped) > COLS;

	csv_parse(&c, csvtext);
	csv_empty(&c, &empty);
	if (widest(fit) > COLS)
		fail_msg("memdb %s: %zu columns on a %d-column terminal:\n%s",
			 args, widest(fit), COLS, fit);
	had = read_table(fit, &fh, &fl);
	/* each column is shown, left out to fit, or empty: only one */
	for (int i = 0; i < c.ncols; i++) {
		const char *n = c.rows[0][i];
		int k = names_has(&fh, n) + names_has(&fl, n) +
			names_has(&empty, n);

		if (k != 1)
			fail_msg("memdb %s: column %s is %d of shown (%s), "
				 "left out (%s), empty", args, n, k,
				 names_str(&fh), names_str(&fl));
	}
	assert_int_equal(fh.n + fl.n + empty.n, c.ncols);
	assert_int_equal(had, fl.n > 0);
	/* only what the report says may go, and that is its columns */
	for (int i = 0; i < fl.n; i++)
		if (!word_in(drop, fl.v[i]))
			fail_msg("memdb %s: %s left out, not in '-- drop: %s'",
				 args, fl.v[i], drop ? drop : "");
	for (const char *p = drop; p && *(p += strspn(p, " "));
	     p += strcspn(p, " ")) {
		char *n = strndup(p, strcspn(p, " "));

		if (csv_col(&c, n) < 0)
			fail_msg("memdb %s: '-- drop:' names %s, no column",
				 args, n);
		free(n);
	}
	/* --wide: every column; a pipe: all but the empty ones, whole */
	assert_int_equal(read_table(wide, &wh, &wl), 0);
	assert_int_equal(read_table(piped, &ph, &pl), 0);
	assert_int_equal(wh.n, c.ncols);
	for (int i = 0; i < c.ncols; i++)
		assert_string_equal(wh.v[i], c.rows[0][i]);
	assert_int_equal(ph.n, c.ncols - empty.n);
	for (int i = 0, k = 0; i < c.ncols; i++)
		if (!names_has(&empty, c.rows[0][i]))
			assert_string_equal(ph.v[k++], c.rows[0][i]);
	if (!empty.n)
		assert_string_equal(piped, wide);
	csv_free(&c);
	free(fit);
	free(wargs);
	free(wide);
	free(piped);
	free(cargs);
	free(csvtext);
	return over;
}

/* The arguments that run report @q on setup()'s database, on a source
 * of its kind @zsrc (zones: the core dump or the slabinfo snapshot). */
static char *report_args(const struct mdb_query *q, int zsrc)
{
	size_t len;
	const char *kind = mdb_query_annot(q, "source", &len);
	const char *at = strchr(q->name, '@');
	char *name = at ? strf("%.*s --by %s", (int)(at - q->name), q->name,
			       at + 1) : strdup(q->name);
	char *src, *args;

	assert_non_null(kind);
	if (!strcmp(q->name, "diff"))
		src = strf("--from %d --to %d", SRC_SLAB, SRC_PAGE);
	else if (!strcmp(q->name, "growth"))
		src = strf("--from %d --to %d", SRC_T0, SRC_T1);
	else if (!strcmp(q->name, "outliers"))
		src = strf("--source %d", SRC_T1);
	else if (!strncmp(kind, "tags", len))
		src = strf("--source %d", SRC_T1);
	else if (!strncmp(kind, "zones", len))
		src = strf("--source %d", zsrc);
	else if (!strncmp(q->name, "pages", 5))
		src = strf("--source %d", SRC_PAGE);
	else
		src = strf("--source %d", SRC_SLAB);
	/* stacks prints folded stacks unless told */
	args = strf("report -d '%s' %s %s --top 20%s", db, name, src,
		    !strcmp(q->name, "stacks") ? " -f table" : "");
	free(name);
	free(src);
	return args;
}

static void test_every_table(void **state)
{
	size_t n, len;
	const struct mdb_query *q = mdb_query_all(&n);
	char *args;
	int over = 0, runs = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const char *kind = mdb_query_annot(&q[i], "source", &len);
		const char *d = mdb_query_annot(&q[i], "drop", &len);
		char *drop = d ? strndup(d, len) : NULL;
		int zones = kind && !strncmp(kind, "zones", 5);

		for (int k = 0; k < (zones ? 2 : 1); k++) {
			args = report_args(&q[i], k ? SRC_SLABINFO : SRC_CORE);
			over += check_fit(args, drop);
			runs++;
			free(args);
		}
		free(drop);
	}
	/* memdb sources: the order of columns to leave out that
	 * cli/cmd_sources.c declares */
	args = strf("sources -d '%s'", db);
	over += check_fit(args, "ingested_at byte_order cpus allocations "
				"snapshot_rows taken_at events label lost "
				"format");
	free(args);
	/* the terminal's width mattered: most tables are wider */
	if (over < runs / 2)
		fail_msg("only %d of %d tables wider than %d columns", over,
			 runs + 1, COLS);
}

/* $COLUMNS fits a pipe as the terminal would; a terminal that does not
 * say its width gets 80 columns. */
static void test_width_source(void **state)
{
	char *args = strf("report -d '%s' callsites --source %d", db,
			  SRC_SLAB), *tty = on_tty(COLS, args), *piped,
	     *envs = strf("COLUMNS=%d", COLS);

	(void)state;
	piped = on_pipe(envs, args);
	assert_string_equal(piped, tty);
	assert_non_null(strstr(piped, "\nleft out to fit 100 columns: "));
	free(piped);
	free(tty);
	tty = on_tty(0, args);
	assert_true(widest(tty) <= 80);
	assert_non_null(strstr(tty, "\nleft out to fit 80 columns: "));
	free(tty);
	free(envs);
	free(args);
}

/* ---- task ids, CPUs, wide characters ------------------------------------ */

/*
 * A trace of three tasks on CPUs 1234, 1001 and 7, their pids above
 * 9,999, one named with a combining-free accent (café, 4 columns in 5
 * bytes) and one in CJK (4 characters, 8 columns in 12 bytes):
 *   bash-26590 kmalloc 128 B on CPU 1234, freed by bash on CPU 1001
 *   café-26591 kmalloc 64 B on CPU 1001, live
 *   测试进程-26592 kmalloc 2048 B on CPU 7, live
 */
static char *tasks_db(void)
{
	char *t = path_in(dir, "tasks.txt"), *tdb = fresh_db(dir, "tasks.db");
	FILE *f = fopen(t, "w");

	assert_non_null(f);
	fputs("# tracer: nop\n#\n"
	      "  bash-26590   [1234] .....   100.000001: kmalloc: "
	      "call_site=0xffffffff81000010 ptr=ffff888100001000 "
	      "bytes_req=100 bytes_alloc=128 gfp_flags=GFP_KERNEL node=-1 "
	      "accounted=false\n"
	      "  caf\xc3\xa9-26591   [1001] .....   100.000002: kmalloc: "
	      "call_site=0xffffffff81000020 ptr=ffff888100002000 "
	      "bytes_req=60 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 "
	      "accounted=false\n"
	      "  \xe6\xb5\x8b\xe8\xaf\x95\xe8\xbf\x9b\xe7\xa8\x8b-26592   "
	      "[007] .....   100.000003: kmalloc: "
	      "call_site=0xffffffff81000030 ptr=ffff888100003000 "
	      "bytes_req=2000 bytes_alloc=2048 gfp_flags=GFP_KERNEL node=-1 "
	      "accounted=false\n"
	      "  bash-26590   [1001] .....   100.000004: kfree: "
	      "call_site=0xffffffff81000040 ptr=ffff888100001000\n", f);
	assert_int_equal(fclose(f), 0);
	ingest_ok(tdb, "'%s'", t);
	free(t);
	return tdb;
}

static void test_ids_plain(void **state)
{
	char *tdb = tasks_db(), *args, *out;

	(void)state;
	/* CPUs: the pair 1234 -> 1001, bytes 128 */
	args = strf("report -d '%s' pingpong --by cpu", tdb);
	for (int k = 0; k < 2; k++) {
		out = k ? on_tty(COLS, args) : on_pipe("", args);
		if (!strstr(out, "\n     1234      1001         1    128"))
			fail_msg("CPUs grouped or moved:\n%s", out);
		free(out);
	}
	free(args);
	/* pids; bytes are still grouped (2048: 2,048) */
	args = strf("report -d '%s' callsites --by pid --top 0", tdb);
	for (int k = 0; k < 2; k++) {
		out = k ? on_tty(COLS, args) : on_pipe("", args);
		assert_null(strstr(out, "26,59"));
		assert_non_null(strstr(out, "\n26590 "));
		assert_non_null(strstr(out, "\n26591 "));
		if (!strstr(out, "\n26592     1      2,000        2,048"))
			fail_msg("pid 26592's row:\n%s", out);
		free(out);
	}
	free(args);
	free(tdb);
}

/* Text of wide and accented characters: every line of the table as wide
 * as its rule, in display columns (the last column is a number). */
static void test_wide_chars_aligned(void **state)
{
	char *tdb = tasks_db(), *args, *out, *l;
	size_t rule = 0;
	int i, in = 0, rows = 0;

	(void)state;
	args = strf("report -d '%s' callsites --by comm --top 0", tdb);
	out = on_tty(COLS, args);
	assert_non_null(strstr(out, "\ncaf\xc3\xa9 "));
	/* from the rule under the header to the blank line or note */
	for (i = 0; (l = line_at(out, i)) && !(in && !strncmp(l, "left", 4));
	     i++) {
		if (is_rule(l) && !rule)
			rule = strlen(l);
		in = in || is_rule(l);
		if (in && !is_rule(l)) {
			if (widest(l) != rule)
				fail_msg("line of %zu columns, rule %zu: "
					 "'%s'\n%s", widest(l), rule, l, out);
			rows++;
		}
		free(l);
	}
	free(l);
	assert_int_equal(rows, 4); /* 3 tasks and the total */
	free(out);
	free(args);
	free(tdb);
}

/* ---- zones of a core dump ---------------------------------------------- */

/* The first @nv numbers after "NAME " on the line of cache @name in
 * file @path, after the text @from. */
static void fields_of(const char *path, const char *from, const char *name,
		      int64_t *v, int nv)
{
	char *text = slurp(path, NULL), *p, *key = strf("\n%s ", name);

	assert_non_null(text);
	p = strstr(text, from);
	assert_non_null(p);
	p = strstr(p, key);
	if (!p)
		fail_msg("no cache %s in %s", name, path);
	p += strlen(key);
	for (int i = 0; i < nv; i++)
		v[i] = strtoll(p, &p, 10);
	free(key);
	free(text);
}

static void test_zones_core_dump(void **state)
{
	/* a per-CPU slab with free objects; one full; big caches */
	static const char *const caches[] = { "RAWv6", "mqueue_inode_cache",
					      "dentry", "task_struct",
					      "kmalloc-64" };
	char *args = strf("report -d '%s' zones --source %d", db, SRC_CORE),
	     *cargs = strf("%s --top 0 -f csv", args), *text, *out;
	char *proc = strf("%s/vmcore/nokaslr.proc", env("TESTDATA")),
	     *drgn = strf("%s/vmcore/nokaslr.drgn-slab", env("TESTDATA"));
	struct names head, left, empty;
	struct csv c;
	int used, fr, pct, name, seen = 0;
	int64_t sum_free = 0, sum_all = 0;

	(void)state;
	text = on_pipe("", cargs);
	csv_parse(&c, text);
	used = csv_col(&c, "used");
	fr = csv_col(&c, "free");
	pct = csv_col(&c, "unused_pct");
	name = csv_col(&c, "name");
	assert_true(used >= 0 && fr >= 0 && pct >= 0 && name == 0);
	/* every row: unused is its free objects over all of them */
	for (int r = 1; r < c.nrows - 1; r++) {
		int64_t u = strtoll(c.rows[r][used], NULL, 10),
			f = strtoll(c.rows[r][fr], NULL, 10);
		double want = u + f ? 100.0 * (double)f / (double)(u + f) : 0,
		       got = strtod(c.rows[r][pct], NULL);

		if (fabs(got - want) > 1e-6)
			fail_msg("%s: used %lld free %lld unused_pct %s",
				 c.rows[r][0], (long long)u, (long long)f,
				 c.rows[r][pct]);
		sum_free += f;
		sum_all += u + f;
		/* the caches against the guest and drgn */
		for (size_t k = 0; k < sizeof(caches) / sizeof(*caches); k++) {
			int64_t sl[2], dr[2];

			if (strcmp(c.rows[r][0], caches[k]))
				continue;
			/* active_objs num_objs; object_size allocated */
			fields_of(proc, "BEGIN /proc/slabinfo", caches[k], sl,
				  2);
			fields_of(drgn, "", caches[k], dr, 2);
			assert_int_equal(u, dr[1]);
			assert_int_equal(u + f, sl[1]);
			want = 100.0 * (double)(sl[1] - dr[1]) /
			       (double)sl[1];
			if (fabs(got - want) > 1e-6)
				fail_msg("%s: unused_pct %s, /proc/slabinfo "
					 "%lld objects, drgn %lld allocated",
					 caches[k], c.rows[r][pct],
					 (long long)sl[1], (long long)dr[1]);
			seen++;
		}
	}
	assert_int_equal(seen, 5);
	/* the total: all caches' free over all their objects */
	assert_string_equal(c.rows[c.nrows - 1][0], "total");
	{
		double got = strtod(c.rows[c.nrows - 1][pct], NULL),
		       want = 100.0 * (double)sum_free / (double)sum_all;

		if (fabs(got - want) > 1e-6)
			fail_msg("total unused_pct %f, want %f", got, want);
	}
	/* no column empty in every row: FreeBSD's and flags left out */
	csv_free(&c);
	free(text);
	free(cargs);
	cargs = strf("%s -f csv", args);
	text = on_pipe("", cargs);
	csv_parse(&c, text);
	csv_empty(&c, &empty);
	assert_string_equal(names_str(&empty),
			    "limit requests fails sleeps xdomain flags");
	for (int k = 0; k < 2; k++) {
		out = k ? on_tty(COLS, args) : on_pipe("", args);
		read_table(out, &head, &left);
		for (int i = 0; i < empty.n; i++)
			assert_false(names_has(&head, empty.v[i]));
		for (int i = 0; i < head.n; i++)
			assert_false(names_has(&empty, head.v[i]));
		free(out);
	}
	/* RAWv6 (6 of 13 in use, 7 free on a CPU's slab): 53.846%, where
	 * /proc/slabinfo says 13 active */
	out = on_pipe("", args);
	{
		char *l = strstr(out, "\nRAWv6 ");

		assert_non_null(l);
		l = strndup(l, strcspn(l + 1, "\n") + 1);
		if (!strstr(l, " 53.846 "))
			fail_msg("RAWv6: %s", l);
		free(l);
	}
	free(out);
	csv_free(&c);
	free(text);
	free(proc);
	free(drgn);
	free(cargs);
	free(args);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table),
		cmocka_unit_test(test_width_source),
		cmocka_unit_test(test_ids_plain),
		cmocka_unit_test(test_wide_chars_aligned),
		cmocka_unit_test(test_zones_core_dump),
	};

	/* widest() counts columns as wcwidth(3) does in UTF-8 */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, setup, teardown);
}
