// SPDX-License-Identifier: MIT
/*
 * memdb at the edges (issue 24), the inputs and the database file:
 *   - input no format claims is "not recognised", with what it looks like
 *     and the formats of the table, not a kmemtrace diagnosis; cpuN files
 *     and relay directories keep theirs;
 *   - a path that is not there is "no such file" (inputs, --kallsyms,
 *     --vmlinux);
 *   - a database that cannot be written (mode 444, read-only directory,
 *     read-only mount) is "read-only" whatever the reason, and reports and
 *     memdb sql read it;
 *   - memdb sql refuses fts3_tokenizer(), which hands out a pointer;
 *   - a first ingest killed before it commits leaves no database;
 *   - a symbolic link in a capture directory is followed only to a file
 *     inside the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../ingest/ingest.h"
#include "testlib.h"

static char *tmp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("edges_input");
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	free(tmp);
	return 0;
}

/* A shell command that must succeed. */
#define SH(...)                                                  \
	do {                                                     \
		struct run r_;                                   \
		run(&r_, __VA_ARGS__);                           \
		if (r_.status)                                   \
			fail_msg("shell: %s", r_.err);           \
		run_free(&r_);                                   \
	} while (0)

static void assert_has(const char *s, const char *what)
{
	if (!strstr(s, what))
		fail_msg("expected '%s' in:\n%s", what, s);
}

static void assert_lacks(const char *s, const char *what)
{
	if (strstr(s, what))
		fail_msg("did not expect '%s' in:\n%s", what, s);
}

/* Write @len bytes to @dir/@name; the path, malloc'ed. */
static char *write_bytes(const char *dir, const char *name, const void *buf,
			 size_t len)
{
	char *p = path_in(dir, name);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return p;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ---- 1. input memdb does not recognise --------------------------------- */

/* The refusal of unrecognised input, whatever it looks like: the formats
 * of the table are named, with --format. */
static void assert_unrecognised(const struct run *r, const char *looks)
{
	if (r->status != 1)
		fail_msg("status %d, stderr:\n%s", r->status, r->err);
	assert_has(r->err, "memdb: input not recognised in '");
	assert_has(r->err, looks);
	assert_lacks(r->err, "kmemtrace relay stream");
	assert_lacks(r->err, "kmemtrace records");
	for (const char *const *f = mdb_input_formats(); *f; f++)
		assert_has(r->err, *f);
	assert_has(r->err, "--format NAME");
}

static void test_unrecognised_input(void **state)
{
	char *db = fresh_db(tmp, "unrec.db"), *p, *snap, *flip;
	unsigned char bin[512];
	uint32_t x = 12345;
	size_t len;
	struct run r;

	(void)state;
	/* random bytes, NULs among them */
	for (size_t i = 0; i < sizeof(bin); i++) {
		x = x * 1103515245u + 12345u;
		bin[i] = (unsigned char)(x >> 16);
	}
	bin[0] = 0x5a;
	bin[1] = 0x00;
	bin[15] = 0xff;
	p = write_bytes(tmp, "random.bin", bin, sizeof(bin));
	run_memdb(&r, db, "ingest '%s'", p);
	assert_unrecognised(&r, "': binary whose first bytes are 5a 00 ");
	{
		char hex[64];
		int n = 0;

		for (int i = 0; i < 16; i++)
			n += sprintf(hex + n, "%s%02x", i ? " " : "", bin[i]);
		assert_has(r.err, hex);
	}
	run_free(&r);
	/* the same through standard input */
	run_memdb(&r, db, "ingest - < '%s'", p);
	assert_unrecognised(&r, "'<stdin>': binary whose first bytes are");
	run_free(&r);
	free(p);

	/* empty: a file, standard input */
	p = write_bytes(tmp, "empty.txt", "", 0);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_unrecognised(&r, "empty.txt': empty\n");
	run_free(&r);
	run_memdb(&r, db, "ingest - < /dev/null");
	assert_unrecognised(&r, "'<stdin>': empty\n");
	run_free(&r);
	free(p);

	/* a text snapshot with one byte flipped to a control byte */
	snap = path_in(env("TESTDATA"), "succeed/snapshots/allocinfo-v2.txt");
	p = slurp(snap, &len);
	assert_non_null(p);
	p[5] = 0x01;
	flip = write_bytes(tmp, "flipped.txt", p, len);
	free(p);
	run_memdb(&r, db, "ingest '%s'", flip);
	assert_unrecognised(&r, "text whose first line is "
				"'alloc\\x01nfo - version: 2.0'");
	run_free(&r);
	free(flip);
	free(snap);

	/* a first line to show: escaped, cut after about 60 bytes */
	p = write_bytes(tmp, "long.txt", "\x1b[31m 0123456789 0123456789 "
			"0123456789 0123456789 0123456789 0123456789 end\n"
			"second\n", 81);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_unrecognised(&r, "text whose first line is '\\x1b[31m 0123");
	assert_has(r.err, "...'");
	/* the line's end cut off (not "end" alone: the path may hold it) */
	assert_lacks(r.err, "6789 end");
	assert_lacks(r.err, "\x1b");
	run_free(&r);
	free(p);

	/* nothing was stored */
	assert_false(exists(db));
	free(db);
}

/* What is a kmemtrace relay capture still gets the relay diagnosis. */
static void test_relay_diagnosis_kept(void **state)
{
	char *db = fresh_db(tmp, "relay.db"), *dir, *p;
	static const char junk[] = "\x13\x37junk that is no relay record";
	struct run r;

	(void)state;
	dir = path_in(tmp, "relay");
	SH("rm -rf '%s' && mkdir -p '%s'", dir, dir);
	/* a lone per-CPU file, by its name */
	p = write_bytes(dir, "cpu0", junk, sizeof(junk) - 1);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "not a kmemtrace relay stream in either byte order");
	run_free(&r);
	free(p);
	/* the same bytes anywhere else, named as relay */
	p = write_bytes(tmp, "junk.bin", junk, sizeof(junk) - 1);
	run_memdb(&r, db, "ingest --format kmemtrace-relay '%s'", p);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "not a kmemtrace relay stream in either byte order");
	run_free(&r);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_unrecognised(&r, "binary whose first bytes are 13 37 6a");
	run_free(&r);
	free(p);
	/* a capture directory of cpuN files */
	run_memdb(&r, db, "ingest '%s'", dir);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "not a kmemtrace relay stream in either byte order");
	run_free(&r);
	/* an empty per-CPU file */
	p = write_bytes(tmp, "cpu3.out", "", 0);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "no kmemtrace records");
	run_free(&r);
	free(p);
	assert_false(exists(db));

	/* a lone relay file of another name, or piped, is still read */
	p = path_in(tmp, "lone.trace");
	SH("cp '%s/succeed/kt-small-le/cpu1.out' '%s'", env("TESTDATA"), p);
	ingest_ok(db, "'%s'", p);
	ingest_ok(db, "--force - < '%s'", p);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source WHERE "
				"format = 'kmemtrace-relay'"), 1);
	free(p);
	free(dir);
	free(db);
}

