// SPDX-License-Identifier: MIT
/*
 * memdb ingest of real kernel core dumps (Debian's 6.1 cloud kernel
 * under QEMU; testdata/vmcore/, or the directory $MEMDB_VMCORE_DIR):
 * for each boot NAME (nokaslr, kaslr) and each container present
 *   NAME.elf.zst (QEMU ELF), NAME.qemu-kdump-zlib (QEMU's flattened
 *   kdump), NAME.kdump (makedumpfile -c -d 31), NAME.flat (-F -c -d 31)
 * the slab rows must equal the guest's own /proc/slabinfo and the buddy
 * rows its /proc/buddyinfo and /proc/pagetypeinfo, the zone counters its
 * /proc/zoneinfo, the event counters (pgalloc_*, pgfree, pgfault, ...)
 * its /proc/vmstat (NAME.proc, printed
 * just before the dump; compared by tests/vmcore_check.py), every
 * container must give the same rows, and where crash's `kmem -s` output
 * is kept (NAME.crash-kmem-s) every cache's object size, allocated,
 * total and slabs must equal crash's, and where drgn's walk is kept
 * (NAME.drgn-slab, by tests/vmcore_drgn_slab.py) object size and
 * allocated must equal drgn's; the buddy rows crash's `kmem -f`
 * (NAME.crash-kmem-f).  With $MEMDB_VMLINUX (the -dbg
 * package's vmlinux, 283 MB, not in the repository), the DWARF mode must
 * give the rows of the BTF mode, and a vmlinux of another build is
 * refused.  Each test says when it skipped and why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "testlib.h"

#define ROWS_SQL "SELECT name, object_size, size, allocated, total, slabs, " \
		 "active_objs, incomplete FROM zone ORDER BY pos"
#define BUDDY_SQL "SELECT node, zone, \"order\", migratetype, blocks " \
		  "FROM buddy"
#define GLOBAL_SQL "SELECT name, value FROM kcounter WHERE scope = " \
		   "'global' ORDER BY pos"

static const char *const containers[] = {
	"elf.zst", "qemu-kdump-zlib", "kdump", "flat",
};

static char *tmp, *dir;

static char *fixture(const char *name, const char *ext)
{
	char *p = strf("%s/%s.%s", dir, name, ext);

	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

/* The first container of boot @name present, or NULL. */
static char *any_dump(const char *name)
{
	char *p = NULL;

	for (size_t i = 0; !p && i < sizeof(containers) / sizeof(*containers);
	     i++)
		p = fixture(name, containers[i]);
	return p;
}

/* The boot's kallsyms, decompressed into tmp. */
static char *kallsyms_of(const char *name)
{
	char *z = fixture(name, "kallsyms.zst"), *out;
	struct run r;

	if (!z)
		return NULL;
	out = strf("%s/%s.kallsyms", tmp, name);
	run(&r, "zstd -dqf '%s' -o '%s'", z, out);
	assert_run_ok(&r);
	run_free(&r);
	free(z);
	return out;
}

/* memdb sql @sql on @db as CSV into @file. */
static void to_csv(const char *db, const char *sql, const char *file)
{
	struct run r;

	run(&r, "'%s' sql -d '%s' --format csv '%s' > '%s'", env("MEMDB"),
	    db, sql, file);
	assert_run_ok(&r);
	run_free(&r);
}

/* The same for SQL with string literals (no header line). */
static void text_csv(const char *db, const char *sql, const char *file)
{
	char *t = db_text(db, sql);
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	assert_int_equal(fputs(t, f) < 0, 0);
	assert_int_equal(fclose(f), 0);
	free(t);
}

static void check(const char *mode, const char *ref, const char *csv)
{
	struct run r;

	run(&r, "python3 '%s/vmcore_check.py' %s '%s' '%s'",
	    env("TESTS_DIR"), mode, ref, csv);
	if (r.status)
		fail_run(&r, "%s against %s:\n%s", mode, ref, r.out);
	run_free(&r);
}

