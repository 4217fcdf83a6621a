// SPDX-License-Identifier: MIT
/*
 * Module snapshots (symbolize/modules.c) on inline text: /proc/modules,
 * both sections formats, name equivalence, and refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../symbolize/modules.h"

static void test_proc_modules(void **state)
{
	static const char text[] =
		"nf_tables 331776 0 - Live 0xffffffffc0a80000\n"
		"\n"
		"crc32c_intel 24576 1 btrfs, Live 0xffffffffc0123000 (E)\r\n"
		"mod-with-dash 8192 0 - Loading ffffffffc0200000\n";
	struct kmods m = { 0 };
	struct mdb_error e;

	(void)state;
	assert_int_equal(mdb_kmods_parse_proc(&m, text, sizeof(text) - 1, "pm",
					      &e), 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.v[0].name, "nf_tables");
	assert_int_equal(m.v[0].size, 331776);
	assert_int_equal(m.v[0].base, 0xffffffffc0a80000ULL);
	assert_int_equal(m.v[1].base, 0xffffffffc0123000ULL);
	assert_int_equal(m.v[2].base, 0xffffffffc0200000ULL);
	assert_true(m.v[2].has_base);
	assert_true(mdb_kmod_name_eq(m.v[2].name, "mod_with_dash"));
	assert_false(mdb_kmod_name_eq("mod_a", "mod_ab"));
	mdb_kmods_release(&m);
}

static void test_sections(void **state)
{
	static const char text[] =
		"nf_tables .text 0xffffffffc0a80000\n"
		"nf_tables .init.text 0xffffffffc0b00000\n"
		"/sys/module/nf-tables/sections/.data:0xffffffffc0b10000\n"
		"other .text ffffffffc0c00000\n";
	static const char procm[] =
		"nf_tables 331776 0 - Live 0xffffffffc0a80000\n";
	struct kmods m = { 0 };
	struct mdb_error e;

	(void)state;
	assert_int_equal(mdb_kmods_parse_sections(&m, text, sizeof(text) - 1, "s",
						  &e), 0);
	/* nf-tables and nf_tables are one module */
	assert_int_equal(m.n, 2);
	assert_int_equal(m.v[0].nsecs, 3);
	assert_string_equal(m.v[0].secs[2].name, ".data");
	assert_int_equal(m.v[0].secs[2].addr, 0xffffffffc0b10000ULL);
	assert_int_equal(m.v[1].secs[0].addr, 0xffffffffc0c00000ULL);
	/* /proc/modules adds to the same entries */
	assert_int_equal(mdb_kmods_parse_proc(&m, procm, sizeof(procm) - 1, "p",
					      &e), 0);
	assert_int_equal(m.n, 2);
	assert_true(m.v[0].has_base);
	mdb_kmods_release(&m);
}

static void test_refusals(void **state)
{
	static const char *const bad_proc[] = {
		"nf_tables 331776 0 - Live\n",           /* no address */
		"nf_tables big 0 - Live 0xffff\n",       /* size not decimal */
		"nf_tables 1 0 - Live 0xfffffffffc0a80000\n", /* 17 digits */
		"a 1 0 - Live 0x1000\nb 1 0 - Live 0xzz\n",
	};
	static const char *const bad_secs[] = {
		"nf_tables .text\n",
		"/sys/module/nf_tables/.text:0x1000\n",
		"/sys/module/nf_tables/sections/.text\n",
		"a b c d\n",
	};
	static const char zero[] = "a 1 0 - Live 0x0000000000000000\n"
				   "b 1 0 - Live 0x0000000000000000\n";
	struct mdb_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_proc) / sizeof(bad_proc[0]); i++) {
		struct kmods m = { 0 };

		mdb_error_clear(&e);
		assert_int_equal(mdb_kmods_parse_proc(&m, bad_proc[i],
						      strlen(bad_proc[i]), "pm",
						      &e), -MDB_E_CORRUPT);
		assert_int_equal(e.line, i == 3 ? 2 : 1);
		assert_non_null(strstr(e.msg, "malformed /proc/modules line"));
		mdb_kmods_release(&m);
	}
	for (size_t i = 0; i < sizeof(bad_secs) / sizeof(bad_secs[0]); i++) {
		struct kmods m = { 0 };

		assert_int_equal(mdb_kmods_parse_sections(&m, bad_secs[i],
							  strlen(bad_secs[i]), "s",
							  &e), -MDB_E_CORRUPT);
		assert_int_equal(e.line, 1);
		mdb_kmods_release(&m);
	}
	{
		struct kmods m = { 0 };

		assert_int_equal(mdb_kmods_parse_proc(&m, zero, sizeof(zero) - 1,
						      "pm", &e), -MDB_E_INVAL);
		assert_non_null(strstr(e.hint, "kptr_restrict"));
		mdb_kmods_release(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_modules),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests_name("module snapshots", tests, NULL,
					   NULL);
}