/* ---- 2. paths that are not there --------------------------------------- */

static void test_no_such_file(void **state)
{
	char *db = fresh_db(tmp, "nofile.db"), *missing;
	struct run r;

	(void)state;
	missing = path_in(tmp, "not-there");
	run_memdb(&r, db, "ingest '%s'", missing);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	assert_has(r.err, "not-there'");
	assert_lacks(r.err, "input/output error");
	run_free(&r);
	run_memdb(&r, db, "ingest '%s/sub/file'", missing);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	run_free(&r);
	/* --kallsyms of an ingest */
	run_memdb(&r, db, "ingest --kallsyms '%s' '%s/succeed/ftrace-6.1'",
		  missing, env("TESTDATA"));
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	assert_has(r.err, "not-there'");
	assert_lacks(r.err, "input/output error");
	run_free(&r);
	/* --vmlinux of an ingest (a core dump's), --kallsyms of check */
	run_memdb(&r, db, "ingest --vmlinux '%s' '%s/succeed/kt-small-le'",
		  missing, env("TESTDATA"));
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	assert_lacks(r.err, "input/output error");
	run_free(&r);
	assert_false(exists(db));
	run(&r, "'%s' check --kallsyms '%s' '%s/succeed/ftrace-6.1'",
	    env("MEMDB"), missing, env("TESTDATA"));
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	run_free(&r);
	/* --kallsyms and --vmlinux of symbolize */
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	run_memdb(&r, db, "symbolize --kallsyms '%s'", missing);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	assert_lacks(r.err, "input/output error");
	run_free(&r);
	run_memdb(&r, db, "symbolize --vmlinux '%s'", missing);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "memdb: no such file in '");
	assert_lacks(r.err, "input/output error");
	run_free(&r);
	free(missing);
	free(db);
}

/* ---- 3. read-only databases -------------------------------------------- */

