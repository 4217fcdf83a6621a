// SPDX-License-Identifier: MIT
/* memdb merge: gather the sources of several databases into one. */
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "cli.h"
#include "opts.h"

static const char usage_head[] =
"usage: memdb merge [-q] OUT IN...\n"
"\n"
"Copy every source of the memdb databases IN into the database OUT\n"
"(created when missing), with all its rows: a trace's allocations,\n"
"frees, call sites, symbols and figures, a snapshot's tags and zones, a\n"
"core dump's caches and counters.  Each source keeps its label, path,\n"
"times and notes, so the reports of OUT read the hosts of a fleet side\n"
"by side (memdb report --label GLOB, --by label); it gets a new id in\n"
"OUT.  A source whose content OUT already holds (the same content hash:\n"
"the same input ingested on two machines, or merged before) is skipped\n"
"and named, so merging again adds nothing.\n"
"\n"
"Each IN is merged in one transaction: an IN that cannot be read leaves\n"
"OUT as it was, and the other INs are still merged.  An IN written by an\n"
"older memdb is read from a migrated copy (IN itself is not changed);\n"
"one written by a newer memdb is refused.  IN is only read, and may be\n"
"read by reports or written by an ingest meanwhile: it is read as of one\n"
"moment.\n"
"\n";

static const char usage_tail[] =
"\n"
"For each IN a line says how many sources were merged, then one line\n"
"per source: its id in IN and in OUT, format, path and label, or the\n"
"source of OUT that holds its data already.\n"
"\n"
"Exit status: 0 when every IN is merged, 1 when any was not (the\n"
"message names it and why), 2 for a bad command line.\n"
"\n"
"Examples:\n"
"  memdb merge incident.db web1.db web2.db web3.db\n"
"  memdb merge -q fleet.db hosts/*.db\n"
"  memdb report allocinfo -d incident.db --by label\n"
"  memdb report growth -d incident.db --label 'web*'\n";

static const struct cli_opt opts[] = {
	CLI_ROW_QUIET,
	CLI_ROW_HELP,
	CLI_ROW_END,
};

/* What was merged from @in. */
static void print_result(const char *in, const char *out,
			 const struct mdb_merge_result *r)
{
	char a[32], b[32];

	fputs("'", stdout);
	cli_put_safe(stdout, in);
	printf("': %s source%s merged, %s rows", cli_num(a, sizeof(a),
	       (uint64_t)r->merged), r->merged == 1 ? "" : "s",
	       cli_num(b, sizeof(b), (uint64_t)r->rows));
	if (r->skipped)
		printf(", %lld already in '", (long long)r->skipped);
	if (r->skipped)
		cli_put_safe(stdout, out);
	printf("%s", r->skipped ? "' (skipped)" : "");
	if (r->migrated_from)
		printf("; read from a copy migrated from schema %d",
		       r->migrated_from);
	printf("\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct mdb_merge_source *s = &r->sources[i];

		printf("  source %lld", (long long)s->in_id);
		if (s->skipped) {
			if (s->label) {
				fputs(" (", stdout);
				cli_put_safe(stdout, s->label);
				fputs(")", stdout);
			}
			printf(": skipped, its data is source %lld",
			       (long long)s->out_id);
			if (s->out_label) {
				fputs(" (", stdout);
				cli_put_safe(stdout, s->out_label);
				fputs(")", stdout);
			}
			printf(" already\n");
			continue;
		}
		printf(" -> %lld: %s '", (long long)s->out_id,
		       s->format ? s->format : "?");
		cli_put_safe(stdout, s->path ? s->path : "");
		fputs("'", stdout);
		if (s->label) {
			fputs(" (", stdout);
			cli_put_safe(stdout, s->label);
			fputs(")", stdout);
		}
		printf(", %s rows\n", cli_num(a, sizeof(a),
					       (uint64_t)s->rows));
	}
}

int cmd_merge(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "merge", .opts = opts, .head = usage_head,
		.tail = usage_tail, .db = NULL, .fmt = 0,
	};
	struct mdb_db db = { 0 };
	struct mdb_error e;
	int c, ret, removed, status = MEMDB_EXIT_OK;
	const char *out;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		ret = cli_common_opt(&co, c, optarg);
		if (ret >= 0)
			return ret;
	}
	if (argc == optind)
		return cli_usage_error("merge", "which database to merge "
				       "into, and from which?");
	if (argc - optind < 2)
		return cli_usage_error("merge", "merge which database into "
				       "'%s'?", argv[optind]);
	out = argv[optind++];
	mdb_error_clear(&e);
	if (mdb_db_open(&db, out, 0, &e) < 0) {
		cli_error(&e);
		return MEMDB_EXIT_FAIL;
	}
	for (; optind < argc; optind++) {
		struct mdb_merge_result res;

		mdb_error_clear(&e);
		if (mdb_db_merge(&db, argv[optind], &res, &e) < 0) {
			cli_error(&e);
			status = MEMDB_EXIT_FAIL;
			continue;
		}
		if (!co.quiet)
			print_result(argv[optind], out, &res);
		mdb_merge_result_release(&res);
	}
	mdb_error_clear(&e);
	if (mdb_db_close_or_remove(&db, &removed, &e) < 0) {
		cli_error(&e);
		status = MEMDB_EXIT_FAIL;
	}
	return cli_finish(status);
}
