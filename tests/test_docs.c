// SPDX-License-Identifier: MIT
/*
 * The project's own documentation stays reachable from the code:
 *
 *   - every citation "docs/NAME.md" followed by section numbers (the
 *     section sign, then "2.3") anywhere in the tree names a file of docs/
 *     and a numbered heading that file has; a bare section number inside
 *     docs/NAME.md refers to that file itself;
 *   - no file names a document of docs/ without its "docs/" directory
 *     (such a citation would not resolve from the repository root);
 *   - every repository path the "Where things are" tables of
 *     docs/design.md give in backquotes exists, and every decoder under
 *     ingest/trace/ and ingest/snapshot/ and every fuzz harness has its
 *     row there;
 *   - no C string literal under cli/ starts an SQL statement (SQL lives
 *     in db/ and report/: docs/design.md, section 2.2);
 *   - every report of queries/ has its section in docs/reports.md (the
 *     text memdb report NAME --help prints), and every section is a
 *     report's.
 *
 * The tree is found from TESTS_DIR (its parent); files are scanned by
 * name: C, headers, SQL, shell, awk, Markdown and the Makefile.
 */
#include <ctype.h>
#include <ftw.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

#define SECTION_SIGN "\xc2\xa7"

struct doc {
	char *name;     /* "NAME.md" */
	char *text;
	char **secs;    /* "2", "2.3", ... */
	size_t nsecs;
};

static struct {
	char *root;
	struct doc *docs;
	size_t ndocs;
	size_t problems;
	size_t citations;
} g;

static void problem(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%ld: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	g.problems++;
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	assert_non_null(q);
	return q;
}

/* "## 4. Title" or "### 4.1 Title": the number, malloc'ed, else NULL. */
static char *heading_number(const char *l, size_t len)
{
	size_t i = 0, start, end;

	while (i < len && l[i] == '#')
		i++;
	if (!i || i >= len || l[i] != ' ')
		return NULL;
	while (i < len && l[i] == ' ')
		i++;
	start = i;
	while (i < len && (isdigit((unsigned char)l[i]) || l[i] == '.'))
		i++;
	end = i;
	while (end > start && l[end - 1] == '.')
		end--;
	if (end == start || (i < len && l[i] != ' '))
		return NULL;
	return strndup(l + start, end - start);
}

static void load_doc(const char *path, const char *name)
{
	struct doc *d;
	const char *p, *nl;

	g.docs = xrealloc(g.docs, (g.ndocs + 1) * sizeof(*g.docs));
	d = &g.docs[g.ndocs++];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	d->text = slurp(path, NULL);
	assert_non_null(d->name);
	assert_non_null(d->text);
	for (p = d->text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		char *n;

		nl = strchr(p, '\n');
		n = heading_number(p, nl ? (size_t)(nl - p) : strlen(p));
		if (!n)
			continue;
		for (size_t i = 0; i < d->nsecs; i++)
			if (!strcmp(d->secs[i], n))
				problem(d->name, 0, "section %s twice", n);
		d->secs = xrealloc(d->secs, (d->nsecs + 1) * sizeof(char *));
		d->secs[d->nsecs++] = n;
	}
}

static void load_docs(void)
{
	char *pat = path_in(g.root, "docs/*.md");
	glob_t gl;

	assert_int_equal(glob(pat, 0, NULL, &gl), 0);
	for (size_t i = 0; i < gl.gl_pathc; i++)
		load_doc(gl.gl_pathv[i], strrchr(gl.gl_pathv[i], '/') + 1);
	globfree(&gl);
	free(pat);
}

static struct doc *find_doc(const char *name, size_t len)
{
	for (size_t i = 0; i < g.ndocs; i++)
		if (strlen(g.docs[i].name) == len &&
		    !memcmp(g.docs[i].name, name, len))
			return &g.docs[i];
	return NULL;
}

static int has_section(const struct doc *d, const char *n, size_t len)
{
	for (size_t i = 0; i < d->nsecs; i++)
		if (strlen(d->secs[i]) == len && !memcmp(d->secs[i], n, len))
			return 1;
	return 0;
}

