// SPDX-License-Identifier: MIT
/*
 * Core dumps at the edges, through the binary: the real kdump of
 * testdata/vmcore cut at every size from 4 KB to 64 KB, with each header
 * field set to zero and to its maximum, shrinking while memdb reads it,
 * and read with the symbols of another build.  Each is ingested whole or
 * refused with a message naming the file and exit status 1, never a
 * signal, and a refusal leaves the database as it was.  Also the guard
 * that answers a library's mapping of a file that shrank (common/file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../common/file.h"
#include "testlib.h"

static char *tmp, *dump, *ks, *db, *counts;
static size_t dump_len;

/* @n bytes of @data into @path. */
static void put_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Back to the seeded database: every source but the first deleted. */
static void drop_new(void)
{
	int64_t id;
	struct run r;

	while ((id = db_int(db, "SELECT max(id) FROM source")) > 1) {
		run_memdb(&r, db, "sources --delete %lld", (long long)id);
		assert_int_equal(r.status, 0);
		run_free(&r);
	}
}

/* memdb ingest of @file into db: 0 when ingested, 1 when refused with
 * its name on stderr and the database unchanged; never a signal. */
static int ingest_or_refuse(const char *file, const char *args,
			    const char *want)
{
	struct run r;
	char *after;
	int st;

	run_memdb(&r, db, "ingest -q --kallsyms '%s' %s '%s'", ks, args, file);
	if (r.status != 0 && r.status != 1)
		fail_msg("%s: status %d (a signal?), stderr: %s", file,
			 r.status, r.err);
	if (r.status == 1 && (!strstr(r.err, file) ||
			      (want && !strstr(r.err, want))))
		fail_msg("%s: want '%s', stderr: %s", file,
			 want ? want : "", r.err);
	st = r.status;
	run_free(&r);
	after = db_counts(db);
	if (st == 1)
		assert_string_equal(counts, after);
	free(after);
	if (st == 0)
		drop_new();
	return st;
}

/* Every cut from 4 KB to 64 KB, 128 bytes apart (1024 under the
 * sanitizers, still four in each 4 KB block of the dump: each run costs
 * more there, and the plain build's cuts cover every 128 bytes). */
static void test_cuts(void **state)
{
	size_t step = under_sanitizers() ? 1024 : 128, n = 0;
	char *cut = path_in(tmp, "cut.kdump");

	(void)state;
	for (size_t len = 4096; len <= 65536; len += step, n++) {
		put_file(cut, dump, len);
		assert_int_equal(ingest_or_refuse(cut, "", "cut short"), 1);
	}
	print_message("%zu cuts refused\n", n);
	free(cut);
}

struct field {
	size_t off, width;
	const char *name;
	int must_refuse; /* 1: refused at both values naming the field */
};

/* disk_dump_header (64-bit) and the kdump_sub_header in block 1 */
static const struct field fields[] = {
	{ 8, 4, "header_version", 1 },
	{ 424, 4, "status", 0 },
	{ 428, 4, "block_size", 1 },
	{ 432, 4, "sub_hdr_size", 1 },
	{ 436, 4, "bitmap_blocks", 1 },
	{ 440, 4, "max_mapnr", 0 },
	{ 444, 4, "total_ram_blocks", 0 },
	{ 448, 4, "device_blocks", 0 },
	{ 452, 4, "written_blocks", 0 },
	{ 456, 4, "current_cpu", 0 },
	{ 460, 4, "nr_cpus", 0 },
	{ 4096 + 0, 8, "phys_base", 0 },
	{ 4096 + 8, 4, "dump_level", 0 },
	{ 4096 + 12, 4, "split", 0 },
	{ 4096 + 16, 8, "start_pfn", 0 },
	{ 4096 + 24, 8, "end_pfn", 0 },
	{ 4096 + 32, 8, "offset_vmcoreinfo", 0 },
	{ 4096 + 40, 8, "size_vmcoreinfo", 0 },
	{ 4096 + 48, 8, "offset_note", 0 },
	{ 4096 + 56, 8, "size_note", 0 },
	{ 4096 + 64, 8, "offset_eraseinfo", 0 },
	{ 4096 + 72, 8, "size_eraseinfo", 0 },
	{ 4096 + 80, 8, "start_pfn_64", 0 },
	{ 4096 + 88, 8, "end_pfn_64", 0 },
	{ 4096 + 96, 8, "max_mapnr_64", 0 },
};

static void test_header_fields(void **state)
{
	char *f = path_in(tmp, "field.kdump");
	uint8_t *x = malloc(dump_len);
	unsigned refused = 0;

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++)
		for (int max = 0; max < 2; max++) {
			const struct field *d = &fields[i];

			memcpy(x, dump, dump_len);
			memset(x + d->off, max ? 0xff : 0, d->width);
			put_file(f, x, dump_len);
			if (ingest_or_refuse(f, "", d->must_refuse ? d->name :
					     NULL) == 1)
				refused++;
			else if (d->must_refuse)
				fail_msg("%s=%s ingested", d->name,
					 max ? "max" : "0");
		}
	print_message("%u of %zu refused\n", refused,
		      2 * sizeof(fields) / sizeof(*fields));
	/* what libkdumpfile would allocate terabytes for */
	memcpy(x, dump, dump_len);
	memcpy(x + 436, "\xff\xff\xff\x7f", 4);
	put_file(f, x, dump_len);
	assert_int_equal(ingest_or_refuse(f, "", "impossible bitmap_blocks"),
			 1);
	/* an erase info of 1 TiB at byte 100 (its size alone is harmless) */
	memcpy(x, dump, dump_len);
	memcpy(x + 4096 + 64, "\x64\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0", 16);
	put_file(f, x, dump_len);
	assert_int_equal(ingest_or_refuse(f, "", "ends inside the erase info"),
			 1);
	free(x);
	free(f);
}

