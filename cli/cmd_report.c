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
"                         [--format table|csv|json] [--by WHAT]\n"
"                         [--sort bytes|calls|count] [--from ID --to ID]\n"
"\n"
"Run a canned report (an SQL file of queries/, built into memdb) over\n"
"the database.  'memdb report list' names them with a line of help each.\n"
"\n"
"A report covers the most recently ingested source unless --source says\n"
"otherwise, and says in its header which one.  Figures follow perf kmem's\n"
"and vmstat's definitions where those tools have them; totals always\n"
"cover the whole source, not only the rows shown.\n"
"\n"
"Reports on snapshots: 'zones' (vmstat -z, -m, slabinfo rows in snapshot\n"
"order), 'allocinfo' (tags by bytes), and 'growth', which compares two\n"
"snapshots of a series (same --label and format at ingest): by default\n"
"the first and the last, by the time they were taken, of the series of\n"
"the selected source.\n"
"\n"
"Options:\n"
"  -d, --db DB          database file (default: $MEMDB_DB, else memdb.db)\n"
"  -s, --source ID|all  source to report on (default: the latest)\n"
"  -n, --top N          rows to show; 0 for all (default: 20 in tables,\n"
"                       all in CSV and JSON)\n"
"  -f, --format FMT     table (default), csv (RFC 4180, header line, rows,\n"
"                       then a row whose first field is 'total') or json\n"
"                       ({\"report\", \"source\", \"rows\", \"total\"})\n"
"      --by WHAT        allocinfo, growth: add tags up per function, file\n"
"                       or module (default: tag, i.e. file:line)\n"
"      --sort KEY       allocinfo, growth: order by bytes (default) or by\n"
"                       calls (count: calls of tags, items of zones)\n"
"      --from ID        growth: the earlier snapshot (default: the first\n"
"                       of the series)\n"
"      --to ID          growth: the later snapshot (default: the last)\n"
"  -h, --help           show this help\n"
"\n"
"Options a report's SQL does not use (as :by, :sort, :from, :to) are\n"
"refused for it.  In CSV and JSON, integers are plain, percentages have\n"
"6 decimals and addresses are '0x' hex strings; warnings about the source\n"
"(lost events, approximate figures) go to standard error.\n"
"\n"
"Examples:\n"
"  memdb report fragmentation\n"
"  memdb report fragmentation --source all --top 0 --format csv\n"
"  memdb report zones --source 4\n"
"  memdb report allocinfo --by module\n"
"  memdb report growth --from 3 --to 7 --top 10\n";

/*
 * Report options bound to named SQL parameters: --by VALUE binds :by.
 * A report takes an option only when its SQL uses the parameter.
 */
enum param_kind { P_WORD, P_SOURCE };

struct report_param {
	const char *option;        /* long option, without "--" */
	const char *sql;           /* the SQL parameter */
	enum param_kind kind;
	const char *const *words;  /* P_WORD: the accepted values */
	const char *help;          /* for the usage error */
};

static const char *const by_words[] = { "tag", "function", "file",
					"module", NULL };
static const char *const sort_words[] = { "bytes", "calls", "count", NULL };

enum { PARAM_BY, PARAM_SORT, PARAM_FROM, PARAM_TO };

static const struct report_param params[] = {
	[PARAM_BY] = { "by", ":by", P_WORD, by_words,
		       "tag, function, file or module" },
	[PARAM_SORT] = { "sort", ":sort", P_WORD, sort_words,
			 "bytes, calls or count" },
	[PARAM_FROM] = { "from", ":from", P_SOURCE, NULL, "a source id" },
	[PARAM_TO] = { "to", ":to", P_SOURCE, NULL, "a source id" },
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))
#define OPT_PARAM 256 /* getopt value of params[i]: OPT_PARAM + i */

static const struct option longopts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "source", required_argument, NULL, 's' },
	{ "top", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "by", required_argument, NULL, OPT_PARAM + PARAM_BY },
	{ "sort", required_argument, NULL, OPT_PARAM + PARAM_SORT },
	{ "from", required_argument, NULL, OPT_PARAM + PARAM_FROM },
	{ "to", required_argument, NULL, OPT_PARAM + PARAM_TO },
	{ NULL, 0, NULL, 0 },
};

/* Check @value for params[@i]; a usage error (exit 2) when it is bad. */
static int param_check(size_t i, const char *value, int64_t *id)
{
	const struct report_param *p = &params[i];

	if (p->kind == P_SOURCE) {
		if (cli_parse_i64(value, id) || *id <= 0)
			return cli_usage_error("report", "--%s takes %s, not "
					       "'%s'", p->option, p->help,
					       value);
		return 0;
	}
	for (const char *const *w = p->words; *w; w++)
		if (!strcmp(*w, value))
			return 0;
	return cli_usage_error("report", "--%s takes %s, not '%s'", p->option,
			       p->help, value);
}

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

static void bind_named_text(sqlite3_stmt *st, const char *name,
			    const char *v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i > 0 && v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

/* "memdb report NAME: " + @t, later lines of @t indented to match. */
static void make_title(char *buf, size_t len, const char *name,
		       const char *t)
{
	size_t n = (size_t)snprintf(buf, len, "memdb report %s: ", name);
	size_t indent = n;

	for (; *t && n + 1 < len; t++) {
		buf[n++] = *t;
		for (size_t i = 0; *t == '\n' && i < indent && n + 1 < len; i++)
			buf[n++] = ' ';
	}
	buf[n < len ? n : len - 1] = '\0';
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
	const char *pval[NPARAMS] = { NULL };
	int64_t top = -2, ids[NPARAMS] = { 0 };
	int fmt = MDB_FMT_TABLE, c, status = MEMDB_EXIT_FAIL;
	char title[2400];

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
			if (c < OPT_PARAM || c >= OPT_PARAM + (int)NPARAMS)
				return cli_usage_error("report",
						       "unknown option");
			if (param_check((size_t)(c - OPT_PARAM), optarg,
					&ids[c - OPT_PARAM]))
				return MEMDB_EXIT_USAGE;
			pval[c - OPT_PARAM] = optarg;
			break;
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
	for (size_t i = 0; i < NPARAMS; i++)
		if (pval[i] && !mdb_query_uses(q, params[i].sql))
			return cli_usage_error("report", "report '%s' takes "
					       "no --%s", q->name,
					       params[i].option);
	if (top == -2)
		top = fmt == MDB_FMT_TABLE ? 20 : 0;

	mdb_error_clear(&e);
	if (mdb_db_open(&db, dbpath, MDB_DB_READONLY, &e) < 0)
		goto fail;
	if (cli_scope_resolve(&db, source, &scope, &e) < 0)
		goto fail;
	if ((mdb_query_uses(q, ":from") || mdb_query_uses(q, ":to")) &&
	    cli_scope_series(&db, &scope, ids[PARAM_FROM], ids[PARAM_TO],
			     &e) < 0)
		goto fail;
	if (prepare(&db, q, &rows, &total, &e) < 0)
		goto fail;
	for (sqlite3_stmt *st = rows; st; st = st == rows ? total : NULL) {
		bind_named(st, ":src_lo", scope.lo);
		bind_named(st, ":src_hi", scope.hi);
		bind_named(st, ":top", top ? top : -1);
		bind_named(st, ":from", scope.from);
		bind_named(st, ":to", scope.to);
		for (size_t i = 0; i < NPARAMS; i++)
			if (params[i].kind == P_WORD)
				bind_named_text(st, params[i].sql, pval[i]);
	}
	make_title(title, sizeof(title), q->name, scope.title);
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
