// SPDX-License-Identifier: MIT
/*
 * The yardstick for ingest speed: a bare SQLite insert of N rows of 12
 * integers into a fresh database, one prepared statement, one
 * transaction, with the connection settings memdb uses for a new
 * database.  Prints the seconds it took.
 *
 *   bare_insert DBFILE N
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	long n;
	double t0, t1;

	if (argc != 3) {
		fprintf(stderr, "usage: bare_insert DBFILE N\n");
		return 2;
	}
	n = atol(argv[2]);
	unlink(argv[1]);
	t0 = now();
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL))
		return 1;
	sqlite3_exec(db, "PRAGMA journal_mode = DELETE;"
			 "PRAGMA synchronous = NORMAL;"
			 "PRAGMA cache_size = -16384;"
			 "CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER, "
			 "d INTEGER, e INTEGER, f INTEGER, g INTEGER, "
			 "h INTEGER, i INTEGER, j INTEGER, k INTEGER, "
			 "l INTEGER)", NULL, NULL, NULL);
	if (sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, "
			       "?, ?, ?, ?, ?, ?)", -1, &st, NULL))
		return 1;
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (long r = 0; r < n; r++) {
		/* values shaped like an allocation row: position, cpu,
		 * type, call site, pointer, sizes, gfp, node, state, end */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sqlite3_bind_int64(st, 1, 2 * r + 1);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)(x & 3));
		sqlite3_bind_int64(st, 3, (sqlite3_int64)(x >> 2 & 1));
		sqlite3_bind_int64(st, 4, (sqlite3_int64)(0xffffffff81100000ULL |
							  (x >> 8 & 0xffff)));
		sqlite3_bind_int64(st, 5, (sqlite3_int64)(0xffff888100000000ULL |
							  (x >> 16 & 0xffffff) << 5));
		sqlite3_bind_int64(st, 6, (sqlite3_int64)(x >> 40 & 1023));
		sqlite3_bind_int64(st, 7, (sqlite3_int64)(x >> 40 & 2047));
		sqlite3_bind_int64(st, 8, 0xcc0);
		sqlite3_bind_int64(st, 9, -1);
		sqlite3_bind_int64(st, 10, 1);
		sqlite3_bind_int64(st, 11, 2 * r + 100 + (sqlite3_int64)(x & 1023));
		sqlite3_bind_int64(st, 12, (sqlite3_int64)(x >> 3 & 3));
		if (sqlite3_step(st) != SQLITE_DONE)
			return 1;
		sqlite3_reset(st);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(st);
	sqlite3_close(db);
	t1 = now();
	printf("%.3f\n", t1 - t0);
	return 0;
}
