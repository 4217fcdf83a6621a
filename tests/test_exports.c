// SPDX-License-Identifier: MIT
/*
 * One naming scheme for the library's exported names: every function and
 * global libmemdb.a defines for other files (nm -g --defined-only, kinds
 * T, D, B, R) starts with mdb_, so that none can collide with a library's
 * (libtraceevent's tep_*, libdw's dwarf_*, sqlite3_*, ZSTD_*, kdump_*)
 * and a helper used by one file is static.  The only others allowed are
 * the sanitizer runtime's hooks (__lsan_default_options, ...), whose names
 * the runtime fixes, and under ASan the indicator it adds for each
 * exported global (__odr_asan.mdb_zone_col_names).  The library is
 * $MEMDB_BUILD/libmemdb.a; skipped when nm is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

static int allowed(const char *name)
{
	static const char *const hooks[] = { "__lsan_", "__asan_", "__ubsan_" };
	static const char odr[] = "__odr_asan.";

	/* ASan's one-definition indicator of an exported global */
	if (!strncmp(name, odr, sizeof(odr) - 1))
		name += sizeof(odr) - 1;
	if (!strncmp(name, "mdb_", 4))
		return 1;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (!strncmp(name, hooks[i], strlen(hooks[i])))
			return 1;
	return 0;
}

static void test_exported_names(void **state)
{
	char *lib = path_in(env("MEMDB_BUILD"), "libmemdb.a");
	char *dir = tmpdir("exports"); /* run() keeps its output there */
	struct run r;
	size_t total = 0, bad = 0;

	(void)state;
	free(dir);
	run(&r, "command -v nm");
	if (r.status) {
		run_free(&r);
		free(lib);
		print_message("nm not found: exported names not checked\n");
		skip();
	}
	run_free(&r);
	run(&r, "nm -g --defined-only '%s'", lib);
	assert_run_ok_msg(&r, "nm over the library");
	/* "ADDRESS KIND NAME" lines; member headers and blank lines skipped */
	for (char *l = r.out, *next; l && *l; l = next) {
		char *save, *addr, *kind, *name;

		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		addr = strtok_r(l, " ", &save);
		kind = addr ? strtok_r(NULL, " ", &save) : NULL;
		name = kind ? strtok_r(NULL, " ", &save) : NULL;
		if (!name || strlen(kind) != 1 || !strchr("TDBR", *kind))
			continue;
		total++;
		if (!allowed(name)) {
			print_error("%s: exported %s symbol %s has no mdb_ "
				    "prefix (make it static if one file "
				    "uses it)\n", lib, kind, name);
			bad++;
		}
	}
	run_free(&r);
	free(lib);
	assert_true(total > 100);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exported_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
