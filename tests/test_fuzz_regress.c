// SPDX-License-Identifier: MIT
/*
 * Every input a fuzz harness once failed on (testdata/fuzz-regress/NAME/)
 * replayed through that harness's own code, compiled into this test with
 * LLVMFuzzerTestOneInput renamed to replay_NAME (see the Makefile).  The
 * sanitizer pass of make check turns any regression into a failure.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

#define HARNESSES(X)                                                        \
	X(kmemtrace) X(kallsyms) X(modules) X(ftrace) X(ktf) X(allocinfo)   \
	X(slabinfo) X(vmstat_json) X(memstat) X(vmstat_text) X(tracefs)     \
	X(perfdata) X(capture) X(tracedat) X(load) X(elf) X(vmcore)       \
	X(packcol)

#define DECL(name) int replay_##name(const uint8_t *data, size_t size);
HARNESSES(DECL)
#undef DECL

static const struct {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
} harness[] = {
#define ENTRY(name) { #name, replay_##name },
	HARNESSES(ENTRY)
#undef ENTRY
};

static void test_replay(void **state)
{
	int n = 0;

	(void)state;
	for (size_t h = 0; h < sizeof(harness) / sizeof(harness[0]); h++) {
		char *dir;
		DIR *d;
		struct dirent *de;

		if (asprintf(&dir, "%s/fuzz-regress/%s", env("TESTDATA"),
			     harness[h].name) < 0)
			fail();
		d = opendir(dir);
		while (d && (de = readdir(d))) {
			char *path;
			size_t len;
			uint8_t *data;

			if (de->d_name[0] == '.')
				continue;
			if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
				fail();
			data = (uint8_t *)slurp(path, &len);
			assert_non_null(data);
			assert_int_equal(harness[h].one(data, len), 0);
			print_message("replayed %s/%s\n", harness[h].name,
				      de->d_name);
			free(data);
			free(path);
			n++;
		}
		if (d)
			closedir(d);
		free(dir);
	}
	assert_true(n >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests_name("fuzzing regressions", tests,
					   NULL, NULL);
}
