// SPDX-License-Identifier: MIT
/*
 * Values at the edges: the test library's account of a run that did not
 * succeed (a signal, an exit status, its stderr).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("edges-values");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

static void assert_has(const char *s, const char *want)
{
	if (!strstr(s, want))
		fail_msg("'%s' not in:\n%s", want, s);
}

/* ---- the test library's account of a run --------------------------- */

/* A shell killed by SIGTERM: the signal, by number and name, and what
 * it wrote to stderr before. */
static void test_describe_signal(void **state)
{
	struct run r;
	char *d;

	(void)state;
	run(&r, "echo 'half done' >&2; kill -TERM $$");
	assert_true(WIFSIGNALED(r.wstatus));
	assert_int_equal(WTERMSIG(r.wstatus), SIGTERM);
	assert_int_equal(r.status, 128 + SIGTERM);
	d = run_describe(&r);
	assert_string_equal(d, "killed by signal 15 (SIGTERM)\n"
			    "$ echo 'half done' >&2; kill -TERM $$\n"
			    "stderr:\nhalf done");
	free(d);
	run_free(&r);

	/* exec: the command itself is the child, its signal seen as such */
	run(&r, "exec sh -c 'kill -KILL $$'");
	d = run_describe(&r);
	assert_has(d, "killed by signal 9 (SIGKILL)\n");
	assert_has(d, "\nstderr empty");
	free(d);
	run_free(&r);
}

/* An exit 143 is an exit, with the signal a shell would mean by it. */
static void test_describe_exit(void **state)
{
	struct run r;
	char *d;

	(void)state;
	run(&r, "printf 'bad\\001\\\\\\n' >&2; exit 143");
	assert_true(WIFEXITED(r.wstatus));
	assert_int_equal(r.status, 143);
	d = run_describe(&r);
	assert_string_equal(d, "exit status 143 (128 + 15: a command of the "
			    "shell killed by signal 15 (SIGTERM)?)\n"
			    /* the command escaped too: \ as \\ */
			    "$ printf 'bad\\\\001\\\\\\\\\\\\n' >&2; exit 143\n"
			    "stderr:\nbad\\x01\\\\");
	free(d);
	run_free(&r);

	run(&r, "exit 3");
	d = run_describe(&r);
	assert_string_equal(d, "exit status 3\n$ exit 3\nstderr empty");
	free(d);
	run_free(&r);
}

/* A long stderr: its start and its end, the bytes between counted. */
static void test_describe_long(void **state)
{
	struct run r;
	char *d;

	(void)state;
	run(&r, "head -c 10000 /dev/zero | tr '\\000' a >&2; echo END >&2; "
	    "exit 1");
	d = run_describe(&r);
	/* 10004 bytes less the last newline, 1024 shown, 3072 */
	assert_has(d, "exit status 1\n");
	assert_has(d, "\nstderr (10003 bytes, the middle cut):\naaaa");
	assert_has(d, "a\n[... 5907 bytes ...]\naaaa");
	assert_has(d, "aaaaEND");
	assert_int_equal(d[strlen(d) - 1], 'D');
	assert_true(strlen(d) < 4096 + 200);
	free(d);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe_signal),
		cmocka_unit_test(test_describe_exit),
		cmocka_unit_test(test_describe_long),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