/* Ingest @dump (@opt names the symbols) into a fresh database. */
static char *ingest_dump(const char *tag, const char *opt, const char *dump)
{
	char *db = fresh_db(tmp, tag);
	struct run r;

	/* not -q: no warning either (a 6.1 kernel has no alloc tags, and
	 * says nothing of them) */
	run_memdb(&r, db, "ingest %s '%s'", opt, dump);
	assert_run_ok_msg(&r, "ingest %s %s", opt, dump);
	assert_string_equal(r.err, "");
	run_free(&r);
	return db;
}

/* A 6.1 kernel has no alloc tags: no tag rows, no alloc_tags counters,
 * and the allocinfo report says there is no such snapshot. */
static void no_tags(const char *db)
{
	struct run r;

	assert_int_equal(db_int(db, "SELECT count(*) FROM tag"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM kcounter WHERE "
				    "name LIKE 'alloc_tags%'"), 0);
	run_memdb(&r, db, "report allocinfo --format csv");
	assert_int_not_equal(r.status, 0);
	assert_string_equal(r.out, "");
	if (!strstr(r.err, "no source of the kind needed, an "
			   "allocation-tag snapshot"))
		fail_msg("report allocinfo: %s", r.err);
	run_free(&r);
	run_memdb(&r, db, "report allocinfo --source 1 --format csv");
	assert_int_not_equal(r.status, 0);
	if (!strstr(r.err, "source 1 is a zone snapshot"))
		fail_msg("report allocinfo --source 1: %s", r.err);
	run_free(&r);
}

/* Every check of one dump; its rows in @rows_csv. */
static void one_dump(const char *name, const char *proc, const char *opt,
		     const char *dump, const char *rows_csv)
{
	char *db = ingest_dump("d.db", opt, dump),
	     *slab = path_in(tmp, "slab.csv"), *buddy = path_in(tmp, "b.csv"),
	     *crash = path_in(tmp, "c.csv"), *ref = fixture(name,
							  "crash-kmem-s"),
	     *dref = fixture(name, "drgn-slab"),
	     *fref = fixture(name, "crash-kmem-f");

	to_csv(db, "SELECT name, active_objs, num_objs, objsize, objperslab, "
		   "pagesperslab, num_slabs FROM zone ORDER BY pos", slab);
	check("slab", proc, slab);
	to_csv(db, BUDDY_SQL, buddy);
	check("buddy", proc, buddy);
	if (fref)
		check("crashf", fref, buddy);
	to_csv(db, "SELECT node, zone, name, value FROM kcounter WHERE "
		   "zone IS NOT NULL", buddy);
	check("zoneinfo", proc, buddy);
	/* equal, but pgfault and pgalloc_* may be 1 ahead: the guest's
	 * shell took one page fault (one page) between its cat of
	 * /proc/vmstat and the dump, on both boots; vmcore_check.py says
	 * why */
	text_csv(db, GLOBAL_SQL, buddy);
	check("events", proc, buddy);
	if (ref) {
		to_csv(db, "SELECT name, object_size, allocated, total, slabs "
			   "FROM zone", crash);
		check("crash", ref, crash);
	}
	if (dref) {
		to_csv(db, "SELECT name, object_size, allocated FROM zone",
		       crash);
		check("drgn", dref, crash);
	}
	to_csv(db, ROWS_SQL, rows_csv);
	assert_int_equal(db_int(db, "SELECT count(*) FROM zone WHERE "
				    "incomplete"), 0);
	no_tags(db);
	print_message("%s: %" PRId64 " caches, %" PRId64 " buddy rows, %"
		      PRId64 " event counters equal /proc%s%s\n", dump,
		      db_int(db, "SELECT count(*) FROM zone"),
		      db_int(db, "SELECT count(*) FROM buddy"),
		      db_int(db, "SELECT count(*) FROM kcounter WHERE "
				 "scope = 'global' AND pos >= (SELECT pos FROM "
				 "kcounter WHERE name = 'pgpgin')"),
		      ref ? ", crash kmem -s" : "", dref ? ", drgn" : "");
	if (fref)
		print_message("  and crash kmem -f\n");
	free(fref);
	free(dref);
	free(ref);
	free(crash);
	free(buddy);
	free(slab);
	free(db);
}

