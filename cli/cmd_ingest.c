// SPDX-License-Identifier: MIT
/* memdb ingest: read inputs into the database, one source per path. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../analysis/analysis.h"
#include "../common/file.h"
#include "../db/ingest.h"
#include "../ingest/ingest.h"
#include "../ingest/snapshot.h"
#include "../symbolize/symbolize.h"
#include "cli.h"
#include "opts.h"

static const char usage_head[] =
"usage: memdb ingest [-d DB] [--format NAME] [--time WHEN] [--label NAME]\n"
"                    [--endian little|big] [--abi N] [--cpu N]\n"
"                    [--kallsyms FILE] [--vmlinux FILE] [--btf FILE]\n"
"                    [--page-size N] [--strict] [--force] [--no-symbolize]\n"
"                    [-q] PATH...\n"
"\n"
"Read kernel allocation traces, statistics snapshots and kernel core\n"
"dumps into the memdb database.  Each PATH is one source, written in one\n"
"transaction: an input that is rejected leaves the database exactly as\n"
"it was, and the other PATHs are still ingested.  The format of each\n"
"PATH is detected (a binary header, a header line, or the shape of the\n"
"first row); --format names it when detection cannot decide.  A PATH of\n"
"- is standard input; zstd, gzip and xz input, file or standard input,\n"
"is decompressed first, whatever its name.\n"
"\n"
"Traces (alloc/free events, paired while reading, in the global order\n"
"of the trace: seq_num for relay kmemtrace, the line order for text):\n";

static const char usage_traces[] =
"Byte order and word size are detected from the data.  Frees that match\n"
"nothing (unknown, duplicate, NULL) are kept with their class.  In text,\n"
"malformed lines are counted, the first few reported with their line\n"
"numbers, and skipped; other events and stack traces are skipped.\n"
"\n"
"Snapshots (counters at one moment; each keeps its time, and snapshots\n"
"with one --label form a series for 'memdb report growth'):\n";

static const char usage_snapshots[] =
"\n"
"A trace ingested with the kernel's symbols (--kallsyms, --vmlinux, or\n"
"the kallsyms a trace.dat or a capture directory carries) has its call\n"
"sites and stack frames named at once, as 'memdb symbolize' would name\n"
"them (--no-symbolize: leave them as addresses).\n"
"\n"
"Data already in the database (same content hash) is not read again\n"
"unless --force is given, which replaces the earlier source; a --label\n"
"given with it becomes that source's label.\n"
"\n"
"Options:\n";

static const char usage_tail[] =
"\n"
"Exit status: 0 when every PATH is in the database, 1 when any was\n"
"rejected (the message names the file, the byte offset or line, and the\n"
"reason), 2 for a bad command line.\n"
"\n"
"Examples:\n"
"  memdb ingest /tmp/kmemtrace/            # cpu0.out, cpu1.out, ...\n"
"  memdb ingest -d box1.db --label box1 capture-2008-08-10/\n"
"  memdb ingest --endian big cpu3.out     # one CPU of an s390x capture\n"
"  memdb ingest --label web1 --time 2026-11-22T10:00Z allocinfo.1000\n"
"  memdb ingest --label web1 allocinfo.1100 && memdb report growth\n"
"  memdb ingest --format vmstat-z zones-excerpt.txt\n"
"  memdb ingest --kallsyms kallsyms.txt trace.txt\n"
"  memdb ingest trace.txt.zst\n"
"  memdb ingest --kallsyms System.map-6.1.0-56-cloud-amd64 vmcore.elf\n"
"  ssh box1 cat /proc/allocinfo | memdb ingest --label box1 -\n";

enum { OPT_LABEL = 256, OPT_FORCE, OPT_NO_SYMBOLIZE };

static const struct cli_opt opts[] = {
	{ "db", 'd', "DB", "database file (default: $MEMDB_DB, else "
	  "memdb.db); created when missing" },
	{ "time", 't', "WHEN", "when the data was taken: Unix seconds, or "
	  "ISO 8601 (2026-11-22T10:15:00Z; no zone means UTC); default: the "
	  "modification time of PATH (of -: the time it is read)" },
	{ "label", OPT_LABEL, "NAME", "name of the machine, kept with the "
	  "source" },
	CLI_ROWS_CAPTURE,
	{ "force", OPT_FORCE, NULL, "ingest data that is already in the "
	  "database again" },
	{ "no-symbolize", OPT_NO_SYMBOLIZE, NULL, "leave a trace's call sites "
	  "as addresses although its kernel's symbols are at hand" },
	CLI_ROW_QUIET,
	CLI_ROW_HELP,
	CLI_ROW_END,
};

/* The formats of one family, each with its help, in detection order. */
static void print_formats(int snapshots)
{
	for (const char *const *f = mdb_input_formats(); *f; f++)
		if (!mdb_format_is_snapshot(*f) == !snapshots)
			cli_print_wrapped(stdout, mdb_input_format_help(*f),
					  printf("  %s", *f), 20);
}

