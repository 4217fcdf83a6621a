// SPDX-License-Identifier: MIT
/* memdb sources: list the sources of a database, or delete one. */
#include <stdlib.h>
#include <string.h>

#include "../db/sources.h"
#include "cli.h"
#include "opts.h"
#include "render.h"

static const char usage_head[] =
"usage: memdb sources [-d DB] [--format table|csv|json] [--wide]\n"
"       memdb sources [-d DB] --delete ID\n"
"\n"
"List the sources (ingested inputs) of the database with what is known\n"
"of their origin, or delete one source and all its rows in one\n"
"transaction.  Traces count events and allocations, snapshots their\n"
"rows (zones, malloc types, slab caches or allocation tags) and the\n"
"time they were taken.\n"
"\n";

static const char usage_tail[] =
"\n"
"The full record of each source is the view v_sources:\n"
"  memdb sql 'SELECT * FROM v_sources'\n"
"\n"
"Examples:\n"
"  memdb sources\n"
"  memdb sources --format json\n"
"  memdb sources -d box1.db --delete 3\n";

enum { OPT_DELETE = 256 };

static const struct cli_opt opts[] = {
	CLI_ROW_DB,
	{ "format", 'f', "FMT", "table (default), csv or json" },
	{ "delete", OPT_DELETE, "ID", "delete source ID" },
	CLI_ROW_WIDE,
	CLI_ROW_HELP,
	CLI_ROW_END,
};

/* What a narrow terminal does without, least important first (the path
 * is cut with '...' before any of them goes). */
static const char list_drop[] =
	"ingested_at byte_order cpus allocations snapshot_rows taken_at "
	"events label lost format";

/* The command line of memdb sources. */
struct sources_args {
	int64_t del;
	int wide;
};

static int sources_opt(void *ctx, int c, const char *arg)
{
	struct sources_args *a = ctx;

	if (c == CLI_OPT_WIDE) {
		a->wide = 1;
		return CLI_TAKEN;
	}
	if (c != OPT_DELETE)
		return CLI_SHARED;
	if (cli_parse_i64(arg, &a->del) || a->del <= 0)
		return cli_usage_error("sources", "--delete takes a source "
				       "id, not '%s'", arg);
	return CLI_TAKEN;
}

int cmd_sources(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "sources", .opts = opts, .head = usage_head,
		.tail = usage_tail, .formats = "table, csv or json",
		.db = cli_default_db(), .fmt = MDB_FMT_TABLE,
	};
	struct mdb_report_out out = { 0 };
	struct mdb_db db = { 0 };
	sqlite3_stmt *st = NULL;
	struct mdb_error e;
	struct sources_args a = { 0 };
	int64_t del;
	int ret, wide, status = MEMDB_EXIT_FAIL;

	ret = cli_parse(&co, argc, argv, sources_opt, &a);
	if (ret >= 0)
		return ret;
	del = a.del;
	wide = a.wide;
	mdb_error_clear(&e);
	if (mdb_db_open(&db, co.db, del ? MDB_DB_EXISTING : MDB_DB_READONLY,
			&e) < 0)
		goto fail;
	if (del) {
		if (mdb_db_delete_source(&db, del, &e) < 0)
			goto fail;
		printf("source %lld deleted\n", (long long)del);
		status = MEMDB_EXIT_OK;
		goto out;
	}
	if (mdb_sources_list(&db, MDB_SOURCES_LIST, &st, &e) < 0)
		goto fail;
	out.fmt = co.fmt;
	if (!wide) {
		out.width = mdb_render_width(stdout);
		out.drop = list_drop;
		out.skip_empty = 1;
	}
	if (mdb_render(stdout, &out, st, NULL, &e) < 0)
		goto fail;
	status = MEMDB_EXIT_OK;
	goto out;
fail:
	cli_error(&e);
out:
	sqlite3_finalize(st);
	if (db.h && mdb_db_close(&db, &e) < 0) {
		cli_error(&e);
		status = MEMDB_EXIT_FAIL;
	}
	return cli_finish(status);
}
