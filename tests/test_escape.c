// SPDX-License-Identifier: MIT
/*
 * common/escape.c: what a terminal would act on becomes an escape, the
 * rest (printable ASCII, UTF-8 text, backslashes) stays; expectations
 * written by hand from the rules in escape.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../common/escape.h"

static void check(const char *in, unsigned flags, const char *want)
{
	char *got = mdb_escape(in, flags), *again;

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(mdb_escape_needed(in, flags), strcmp(in, want) != 0);
	/* escaping twice changes nothing */
	again = mdb_escape(got, flags);
	assert_string_equal(again, got);
	free(again);
	free(got);
}

static void test_kept(void **state)
{
	(void)state;
	check("", 0, "");
	check("kmalloc-64 mm/slub.c:123 \\path", 0, "kmalloc-64 mm/slub.c:123 "
	      "\\path");
	check("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", 0,
	      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7"); /* é € penguin */
	check("a\nb", MDB_ESC_KEEP_NL, "a\nb");
}

static void test_controls(void **state)
{
	(void)state;
	check("\033[31mred\033[0m", 0, "\\x1b[31mred\\x1b[0m");
	check("title\033]0;pwned\007", 0, "title\\x1b]0;pwned\\x07");
	check("a\tb\nc\rd\x7f", 0, "a\\tb\\nc\\rd\\x7f");
	check("\x01", MDB_ESC_KEEP_NL, "\\x01");
}

static void test_utf8(void **state)
{
	(void)state;
	/* C1 CSI as UTF-8 (U+009B), and as a lone byte (not UTF-8) */
	check("x\xc2\x9by", 0, "x\\u009by");
	check("x\x9by", 0, "x\\x9by");
	/* overlong '/', a surrogate, past U+10FFFF, cut sequences */
	check("\xc0\xaf", 0, "\\xc0\\xaf");
	check("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	check("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80");
	check("\xe2\x82", 0, "\\xe2\\x82");
	/* bidi override, isolate, line separator */
	check("a\xe2\x80\xae" "b", 0, "a\\u202eb");
	check("\xe2\x81\xa6", 0, "\\u2066");
	check("\xe2\x80\xa8", 0, "\\u2028");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
