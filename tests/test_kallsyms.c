// SPDX-License-Identifier: MIT
/*
 * The kallsyms / System.map reader: lookups by address and by name on
 * small inline files, worked out by hand, and refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../ingest/kallsyms.h"

static const char ksyms[] =
	"ffffffff81000000 T _stext\n"          /* aliases: first wins */
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t do_one\n"          /* 0x100 .. 0x180 */
	"ffffffff81000180 T do_two\n"          /* 0x180 .. 0x200 */
	"ffffffff81000200 d some_data\n"       /* a gap for functions */
	"ffffffff81000300 T do_three\n"        /* 0x300 .. 0x340 */
	"ffffffff81000340 T _etext\n"          /* last: no extent */
	"garbage line here\n"
	"\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n" /* module, after vmlinux */
	"ffffffffc0001080 t do_one\t[mymod]\n" /* same name, in a module */
	"ffffffffc0001100 T mod_end\t[mymod]\n";

static void test_find(void **state)
{
	struct kallsyms k;
	struct mdb_error e;
	const struct ksym *s;

	(void)state;
	assert_int_equal(mdb_kallsyms_parse(&k, ksyms, sizeof(ksyms) - 1, "ks",
					    &e), 0);
	assert_int_equal(k.malformed, 1);
	assert_int_equal(k.first_bad_line, 8);
	assert_true(k.has_modules);

	s = mdb_kallsyms_find(&k, 0xffffffff81000000ULL);
	assert_non_null(s);
	assert_string_equal(kallsyms_name(&k, s), "_stext");
	s = mdb_kallsyms_find(&k, 0xffffffff8100017fULL);
	assert_string_equal(kallsyms_name(&k, s), "do_one");
	assert_int_equal(0xffffffff8100017fULL - s->addr, 0x7f);
	assert_int_equal(s->size, 0x80);
	s = mdb_kallsyms_find(&k, 0xffffffff81000180ULL);
	assert_string_equal(kallsyms_name(&k, s), "do_two");
	assert_null(kallsyms_module(&k, s));
	/* in some_data's extent: not a function */
	assert_null(mdb_kallsyms_find(&k, 0xffffffff81000200ULL));
	assert_null(mdb_kallsyms_find(&k, 0xffffffff810002ffULL));
	s = mdb_kallsyms_find(&k, 0xffffffff8100033fULL);
	assert_string_equal(kallsyms_name(&k, s), "do_three");
	/* before the first symbol */
	assert_null(mdb_kallsyms_find(&k, 0xffffffff80ffffffULL));
	/* module symbols */
	s = mdb_kallsyms_find(&k, 0xffffffffc0001090ULL);
	assert_string_equal(kallsyms_name(&k, s), "do_one");
	assert_string_equal(kallsyms_module(&k, s), "mymod");
	/* the last symbol has no known end: only its own address */
	s = mdb_kallsyms_find(&k, 0xffffffffc0001100ULL);
	assert_string_equal(kallsyms_name(&k, s), "mod_end");
	assert_null(mdb_kallsyms_find(&k, 0xffffffffc0001101ULL));
	mdb_kallsyms_release(&k);
}

static void test_names(void **state)
{
	struct kallsyms k;
	struct mdb_error e;
	uint64_t a = 0;

	(void)state;
	assert_int_equal(mdb_kallsyms_parse(&k, ksyms, sizeof(ksyms) - 1, "ks",
					    &e), 0);
	assert_int_equal(mdb_kallsyms_addr(&k, "do_one", 6, NULL, 0, &a), 0);
	assert_int_equal(a, 0xffffffff81000100ULL);
	assert_int_equal(mdb_kallsyms_addr(&k, "do_one", 6, "mymod", 5, &a), 0);
	assert_int_equal(a, 0xffffffffc0001080ULL);
	/* a prefix of a name is not the name */
	assert_int_equal(mdb_kallsyms_addr(&k, "do_on", 5, NULL, 0, &a), -1);
	assert_int_equal(mdb_kallsyms_addr(&k, "do_one", 6, "mymo", 4, &a), -1);
	/* data symbols are not call sites */
	assert_int_equal(mdb_kallsyms_addr(&k, "some_data", 9, NULL, 0, &a), -1);
	assert_int_equal(mdb_kallsyms_any_addr(&k, "_text", &a), 0);
	assert_int_equal(a, 0xffffffff81000000ULL);
	mdb_kallsyms_release(&k);
}