static int ingest_usage(void)
{
	fputs(usage_head, stdout);
	print_formats(0);
	fputs(usage_traces, stdout);
	print_formats(1);
	fputs(usage_snapshots, stdout);
	cli_print_opts(stdout, opts);
	return cli_help(usage_tail);
}

struct progress {
	/* progress comes from the sink, warnings from the decoder: on two
	 * threads with the relay (ingest/relay.h), one at a time here */
	pthread_mutex_t mu;
	const char *path;
	const struct mdb_input *in; /* its position, when it knows its size */
	struct timespec start;
	double last;      /* seconds since start at the last redraw */
	int shown;
	/* warnings of a decode that is read again (-MDB_E_ORDER): the
	 * second says again what the first said; each is shown once */
	char **said;
	size_t nsaid;
	int again;
};

/*
 * The share of the input read and the time left at that rate, when the
 * input's size is known (not for a pipe read as it comes, or a core
 * dump): the figure is a share of bytes, so it is only as even as the
 * events are over the file.
 */
static void show_eta(const struct progress *p, double secs)
{
	uint64_t done, size;
	double share, left;

	if (!p->in || mdb_input_position(p->in, &done, &size) < 0 || !done)
		return;
	share = (double)done / (double)size;
	fprintf(stderr, ", %d%%", (int)(share * 100.0));
	if (secs < 0.5 || share < 0.01 || share >= 1.0)
		return;
	left = secs * (1.0 - share) / share;
	if (left < 60.0)
		fprintf(stderr, ", about %.0f s left", left < 1.0 ? 1.0 : left);
	else
		fprintf(stderr, ", about %.0f min left", left / 60.0);
}

static void show_progress(void *ctx, uint64_t events)
{
	struct progress *p = ctx;
	struct timespec now;
	double secs;
	char n[32];

	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = (double)(now.tv_sec - p->start.tv_sec) +
	       (double)(now.tv_nsec - p->start.tv_nsec) / 1e9;
	pthread_mutex_lock(&p->mu);
	/* called every few thousand events: redrawn 5 times a second */
	if (secs < 0.2 || (p->shown && secs - p->last < 0.2)) {
		pthread_mutex_unlock(&p->mu);
		return;
	}
	p->last = secs;
	fputs("\r\033[Kmemdb: ingesting '", stderr);
	cli_put_safe(stderr, p->path);
	fprintf(stderr, "': %s events, %.1f s",
		cli_num(n, sizeof(n), events), secs);
	show_eta(p, secs);
	p->shown = 1;
	pthread_mutex_unlock(&p->mu);
}

