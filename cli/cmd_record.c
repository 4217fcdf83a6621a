// SPDX-License-Identifier: MIT
/* memdb record: capture the kmem tracepoints of this machine. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../record/record.h"
#include "cli.h"
#include "opts.h"

static const char usage_head[] =
"usage: memdb record [-o DIR] [--duration SECONDS] [--page] [--buffer-kb N]\n"
"                    [--tracefs DIR] [-- COMMAND [ARG...]]\n"
"\n"
"Record the kernel's kmem tracepoints (kmalloc, kfree, kmem_cache_alloc,\n"
"kmem_cache_free; with --page also mm_page_alloc and mm_page_free; or\n"
"the names this kernel gives them) as a copy of tracefs: the raw\n"
"ring-buffer pages of every CPU with the page and event formats, the\n"
"boot's kallsyms, and /proc/slabinfo before and after (and\n"
"/proc/allocinfo when the kernel has it).  Run it as root on the machine\n"
"to trace, with no perf or trace-cmd needed; ingest the directory there\n"
"or anywhere else.\n"
"\n"
"The trace runs in a tracefs instance of its own, so the global trace\n"
"buffer and the events you enabled are left alone; the instance is\n"
"removed on exit, on Ctrl-C and on errors.\n"
"\n";

static const char usage_tail[] =
"\n"
"Examples:\n"
"  memdb record -o cap --duration 10\n"
"  memdb record -o cap -- make -j8\n"
"  memdb ingest cap && memdb report fragmentation\n";

enum { OPT_DURATION = 256, OPT_BUFFER, OPT_TRACEFS, OPT_PAGE };

static const struct cli_opt opts[] = {
	{ "output", 'o', "DIR", "capture directory (default: memdb-record); "
	  "it must not exist or be empty" },
	{ "duration", OPT_DURATION, "SECONDS", "trace for SECONDS seconds "
	  "(default: until Ctrl-C, or until COMMAND exits)" },
	{ "buffer-kb", OPT_BUFFER, "N", "ring buffer per CPU in KiB (default "
	  "16384); raise it if the summary reports lost events" },
	{ "page", OPT_PAGE, NULL, "also record the page allocator's events "
	  "(writing the capture itself allocates pages: expect more)" },
	{ "tracefs", OPT_TRACEFS, "DIR", "where tracefs is mounted (default: "
	  "found)" },
	CLI_ROW_HELP,
	CLI_ROW_END,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int parse(int argc, char **argv, struct mdb_record_opts *o)
{
	int64_t v;
	int c;

	optind = 1;
	/* options end at the command */
	while ((c = cli_getopt_in_order(argc, argv, opts)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case OPT_DURATION: {
			char *end;

			o->duration = strtod(optarg, &end);
			if (*end || end == optarg || o->duration <= 0)
				return cli_usage_error("record",
					"--duration takes seconds > 0, not "
					"'%s'", optarg);
			break;
		}
		case OPT_BUFFER:
			if (cli_parse_i64(optarg, &v) || v < 4 || v > 1 << 22)
				return cli_usage_error("record",
					"--buffer-kb takes 4 to 4194304, not "
					"'%s'", optarg);
			o->buffer_kb = (unsigned)v;
			break;
		case OPT_TRACEFS:
			o->tracefs = optarg;
			break;
		case OPT_PAGE:
			o->pages = 1;
			break;
		case 'h':
			return -1;
		default:
			return MEMDB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct mdb_record_opts o = { .outdir = "memdb-record", .stop = &stop };
	struct mdb_record_result res;
	struct sigaction sa;
	struct mdb_error e;
	int ret = parse(argc, argv, &o);

	if (ret < 0)
		return cli_usage(usage_head, opts, usage_tail);
	if (ret)
		return ret;
	if (geteuid() != 0)
		cli_warnf("not root: tracefs will most likely refuse");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (!o.command && !o.duration)
		fprintf(stderr, "memdb: recording; Ctrl-C to stop\n");
	if (mdb_record(&o, &res, &e) < 0) {
		cli_error(&e);
		return MEMDB_EXIT_FAIL;
	}
	fprintf(stderr, "memdb: %d CPUs, %llu bytes of ring-buffer pages, "
		"events: %s\n", res.ncpus, (unsigned long long)res.bytes,
		res.events);
	if (res.overruns)
		cli_warnf("the ring buffer lost %llu events: give a larger "
			  "--buffer-kb", (unsigned long long)res.overruns);
	if (res.command_status > 0)
		cli_warnf("the command exited with status %d",
			  res.command_status);
	printf("memdb ingest %s\n", o.outdir);
	return cli_finish(MEMDB_EXIT_OK);
}