/* Writing @db is refused in the one wording; reading it works. */
static void assert_readonly_db(const char *db)
{
	struct run r;

	run_memdb(&r, db, "ingest '%s/succeed/kt-small-be'", env("TESTDATA"));
	if (r.status != 1)
		fail_msg("ingest into read-only %s: status %d, %s", db,
			 r.status, r.err);
	assert_has(r.err, "memdb: the database is read-only in '");
	assert_has(r.err, "hint: reports, memdb sql and memdb sources read it");
	assert_lacks(r.err, "unable to open");
	assert_lacks(r.err, "attempt to write");
	run_free(&r);
	run_memdb(&r, db, "symbolize --kallsyms /dev/null");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "the database is read-only");
	run_free(&r);
	run_memdb(&r, db, "report summary");
	if (r.status)
		fail_msg("report on read-only %s: %s", db, r.err);
	assert_has(r.out, "kmemtrace-relay");
	run_free(&r);
	run_memdb(&r, db, "report leaks"); /* temp tables */
	assert_int_equal(r.status, 0);
	run_free(&r);
	run_memdb(&r, db, "sql -f csv 'SELECT count(*) FROM source'");
	if (r.status)
		fail_msg("sql on read-only %s: %s", db, r.err);
	assert_string_equal(r.out, "count(*)\n1\n");
	run_free(&r);
}

/* Run in a mount namespace: MEMDB DIR DB TESTDATA; 77: no mount here. */
static const char ro_mount_sh[] =
	"m=\"$1\" mnt=\"$2/mnt\" db=\"$3\" td=\"$4\"\n"
	"mount -t tmpfs tmpfs \"$mnt\" || exit 77\n"
	"cp \"$db\" \"$mnt/m.db\" || exit 77\n"
	"mount -o remount,ro \"$mnt\" || exit 77\n"
	"touch \"$mnt/x\" 2>/dev/null && exit 77\n"
	"\"$m\" ingest -d \"$mnt/m.db\" \"$td/succeed/kt-small-be\"\n"
	"echo \"ingest $?\"\n"
	"\"$m\" report summary -d \"$mnt/m.db\"\n"
	"echo \"report $?\"\n"
	"\"$m\" sql -f csv -d \"$mnt/m.db\" 'SELECT count(*) FROM source'\n"
	"echo \"sql $?\"\n";

static void test_readonly_database(void **state)
{
	char *dir = path_in(tmp, "ro"), *db, *wal, *shm;
	struct run r;

	(void)state;
	SH("chmod -R u+w '%s' 2>/dev/null; rm -rf '%s' && mkdir -p '%s'",
	   dir, dir, dir);
	db = path_in(dir, "memdb.db");
	wal = path_in(dir, "memdb.db-wal");
	shm = path_in(dir, "memdb.db-shm");
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));

	/* mode 444 (root too: memdb looks at the mode itself) */
	SH("chmod 444 '%s'", db);
	assert_readonly_db(db);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	SH("chmod 644 '%s' && rm -f '%s' '%s'", db, wal, shm);

	/* a read-only directory: nothing written there by reading either */
	SH("chmod 555 '%s'", dir);
	assert_readonly_db(db);
	assert_false(exists(wal));
	assert_false(exists(shm));
	/* named relative to the directory */
	run(&r, "cd '%s' && '%s' ingest -d memdb.db '%s/succeed/kt-small-be'",
	    dir, env("MEMDB"), env("TESTDATA"));
	assert_int_equal(r.status, 1);
	assert_has(r.err, "the database is read-only in 'memdb.db'");
	run_free(&r);
	/* nor a new database made there */
	{
		char *nw = path_in(dir, "new.db");

		run_memdb(&r, nw, "ingest '%s/succeed/kt-small-be'",
			  env("TESTDATA"));
		assert_int_equal(r.status, 1);
		assert_has(r.err, "cannot create the database in '");
		run_free(&r);
		assert_false(exists(nw));
		free(nw);
	}
	SH("chmod 755 '%s'", dir);

	/* a read-only mount, where one can be made (root, a namespace) */
	free(write_bytes(dir, "ro-mount.sh", ro_mount_sh,
			 sizeof(ro_mount_sh) - 1));
	run(&r, "mkdir -p '%s/mnt' && unshare -m sh '%s/ro-mount.sh' '%s' "
		"'%s' '%s' '%s' 2>&1", dir, dir, env("MEMDB"), dir, db,
	    env("TESTDATA"));
	if (r.status == 77 || (r.status && !strstr(r.out, "ingest "))) {
		print_message("no read-only mount here: skipped (%s)\n",
			      r.out);
	} else {
		assert_int_equal(r.status, 0);
		assert_has(r.out, "memdb: the database is read-only in '");
		assert_has(r.out, "mount=read-only");
		assert_has(r.out, "\ningest 1\n");
		assert_has(r.out, "kmemtrace-relay");
		assert_has(r.out, "\nreport 0\n");
		assert_has(r.out, "count(*)\n1\nsql 0\n");
		assert_lacks(r.out, "unable to open");
	}
	run_free(&r);
	free(wal);
	free(shm);
	free(db);
	free(dir);
}