static void print_events(const char *path, const struct mdb_source_meta *m,
			 const struct mdb_decode_stats *st,
			 const struct mdb_load_result *res)
{
	char a[32], b[32], c[32], d[32];
	int ncpus = mdb_source_ncpus(m, st);

	printf("source %lld: '", (long long)res->source_id);
	cli_put_safe(stdout, path);
	printf("' %s", m->format);
	if (m->order != MDB_ORDER_UNKNOWN)
		printf(", %s-endian",
		       m->order == MDB_ORDER_BIG ? "big" : "little");
	printf(", %d CPU%s: %s events, %s allocations (%s live at "
	       "end), %s unmatched frees\n", ncpus,
	       ncpus == 1 ? "" : "s",
	       cli_num(a, sizeof(a), st->events),
	       cli_num(b, sizeof(b), res->allocations),
	       cli_num(c, sizeof(c), res->live),
	       cli_num(d, sizeof(d), res->bad_frees));
	if (st->unknown)
		cli_warnf("'%s': %s %s skipped", path,
			  cli_num(a, sizeof(a), st->unknown),
			  m->unknown_what ? m->unknown_what :
			  "records with unknown event or type ids");
	if (st->malformed)
		cli_warnf("'%s': %s malformed lines skipped", path,
			  cli_num(a, sizeof(a), st->malformed));
	if (st->lost_events)
		cli_warnf("'%s': the trace lost %s events: figures are "
			  "incomplete", path,
			  cli_num(a, sizeof(a), st->lost_events));
	if (m->overruns > 0)
		cli_warnf("'%s': total_overruns=%lld: the capture "
			  "lost events, figures are incomplete", path,
			  (long long)m->overruns);
	if (m->notes[0])
		cli_warnf("'%s': %s", path, m->notes);
}

static void print_snapshot(const char *path,
			   const struct mdb_ingest_result *r,
			   const char *label)
{
	const struct mdb_source_meta *m = r->meta;
	const struct mdb_snap_info *info = &r->info;
	const struct mdb_load_result *res = &r->res;
	char a[32], b[32], t[40];

	printf("source %lld: '", (long long)res->source_id);
	cli_put_safe(stdout, path);
	printf("' %s%s%s", m->format, info->version[0] ? " " : "",
	       info->version);
	if (m->order != MDB_ORDER_UNKNOWN)
		printf(", %s-endian",
		       m->order == MDB_ORDER_BIG ? "big" : "little");
	if (m->ncpus)
		printf(", %d CPU%s", m->ncpus, m->ncpus == 1 ? "" : "s");
	printf(", taken %s", cli_iso_time(t, sizeof(t), r->taken_at));
	if (label) {
		printf(" on ");
		cli_put_safe(stdout, label);
	}
	if (res->tags && res->zones) /* a core dump's */
		printf(": %s zones, %s tags", cli_num(a, sizeof(a), res->zones),
		       cli_num(b, sizeof(b), res->tags));
	else if (res->tags)
		printf(": %s tags", cli_num(a, sizeof(a), res->tags));
	else
		printf(": %s zones", cli_num(a, sizeof(a), res->zones));
	if (info->approx)
		printf(", %s with humanized or rounded figures",
		       cli_num(b, sizeof(b), info->approx));
	if (info->inaccurate)
		printf(", %s marked accurate:no",
		       cli_num(b, sizeof(b), info->inaccurate));
	printf("\n");
}

static void print_duplicate(const char *path, const char *label,
			    const struct mdb_load_result *res)
{
	printf("source %lld: '", (long long)res->source_id);
	cli_put_safe(stdout, path);
	printf("' already ingested (identical data; --force to read it "
	       "again)");
	if (label) {
		printf(res->relabeled ? "; its label is now '" :
					"; its label is '");
		cli_put_safe(stdout, label);
		printf("'");
	}
	printf("\n");
}

/*
 * Name the call sites and stack frames of trace source @id when the
 * kernel's symbols are at hand: --kallsyms, --vmlinux, or a kallsyms kept
 * with the source.  memdb symbolize's own transaction, after the
 * source's: a failure leaves the source ingested, its sites addresses.
 */
static void name_sites(struct mdb_db *db, int64_t id,
		       const struct mdb_ingest_opts *io, int quiet)
{
	struct mdb_sym_opts so = { .vmlinux = io->vmlinux,
				   .kallsyms = io->kallsyms };
	struct mdb_sym_result r;
	struct mdb_error e;
	char a[32], b[32];

	mdb_error_clear(&e);
	if (mdb_symbolize(db, id, &so, &r, &e) < 0) {
		if (e.code != MDB_E_NORESOLVER && !quiet) {
			cli_error(&e);
			cli_warnf("source %lld: call sites left as addresses; "
				  "'memdb symbolize' names them",
				  (long long)id);
		}
		return;
	}
	/* address 0 is no call site (page events without a caller) */
	if (!quiet && r.sites > r.zero_sites)
		printf("  named %s of %s call sites (%s)\n",
		       cli_num(a, sizeof(a), r.sites - r.unknown),
		       cli_num(b, sizeof(b), r.sites - r.zero_sites),
		       r.by_quality[3] ? "DWARF" : r.by_quality[2] ?
		       "ELF symbols" : "kallsyms");
}