static int is_name_ch(int c)
{
	return islower(c) || isdigit(c) || c == '_' || c == '-';
}

/* Length of a "NAME.md" at @p (lowercase names only), else 0. */
static size_t doc_name_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && is_name_ch((unsigned char)*q))
		q++;
	if (q == p || end - q < 3 || memcmp(q, ".md", 3))
		return 0;
	return (size_t)(q - p) + 3;
}

/* A section number after the section sign: "2", "4.3" (no final dot). */
static size_t section_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (isdigit((unsigned char)*q) ||
			   (*q == '.' && q + 1 < end &&
			    isdigit((unsigned char)q[1]))))
		q++;
	return (size_t)(q - p);
}

/* One line of @file: its citations resolved against docs/. */
static void scan_line(const char *file, long no, const char *l,
		      const char *end, struct doc *self)
{
	struct doc *cur = self;

	for (const char *p = l; p < end; p++) {
		size_t n;

		if (end - p > 5 && !memcmp(p, "docs/", 5) &&
		    (n = doc_name_len(p + 5, end))) {
			cur = find_doc(p + 5, n);
			if (!cur)
				problem(file, no, "cites docs/%.*s, which "
					"does not exist", (int)n, p + 5);
			p += 4 + n;
		} else if ((p == l || !is_name_ch((unsigned char)p[-1])) &&
			   (n = doc_name_len(p, end)) && find_doc(p, n)) {
			problem(file, no, "names %.*s without docs/",
				(int)n, p);
			p += n - 1;
		} else if (end - p >= 2 && !memcmp(p, SECTION_SIGN, 2)) {
			n = section_len(p + 2, end);
			g.citations++;
			if (!n)
				problem(file, no, "section sign without a "
					"section number");
			else if (!cur)
				problem(file, no, "section %.*s of which "
					"document? write docs/NAME.md before "
					"it", (int)n, p + 2);
			else if (!has_section(cur, p + 2, n))
				problem(file, no, "docs/%s has no section "
					"%.*s", cur->name, (int)n, p + 2);
			p += 1 + n;
		}
	}
}

static int scanned_name(const char *name)
{
	static const char *const ext[] = { ".c", ".h", ".sql", ".sh",
					   ".awk", ".md" };
	size_t len = strlen(name);

	if (!strcmp(name, "Makefile"))
		return 1;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t n = strlen(ext[i]);

		if (len > n && !strcmp(name + len - n, ext[i]))
			return 1;
	}
	return 0;
}

static void scan_file(const char *path, const char *rel)
{
	char *text = slurp(path, NULL);
	struct doc *self = NULL;
	const char *p, *nl;
	long no = 0;

	assert_non_null(text);
	if (!strncmp(rel, "docs/", 5) && !strchr(rel + 5, '/'))
		self = find_doc(rel + 5, strlen(rel + 5));
	for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		scan_line(rel, ++no, p, nl ? nl : p + strlen(p), self);
	}
	free(text);
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	const char *base = path + ftw->base;
	const char *rel = path + strlen(g.root) + 1;

	(void)st;
	if (type == FTW_D && ftw->level > 0 &&
	    (base[0] == '.' ||
	     (ftw->level == 1 && !strncmp(base, "build", 5))))
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F && scanned_name(base))
		scan_file(path, rel);
	return FTW_CONTINUE;
}

static int setup(void **state)
{
	(void)state;
	g.root = path_in(env("TESTS_DIR"), "..");
	load_docs();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < g.ndocs; i++) {
		for (size_t j = 0; j < g.docs[i].nsecs; j++)
			free(g.docs[i].secs[j]);
		free(g.docs[i].secs);
		free(g.docs[i].name);
		free(g.docs[i].text);
	}
	free(g.docs);
	free(g.root);
	return 0;
}

