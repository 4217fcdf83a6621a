// SPDX-License-Identifier: MIT
/*
 * Every place a user reads what memdb ingests names every input of the
 * format table (mdb_input_formats()): memdb --help, memdb ingest --help,
 * the man page, the README's first screen (60 lines) and the contents
 * of docs/formats.md.  Each format has here the words a user knows it
 * by; a format added to the table without them fails this test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../ingest/ingest.h"
#include "testlib.h"

static const struct {
	const char *format;
	const char *words[3]; /* each must be in every list */
} known[] = {
	{ "perf-data", { "perf.data" } },
	{ "trace-dat", { "trace.dat" } },
	{ "tracefs", { "tracefs" } },
	{ "ftrace-text", { "ftrace", "perf script" } },
	{ "kmemtrace-ftrace", { "kmemtrace", "2.6.30" } },
	{ "kmemtrace-relay", { "kmemtrace" } },
	{ "vmcore", { "core dump", "kdump", "ELF" } },
	{ "memstat-uma", { "memstat" } },
	{ "memstat-malloc", { "memstat" } },
	{ "vmstat-json", { "vmstat", "JSON" } },
	{ "vmstat-z", { "vmstat -z" } },
	{ "vmstat-m", { "-m" } },
	{ "allocinfo", { "allocinfo" } },
	{ "slabinfo", { "slabinfo" } },
};

/* @text with runs of blanks, line breaks and roff/Markdown quoting
 * folded, for phrases that a wrapped line splits. */
static char *flatten(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (const char *p = text; *p; p++) {
		char c = *p;

		if (c == '`' || c == '\\' || c == '*')
			continue;
		if (c == '\n' || c == '\t')
			c = ' ';
		if (c == ' ' && o > out && o[-1] == ' ')
			continue;
		*o++ = c;
	}
	*o = '\0';
	return out;
}

static void check_list(const char *where, const char *text)
{
	char *flat = flatten(text);

	for (const char *const *f = mdb_input_formats(); *f; f++) {
		size_t i = 0;

		while (i < sizeof(known) / sizeof(*known) &&
		       strcmp(known[i].format, *f))
			i++;
		if (i == sizeof(known) / sizeof(*known))
			fail_msg("format %s has no words in this test", *f);
		for (int w = 0; w < 3 && known[i].words[w]; w++)
			if (!strcasestr(flat, known[i].words[w]))
				fail_msg("%s does not name %s ('%s')", where, *f,
					 known[i].words[w]);
	}
	free(flat);
}

static char *stdout_of(const char *cmd)
{
	struct run r;
	char *out;

	run(&r, "%s", cmd);
	assert_int_equal(r.status, 0);
	out = r.out;
	r.out = NULL;
	run_free(&r);
	return out;
}

static void test_help(void **state)
{
	char *cmd = strf("'%s' --help", env("MEMDB")), *out = stdout_of(cmd);

	(void)state;
	check_list("memdb --help", out);
	free(out);
	free(cmd);
	cmd = strf("'%s' ingest --help", env("MEMDB"));
	out = stdout_of(cmd);
	check_list("memdb ingest --help", out);
	free(out);
	free(cmd);
}

static void test_man_page(void **state)
{
	char *man = slurp(env("MEMDB_MAN"), NULL), *desc, *end;

	(void)state;
	assert_non_null(man);
	/* its description alone: memdb --help's text */
	desc = strstr(man, ".SH DESCRIPTION");
	assert_non_null(desc);
	end = strstr(desc + 1, ".SH ");
	assert_non_null(end);
	*end = '\0';
	check_list("the man page's DESCRIPTION", desc);
	free(man);
}

/* The first @n lines of @path under the repository's root. */
static char *head_of(const char *path, int n)
{
	char *full = strf("%s/../%s", env("TESTS_DIR"), path),
	     *text = slurp(full, NULL), *p = text;

	assert_non_null(text);
	while (p && n-- > 0)
		if ((p = strchr(p, '\n')))
			p++;
	if (p)
		*p = '\0';
	free(full);
	return text;
}

static void test_readme_first_screen(void **state)
{
	char *text = head_of("README.md", 60);

	(void)state;
	check_list("README.md's first 60 lines", text);
	free(text);
}

static void test_formats_contents(void **state)
{
	char *text = head_of("docs/formats.md", 30), *c = strstr(text,
								 "Contents:");

	(void)state;
	assert_non_null(c);
	check_list("docs/formats.md's contents", c);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_readme_first_screen),
		cmocka_unit_test(test_formats_contents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