static void same_file(const char *a, const char *b)
{
	struct run r;

	run(&r, "cmp '%s' '%s'", a, b);
	if (r.status)
		fail_msg("rows differ: %s %s", a, b);
	run_free(&r);
}

static int boot(const char *name)
{
	char *proc = fixture(name, "proc"), *ks = kallsyms_of(name), *first;
	int n = 0;

	if (!proc || !ks) {
		print_message("skipped %s: no %s/%s.proc or .kallsyms.zst\n",
			      name, dir, name);
		free(proc);
		free(ks);
		return 0;
	}
	first = strf("%s/%s.rows.csv", tmp, name);
	for (size_t i = 0; i < sizeof(containers) / sizeof(*containers); i++) {
		char *dump = fixture(name, containers[i]), *opt, *rows;

		if (!dump)
			continue;
		opt = strf("--kallsyms '%s'", ks);
		rows = strf("%s/%s.%zu.csv", tmp, name, i);
		one_dump(name, proc, opt, dump, n ? rows : first);
		if (n)
			same_file(first, rows);
		n++;
		free(rows);
		free(opt);
		free(dump);
	}
	free(first);
	free(ks);
	free(proc);
	return n;
}

static void test_dumps(void **state)
{
	int n;

	(void)state;
	n = boot("nokaslr") + boot("kaslr");
	if (!n)
		print_message("skipped: no dump in %s (testdata/vmcore/ "
			      "lands them; MEMDB_VMCORE_DIR names another "
			      "directory)\n", dir);
}

/* BTF and DWARF give identical rows; a vmlinux of another build is
 * refused naming both build ids, the database unchanged. */
static void test_dwarf(void **state)
{
	const char *vmlinux = getenv("MEMDB_VMLINUX");
	char *dump, *ks = kallsyms_of("nokaslr"), *a, *b, *dba, *dbb, *opt;
	char *fv;
	struct run r;

	(void)state;
	dump = any_dump("nokaslr");
	if (!vmlinux || !*vmlinux || !dump || !ks) {
		print_message("skipped: %s\n", !dump || !ks ?
			      "no nokaslr dump" : "MEMDB_VMLINUX does not "
			      "name the -dbg package's vmlinux");
		free(dump);
		free(ks);
		return;
	}
	opt = strf("--kallsyms '%s'", ks);
	dba = ingest_dump("btf.db", opt, dump);
	free(opt);
	opt = strf("--vmlinux '%s'", vmlinux);
	dbb = ingest_dump("dwarf.db", opt, dump);
	a = path_in(tmp, "btf.csv");
	b = path_in(tmp, "dwarf.csv");
	to_csv(dba, ROWS_SQL, a);
	to_csv(dbb, ROWS_SQL, b);
	same_file(a, b);
	to_csv(dba, BUDDY_SQL, a);
	to_csv(dbb, BUDDY_SQL, b);
	same_file(a, b);
	fv = db_text(dbb, "SELECT format_version FROM source");
	assert_string_equal(fv, "DWARF\n");
	free(fv);
	/* another build's ELF: refused */
	run_memdb(&r, dbb, "ingest --force --vmlinux /bin/sh '%s'", dump);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "the vmlinux is not the dumped kernel"));
	assert_non_null(strstr(r.err, "dump_build_id="));
	run_free(&r);
	assert_int_equal(db_int(dbb, "SELECT count(*) FROM source"), 1);
	free(a);
	free(b);
	free(dba);
	free(dbb);
	free(opt);
	free(dump);
	free(ks);
}

/*
 * Symbols of the same build from another boot: the non-KASLR boot's
 * kallsyms holds the link-time addresses (a System.map's), so with the
 * KASLR dump it is accepted, moved by KERNELOFFSET, and gives the rows of
 * the dump's own kallsyms, and the same counters (the per-CPU event
 * counters' symbol is an offset KASLR does not move).  The KASLR boot's
 * kallsyms with the other dump is refused naming the symbol and both
 * values, the database unchanged.
 */
