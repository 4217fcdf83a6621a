// SPDX-License-Identifier: MIT
/*
 * memdb ingest of kernel core dumps through the binary: refusals of
 * truncated, corrupt and mismatched dumps (clear errors, the database
 * unchanged), written here with Python.  The real dumps' figures are
 * checked in test_vmcore_real.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

static char *tmp;

/* A database holding one slabinfo source, and its counts. */
static char *seeded_db(const char *name, char **counts)
{
	char *db = fresh_db(tmp, name), *si = path_in(tmp, "slabinfo");
	FILE *f = fopen(si, "w");

	assert_non_null(f);
	fputs("slabinfo - version: 2.1\n"
	      "kmalloc-64 10 64 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\n",
	      f);
	fclose(f);
	ingest_ok(db, "'%s'", si);
	free(si);
	*counts = db_counts(db);
	return db;
}

/* Ingest @file (made by the Python @script) and expect @msg, offset
 * @off when not NULL, and the database unchanged. */
static void refused(const char *file, const char *script, const char *msg,
		    const char *off)
{
	char *counts, *db = seeded_db("r.db", &counts), *p = path_in(tmp, file),
	     *after;
	struct run r;

	run(&r, "python3 -c \"%s\" '%s'", script, p);
	assert_run_ok(&r);
	run_free(&r);
	run_memdb(&r, db, "ingest --kallsyms /dev/null '%s'", p);
	assert_run_status(&r, 1);
	if (!strstr(r.err, msg) || (off && !strstr(r.err, off)))
		fail_msg("stderr: %s", r.err);
	assert_non_null(strstr(r.err, file));
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(counts, after);
	free(after);
	free(counts);
	free(db);
	free(p);
}

#define ELF_HDR "import struct,sys;h=b'\\\\x7fELF'+bytes([2,1,1,0])+" \
	"bytes(8)+struct.pack('<HHIQQQIHHHHHH',4,62,1,0,64,0,0,64,56,1," \
	"64,0,0);"

static void test_truncated_elf(void **state)
{
	(void)state;
	/* an x86-64 ELF core header whose program headers are missing */
	refused("trunc.elf", ELF_HDR "open(sys.argv[1],'wb').write(h)",
		"ELF core dump cut short: its program headers end beyond "
		"the file", "offset=64");
	/* a PT_LOAD segment whose data ends beyond the file */
	refused("seg.elf", ELF_HDR "h+=struct.pack('<IIQQQQQQ',1,7,120,0,0,"
		"4096,4096,0);open(sys.argv[1],'wb').write(h+bytes(100))",
		"a memory segment ends beyond the file", "offset=220");
}

static void test_bad_kdump(void **state)
{
	(void)state;
	/* refused by its header before libkdumpfile sees it (which
	 * crashes in its own kdump_free after refusing it) */
	refused("bad.kdump", "import sys;open(sys.argv[1],'wb').write("
		"b'KDUMP   '+bytes(500))",
		"impossible header_version", "offset=8");
}

/*
 * libkdumpfile is loaded when a dump is first opened (ingest/vmcore/
 * dump.c): where it cannot be, the dump is refused saying so and what to
 * install, the database unchanged, and other inputs still ingest.
 */
static void test_no_libkdumpfile(void **state)
{
	char *counts, *db = seeded_db("nolib.db", &counts), *after,
	     *ks = path_in(tmp, "nokaslr.kallsyms");
	struct run r;

	(void)state;
	run(&r, "zstd -dqc '%s/vmcore/nokaslr.kallsyms.zst' > '%s'",
	    env("TESTDATA"), ks);
	assert_run_ok(&r);
	run_free(&r);
	run(&r, "MEMDB_TEST_KDUMP_SONAME=libmemdb-none.so.0 '%s' ingest -d "
		"'%s' --kallsyms '%s' '%s/vmcore/nokaslr.kdump'",
	    env("MEMDB"), db, ks, env("TESTDATA"));
	assert_run_status(&r, 1);
	if (!strstr(r.err, "cannot load libkdumpfile") ||
	    !strstr(r.err, "libmemdb-none.so.0") ||
	    !strstr(r.err, "nokaslr.kdump") ||
	    !strstr(r.err, "apt-get install libkdumpfile10"))
		fail_msg("stderr: %s", r.err);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(counts, after);
	free(after);
	free(counts);
	free(ks);
	free(db);
}

/* A library that is there but is not libkdumpfile: the refusal names
 * the symbol it lacks, as the loader said it (its message read before
 * the library is closed again, which frees it). */
static void test_not_libkdumpfile(void **state)
{
	char *db = path_in(tmp, "notlib.db");
	struct run r;

	(void)state;
	run(&r, "MEMDB_TEST_KDUMP_SONAME=libz.so.1 '%s' ingest -d '%s' "
		"'%s/vmcore/nokaslr.kdump'", env("MEMDB"), db,
	    env("TESTDATA"));
	assert_run_status(&r, 1);
	if (!strstr(r.err, "cannot load libkdumpfile") ||
	    !strstr(r.err, "libz.so.1: undefined symbol: kdump_new\""))
		fail_msg("stderr: %s", r.err);
	run_free(&r);
	free(db);
}

static void test_flat_no_end(void **state)
{
	(void)state;
	/* a flattened dump cut after its first record: 4096 + 16 + 4 */
	refused("cut.flat", "import struct,sys;h=bytearray(4096);"
		"h[0:13]=b'makedumpfile\\\\0';h[16:32]=struct.pack('>qq',1,1);"
		"open(sys.argv[1],'wb').write(bytes(h)+struct.pack('>qq',0,4)"
		"+b'KDUM')",
		"flattened dump: truncated: no end record", "offset=4116");
}

static void test_flat_bad_size(void **state)
{
	(void)state;
	refused("big.flat", "import struct,sys;h=bytearray(4096);"
		"h[0:13]=b'makedumpfile\\\\0';h[16:32]=struct.pack('>qq',1,1);"
		"open(sys.argv[1],'wb').write(bytes(h)+struct.pack('>qq',0,"
		"1<<40)+bytes(64))",
		"flattened dump: record size beyond the end", "offset=4104");
}

static int setup(void **state)
{
	(void)state;
	tmp = tmpdir("vmcore-cli");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated_elf),
		cmocka_unit_test(test_bad_kdump),
		cmocka_unit_test(test_no_libkdumpfile),
		cmocka_unit_test(test_not_libkdumpfile),
		cmocka_unit_test(test_flat_no_end),
		cmocka_unit_test(test_flat_bad_size),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