static void test_citations_resolve(void **state)
{
	(void)state;
	assert_non_null(find_doc("formats" ".md", 10));
	assert_non_null(find_doc("design" ".md", 9));
	g.problems = g.citations = 0;
	assert_int_equal(nftw(g.root, visit, 16, FTW_PHYS | FTW_ACTIONRETVAL),
			 0);
	/* the code cites the docs: a scan that finds none is broken */
	assert_true(g.citations > 20);
	assert_int_equal(g.problems, 0);
}

/* Does @pattern (a repository path, possibly a glob) match anything? */
static int path_exists(const char *pattern, size_t len)
{
	char *rel = strndup(pattern, len), *full;
	glob_t gl;
	int ok;

	assert_non_null(rel);
	full = path_in(g.root, rel);
	ok = glob(full, 0, NULL, &gl) == 0;
	if (ok)
		globfree(&gl);
	free(full);
	free(rel);
	return ok;
}

static int repo_path(const char *p, size_t len)
{
	static const char *const top[] = {
		"common/", "ingest/", "analysis/", "db/", "report/",
		"symbolize/", "cli/", "tests/", "testdata/", "fuzz/",
		"bench/", "tools/", "docs/",
	};

	if (memchr(p, ' ', len))
		return 0;
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (len >= strlen(top[i]) && !memcmp(p, top[i], strlen(top[i])))
			return 1;
	return 0;
}

static void test_design_paths_exist(void **state)
{
	const struct doc *d = find_doc("design" ".md", 9);
	const char *p, *q;
	size_t checked = 0;

	(void)state;
	g.problems = 0;
	assert_non_null(d);
	for (p = strchr(d->text, '`'); p; p = q ? strchr(q + 1, '`') : NULL) {
		q = strchr(p + 1, '`');
		if (!q)
			break;
		if (!memchr(p + 1, '\n', (size_t)(q - p - 1)) &&
		    repo_path(p + 1, (size_t)(q - p - 1))) {
			checked++;
			if (!path_exists(p + 1, (size_t)(q - p - 1)))
				problem("docs/design.md", 0, "no such path: "
					"%.*s", (int)(q - p - 1), p + 1);
		}
	}
	assert_true(checked > 30);
	assert_int_equal(g.problems, 0);
}

static void test_every_decoder_tabled(void **state)
{
	static const char *const pats[] = {
		"ingest/trace/*.c", "ingest/snapshot/*.c", "fuzz/fuzz_*.c",
	};
	const struct doc *d = find_doc("design" ".md", 9);
	size_t rl = strlen(g.root) + 1, seen = 0;

	(void)state;
	g.problems = 0;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		char *full = path_in(g.root, pats[i]);
		glob_t gl;

		assert_int_equal(glob(full, 0, NULL, &gl), 0);
		for (size_t j = 0; j < gl.gl_pathc; j++, seen++) {
			const char *rel = gl.gl_pathv[j] + rl;

			if (!strstr(d->text, rel))
				problem("docs/design.md", 0, "%s has no row in "
					"'Where things are'", rel);
		}
		globfree(&gl);
		free(full);
	}
	assert_true(seen > 10);
	assert_int_equal(g.problems, 0);
}

/* Does the literal @p (its text, @len bytes) start an SQL statement? */
static int sql_literal(const char *p, size_t len)
{
	static const char *const kw[] = {
		"SELECT", "INSERT", "UPDATE", "DELETE", "PRAGMA", "CREATE",
		"WITH", "DROP", "ALTER", "REPLACE", "BEGIN", "COMMIT",
		"ROLLBACK", "ATTACH", "VACUUM", "SAVEPOINT",
	};
	size_t i = 0;

	while (i < len && (p[i] == ' ' || p[i] == '('))
		i++;
	for (size_t k = 0; k < sizeof(kw) / sizeof(kw[0]); k++) {
		size_t n = strlen(kw[k]);

		if (len - i >= n && !memcmp(p + i, kw[k], n) &&
		    (len - i == n || p[i + n] == ' ' || p[i + n] == ';'))
			return 1;
	}
	return 0;
}