/* The dump truncated by another process while memdb reads it. */
static void test_shrinks(void **state)
{
	char *f = path_in(tmp, "shrink.kdump");
	const char *delays[] = { "0.02", "0.05", "0.08", "0.1" };
	unsigned refused = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(delays) / sizeof(*delays); i++) {
		struct run r;
		char *after;

		put_file(f, dump, dump_len);
		run(&r, "'%s' ingest -q -d '%s' --kallsyms '%s' '%s' & "
			"sleep %s; truncate -s 1000000 '%s'; wait $!",
		    env("MEMDB"), db, ks, f, delays[i], f);
		if (r.status != 0 && r.status != 1)
			fail_msg("status %d, stderr: %s", r.status, r.err);
		if (r.status == 1) {
			refused++;
			if (!strstr(r.err, f) || (!strstr(r.err, "shrank") &&
						  !strstr(r.err, "cut short")))
				fail_msg("stderr: %s", r.err);
			after = db_counts(db);
			assert_string_equal(counts, after);
			free(after);
		}
		if (r.status == 0)
			drop_new();
		run_free(&r);
	}
	print_message("%u of 4 refused (the others ended first)\n", refused);
	free(f);
}

/* The names of VMCOREINFO's SYMBOL() lines in the dump. */
static int vmcoreinfo_names(char ***out)
{
	const char *p = dump, *end = dump + dump_len;
	char **v = NULL;
	int n = 0;

	while ((p = memmem(p, (size_t)(end - p), "SYMBOL(", 7))) {
		const char *q = p += 7;

		while (q < end && *q != ')')
			q++;
		v = realloc(v, (size_t)(n + 1) * sizeof(*v));
		assert_non_null(v);
		v[n++] = strndup(p, (size_t)(q - p));
	}
	*out = v;
	return n;
}

/*
 * A System.map of another build: VMCOREINFO's symbols where the dump has
 * them, every other symbol 8 KB further.  Refused by the banner check,
 * not later by a BTF read that fails for this reason.
 */
static void test_other_build(void **state)
{
	char *text = slurp(ks, NULL), *line, *save = NULL,
	     *other = path_in(tmp, "other.map"), **names;
	int n = vmcoreinfo_names(&names);
	FILE *f = fopen(other, "w");
	struct run r;

	(void)state;
	assert_non_null(text);
	assert_non_null(f);
	assert_true(n > 5);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char type[8], name[256];
		int keep = 0;

		if (sscanf(line, "%llx %7s %255s", &a, type, name) != 3)
			continue;
		for (int i = 0; i < n && !keep; i++)
			keep = !strcmp(names[i], name);
		if (!keep && a >= 0xffff000000000000ull)
			a += 0x2000;
		fprintf(f, "%016llx %s %s\n", a, type, name);
	}
	fclose(f);
	run_memdb(&r, db, "ingest --kallsyms '%s' '%s/vmcore/nokaslr.kdump'",
		  other, env("TESTDATA"));
	assert_int_equal(r.status, 1);
	if (!strstr(r.err, "not of the dumped kernel") ||
	    !strstr(r.err, "linux_banner") || !strstr(r.err, "other.map"))
		fail_msg("stderr: %s", r.err);
	run_free(&r);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(other);
	free(text);
}

/*
 * A file mapped by someone else (as libelf maps a vmlinux) and cut
 * under the mapping: inside a guard the page past the end reads as zeros
 * and the guard's end says the file shrank; the process lives on.
 */
static void test_lib_guard(void **state)
{
	char *path = path_in(tmp, "mapped"), page[3 * 4096];
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *m;
	int fd;
	char c;

	(void)state;
	memset(page, 'x', sizeof(page));
	put_file(path, page, sizeof(page));
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	/* private and writable, as libelf may map a file */
	m = mmap(NULL, 3 * (size_t)ps, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(ftruncate(fd, 10), 0);
	mdb_map_guard();
	c = m[2 * ps + 5];
	m[2 * ps + 6] = 'y'; /* the zero page is writable */
	assert_int_equal(mdb_map_unguard(), 1);
	assert_int_equal(c, 0);
	/* no fault: nothing to say */
	mdb_map_guard();
	c = m[0];
	assert_int_equal(mdb_map_unguard(), 0);
	assert_int_equal(c, 'x');
	munmap((void *)m, 3 * (size_t)ps);
	close(fd);
	free(path);
}

static int setup(void **state)
{
	struct run r;
	char *slab, *path;
	FILE *f;

	(void)state;
	tmp = tmpdir("vmcore-edges");
	ks = path_in(tmp, "nokaslr.kallsyms");
	run(&r, "zstd -dqc '%s/vmcore/nokaslr.kallsyms.zst' > '%s'",
	    env("TESTDATA"), ks);
	assert_int_equal(r.status, 0);
	run_free(&r);
	path = strf("%s/vmcore/nokaslr.kdump", env("TESTDATA"));
	dump = slurp(path, &dump_len);
	assert_non_null(dump);
	free(path);
	db = fresh_db(tmp, "edges.db");
	slab = path_in(tmp, "slabinfo");
	f = fopen(slab, "w");
	assert_non_null(f);
	fputs("slabinfo - version: 2.1\n"
	      "kmalloc-64 10 64 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\n",
	      f);
	fclose(f);
	ingest_ok(db, "'%s'", slab);
	free(slab);
	counts = db_counts(db);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(counts);
	free(db);
	free(dump);
	free(ks);
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_shrinks),
		cmocka_unit_test(test_other_build),
		cmocka_unit_test(test_lib_guard),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
