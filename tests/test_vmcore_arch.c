// SPDX-License-Identifier: MIT
/*
 * memdb ingest of the real core dumps of testdata/arch/ARCH/ (QEMU's ELF
 * core of Debian's 6.1 kernel without its text pages; each README says
 * how they were made): arm64 (its types from the BTF in the dump), i386
 * (32-bit, PAE page tables, an ELF64 EM_386 core) and s390x (big-endian,
 * VMCOREINFO found by libkdumpfile through the lowcore, no note), the
 * types of these two from a BTF file made from the -dbg package's
 * vmlinux (pahole --btf_encode_detached; --btf), the symbols from that
 * package's System.map.  Their rows must equal the guest's own /proc
 * printed just before the dump (vmcore.proc, compared by
 * tests/vmcore_check.py as for x86-64: slabinfo, buddyinfo,
 * pagetypeinfo, zoneinfo, the event counters of vmstat), with the
 * dump's byte order and word size.  With $MEMDB_VMLINUX_ARM64,
 * $MEMDB_VMLINUX_I386 or $MEMDB_VMLINUX_S390X (the -dbg package's
 * vmlinux, not in the repository) the DWARF mode must give the rows of
 * the BTF.  A
 * kallsyms of functions only, a BTF of another kernel and --btf without
 * symbols are refused, the database unchanged.  QEMU's kdump-zlib file
 * of each boot (its kernel text left out too) must give the same
 * figures, its architecture told by its ELF notes; one whose notes tell
 * none is refused saying what they hold, and one whose header names
 * another machine than its notes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "testlib.h"

#define ROWS_SQL "SELECT name, object_size, size, allocated, total, slabs, " \
		 "active_objs, incomplete FROM zone ORDER BY pos"
#define BUDDY_SQL "SELECT node, zone, \"order\", migratetype, blocks " \
		  "FROM buddy"

static char *tmp;

static char *fixture(const char *arch, const char *name)
{
	return strf("%s/arch/%s/%s", env("TESTDATA"), arch, name);
}

/* @name.zst of @arch decompressed into tmp (once): its path. */
static char *unpacked(const char *arch, const char *name)
{
	char *z = strf("%s/arch/%s/%s.zst", env("TESTDATA"), arch, name);
	char *out = strf("%s/%s-%s", tmp, arch, name);
	struct run r;

	if (access(out, R_OK)) {
		run(&r, "zstd -dqf '%s' -o '%s'", z, out);
		assert_run_ok(&r);
		run_free(&r);
	}
	free(z);
	return out;
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

/* memdb sql @sql on @db as CSV (with its header) into @file. */
static void to_csv(const char *db, const char *sql, const char *file)
{
	struct run r;

	run(&r, "'%s' sql -d '%s' --format csv '%s' > '%s'", env("MEMDB"),
	    db, sql, file);
	assert_run_ok(&r);
	run_free(&r);
}

/* The same without the header line. */
static void text_csv(const char *db, const char *sql, const char *file)
{
	char *t = db_text(db, sql);
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	assert_int_equal(fputs(t, f) < 0, 0);
	assert_int_equal(fclose(f), 0);
	free(t);
}

/* Ingest @dump with @opt into a fresh database: not a word said. */
static char *ingest(const char *tag, const char *opt, const char *dump)
{
	char *db = fresh_db(tmp, tag);
	struct run r;

	run_memdb(&r, db, "ingest %s '%s'", opt, dump);
	assert_run_ok_msg(&r, "ingest %s %s", opt, dump);
	assert_string_equal(r.err, "");
	run_free(&r);
	return db;
}

/* Every figure of @db against the guest's /proc of @arch. */
static void same_as_proc(const char *arch, const char *db, const char *want)
{
	char *proc = fixture(arch, "vmcore.proc"), *csv = path_in(tmp, "x.csv");
	char *src = db_text(db, "SELECT format, format_version, byte_order, "
				"word_size, ncpus FROM source");

	if (strcmp(src, want))
		fail_msg("%s: source %s, expected %s", arch, src, want);
	to_csv(db, "SELECT name, active_objs, num_objs, objsize, objperslab, "
		   "pagesperslab, num_slabs FROM zone ORDER BY pos", csv);
	check("slab", proc, csv);
	to_csv(db, BUDDY_SQL, csv);
	check("buddy", proc, csv);
	to_csv(db, "SELECT node, zone, name, value FROM kcounter WHERE "
		   "zone IS NOT NULL", csv);
	check("zoneinfo", proc, csv);
	text_csv(db, "SELECT name, value FROM kcounter WHERE scope = 'global' "
		     "ORDER BY pos", csv);
	check("events", proc, csv);
	assert_int_equal(db_int(db, "SELECT count(*) FROM zone WHERE "
				    "incomplete"), 0);
	assert_true(db_int(db, "SELECT count(*) FROM kcounter WHERE name = "
			       "'uptime_sec' AND value > 0") == 1);
	print_message("%s: %lld caches, %lld buddy rows, %lld event counters "
		      "equal /proc\n", arch,
		      (long long)db_int(db, "SELECT count(*) FROM zone"),
		      (long long)db_int(db, "SELECT count(*) FROM buddy"),
		      (long long)db_int(db, "SELECT count(*) FROM kcounter "
					    "WHERE scope = 'global' AND pos >= "
					    "(SELECT pos FROM kcounter WHERE "
					    "name = 'pgpgin')"));
	free(src);
	free(csv);
	free(proc);
}

/* Ingest refused with @what in its message; @db (holding a source)
 * unchanged. */
static void refused(const char *db, const char *args, const char *what)
{
	char *before = db_counts(db), *after;
	struct run r;

	run_memdb(&r, db, "ingest %s", args);
	assert_run_status(&r, 1);
	if (!strstr(r.err, what))
		fail_msg("ingest %s: expected '%s', got: %s", args, what,
			 r.err);
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(after);
	free(before);
}

/* The text of @sql in database @a and in @b: the same. */
static void same_query(const char *a, const char *b, const char *sql)
{
	char *ta = db_text(a, sql), *tb = db_text(b, sql);

	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
}

/*
 * With $@env (the -dbg package's vmlinux of @arch, not in the
 * repository): the DWARF mode gives the rows of @db, made with BTF.
 */
static void dwarf_same(const char *arch, const char *db, const char *dump,
		       const char *env_name)
{
	const char *vmlinux = getenv(env_name);
	char *opt, *dwarf, *a;

	if (!vmlinux || !*vmlinux) {
		print_message("%s: DWARF mode skipped: %s does not name the "
			      "-dbg package's vmlinux\n", arch, env_name);
		return;
	}
	opt = strf("--vmlinux '%s'", vmlinux);
	dwarf = ingest("dwarf.db", opt, dump);
	a = db_text(dwarf, "SELECT format_version FROM source");
	assert_string_equal(a, "DWARF\n");
	free(a);
	same_query(db, dwarf, ROWS_SQL);
	same_query(db, dwarf, BUDDY_SQL);
	print_message("%s: DWARF (%s) gives the rows of the BTF\n", arch,
		      vmlinux);
	free(dwarf);
	free(opt);
}

/* arm64: the types from the BTF in the dump, the symbols from the
 * System.map (its /proc/kallsyms lists functions only); with
 * $MEMDB_VMLINUX_ARM64, the DWARF mode gives the same rows. */
static void test_arm64(void **state)
{
	char *dump = unpacked("arm64", "vmcore-notext.elf");
	char *map = unpacked("arm64", "System.map");
	char *ks = unpacked("arm64", "kallsyms"), *opt, *args;
	char *db;

	(void)state;
	opt = strf("--kallsyms '%s'", map);
	db = ingest("arm64.db", opt, dump);
	same_as_proc("arm64", db, "vmcore,BTF,little,8,2\n");
	args = strf("--force --kallsyms '%s' '%s'", ks, dump);
	refused(db, args, "names none of the kernel's variables");
	free(args);
	dwarf_same("arm64", db, dump, "MEMDB_VMLINUX_ARM64");
	free(db);
	free(opt);
	free(ks);
	free(map);
	free(dump);
}

/* VMCOREINFO's BUILD-ID (vmcore.vmcoreinfo, as the guest's kernel
 * wrote it): the source's notes must name it. */
static void same_build_id(const char *arch, const char *db)
{
	char *f = fixture(arch, "vmcore.vmcoreinfo"), *t = slurp(f, NULL);
	char *id = t ? strstr(t, "BUILD-ID=") : NULL, *notes;

	assert_non_null(id);
	id += 9;
	id[strcspn(id, "\n")] = '\0';
	notes = db_text(db, "SELECT notes FROM source");
	if (!strstr(notes, id))
		fail_msg("%s: notes '%s' lack build id %s", arch, notes, id);
	free(notes);
	free(t);
	free(f);
}

/*
 * i386 or s390x: no BTF in the kernel; the types from the BTF file made
 * by pahole from the -dbg package's vmlinux, the symbols from its
 * System.map.  With $@env, that vmlinux: the DWARF mode gives the same
 * rows.  Refused: no --btf (the hint names it), a BTF of the other
 * kernel, --btf with --vmlinux.
 */
static void btf_file(const char *arch, const char *other, const char *want,
		     const char *env_name)
{
	char *dump = unpacked(arch, "vmcore-notext.elf");
	char *map = unpacked(arch, "System.map");
	char *btf = unpacked(arch, "vmlinux.btf");
	char *obtf = unpacked(other, "vmlinux.btf");
	char *opt = strf("--kallsyms '%s' --btf '%s'", map, btf), *args;
	char *db = ingest("btf.db", opt, dump);

	same_as_proc(arch, db, want);
	same_build_id(arch, db);
	args = strf("--force --kallsyms '%s' '%s'", map, dump);
	refused(db, args, "give --vmlinux, or --btf FILE");
	free(args);
	args = strf("--force --kallsyms '%s' --btf '%s' '%s'", map, obtf,
		    dump);
	refused(db, args, "the BTF is not of the dumped kernel");
	free(args);
	args = strf("--force --btf '%s' --vmlinux /bin/sh '%s'", btf, dump);
	refused(db, args, "--btf and --vmlinux both give");
	free(args);
	dwarf_same(arch, db, dump, env_name);
	free(db);
	free(opt);
	free(obtf);
	free(btf);
	free(map);
	free(dump);
}

/* i386: 32-bit words, PAE page tables, an ELF64 core of EM_386. */
static void test_i386(void **state)
{
	(void)state;
	btf_file("i386", "s390x", "vmcore,BTF,little,4,2\n",
		 "MEMDB_VMLINUX_I386");
}

/* s390x: big-endian; VMCOREINFO is no note of the dump (libkdumpfile
 * finds it through the lowcore's os_info). */
static void test_s390x(void **state)
{
	(void)state;
	btf_file("s390x", "i386", "vmcore,BTF,big,8,2\n",
		 "MEMDB_VMLINUX_S390X");
}

/*
 * QEMU's kdump-zlib file of the same boot (vmcore-notext.qemu-kdump-
 * zlib.zst: the flattened file QEMU wrote, the blocks of the kernel's
 * text left out as makedumpfile leaves out what it filters).  Its header
 * names no machine libkdumpfile takes: the architecture is the one its
 * ELF notes tell.  Its rows must equal the guest's /proc as the ELF
 * core's do; @btf with the BTF file of i386 and s390x.
 */
static void kdump(const char *arch, int btf, const char *want)
{
	char *dump = unpacked(arch, "vmcore-notext.qemu-kdump-zlib");
	char *map = unpacked(arch, "System.map");
	char *bf = btf ? unpacked(arch, "vmlinux.btf") : NULL;
	char *opt = bf ? strf("--kallsyms '%s' --btf '%s'", map, bf) :
			 strf("--kallsyms '%s'", map);
	char *db = ingest("kdump.db", opt, dump);

	same_as_proc(arch, db, want);
	same_build_id(arch, db);
	free(db);
	free(opt);
	free(bf);
	free(map);
	free(dump);
}

/* arm64: QEMU's blocks are of 64 KiB, the kernel's pages of 4 KiB. */
static void test_arm64_kdump(void **state)
{
	(void)state;
	kdump("arm64", 0, "vmcore,BTF,little,8,2\n");
}

/* i386: NT_PRSTATUS of 144 bytes and QEMU's x86 notes. */
static void test_i386_kdump(void **state)
{
	(void)state;
	kdump("i386", 1, "vmcore,BTF,little,4,2\n");
}

/* s390x: big-endian, NT_S390_* notes, no VMCOREINFO in the file. */
static void test_s390x_kdump(void **state)
{
	(void)state;
	kdump("s390x", 1, "vmcore,BTF,big,8,2\n");
}

/*
 * The i386 kdump with its two "QEMU" notes renamed "QEMX" (the bytes of
 * each note's header and name, namesz 5, descsz 440, type 0, edited in
 * the flattened file by python): an NT_PRSTATUS of 144 bytes alone does
 * not tell the architecture, and the dump is refused saying what its
 * notes hold, the database unchanged.  And testdata/vmcore's x86-64
 * makedumpfile dump with the machine of its header (utsname.machine, 65
 * bytes at 272) made "i686": libkdumpfile takes that, its notes (QEMU's
 * x86 notes, NT_PRSTATUS of 336 bytes) say x86-64: refused.
 */
static void test_kdump_untold(void **state)
{
	char *dump = unpacked("i386", "vmcore-notext.qemu-kdump-zlib");
	char *map = unpacked("i386", "System.map");
	char *btf = unpacked("i386", "vmlinux.btf");
	char *opt = strf("--kallsyms '%s' --btf '%s'", map, btf);
	char *db = ingest("untold.db", opt, dump), *bad, *args;
	struct run r;

	(void)state;
	bad = path_in(tmp, "untold.kdump");
	run(&r, "python3 -c \"import sys\n"
		"b = open(sys.argv[1], 'rb').read()\n"
		"n = b'\\5\\0\\0\\0\\xb8\\1\\0\\0\\0\\0\\0\\0QEMU\\0'\n"
		"assert b.count(n) == 2, b.count(n)\n"
		"open(sys.argv[2], 'wb').write(b.replace(n, n[:15] + b'X\\0'))"
		"\" '%s' '%s'", dump, bad);
	assert_run_ok(&r);
	run_free(&r);
	args = strf("--force %s '%s'", opt, bad);
	refused(db, args, "kdump-compressed dump of an unknown architecture");
	refused(db, args, "prstatus=2 prstatus_size=144 qemu_notes=0");
	refused(db, args, "NT_PRSTATUS of 392 bytes (arm64)");
	free(args);
	run(&r, "python3 -c \"import sys\n"
		"b = bytearray(open(sys.argv[1], 'rb').read())\n"
		"assert b[272:279] == b'x86_64\\0', b[272:279]\n"
		"b[272:279] = b'i686\\0\\0\\0'\n"
		"open(sys.argv[2], 'wb').write(b)\" "
		"'%s/vmcore/nokaslr.kdump' '%s'", env("TESTDATA"), bad);
	assert_run_ok(&r);
	run_free(&r);
	args = strf("--force %s '%s'", opt, bad);
	refused(db, args, "arch=ia32 notes=x86_64");
	refused(db, args, "names another machine than its ELF notes");
	free(args);
	free(bad);
	free(db);
	free(opt);
	free(btf);
	free(map);
	free(dump);
}

static int setup(void **state)
{
	(void)state;
	tmp = tmpdir("vmcore-arch");
	return 0;
}

/* The dumps decompressed take 815 MB: not left behind. */
static int teardown(void **state)
{
	struct run r;

	(void)state;
	run(&r, "rm -f '%s'/*-vmcore-notext.* '%s'/untold.kdump", tmp, tmp);
	run_free(&r);
	free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_i386),
		cmocka_unit_test(test_s390x),
		cmocka_unit_test(test_arm64_kdump),
		cmocka_unit_test(test_i386_kdump),
		cmocka_unit_test(test_s390x_kdump),
		cmocka_unit_test(test_kdump_untold),
	};

	return cmocka_run_group_tests_name("core dumps of arm64, i386, s390x",
					   tests, setup, teardown);
}