/*
 * Killed by a signal (Ctrl-C, SIGTERM, a closed terminal) while writing
 * the first source into a database it made, an ingest removes the file
 * and its journal before the signal ends it, as a rejected first ingest
 * does.  Only while that source's transaction is open and is the file's
 * first (source id 1): the write lock keeps every other memdb from
 * having stored anything there, and one waiting for the lock finds the
 * file gone (mdb_source_begin()).  SIGKILL cannot be caught: killed so,
 * the database stays, holding no source.
 */
static const int kill_signals[] = { SIGINT, SIGTERM, SIGHUP };
static char *kill_db, *kill_journal;
static volatile sig_atomic_t kill_armed;

static void on_kill(int sig)
{
	if (kill_armed) {
		unlink(kill_db);
		unlink(kill_journal);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The handler, for signals not ignored; once, for database @path. */
static void kill_setup(const char *path)
{
	struct sigaction sa;

	if (kill_db)
		return;
	if (asprintf(&kill_journal, "%s-journal", path) < 0 ||
	    !(kill_db = strdup(path))) {
		free(kill_journal);
		kill_journal = NULL;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_kill;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(kill_signals) / sizeof(*kill_signals);
	     i++) {
		struct sigaction old;

		if (sigaction(kill_signals[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(kill_signals[i], &sa, NULL);
	}
}

/* The first source of a database this ingest made is being written
 * (@open 1), or no longer. */
static void first_source(void *ctx, const char *path, int open)
{
	(void)ctx;
	if (open)
		kill_setup(path);
	kill_armed = open && kill_db != NULL;
}

#define MAX_SAID 256 /* warnings kept (decoders say few, then a count) */

/* Was @text said by the first decode (then it is not said again)?  Else
 * keep a copy, while that decode runs. */
static int said_before(struct progress *p, const char *text)
{
	char **n, *copy;

	for (size_t i = 0; p->again && i < p->nsaid; i++)
		if (p->said[i] && !strcmp(p->said[i], text)) {
			free(p->said[i]);
			p->said[i] = NULL;
			return 1;
		}
	if (p->again || p->nsaid == MAX_SAID || !(copy = strdup(text)))
		return 0;
	n = realloc(p->said, (p->nsaid + 1) * sizeof(*n));
	if (!n) {
		free(copy);
		return 0;
	}
	p->said = n;
	p->said[p->nsaid++] = copy;
	return 0;
}

static void progress_release(struct progress *p)
{
	for (size_t i = 0; i < p->nsaid; i++)
		free(p->said[i]);
	free(p->said);
	p->said = NULL;
	p->nsaid = 0;
}

/* What a decoder skipped but reports (malformed lines, unresolved
 * call sites), as warnings. */
static void show_warning(void *ctx, const struct mdb_error *w)
{
	struct progress *p = ctx;
	char *text = NULL;

	if (w->line >= 0 ?
	    asprintf(&text, "'%s': line=%lld: %s", w->file,
		     (long long)w->line, w->msg) < 0 :
	    asprintf(&text, "'%s': %s", w->file, w->msg) < 0)
		text = NULL;
	pthread_mutex_lock(&p->mu);
	if (text && said_before(p, text)) {
		pthread_mutex_unlock(&p->mu);
		free(text);
		return;
	}
	if (p->shown) {
		fputs("\r\033[K", stderr);
		p->shown = 0;
	}
	cli_warnf("%s", text ? text : w->msg);
	pthread_mutex_unlock(&p->mu);
	free(text);
}

/* The input is open: progress is timed from here. */
static void ready(void *ctx, const struct mdb_input *in)
{
	struct progress *p = ctx;

	p->in = in;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

/* The decode is read again: what it said is not said twice. */
static void again(void *ctx)
{
	((struct progress *)ctx)->again = 1;
}

static int ingest_one(struct mdb_ingest_db *idb, const char *path,
		      const struct mdb_ingest_opts *io,
		      const struct mdb_load_opts *lo, int quiet)
{
	struct progress prog = { .path = path };
	struct mdb_ingest_hooks h = {
		.first_source = first_source, .again = again, .ctx = &prog,
	};
	struct mdb_ingest_result r;
	struct mdb_error e;
	int ret;

	pthread_mutex_init(&prog.mu, NULL);
	mdb_error_clear(&e);
	if (!quiet) {
		h.warn = show_warning;
		if (cli_show_progress()) {
			h.ready = ready;
			h.progress = show_progress;
		}
	}
	ret = mdb_ingest_path(idb, path, io, lo, &h, &r, &e);
	if (prog.shown)
		fputs("\r\033[K", stderr);
	progress_release(&prog);
	pthread_mutex_destroy(&prog.mu);
	if (ret < 0) {
		cli_error(&e);
		return -1;
	}
	if (!quiet && r.kind == MDB_INGESTED_DUPLICATE)
		print_duplicate(path, lo->label, &r.res);
	else if (!quiet && r.kind == MDB_INGESTED_SNAPSHOT)
		print_snapshot(path, &r, lo->label);
	else if (!quiet)
		print_events(path, r.meta, &r.st, &r.res);
	if (r.kind == MDB_INGESTED_EVENTS && io->symbolize)
		name_sites(&idb->db, r.res.source_id, io, quiet);
	mdb_ingest_result_release(&r);
	return 0;
}

/* Ingest the @n @paths into @dbpath; returns the exit status. */
static int ingest_all(const char *dbpath, char **paths, int n,
		      const struct mdb_ingest_opts *io,
		      const struct mdb_load_opts *lo, int quiet)
{
	struct mdb_ingest_db idb = { .path = dbpath };
	struct mdb_error e;
	int failed = 0, removed = 0, opened;

	mdb_error_clear(&e);
	if (mdb_ingest_db_start(&idb, &e) < 0) {
		cli_error(&e);
		return cli_finish(MEMDB_EXIT_FAIL);
	}
	for (int i = 0; i < n && !idb.failed; i++)
		if (ingest_one(&idb, paths[i], io, lo, quiet) < 0)
			failed = 1;
	opened = idb.open;
	/* a new database that nothing went into is not left behind */
	if (mdb_ingest_db_finish(&idb, &removed, &e) < 0) {
		cli_error(&e);
		failed = 1;
	}
	if ((removed || (!opened && !idb.failed)) && !quiet)
		cli_errorf("nothing ingested: '%s' not created", dbpath);
	return cli_finish(failed ? MEMDB_EXIT_FAIL : MEMDB_EXIT_OK);
}

int cmd_ingest(int argc, char **argv)
{
	struct cli_common co = { .cmd = "ingest", .db = cli_default_db() };
	struct mdb_ingest_opts io;
	struct mdb_load_opts lo = { 0 };
	int c, ret;

	mdb_ingest_opts_init(&io);
	/* perf.data emitted as read; MEMDB_TEST_TWO_PASS: the tests' way
	 * to the two-pass path, to compare the two */
	io.rounds = !getenv("MEMDB_TEST_TWO_PASS");
	io.symbolize = 1;
	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		if (cli_is_capture_opt(c)) {
			if (cli_capture_opt("ingest", c, optarg, &io))
				return MEMDB_EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 't':
			if (cli_parse_time(optarg, &lo.taken_at))
				return cli_usage_error("ingest",
					"--time takes Unix seconds or an ISO "
					"8601 time (2026-11-22T10:15:00Z), "
					"not '%s'", optarg);
			lo.has_taken_at = 1;
			break;
		case OPT_LABEL:
			lo.label = optarg;
			break;
		case OPT_FORCE:
			lo.force = 1;
			break;
		case OPT_NO_SYMBOLIZE:
			io.symbolize = 0;
			break;
		case 'h':
			return ingest_usage();
		default:
			ret = cli_common_opt(&co, c, optarg);
			if (ret >= 0)
				return ret;
		}
	}
	if (optind >= argc)
		return cli_usage_error("ingest", "no PATH to ingest");
	if (cli_capture_files(&io))
		return cli_finish(MEMDB_EXIT_FAIL);

	return ingest_all(co.db, argv + optind, argc - optind, &io, &lo,
			  co.quiet);
}