/* ---- 4. memdb sql and fts3_tokenizer ------------------------------------ */

static void test_sql_fts3_tokenizer(void **state)
{
	char *db = fresh_db(tmp, "fts.db"), *readme, *sec, *end;
	struct run r;

	(void)state;
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	run_memdb(&r, db, "sql \"SELECT hex(fts3_tokenizer('simple'))\"");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "statement refused");
	assert_string_equal(r.out, "");
	run_free(&r);
	run_memdb(&r, db, "sql \"SELECT fts3_tokenizer('x', "
		  "X'0000000000000000')\"");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "statement refused");
	run_free(&r);
	run_memdb(&r, db, "sql \"SELECT FTS3_Tokenizer('simple')\"");
	assert_int_equal(r.status, 1);
	run_free(&r);
	/* other functions are not concerned */
	run_memdb(&r, db, "sql -f csv \"SELECT hex('a')\"");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "hex('a')\n61\n");
	run_free(&r);
	/* the usage reference's memdb sql section lists what sql refuses */
	readme = path_in(env("TESTS_DIR"), "../docs/usage.md");
	sec = slurp(readme, NULL);
	assert_non_null(sec);
	end = strstr(sec, "## memdb sql");
	assert_non_null(end);
	end = strstr(end + 1, "\n## ");
	assert_non_null(end);
	*end = '\0';
	assert_has(strstr(sec, "## memdb sql"), "fts3_tokenizer");
	free(sec);
	free(readme);
	free(db);
}

/* ---- 5. a first ingest killed before it commits -------------------------- */

static void nap_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* memdb ARGV... with standard input @in (-1: /dev/null); its pid. */
static pid_t start_memdb(int in, char *const argv[])
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = in >= 0 ? in : open("/dev/null", O_RDONLY);
		int null = open("/dev/null", O_WRONLY);

		dup2(fd, 0);
		dup2(null, 1);
		dup2(null, 2);
		/* as from a terminal: a run in the background of a shell
		 * ignores SIGINT, which memdb then leaves ignored */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(env("MEMDB"), argv);
		_exit(127);
	}
	return pid;
}

/* Wait for @pid; its status as run() gives it (128 + signal). */
static int reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static void test_killed_first_ingest(void **state)
{
	static const int sigs[] = { SIGTERM, SIGKILL, SIGINT };
	char *db = fresh_db(tmp, "killed.db"), *journal, *big;
	struct run r;

	(void)state;
	journal = path_in(tmp, "killed.db-journal");
	/* standard input that never delivers */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char *argv[] = { "memdb", "ingest", "-q", "-d", db, "-",
				 NULL };
		int p[2];
		pid_t pid;

		assert_int_equal(pipe(p), 0);
		pid = start_memdb(p[0], argv);
		close(p[0]);
		nap_ms(300);
		assert_int_equal(kill(pid, sigs[i]), 0);
		assert_int_equal(reap(pid), 128 + sigs[i]);
		close(p[1]);
		assert_false(exists(db));
		assert_false(exists(journal));
	}

	/* killed while it writes its first source */
	big = path_in(tmp, "big");
	SH("rm -rf '%s' && '%s' --events 3000000 --cpus 2 '%s' >/dev/null",
	   big, env("KTGEN"), big);
	for (size_t i = 0; i < 2; i++) {
		char *argv[] = { "memdb", "ingest", "-q", "-d", db, big,
				 NULL };
		pid_t pid = start_memdb(-1, argv);
		int waited = 0, st;

		/* the journal: the source's transaction has begun */
		while (!exists(journal) && waited++ < 3000)
			nap_ms(1);
		nap_ms(20);
		kill(pid, sigs[i]);
		st = reap(pid);
		if (st == 0) {
			print_message("the ingest ended before the signal: "
				      "not judged\n");
			SH("rm -f '%s'", db);
			continue;
		}
		assert_int_equal(st, 128 + sigs[i]);
		if (sigs[i] == SIGKILL) {
			/* cannot be caught: the database holds no source */
			if (exists(db))
				assert_int_equal(db_int(db, "SELECT count(*) "
							"FROM source"), 0);
			SH("rm -f '%s' '%s'", db, journal);
			continue;
		}
		assert_false(exists(db));
		assert_false(exists(journal));
	}

	/* a database with a source stays when a later ingest is killed */
	ingest_ok(db, "'%s/succeed/kt-small-le'", env("TESTDATA"));
	{
		char *argv[] = { "memdb", "ingest", "-q", "-d", db, big,
				 NULL };
		pid_t pid = start_memdb(-1, argv);

		nap_ms(300);
		kill(pid, SIGTERM);
		reap(pid);
	}
	assert_true(exists(db));
	assert_int_equal(db_int(db, "SELECT min(id) FROM source"), 1);
	/* and a rejected first ingest still says it made nothing */
	SH("rm -f '%s'", db);
	run_memdb(&r, db, "ingest - < /dev/null");
	assert_int_equal(r.status, 1);
	assert_has(r.err, "nothing ingested: '");
	run_free(&r);
	assert_false(exists(db));
	SH("rm -rf '%s'", big);
	free(big);
	free(journal);
	free(db);
}

