// SPDX-License-Identifier: MIT
/*
 * The --help of every command against what the command accepts: each has
 * a synopsis, an Options section and examples, fits 80 columns, lists an
 * option once, and every option it lists is one the command takes.  The
 * lists generated from the library's tables are complete: every report
 * option (report/params.c) with the reports that take it, every input
 * format of mdb_input_formats() with its text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../ingest/ingest.h"
#include "../report/report.h"
#include "testlib.h"

static const char *const cmds[] = { "ingest", "sources", "merge",
				    "export", "symbolize", "report", "sql",
				    "check", "record" };

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* `memdb @cmd --help`, malloc'ed. */
static char *help(const char *cmd)
{
	struct run r;
	char *out;

	run(&r, "'%s' %s --help", env("MEMDB"), cmd);
	assert_run_ok(&r);
	assert_string_equal(r.err, "");
	out = strdup(r.out);
	run_free(&r);
	return out;
}

static void test_sections(void **state)
{
	(void)state;
	for (size_t i = 0; i < NCMDS; i++) {
		char *h = help(cmds[i]), *want;

		assert_int_equal(asprintf(&want, "usage: memdb %s ", cmds[i]),
				 (int)strlen(cmds[i]) + 14);
		assert_memory_equal(h, want, strlen(want));
		assert_non_null(strstr(h, "\n\nOptions:\n"));
		assert_non_null(strstr(h, "\n\nExamples:\n  memdb "));
		assert_non_null(strstr(h, "  -h, --help "));
		for (char *l = h; *l; l += strcspn(l, "\n") + 1) {
			if (strcspn(l, "\n") > 79)
				fail_msg("memdb %s --help: line over 79 "
					 "columns: %.*s", cmds[i],
					 (int)strcspn(l, "\n"), l);
			if (!l[strcspn(l, "\n")])
				break;
		}
		free(want);
		free(h);
	}
}

/*
 * The option an Options line of the help starts with ("  -d, --db DB",
 * "      --label NAME"), from *@from on: its long name (malloc'ed), in
 * *@short_opt its letter or 0, in *@arg whether it takes an argument.
 */
static char *next_option(char **from, char *short_opt, int *arg)
{
	for (char *l = *from; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		char *name = NULL;
		size_t n;

		if (!strncmp(l, "  -", 3) && l[3] != '-' && l[4] == ',' &&
		    !strncmp(l + 5, " --", 3)) {
			*short_opt = l[3];
			name = l + 8;
		} else if (!strncmp(l, "      --", 8)) {
			*short_opt = 0;
			name = l + 8;
		}
		if (name) {
			n = strcspn(name, " \n");
			*arg = name[n] == ' ' && name[n + 1] != ' ';
			*from = strchr(l, '\n');
			return strndup(name, n);
		}
	}
	return NULL;
}

/*
 * memdb @cmd accepts --@name, and -@s when not 0: given alone (with
 * its argument attached), then a bad option, the command stops at the
 * bad one.  Run in a scratch directory, in case it did not.
 */
static void accepted(const char *cmd, const char *name, char s, int arg)
{
	char *needle, *dir = tmpdir("usage-probe");
	struct run r;

	run(&r, "cd '%s' && '%s' %s --%s%s --no-such-option </dev/null", dir,
	    env("MEMDB"), cmd, name, arg ? "=1" : "");
	assert_run_status(&r, 2);
	assert_int_equal(asprintf(&needle, "option '--%s", name),
			 (int)strlen(name) + 10);
	if (strstr(r.err, needle))
		fail_msg("memdb %s --help lists --%s, which it does not take: "
			 "%s", cmd, name, r.err);
	free(needle);
	run_free(&r);
	if (s) {
		run(&r, "cd '%s' && '%s' %s -%c%s --no-such-option </dev/null",
		    dir, env("MEMDB"), cmd, s, arg ? "1" : "");
		assert_run_status(&r, 2);
		assert_null(strstr(r.err, "invalid option"));
		assert_null(strstr(r.err, "requires an argument"));
		run_free(&r);
	}
	free(dir);
}

static void test_listed_options_are_taken(void **state)
{
	(void)state;
	for (size_t i = 0; i < NCMDS; i++) {
		char *h = help(cmds[i]), *p = strstr(h, "\nOptions:\n"), *o;
		char *seen = strdup(" "), s;
		int arg;

		while ((o = next_option(&p, &s, &arg))) {
			char *key;

			assert_int_equal(asprintf(&key, " %s ", o),
					 (int)strlen(o) + 2);
			if (strstr(seen, key))
				fail_msg("memdb %s --help lists --%s twice",
					 cmds[i], o);
			seen = realloc(seen, strlen(seen) + strlen(o) + 2);
			strcat(strcat(seen, o), " ");
			if (strcmp(o, "help"))
				accepted(cmds[i], o, s, arg);
			free(key);
			free(o);
		}
		assert_true(strlen(seen) > 6);
		free(seen);
		free(h);
	}
}

/* Every report option is listed, with each report its SQL takes it in. */
static void test_report_options_listed(void **state)
{
	size_t n, nq;
	const struct mdb_rparam *p = mdb_report_params(&n);
	const struct mdb_query *q = mdb_query_all(&nq);
	char *h = help("report"), *sec = strstr(h, "\nReport options");

	(void)state;
	assert_non_null(sec);
	for (size_t i = 0; i < n; i++) {
		char *want, *text;
		const char *line;
		size_t tlen;

		assert_int_equal(asprintf(&want, "\n      --%s %s ", p[i].opt,
					  p[i].arg),
				 (int)(strlen(p[i].opt) + strlen(p[i].arg)) +
				 11);
		line = strstr(sec, want);
		if (!line)
			fail_msg("memdb report --help does not list --%s",
				 p[i].opt);
		/* its text runs to the next option line */
		tlen = strlen(line);
		if (strstr(line + 1, "\n      --"))
			tlen = (size_t)(strstr(line + 1, "\n      --") - line);
		text = strndup(line, tlen);
		for (size_t j = 0; j < nq; j++) {
			size_t len;
			int takes = p[i].kind == MDB_RP_CHOICE ?
				mdb_query_annot(&q[j], p[i].opt, &len) != NULL :
				mdb_query_uses(&q[j], p[i].param);
			char *name = strndup(q[j].name,
					     strcspn(q[j].name, "@"));

			if (takes && !strstr(text, name))
				fail_msg("--%s: report %s not listed", p[i].opt,
					 name);
			free(name);
		}
		free(text);
		free(want);
	}
	free(h);
}

static void test_formats_listed(void **state)
{
	char *h = help("ingest");

	(void)state;
	for (const char *const *f = mdb_input_formats(); *f; f++) {
		char *line, *at;

		assert_int_equal(asprintf(&line, "\n  %s ", *f),
				 (int)strlen(*f) + 4);
		at = strstr(h, line);
		if (!at)
			fail_msg("memdb ingest --help does not list %s", *f);
		at += strlen(line) + strspn(at + strlen(line), " ");
		if (*at == '\n')
			fail_msg("memdb ingest --help: %s has no text", *f);
		free(line);
	}
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_listed_options_are_taken),
		cmocka_unit_test(test_report_options_listed),
		cmocka_unit_test(test_formats_listed),
	};

	return cmocka_run_group_tests_name("usage texts", tests, NULL, NULL);
}
