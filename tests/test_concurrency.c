// SPDX-License-Identifier: MIT
/*
 * Concurrent use of one database: reports and `memdb sql` while an ingest
 * writes (WAL mode) never fail and never see a partial source; two
 * ingests into one database wait for each other instead of failing; an
 * ingest killed (SIGKILL) while its pages are already going to disk
 * leaves no trace of its source, into a new database or an existing one.
 */
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
#include <unistd.h>

#include <cmocka.h>

#include "../db/db.h"
#include "testlib.h"

static char *tmp;

static pid_t spawn_ingest(const char *db, const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(env("MEMDB"), "memdb", "ingest", "-q", "-d", db, path,
		      (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	return pid;
}

/* Has @pid exited?  Its exit status in *@status. */
static int exited(pid_t pid, int *status)
{
	int st;
	pid_t r = waitpid(pid, &st, WNOHANG);

	if (r == 0)
		return 0;
	assert_int_equal(r, pid);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 1;
}

/* Every source a reader sees is whole: its row counts match its rows. */
static const char whole_sql[] =
	"SELECT count(*) || ' ' || coalesce(sum(allocations = (SELECT "
	"count(*) FROM alloc a WHERE a.id BETWEEN s.alloc_lo AND "
	"s.alloc_hi) AND events > 0), 0) FROM source s";

static void test_readers_during_ingest(void **state)
{
	char *db, *big, *cmd;
	struct run r;
	pid_t pid;
	int status = -1, loops = 0, during = 0;

	(void)state;
	tmp = tmpdir("concurrency");
	if (asprintf(&db, "%s/c.db", tmp) < 0 ||
	    asprintf(&big, "%s/big", tmp) < 0)
		fail();
	/* an existing database (so WAL mode) with one source */
	run(&r, "'%s' ingest -q -d '%s' '%s/succeed/kt-small-le' && "
		"'%s' --seed 4 --events 2500000 --cpus 4 --live 20000 '%s'",
	    env("MEMDB"), db, env("TESTDATA"), env("KTGEN"), big);
	assert_run_ok(&r);
	run_free(&r);
	if (asprintf(&cmd, "'%s' sql -d '%s' -f csv \"%s\" | tail -n 1",
		     env("MEMDB"), db, whole_sql) < 0)
		fail();

	pid = spawn_ingest(db, big);
	for (;;) {
		int done = exited(pid, &status);
		long n, whole;

		run(&r, "%s", cmd);
		assert_run_ok(&r);
		assert_int_equal(sscanf(r.out, "%ld %ld", &n, &whole), 2);
		if (n != whole)
			fail_msg("a reader saw a partial source: %s", r.out);
		assert_true(n == 1 || n == 2);
		run_free(&r);
		run(&r, "'%s' report summary -d '%s' --source 1 --format csv",
		    env("MEMDB"), db);
		assert_run_ok_msg(&r, "report failed during ingest");
		run_free(&r);
		loops++;
		if (done)
			break;
		during++;
	}
	assert_int_equal(status, 0);
	print_message("%d reader rounds during the ingest\n", during);
	/* the readers really ran while the ingest wrote */
	assert_true(during >= 2);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 2);
	free(cmd);
	free(big);
	free(db);
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/*
 * Kill an ingest of @big into @db with SIGKILL once @grows (the database
 * file in rollback-journal mode, its -wal in WAL mode) holds 2 MB: past
 * the page cache, so pages of the unfinished source are on disk.
 */
static void kill_ingest(const char *db, const char *big, const char *grows)
{
	pid_t pid = spawn_ingest(db, big);
	int status = -1;

	while (file_size(grows) < 2 << 20) {
		if (exited(pid, &status))
			fail_msg("the ingest ended (status %d) before it was "
				 "killed", status);
		usleep(2000);
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	while (!exited(pid, &status))
		usleep(1000);
	assert_int_equal(status, 128 + SIGKILL);
}

/* After the kill: whole sources only, @n of them, an intact file. */
static void check_after_kill(const char *db, int n)
{
	struct run r;

	/* a writer rolls back what the killed one left */
	run(&r, "'%s' ingest -q -d '%s' '%s/succeed/kt-small-le'",
	    env("MEMDB"), db, env("TESTDATA"));
	assert_run_ok(&r);
	run_free(&r);
	run(&r, "sqlite3 '%s' 'PRAGMA integrity_check'", db);
	assert_string_equal(r.out, "ok\n");
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), n);
	assert_int_equal(db_int(db, "SELECT count(*) FROM alloc"),
			 db_int(db, "SELECT sum(allocations) FROM source"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM site WHERE "
				    "source_id NOT IN (SELECT id FROM "
				    "source)"), 0);
}

static void test_killed_ingest(void **state)
{
	char *db, *big, *grows;
	struct run r;

	(void)state;
	if (asprintf(&db, "%s/killed.db", tmp) < 0 ||
	    asprintf(&big, "%s/big", tmp) < 0 ||
	    asprintf(&grows, "%s-wal", db) < 0)
		fail();
	/* a new database: its first ingest writes in rollback-journal mode */
	run(&r, "rm -f '%s'*", db);
	run_free(&r);
	kill_ingest(db, big, db);
	check_after_kill(db, 1);
	/* an existing database (WAL mode): the next source is killed */
	kill_ingest(db, big, grows);
	check_after_kill(db, 1); /* the same small capture: already there */
	free(grows);
	free(big);
	free(db);
}

/*
 * Two small first ingests started together into a database that does
 * not exist, again and again: the one that finds the other's new file
 * (its image linked first, or still in rollback mode) waits for it
 * instead of failing "database is locked" (it did in 1 to 5 of 40).
 */
static void test_first_ingests_race(void **state)
{
	char *db, *a, *b;
	struct run r;
	int sa, sb;

	(void)state;
	if (asprintf(&db, "%s/race.db", tmp) < 0 ||
	    asprintf(&a, "%s/ra", tmp) < 0 || asprintf(&b, "%s/rb", tmp) < 0)
		fail();
	run(&r, "'%s' --seed 3 --events 20000 '%s' && '%s' --seed 4 "
		"--events 20000 '%s'", env("KTGEN"), a, env("KTGEN"), b);
	assert_run_ok(&r);
	run_free(&r);
	for (int i = 0; i < 20; i++) {
		pid_t pa, pb;

		run(&r, "rm -f '%s'*", db);
		run_free(&r);
		pa = spawn_ingest(db, a);
		pb = spawn_ingest(db, b);
		while (!exited(pa, &sa))
			usleep(2000);
		while (!exited(pb, &sb))
			usleep(2000);
		if (sa || sb || db_int(db, "SELECT count(*) FROM source") != 2)
			fail_msg("round %d: exit %d and %d", i, sa, sb);
	}
	free(a);
	free(b);
	free(db);
}

static void test_two_ingests(void **state)
{
	char *db, *a, *b;
	struct run r;
	pid_t pa, pb;
	int sa = -1, sb = -1;

	(void)state;
	if (asprintf(&db, "%s/two.db", tmp) < 0 ||
	    asprintf(&a, "%s/a", tmp) < 0 || asprintf(&b, "%s/b", tmp) < 0)
		fail();
	run(&r, "rm -f '%s' && '%s' --seed 1 --events 600000 '%s' && "
		"'%s' --seed 2 --events 600000 '%s'", db, env("KTGEN"), a,
	    env("KTGEN"), b);
	assert_run_ok(&r);
	run_free(&r);
	/* both start on a database that does not exist yet */
	pa = spawn_ingest(db, a);
	pb = spawn_ingest(db, b);
	while (!exited(pa, &sa))
		usleep(10000);
	while (!exited(pb, &sb))
		usleep(10000);
	assert_int_equal(sa, 0);
	assert_int_equal(sb, 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 2);
	assert_int_equal(db_int(db, "SELECT sum(allocations) = (SELECT "
				    "count(*) FROM alloc) FROM source"), 1);
	assert_int_equal(db_int(db, "PRAGMA user_version"),
			 MDB_SCHEMA_VERSION);
	run(&r, "sqlite3 '%s' 'PRAGMA integrity_check'", db);
	assert_string_equal(r.out, "ok\n");
	run_free(&r);
	/* and again, into the database both created */
	pa = spawn_ingest(db, a);
	pb = spawn_ingest(db, b);
	while (!exited(pa, &sa))
		usleep(10000);
	while (!exited(pb, &sb))
		usleep(10000);
	assert_int_equal(sa, 0); /* identical data: no-op, not an error */
	assert_int_equal(sb, 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source"), 2);
	free(a);
	free(b);
	free(db);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readers_during_ingest),
		cmocka_unit_test(test_killed_ingest),
		cmocka_unit_test(test_first_ingests_race),
		cmocka_unit_test(test_two_ingests),
	};

	return cmocka_run_group_tests_name("concurrent readers and writers",
					   tests, NULL, NULL);
}
