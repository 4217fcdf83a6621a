// SPDX-License-Identifier: MIT
/* memdb export: a database's sources into ClickHouse, and its DDL. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../db/clickhouse.h"
#include "cli.h"
#include "opts.h"

static const char usage_head[] =
"usage: memdb export [-d DB] --clickhouse URL [--allocations] [-q]\n"
"       memdb export --print-ddl [--cluster NAME]\n"
"\n"
"Send the sources of the database to ClickHouse, the column store of\n"
"observability fleets, over its HTTP interface (URL: http://HOST:8123/,\n"
"with ?database=DB&user=U&password=P where needed), where 'memdb report\n"
"NAME --clickhouse URL' asks the fleet the questions memdb asks one\n"
"database.  Each source goes with its label (the host: ingest with\n"
"--label) and what the fleet reports read: a snapshot's rows (allocation\n"
"tags, zones, slab caches), a core dump's caches and counters, a trace's\n"
"figures per call site and per cache (and, with --allocations, every\n"
"allocation), into the tables memdb_source, memdb_tag (and the tags'\n"
"names, memdb_tagname), memdb_zone, memdb_kcounter, memdb_site,\n"
"memdb_cache and memdb_alloc.\n"
"\n"
"Exporting is idempotent: a source whose content hash the server holds\n"
"is not sent again, so export after every ingest (from cron) sends what\n"
"is new.  Rows go in batches of RowBinary; a source's row in\n"
"memdb_source goes after all its rows, and the reports read only sources\n"
"it lists: an export cut short leaves rows no report reads, and the next\n"
"one sends those sources whole.  When memdb_source is missing, the\n"
"tables are created (MergeTree, on the one server); for a sharded\n"
"cluster, run the DDL of --print-ddl --cluster NAME on every server\n"
"first: local tables and Distributed tables over them, a host's rows on\n"
"one shard.  Both work with Debian's clickhouse-server 18.16 and current\n"
"ClickHouse.\n"
"\n";

static const char usage_tail[] =
"\n"
"The line printed says how many sources were sent (and how many the\n"
"server held already), the rows per table and the rows per second.\n"
"\n"
"Exit status: 0 when every new source is in ClickHouse, 1 when the\n"
"server cannot be reached or refuses (nothing is read of the sources\n"
"not sent), 2 for a bad command line.\n"
"\n"
"Examples:\n"
"  memdb export --clickhouse http://ch1:8123/\n"
"  memdb export -d web1.db --clickhouse 'http://ch1:8123/?database=mem'\n"
"  memdb export --print-ddl --cluster fleet | clickhouse-client -mn\n"
"  memdb report allocinfo --clickhouse http://ch1:8123/ --label 'web*'\n";

enum { OPT_CLICKHOUSE = 256, OPT_ALLOCATIONS, OPT_DDL, OPT_CLUSTER };

static const struct cli_opt opts[] = {
	CLI_ROW_DB,
	{ "clickhouse", OPT_CLICKHOUSE, "URL", "the server: its HTTP "
	  "interface, http://HOST:8123/ (?database=DB, &user=U, "
	  "&password=P as ClickHouse takes them)" },
	{ "allocations", OPT_ALLOCATIONS, NULL, "also every allocation of "
	  "the traces (memdb_alloc: one row each, the trace's length)" },
	{ "print-ddl", OPT_DDL, NULL, "print the tables' CREATE TABLE "
	  "statements and exit" },
	{ "cluster", OPT_CLUSTER, "NAME", "--print-ddl: for the cluster NAME "
	  "of the servers' remote_servers: local tables NAME_local and "
	  "Distributed tables over them, sharded by label; run them on every "
	  "server" },
	CLI_ROW_QUIET,
	CLI_ROW_HELP,
	CLI_ROW_END,
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Progress on a terminal: sources and rows so far. */
static void progress(void *ctx, int64_t sources, int64_t rows)
{
	char a[32], b[32];

	(void)ctx;
	fprintf(stderr, "\rmemdb: exported %s sources, %s rows", cli_num(a,
		sizeof(a), (uint64_t)sources), cli_num(b, sizeof(b),
		(uint64_t)rows));
}

