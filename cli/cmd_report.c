// SPDX-License-Identifier: MIT
/* memdb report: run one of the canned queries in queries/. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../queries/queries.h"
#include "cli.h"
#include "render.h"
#include "scope.h"

static const char usage[] =
"usage: memdb report list\n"
"       memdb report NAME [-d DB] [--source ID|all] [--top N]\n"
"                         [--format table|csv|json]\n"
"\n"
"Run a canned report (an SQL file of queries/, built into memdb) over\n"
"the database.  'memdb report list' names them with a line of help each.\n"
"\n"
"A report covers the most recently ingested source unless --source says\n"
"otherwise, and says in its header which one.  Figures follow perf kmem's\n"
"definitions where perf has them; totals always cover the whole source,\n"
"not only the rows shown.\n"
"\n"
"Options:\n"
"  -d, --db DB          database file (default: $MEMDB_DB, else memdb.db)\n"
"  -s, --source ID|all  source to report on (default: the latest)\n"
"  -n, --top N          rows to show; 0 for all (default: 20 in tables,\n"
"                       all in CSV and JSON)\n"
"  -f, --format FMT     table (default), csv (RFC 4180, header line, rows,\n"
"                       then a row whose first field is 'total') or json\n"
"                       ({\"report\", \"source\", \"rows\", \"total\"})\n"
"  -h, --help           show this help\n"
"\n"
"In CSV and JSON, integers are plain, percentages have 6 decimals and\n"
"addresses are '0x' hex strings; warnings about the source (lost events)\n"
"go to standard error.\n"
"\n"
"Examples:\n"
"  memdb report fragmentation\n"
"  memdb report fragmentation --source all --top 0 --format csv\n";

static const struct option longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "source", required_argument, NULL, 's' },
	{ "top", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int report_list(void)
{
	size_t n, w = 0;
	const struct mdb_query *q = mdb_query_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strlen(q[i].name) > w)
			w = strlen(q[i].name);
	for (size_t i = 0; i < n; i++)
		printf("%-*s  %s\n", (int)w, q[i].name, q[i].help);
	return cli_finish(MEMDB_EXIT_OK);
}

static void bind_named(sqlite3_stmt *st, const char *name, int64_t v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i > 0)
		sqlite3_bind_int64(st, i, v);
}

/* Prepare the rows statement and the optional total statement. */
static int prepare(struct mdb_db *db, const struct mdb_query *q,
		   sqlite3_stmt **rows, sqlite3_stmt **total,
		   struct mdb_error *e)
{
	const char *tail = NULL;

	*rows = *total = NULL;
	if (sqlite3_prepare_v2(db->h, q->sql, -1, rows, &tail) != SQLITE_OK ||
	    !*rows)
		goto fail;
	if (tail && sqlite3_prepare_v2(db->h, tail, -1, total, NULL) !=
			    SQLITE_OK)
		goto fail;
	return 0;
fail:
	mdb_db_error(db, e, "cannot prepare report");
	snprintf(e->detail + strlen(e->detail),
		 sizeof(e->detail) - strlen(e->detail), " report=%s",
		 q->name);
	sqlite3_finalize(*rows);
	*rows = NULL;
	return -MDB_E_DB;
}

int cmd_report(int argc, char **argv)
{
	const char *dbpath = cli_default_db(), *source = NULL;
	const struct mdb_query *q;
	struct mdb_report_out out = { 0 };
	sqlite3_stmt *rows = NULL, *total = NULL;
	struct cli_scope scope = { 0 };
	struct mdb_db db = { 0 };
	struct mdb_error e;
	int64_t top = -2;
	int fmt = MDB_FMT_TABLE, c, status = MEMDB_EXIT_FAIL;
	char title[1200];

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:s:n:f:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'd':
			dbpath = optarg;
			break;
		case 's':
			source = optarg;
			break;
		case 'n':
			if (cli_parse_i64(optarg, &top) || top < 0)
				return cli_usage_error("report",
					"--top takes a number of rows, not "
					"'%s'", optarg);
			break;
		case 'f':
			fmt = mdb_format_parse(optarg);
			if (fmt < 0)
				return cli_usage_error("report",
					"--format takes table, csv or json, "
					"not '%s'", optarg);
			break;
		case 'h':
			return cli_help(usage);
		default:
			return cli_usage_error("report", "unknown option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("report", "which report? "
				       "('memdb report list' names them)");
	if (!strcmp(argv[optind], "list"))
		return report_list();
	q = mdb_query_find(argv[optind]);
	if (!q)
		return cli_usage_error("report", "no report called '%s' "
				       "('memdb report list' names them)",
				       argv[optind]);
	if (optind + 1 < argc)
		return cli_usage_error("report", "unexpected argument '%s'",
				       argv[optind + 1]);
	if (top == -2)
		top = fmt == MDB_FMT_TABLE ? 20 : 0;

	mdb_error_clear(&e);
	if (mdb_db_open(&db, dbpath, MDB_DB_READONLY, &e) < 0)
		goto fail;
	if (cli_scope_resolve(&db, source, &scope, &e) < 0)
		goto fail;
	if (prepare(&db, q, &rows, &total, &e) < 0)
		goto fail;
	for (sqlite3_stmt *st = rows; st; st = st == rows ? total : NULL) {
		bind_named(st, ":src_lo", scope.lo);
		bind_named(st, ":src_hi", scope.hi);
		bind_named(st, ":top", top ? top : -1);
	}
	snprintf(title, sizeof(title), "memdb report %s: %s", q->name,
		 scope.title);
	out.fmt = fmt;
	out.report = q->name;
	out.source_json = scope.json;
	out.title = title;
	out.notes = (const char **)scope.notes;
	if (fmt != MDB_FMT_TABLE)
		for (int i = 0; i < scope.nnotes; i++)
			fprintf(stderr, "memdb: %s\n", scope.notes[i]);
	if (mdb_render(stdout, &out, rows, total, &e) < 0)
		goto fail;
	status = MEMDB_EXIT_OK;
	goto out;
fail:
	cli_error(&e);
out:
	sqlite3_finalize(rows);
	sqlite3_finalize(total);
	cli_scope_release(&scope);
	if (db.h)
		mdb_db_close(&db, NULL);
	return cli_finish(status);
}
