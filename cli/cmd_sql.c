// SPDX-License-Identifier: MIT
/* memdb sql: run SQL against the database, opened read-only. */
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../report/scan.h"
#include "cli.h"
#include "opts.h"
#include "render.h"

static const char usage_head[] =
"usage: memdb sql [-d DB] [--format table|csv|json] SQL\n"
"\n"
"Run one or more SQL statements against the database and print their\n"
"results.  The database is opened read-only: nothing can change it,\n"
"and statements that would write files (VACUUM INTO, ATTACH), load\n"
"extensions or call fts3_tokenizer() are refused; TEMP tables and views\n"
"are allowed.\n"
"\n"
"The stable interface is the set of views (tables may change between\n"
"schema versions):\n"
"  v_sources      one row per ingested source\n"
"  v_allocations  one row per allocation lifetime, ALLOC and what ended it\n"
"  v_events       the plain event stream (ORDER BY source_id, seq)\n"
"  v_bad_frees    frees that ended nothing: null, unknown, duplicate\n"
"  v_callsites    per call site aggregates\n"
"  v_sites        call sites with their symbols\n"
"docs/usage.md (Database) describes every column.\n"
"\n";

static const char usage_tail[] =
"\n"
"Examples:\n"
"  memdb sql 'SELECT cache, count(*) FROM v_allocations GROUP BY 1'\n"
"  memdb sql -f csv 'SELECT * FROM v_events ORDER BY seq LIMIT 100'\n";

static const struct cli_opt opts[] = {
	CLI_ROW_DB,
	{ "format", 'f', "FMT", "table (default), csv, or json (an array of "
	  "objects)" },
	CLI_ROW_HELP,
	CLI_ROW_END,
};

/* The SQLite error of @db; a statement the read-only connection refused
 * (writes, ATTACH, VACUUM INTO, extensions, fts3_tokenizer) says why. */
static void sql_error(struct mdb_db *db, struct mdb_error *e,
		      const char *what)
{
	const char *msg = sqlite3_errmsg(db->h);

	mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "%s", msg);
	/* a denied function fails the prepare as SQLITE_ERROR, with
	 * SQLite's "not authorized to use function: NAME" */
	if ((sqlite3_errcode(db->h) & 0xff) == SQLITE_AUTH ||
	    !strncmp(msg, "not authorized", 14)) {
		mdb_error_msg(e, "statement refused: memdb sql only reads "
				 "the database");
		mdb_error_hint(e, "no writes, ATTACH, VACUUM INTO, "
				  "extensions, fts3_tokenizer() or pragmas "
				  "that change anything; TEMP tables are "
				  "allowed");
	} else {
		mdb_error_msg(e, "%s", what);
	}
}

int cmd_sql(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "sql", .opts = opts, .head = usage_head,
		.tail = usage_tail, .formats = "table, csv or json",
		.db = cli_default_db(), .fmt = MDB_FMT_TABLE, .args = 1,
	};
	const char *sql, *tail;
	struct mdb_report_out out = { 0 };
	struct mdb_db db = { 0 };
	struct mdb_error e;
	int ret, status = MEMDB_EXIT_FAIL, n = 0;

	ret = cli_parse(&co, argc, argv, NULL, NULL);
	if (ret >= 0)
		return ret;
	if (optind + 1 != argc)
		return cli_usage_error("sql", optind >= argc ?
				       "no SQL given" :
				       "give the SQL as one argument");
	sql = argv[optind];
	mdb_error_clear(&e);
	if (mdb_db_open(&db, co.db, MDB_DB_READONLY, &e) < 0)
		goto fail;
	/* the reports' scan, for exploring as they sum (report/scan.c) */
	if (mdb_scan_register(db.h) != SQLITE_OK) {
		sql_error(&db, &e, "cannot open database");
		goto fail;
	}
	out.fmt = co.fmt;
	while (sql && *sql) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db.h, sql, -1, &st, &tail) !=
		    SQLITE_OK) {
			sql_error(&db, &e, "bad SQL");
			goto fail;
		}
		sql = tail;
		if (!st)
			continue; /* whitespace or a comment */
		if (n++ && co.fmt == MDB_FMT_TABLE)
			putchar('\n');
		if (sqlite3_column_count(st) == 0) {
			int rc = sqlite3_step(st);

			sqlite3_finalize(st);
			if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
				sql_error(&db, &e, "statement failed");
				goto fail;
			}
			continue;
		}
		if (mdb_render(stdout, &out, st, NULL, &e) < 0) {
			sqlite3_finalize(st);
			goto fail;
		}
		sqlite3_finalize(st);
	}
	status = MEMDB_EXIT_OK;
fail:
	return cli_db_end(&db, status, &e);
}