static void test_other_kallsyms(void **state)
{
	char *kd = any_dump("kaslr"), *nd = any_dump("nokaslr"),
	     *kks = kallsyms_of("kaslr"), *nks = kallsyms_of("nokaslr"),
	     *db = fresh_db(tmp, "w.db"), *opt, *a, *b, *dba, *dbb;
	struct run r;

	(void)state;
	if (!kd || !nd || !kks || !nks) {
		print_message("skipped: needs both dumps and kallsyms\n");
		goto out;
	}
	opt = strf("--kallsyms '%s'", kks);
	dba = ingest_dump("own.db", opt, kd);
	free(opt);
	opt = strf("--kallsyms '%s'", nks);
	dbb = ingest_dump("map.db", opt, kd);
	free(opt);
	a = path_in(tmp, "own.csv");
	b = path_in(tmp, "map.csv");
	to_csv(dba, ROWS_SQL, a);
	to_csv(dbb, ROWS_SQL, b);
	same_file(a, b);
	/* per-CPU symbols (vm_event_states) are not moved by KASLR */
	text_csv(dba, GLOBAL_SQL, a);
	text_csv(dbb, GLOBAL_SQL, b);
	same_file(a, b);
	assert_true(db_int(dba, "SELECT count(*) FROM kcounter WHERE name = "
				"'pgfault' AND value > 0") == 1);
	run_memdb(&r, db, "ingest --kallsyms '%s' '%s'", kks, nd);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "not of the dumped boot"));
	assert_non_null(strstr(r.err, "vmcoreinfo=0x"));
	assert_non_null(strstr(r.err, "kerneloffset=0x0"));
	run_free(&r);
	assert_int_equal(access(db, F_OK), -1);
	free(a);
	free(b);
	free(dba);
	free(dbb);
out:
	free(db);
	free(kd);
	free(nd);
	free(kks);
	free(nks);
}

/*
 * The real dumps cut short (at half, and a few pages before the end: the
 * BTF or a slab's page then is missing): refused, the database holding
 * an earlier source unchanged.
 */
static void test_cut(void **state)
{
	static const char *const cuts[] = { "50", "97" };
	char *kd = fixture("nokaslr", "kdump"), *ks = kallsyms_of("nokaslr"),
	     *db, *counts, *cut, *after;
	struct run r;

	(void)state;
	if (!kd || !ks) {
		print_message("skipped: no nokaslr.kdump and kallsyms\n");
		free(kd);
		free(ks);
		return;
	}
	db = fresh_db(tmp, "cut.db");
	run_memdb(&r, db, "ingest -q --kallsyms '%s' '%s'", ks, kd);
	assert_run_ok(&r);
	run_free(&r);
	counts = db_counts(db);
	cut = path_in(tmp, "cut.kdump");
	for (size_t i = 0; i < sizeof(cuts) / sizeof(*cuts); i++) {
		run(&r, "head -c $(($(wc -c < '%s') * %s / 100)) '%s' > '%s'",
		    kd, cuts[i], kd, cut);
		assert_run_ok(&r);
		run_free(&r);
		run_memdb(&r, db, "ingest --kallsyms '%s' '%s'", ks, cut);
		assert_run_status(&r, 1);
		if (!strstr(r.err, "cut short or corrupt") &&
		    !strstr(r.err, "dump cut short: the file ends") &&
		    !strstr(r.err, "not readable in the dump"))
			fail_msg("cut at %s%%: %s", cuts[i], r.err);
		run_free(&r);
		after = db_counts(db);
		assert_string_equal(counts, after);
		free(after);
	}
	free(cut);
	free(counts);
	free(db);
	free(kd);
	free(ks);
}

static int setup(void **state)
{
	const char *d = getenv("MEMDB_VMCORE_DIR");

	(void)state;
	tmp = tmpdir("vmcore-real");
	dir = d && *d ? strf("%s", d) : strf("%s/vmcore", env("TESTDATA"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(tmp);
	free(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dumps),
		cmocka_unit_test(test_dwarf),
		cmocka_unit_test(test_other_kallsyms),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