/* ---- 6. symbolic links in a capture directory ---------------------------- */

static const char ksyms[] = "ffffffff81000000 T _stext\n"
			    "ffffffff81000100 T kmem_cache_alloc\n"
			    "ffffffff81000200 T __kmalloc\n";

static void test_capture_links(void **state)
{
	char *db = fresh_db(tmp, "links.db"), *cap, *out, *p;
	struct run r;

	(void)state;
	cap = path_in(tmp, "cap");
	out = path_in(tmp, "outside");
	SH("rm -rf '%s' '%s' && mkdir -p '%s/sub' '%s' && cp "
	   "'%s/succeed/ftrace-6.1/trace' '%s/'", cap, out, cap, out,
	   env("TESTDATA"), cap);
	free(write_bytes(cap, "sub/kallsyms.txt", ksyms, sizeof(ksyms) - 1));
	free(write_bytes(out, "secret", ksyms, sizeof(ksyms) - 1));

	/* a link to a file inside the capture: followed, stored */
	SH("cd '%s' && ln -s sub/kallsyms.txt kallsyms && ln -s "
	   "'%s/sub/../sub/kallsyms.txt' modules", cap, cap);
	ingest_ok(db, "'%s'", cap);
	assert_int_equal(db_int(db, "SELECT length(data) FROM source_file "
				"WHERE name = 'kallsyms'"),
			 (int64_t)sizeof(ksyms) - 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source_file"), 2);

	/* a link out of it: refused, nothing stored */
	SH("cd '%s' && rm kallsyms modules && ln -s '%s/secret' kallsyms",
	   cap, out);
	run_memdb(&r, db, "ingest --force '%s'", cap);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "a symbolic link out of the capture directory in '");
	assert_has(r.err, "/kallsyms'");
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	/* relative, through .. */
	SH("cd '%s' && rm kallsyms && ln -s ../outside/secret kallsyms", cap);
	run_memdb(&r, db, "ingest --force '%s'", cap);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "a symbolic link out of the capture directory");
	run_free(&r);
	/* the other files kept with a source, and other capture formats */
	SH("cd '%s' && rm kallsyms && ln -s ../outside/secret "
	   "kernel-release", cap);
	run_memdb(&r, db, "ingest --force '%s'", cap);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "kernel-release'");
	run_free(&r);
	p = path_in(tmp, "ktcap");
	SH("rm -rf '%s' && cp -r '%s/succeed/kt-small-le' '%s' && ln -s "
	   "'%s/secret' '%s/sections'", p, env("TESTDATA"), p, out, p);
	run_memdb(&r, db, "ingest '%s'", p);
	assert_int_equal(r.status, 1);
	assert_has(r.err, "a symbolic link out of the capture directory");
	assert_has(r.err, "sections'");
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 1);
	/* a dangling link is as no file */
	SH("rm -f '%s/sections' && ln -s nothing-here '%s/sections'", p, p);
	ingest_ok(db, "'%s'", p);
	free(p);
	free(out);
	free(cap);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unrecognised_input),
		cmocka_unit_test(test_relay_diagnosis_kept),
		cmocka_unit_test(test_no_such_file),
		cmocka_unit_test(test_readonly_database),
		cmocka_unit_test(test_sql_fts3_tokenizer),
		cmocka_unit_test(test_killed_first_ingest),
		cmocka_unit_test(test_capture_links),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