static void print_result(const struct mdb_export_result *r, double secs)
{
	size_t n;
	const char *const *t = mdb_ch_tables(&n);
	char a[32];

	if (r->created)
		printf("created the tables (memdb export --print-ddl)\n");
	printf("exported %s source%s", cli_num(a, sizeof(a),
	       (uint64_t)r->sources), r->sources == 1 ? "" : "s");
	printf(", %s rows (", cli_num(a, sizeof(a), (uint64_t)r->rows));
	for (size_t i = 1, k = 0; i < n; i++)
		if (r->tables[i])
			printf("%s%s %s", k++ ? ", " : "", t[i] + 6,
			       cli_num(a, sizeof(a), (uint64_t)r->tables[i]));
	printf(") in %.2f s", secs);
	if (secs > 0 && r->rows)
		printf(", %s rows/s", cli_num(a, sizeof(a),
		       (uint64_t)(r->rows / secs)));
	if (r->skipped)
		printf("; %s already there", cli_num(a, sizeof(a),
		       (uint64_t)r->skipped));
	printf("\n");
}

/* The command line of memdb export. */
struct export_args {
	struct mdb_export_opts eo;
	const char *url, *cluster;
	int ddl;
};

static int export_opt(void *ctx, int c, const char *arg)
{
	struct export_args *a = ctx;

	switch (c) {
	case OPT_CLICKHOUSE:
		a->url = arg;
		return CLI_TAKEN;
	case OPT_ALLOCATIONS:
		a->eo.allocations = 1;
		return CLI_TAKEN;
	case OPT_DDL:
		a->ddl = 1;
		return CLI_TAKEN;
	case OPT_CLUSTER:
		if (!*arg)
			return cli_usage_error("export", "--cluster takes a "
					       "cluster name");
		a->cluster = arg;
		return CLI_TAKEN;
	}
	return CLI_SHARED;
}

int cmd_export(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "export", .opts = opts, .head = usage_head,
		.tail = usage_tail, .db = cli_default_db(),
	};
	struct export_args a = { .eo = { 0 } };
	struct mdb_export_opts *eo = &a.eo;
	const char *url, *cluster;
	struct mdb_export_result res;
	struct mdb_db db = { 0 };
	struct mdb_ch ch = { 0 };
	struct mdb_error e;
	int ret, ddl, status = MEMDB_EXIT_FAIL;
	double t0;

	ret = cli_parse(&co, argc, argv, export_opt, &a);
	if (ret >= 0)
		return ret;
	url = a.url;
	cluster = a.cluster;
	ddl = a.ddl;
	if (cluster && !ddl)
		return cli_usage_error("export", "--cluster goes with "
				       "--print-ddl: a cluster's tables are "
				       "made on every server by hand");
	if (ddl) {
		char *text = mdb_ch_ddl(cluster);

		if (!text) {
			cli_errorf("out of memory");
			return MEMDB_EXIT_FAIL;
		}
		fputs(text, stdout);
		free(text);
		return cli_finish(MEMDB_EXIT_OK);
	}
	if (!url)
		return cli_usage_error("export", "where to? --clickhouse URL "
				       "(or --print-ddl)");
	mdb_error_clear(&e);
	if (mdb_ch_open(&ch, url, &e) < 0) {
		cli_error(&e);
		return e.code == MDB_E_INVAL ? MEMDB_EXIT_USAGE :
					       MEMDB_EXIT_FAIL;
	}
	if (mdb_db_open(&db, co.db, MDB_DB_READONLY, &e) < 0)
		goto fail;
	if (!co.quiet && cli_show_progress())
		eo->progress = progress;
	t0 = now_s();
	ret = mdb_export(&db, &ch, eo, &res, &e);
	if (eo->progress && res.batches)
		fputs("\r\033[K", stderr);
	if (ret < 0)
		goto fail;
	if (!co.quiet)
		print_result(&res, now_s() - t0);
	status = MEMDB_EXIT_OK;
fail:
	mdb_ch_close(&ch);
	return cli_db_end(&db, status, &e);
}