/* Static functions of one name, told apart by the size %pS prints. */
static void test_sized(void **state)
{
	static const char ks[] =
		"ffffffff81000000 t dup\n"       /* 0x1000 long */
		"ffffffff81001000 t other\n"
		"ffffffff81002000 t dup\n"       /* 0x80 long */
		"ffffffff81002080 t last\n"
		"ffffffffc0000000 t dup\t[mod]\n";
	struct kallsyms k;
	struct mdb_error e;
	uint64_t a = 0;

	(void)state;
	assert_int_equal(mdb_kallsyms_parse(&k, ks, sizeof(ks) - 1, "ks", &e), 0);
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "dup", 3, NULL, 0, 0x80, &a),
			 0);
	assert_int_equal(a, 0xffffffff81002000ULL);
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "dup", 3, NULL, 0, 0x1000,
						 &a), 0);
	assert_int_equal(a, 0xffffffff81000000ULL);
	/* no such size: the first, and 1 says so */
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "dup", 3, NULL, 0, 0x40, &a),
			 1);
	assert_int_equal(a, 0xffffffff81000000ULL);
	/* no size given and two candidates: ambiguous */
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "dup", 3, NULL, 0, 0, &a), 1);
	/* one candidate, no size: exact */
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "other", 5, NULL, 0, 0, &a),
			 0);
	assert_int_equal(a, 0xffffffff81001000ULL);
	/* the module's is its own */
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "dup", 3, "mod", 3, 0, &a),
			 0);
	assert_int_equal(a, 0xffffffffc0000000ULL);
	assert_int_equal(mdb_kallsyms_addr_sized(&k, "nope", 4, NULL, 0, 0, &a),
			 -1);
	mdb_kallsyms_release(&k);
}

static void test_system_map(void **state)
{
	static const char map[] =
		"0000000000000000 D __per_cpu_start\n"
		"ffffffff81000000 T startup_64\r\n"
		"ffffffff81000040 T secondary_startup_64\n";
	struct kallsyms k;
	struct mdb_error e;

	(void)state;
	assert_int_equal(mdb_kallsyms_parse(&k, map, sizeof(map) - 1, "map", &e),
			 0);
	assert_false(k.has_modules);
	assert_int_equal(k.malformed, 0);
	assert_string_equal(kallsyms_name(&k, mdb_kallsyms_find(&k,
				0xffffffff81000010ULL)), "startup_64");
	mdb_kallsyms_release(&k);
}

static void test_refusals(void **state)
{
	static const char zero[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 t do_one\n";
	static const char junk[] = "hello\nworld\n";
	struct kallsyms k;
	struct mdb_error e;

	(void)state;
	mdb_error_clear(&e);
	assert_int_equal(mdb_kallsyms_parse(&k, zero, sizeof(zero) - 1, "z", &e),
			 -MDB_E_INVAL);
	assert_non_null(strstr(e.hint, "kptr_restrict"));
	assert_int_equal(mdb_kallsyms_parse(&k, junk, sizeof(junk) - 1, "j", &e),
			 -MDB_E_FORMAT);
	assert_int_equal(e.line, 1);
	assert_int_equal(mdb_kallsyms_parse(&k, "", 0, "empty", &e),
			 -MDB_E_FORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_sized),
		cmocka_unit_test(test_system_map),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests_name("kallsyms reader", tests, NULL,
					   NULL);
}