/* The string literals of C file @rel that start SQL, as problems. */
static size_t sql_in_c(const char *rel)
{
	char *full = path_in(g.root, rel), *text = slurp(full, NULL);
	const char *p, *q;
	size_t lits = 0;
	long line = 1;

	assert_non_null(text);
	for (p = text; *p; p++) {
		if (*p == '\n') {
			line++;
		} else if (p[0] == '/' && p[1] == '*') {
			for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
				line += *p == '\n';
			if (!*p)
				break;
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			while (p[1] && p[1] != '\n')
				p++;
		} else if (*p == '\'' || *p == '"') {
			for (q = p + 1; *q && *q != *p && *q != '\n'; q++)
				if (*q == '\\' && q[1])
					q++;
			if (*p == '"') {
				lits++;
				if (sql_literal(p + 1, (size_t)(q - p - 1)))
					problem(rel, line, "SQL in cli/: %.*s",
						(int)(q - p + 1), p);
			}
			if (!*q)
				break;
			p = q;
		}
	}
	free(text);
	free(full);
	return lits;
}

static void test_no_sql_in_cli(void **state)
{
	char *pat = path_in(g.root, "cli/*.c");
	size_t rl = strlen(g.root) + 1, lits = 0;
	glob_t gl;

	(void)state;
	g.problems = 0;
	assert_int_equal(glob(pat, 0, NULL, &gl), 0);
	for (size_t i = 0; i < gl.gl_pathc; i++)
		lits += sql_in_c(gl.gl_pathv[i] + rl);
	globfree(&gl);
	free(pat);
	assert_true(lits > 1000);
	assert_int_equal(g.problems, 0);
}

/* Every "-- report: TITLE" of queries/ is a "## TITLE" of
 * docs/reports.md, and the reverse; --help prints the section. */
static void test_every_report_documented(void **state)
{
	char *pat = path_in(g.root, "queries/*.sql");
	char *md_path = path_in(g.root, "docs/reports.md");
	char *md = slurp(md_path, NULL);
	size_t reports = 0, sections = 0;
	glob_t gl;
	struct run r;

	(void)state;
	g.problems = 0;
	assert_non_null(md);
	assert_int_equal(glob(pat, 0, NULL, &gl), 0);
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		char *sql = slurp(gl.gl_pathv[i], NULL), *t, *want;

		assert_non_null(sql);
		t = strstr(sql, "\n-- report: ");
		if (t) {
			t += strlen("\n-- report: ");
			want = strf("\n## %.*s\n", (int)strcspn(t, "\n"), t);
			if (!strstr(md, want))
				problem("docs/reports.md", 0, "no section "
					"for %s", gl.gl_pathv[i]);
			free(want);
			reports++;
		}
		free(sql);
	}
	globfree(&gl);
	for (const char *h = strstr(md, "\n## "); h; h = strstr(h + 1, "\n## ")) {
		char *title = strf("%.*s", (int)strcspn(h + 4, "\n"), h + 4);
		char *cmd = strf("grep -lx -- '-- report: %s' '%s'/queries/*.sql",
				 title, g.root);

		run(&r, "%s", cmd);
		if (r.status != 0)
			problem("docs/reports.md", 0, "section '%s' names no "
				"report", title);
		run_free(&r);
		free(cmd);
		free(title);
		sections++;
	}
	assert_true(reports >= 25);
	assert_int_equal(sections, reports);
	assert_int_equal(g.problems, 0);
	/* the section, and the options the report takes */
	run(&r, "'%s' report leaks --help", env("MEMDB"));
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "usage: memdb report leaks"));
	assert_non_null(strstr(r.out, "ZERO_SIZE_PTR are never live"));
	assert_non_null(strstr(r.out, " --comm, --at,"));
	assert_non_null(strstr(r.out, " --min-age\n"));
	run_free(&r);
	run(&r, "'%s' report callsites --by cache --help", env("MEMDB"));
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "'kmalloc-large'"));
	run_free(&r);
	free(md);
	free(md_path);
	free(pat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_citations_resolve),
		cmocka_unit_test(test_design_paths_exist),
		cmocka_unit_test(test_every_decoder_tabled),
		cmocka_unit_test(test_no_sql_in_cli),
		cmocka_unit_test(test_every_report_documented),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
