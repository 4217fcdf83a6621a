// SPDX-License-Identifier: MIT
/*
 * memdb: offline analysis of kernel memory-allocation data.
 * One table dispatches the subcommands; each lives in cli/cmd_<name>.c.
 */
#include <string.h>

#include "../db/db.h"
#include "cli.h"

static const struct memdb_cmd commands[] = {
	{ "ingest", cmd_ingest,
	  "read traces, snapshots and core dumps into the database" },
	{ "sources", cmd_sources, "list or delete ingested sources" },
	{ "merge", cmd_merge,
	  "gather the sources of several databases into one" },
	{ "export", cmd_export,
	  "send the sources to ClickHouse, for a fleet's reports" },
	{ "symbolize", cmd_symbolize,
	  "resolve call sites to function, file:line, inlines" },
	{ "report", cmd_report, "run a canned report (memdb report list)" },
	{ "html", cmd_html,
	  "write one HTML page of a database: pictures and top tables" },
	{ "sql", cmd_sql, "run SQL against the database (read-only)" },
	{ "check", cmd_check, "validate a capture without a database" },
	{ "record", cmd_record,
	  "capture the kmem tracepoints of this machine (root)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int usage(FILE *out, int status)
{
	fprintf(out,
		"usage: memdb COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Offline analysis of kernel memory-allocation data, from a\n"
		"machine of any architecture and byte order, in one SQLite\n"
		"database (default memdb.db) that canned reports and your own\n"
		"SQL answer questions from.  memdb ingest reads:\n"
		"\n"
		"  traces     perf.data (perf kmem record, perf record -e kmem:*),\n"
		"             trace.dat (trace-cmd record), a tracefs copy (the\n"
		"             per-CPU ring-buffer pages; memdb record makes one),\n"
		"             ftrace and perf script text, kmemtrace (relay and\n"
		"             2.6.30-era binary)\n"
		"  snapshots  /proc/allocinfo, /proc/slabinfo, FreeBSD memstat\n"
		"             streams, vmstat -z and -m (text, JSON)\n"
		"  core dumps kdump-compressed, flattened or ELF vmcores of a\n"
		"             Linux kernel: slab caches, buddy lists, counters,\n"
		"             alloc tags (with System.map or kallsyms and the\n"
		"             dump's BTF, or a debug vmlinux)\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\n"
		"'memdb COMMAND --help' describes a command.  The database is\n"
		"-d DB, else $MEMDB_DB, else memdb.db in the current directory.\n"
		"\n"
		"Example:\n"
		"  memdb ingest capture/ && memdb symbolize --kallsyms "
		"kallsyms &&\n"
		"  memdb report fragmentation\n");
	return out == stdout ? cli_finish(status) : status;
}

static const struct memdb_cmd *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Another memdb holds the database: say what we wait for. */
static void waiting(const char *path, int reader)
{
	cli_errorf("waiting for database '%s': another memdb holds it (%s); "
		   "Ctrl-C gives up", path, reader ? "writing to it" :
		   "writing to it, or reading a database being created");
}

int main(int argc, char **argv)
{
	const struct memdb_cmd *cmd;

	mdb_db_on_wait(waiting);
	if (argc < 2)
		return usage(stderr, MEMDB_EXIT_USAGE);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout, MEMDB_EXIT_OK);
	if (!strcmp(argv[1], "--version")) {
		printf("memdb %s\n", MEMDB_VERSION);
		return cli_finish(MEMDB_EXIT_OK);
	}
	if (!strcmp(argv[1], "help")) {
		char *hargv[] = { argv[2], "--help", NULL };

		if (argc < 3)
			return usage(stdout, MEMDB_EXIT_OK);
		cmd = find(argv[2]);
		if (!cmd) {
			cli_errorf("no command called '%s'", argv[2]);
			return MEMDB_EXIT_USAGE;
		}
		return cmd->run(2, hargv);
	}
	cmd = find(argv[1]);
	if (!cmd) {
		cli_errorf("no command called '%s' (see 'memdb --help')",
			   argv[1]);
		return MEMDB_EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
