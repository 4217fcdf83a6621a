// SPDX-License-Identifier: MIT
/*
 * memdb check: validate a capture without a database, as kmemtrace_check
 * did.  The capture is read as ingest reads it (the same options) and
 * its events go through the analysis ingest runs (analysis/analysis.h:
 * call-site ids, pairing, derived figures), in memory: every figure
 * printed is one ingest stores.  A short verdict follows.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "../ingest/ingest.h"
#include "cli.h"
#include "opts.h"

static const char usage_head[] =
"usage: memdb check [--format NAME] [--endian little|big] [--abi N]\n"
"                   [--cpu N] [--kallsyms FILE] [--vmlinux FILE]\n"
"                   [--btf FILE] [--page-size N] [--strict] [-q] PATH...\n"
"\n"
"Validate captures without a database: the record structure, the\n"
"sequence numbers (gaps, order), lost events, and the error classes of\n"
"'memdb report errors', then print a short verdict per PATH.\n"
"\n"
"A capture is not clean when its records are corrupt, events were lost\n"
"(total_overruns, missing sequence numbers, LOST lines), sequence numbers\n"
"repeat or go backwards, or it shows duplicate frees (a traced allocation\n"
"freed twice, in a kmemtrace-era capture: those kernels trace every\n"
"allocation path), kmem_cache_free of a kmalloc object, or bytes_alloc <\n"
"bytes_req (slab events).  Suspect duplicate frees (the same in a capture\n"
"of a kernel with untraced allocation paths, kmem_cache_alloc_bulk since\n"
"4.2: the object may have been allocated again untraced), unknown frees,\n"
"frees not traced, kfree of a kmem_cache object (legal since Linux 6.4),\n"
"NULL frees, failed and zero-size allocations are reported but legal or\n"
"expected in a trace that did not start at boot.  Page events are\n"
"counted, not judged: page frees pair loosely with page allocations\n"
"(other orders, untraced paths).\n"
"\n"
"PATH is read as 'memdb ingest' reads it, with the same options, and the\n"
"figures are those ingest would store.\n"
"\n";

static const char usage_tail[] =
"\n"
"Exit status: 0 every PATH clean, 3 some PATH not clean (or corrupt),\n"
"1 a PATH could not be read as a capture, 2 a bad command line.\n"
"\n"
"Examples:\n"
"  memdb check /tmp/kmemtrace/\n"
"  memdb check -q trace.txt && memdb ingest trace.txt\n"
"  memdb check --endian big cpu3.out\n";

static const struct cli_opt opts[] = {
	CLI_ROWS_CAPTURE,
	{ "quiet", 'q', NULL, "print only the verdict line" },
	CLI_ROW_HELP,
	CLI_ROW_END,
};

/* One capture being checked. */
struct check {
	const char *path;
	struct mdb_input *in;
	const struct mdb_source_meta *m;
	struct mdb_analysis an;
	struct mdb_decode_stats st;
	struct mdb_error e;
	int ret;                 /* of decoding: 0, or <0 with @e */
	/* sums over the analysis' figures */
	uint64_t live, live_bytes, page_frees;
};

/* Slab figures: page events pair too loosely for a verdict (pages freed
 * in other orders or by untraced paths). */
static uint64_t an(const struct check *c, enum mdb_anomaly cls)
{
	return c->an.stats->anom[cls][0].count;
}

static uint64_t an_page(const struct check *c, enum mdb_anomaly cls)
{
	return c->an.stats->anom[cls][1].count;
}

static uint64_t slab(const uint64_t *by_type)
{
	return by_type[MDB_TYPE_KMALLOC] + by_type[MDB_TYPE_CACHE];
}

/* A call site as ingest stores it: the trace's text and the address. */
static void put_site(FILE *f, const struct check *c, uint32_t id)
{
	const struct mdb_site *s = mdb_analysis_site(&c->an, id);
	const char *text = mdb_analysis_site_text(&c->an, s);

	if (!s)
		fputs("??", f);
	else if (text && s->has_addr)
		fprintf(f, "%s (0x%" PRIx64 ")", text, s->addr);
	else if (text)
		fputs(text, f);
	else
		fprintf(f, "0x%" PRIx64, s->addr);
}

static void sum_sites(struct check *c)
{
	const struct mdb_ftable *t = &c->an.stats->sites;

	for (size_t i = 0; i < t->n; i++) {
		const struct mdb_frow *r = &t->rows[i];

		if (r->k.type != MDB_TYPE_PAGE) {
			c->live += r->f.live;
			c->live_bytes += r->f.live_bytes;
		} else {
			c->page_frees += r->f.freed;
		}
	}
}

static void print_source(const struct check *c)
{
	const struct mdb_source_meta *m = c->m;
	const struct mdb_decode_stats *st = &c->st;
	int ncpus = mdb_source_ncpus(m, st);
	char n1[32], n2[32], n3[32];

	cli_put_safe(stdout, c->path);
	printf(": %s", m->format);
	if (m->order != MDB_ORDER_UNKNOWN)
		printf(", %s-endian", m->order == MDB_ORDER_BIG ?
		       "big" : "little");
	printf(", %d CPU%s\n", ncpus, ncpus == 1 ? "" : "s");
	printf("  records       %s events, %s with unknown ids skipped, %s "
	       "feature bytes", cli_num(n1, sizeof(n1), st->events),
	       cli_num(n2, sizeof(n2), st->unknown),
	       cli_num(n3, sizeof(n3), st->feature_bytes));
	if (st->malformed)
		printf(", %s malformed lines skipped",
		       cli_num(n1, sizeof(n1), st->malformed));
	printf("\n");
	if (st->events)
		printf("  sequence      %" PRId64 " .. %" PRId64 ", %s "
		       "missing, %s out of order\n", st->first_seq,
		       st->last_seq, cli_num(n1, sizeof(n1), st->seq_missing),
		       cli_num(n2, sizeof(n2), st->seq_disorder));
	printf("  lost          %s%s\n",
	       m->overruns < 0 ? "overruns unknown" : "overruns ",
	       m->overruns < 0 ? "" :
	       cli_num(n1, sizeof(n1), (uint64_t)m->overruns));
}

static void print_slab(const struct check *c)
{
	char n1[32], n2[32], n3[32];

	printf("  slab allocs   %s: %s failed, %s zero-size requests, ",
	       cli_num(n1, sizeof(n1), slab(c->an.allocs)),
	       cli_num(n2, sizeof(n2), an(c, MDB_AN_FAILED)),
	       cli_num(n3, sizeof(n3), an(c, MDB_AN_ZERO_REQUEST)));
	printf("%s with bytes_alloc < bytes_req\n",
	       cli_num(n1, sizeof(n1), an(c, MDB_AN_UNDERSIZED)));
	printf("  slab frees    %s: %s NULL, %s unknown, ",
	       cli_num(n1, sizeof(n1), slab(c->an.frees)),
	       cli_num(n2, sizeof(n2), an(c, MDB_AN_NULL_FREE)),
	       cli_num(n3, sizeof(n3), an(c, MDB_AN_UNKNOWN_FREE)));
	printf("%s duplicate, %s suspect duplicate, %s not traced\n",
	       cli_num(n1, sizeof(n1), an(c, MDB_AN_DUPLICATE_FREE)),
	       cli_num(n2, sizeof(n2), an(c, MDB_AN_DUPLICATE_SUSPECT)),
	       cli_num(n3, sizeof(n3), an(c, MDB_AN_NOT_TRACED)));
	printf("  mismatches    %s kmem_cache_free of kmalloc, %s kfree of "
	       "kmem_cache (legal since 6.4)\n",
	       cli_num(n1, sizeof(n1), an(c, MDB_AN_CACHE_FREE_KMALLOC)),
	       cli_num(n2, sizeof(n2), an(c, MDB_AN_KFREE_CACHE)));
	printf("  live at end   %s slab allocations, %s bytes\n",
	       cli_num(n1, sizeof(n1), c->live),
	       cli_num(n2, sizeof(n2), c->live_bytes));
}

static void print_pages(const struct check *c)
{
	uint64_t pages = c->an.allocs[MDB_TYPE_PAGE];
	uint64_t dup = an_page(c, MDB_AN_DUPLICATE_FREE) +
		       an_page(c, MDB_AN_DUPLICATE_SUSPECT);
	char n1[32], n2[32], n3[32], n4[32];

	if (!pages && !an_page(c, MDB_AN_UNKNOWN_FREE) && !dup)
		return;
	printf("  pages         %s allocations, %s paired frees, %s unknown, "
	       "%s duplicate (not judged)\n", cli_num(n1, sizeof(n1), pages),
	       cli_num(n2, sizeof(n2), c->page_frees),
	       cli_num(n3, sizeof(n3), an_page(c, MDB_AN_UNKNOWN_FREE)),
	       cli_num(n4, sizeof(n4), dup));
}

/* The problems of a capture, as a list ("a, b, c"). */
struct problems {
	FILE *f;
	char *text;
	size_t len;
	int n;
};

/* The stream to print the next problem to. */
static FILE *problem(struct problems *p)
{
	if (p->n++)
		fputs(", ", p->f);
	return p->f;
}

/* A class of slab anomaly that makes a capture not clean. */
static void problem_class(struct problems *p, const struct check *c,
			  enum mdb_anomaly cls, const char *what)
{
	const struct mdb_anom *a = &c->an.stats->anom[cls][0];
	FILE *f;

	if (!a->count)
		return;
	f = problem(p);
	fprintf(f, "%" PRIu64 " %s (first at seq %" PRId64 ", cpu %d, call "
		"site ", a->count, what, a->seq[0], a->cpu[0]);
	put_site(f, c, a->site[0]);
	fputc(')', f);
}

static void find_problems(struct problems *p, const struct check *c)
{
	const struct mdb_decode_stats *st = &c->st;

	if (c->ret < 0) {
		char buf[1400];

		mdb_error_format(&c->e, buf, sizeof(buf));
		fprintf(problem(p), "corrupt: %s", buf);
	}
	if (c->m->overruns > 0)
		fprintf(problem(p), "%" PRId64 " overruns", c->m->overruns);
	if (st->lost_events)
		fprintf(problem(p), "%" PRIu64 " events lost",
			st->lost_events);
	if (st->seq_missing && c->m->whole_capture)
		fprintf(problem(p), "%" PRIu64 " sequence numbers missing",
			st->seq_missing);
	if (st->seq_disorder)
		fprintf(problem(p), "%" PRIu64 " sequence numbers repeated "
			"or backwards", st->seq_disorder);
	problem_class(p, c, MDB_AN_DUPLICATE_FREE, "duplicate frees");
	problem_class(p, c, MDB_AN_CACHE_FREE_KMALLOC,
		      "kmem_cache_free of kmalloc objects");
	problem_class(p, c, MDB_AN_UNDERSIZED,
		      "allocations with bytes_alloc < bytes_req");
}

/* Print the verdict line; returns the exit status of @c. */
static int verdict(const struct check *c)
{
	struct problems p = { 0 };

	p.f = open_memstream(&p.text, &p.len);
	if (!p.f) {
		cli_errorf("out of memory");
		return MEMDB_EXIT_FAIL;
	}
	find_problems(&p, c);
	fclose(p.f);
	/* names from the input (paths, call sites) are escaped */
	cli_put_safe(stdout, c->path);
	if (p.n) {
		fputs(": NOT CLEAN: ", stdout);
		cli_put_safe(stdout, p.text);
		fputc('\n', stdout);
	} else {
		fputs(": clean\n", stdout);
	}
	free(p.text);
	return p.n ? MEMDB_EXIT_UNCLEAN : MEMDB_EXIT_OK;
}

/* What the decoder skipped but reports (malformed lines, call sites
 * kallsyms cannot resolve), as ingest shows it. */
static void show_warning(void *ctx, const struct mdb_error *w)
{
	(void)ctx;
	if (w->line >= 0)
		cli_warnf("'%s': line=%lld: %s", w->file, (long long)w->line,
			  w->msg);
	else
		cli_warnf("'%s': %s", w->file, w->msg);
}

/* Open @path as a trace; MEMDB_EXIT_OK, or the failure reported. */
static int check_open(struct check *c, const struct mdb_ingest_opts *io)
{
	mdb_error_clear(&c->e);
	if (mdb_input_open(c->path, io, &c->in, &c->e) < 0) {
		cli_error(&c->e);
		return MEMDB_EXIT_FAIL;
	}
	c->m = mdb_input_meta(c->in);
	if (c->m->snapshot) {
		cli_errorf("'%s' is a snapshot (%s): memdb check validates "
			   "traces", c->path, c->m->format);
		return MEMDB_EXIT_FAIL;
	}
	if (mdb_analysis_init(&c->an, c->m, NULL) < 0) {
		cli_errorf("out of memory");
		return MEMDB_EXIT_FAIL;
	}
	return MEMDB_EXIT_OK;
}

/* Decode and analyse, as ingest does. */
static void check_run(struct check *c)
{
	c->ret = mdb_input_decode(c->in, &c->an.sink, &c->st, &c->e);
	if (c->ret >= 0)
		c->ret = mdb_analysis_finish(&c->an);
	if (c->ret == -MDB_E_NOMEM && !c->e.code)
		mdb_error_set(&c->e, MDB_E_NOMEM, c->path, -1, -1, NULL);
	sum_sites(c);
}

/* Check one PATH; returns an exit status. */
static int check_one(const char *path, const struct mdb_ingest_opts *io,
		     int quiet)
{
	struct check *c = calloc(1, sizeof(*c));
	int status;

	if (!c) {
		cli_errorf("out of memory");
		return MEMDB_EXIT_FAIL;
	}
	c->path = path;
	status = check_open(c, io);
	if (status == MEMDB_EXIT_OK) {
		check_run(c);
		if (!quiet) {
			print_source(c);
			print_slab(c);
			print_pages(c);
		}
		status = verdict(c);
	}
	mdb_analysis_release(&c->an);
	mdb_input_close(c->in);
	free(c);
	return status;
}

int cmd_check(int argc, char **argv)
{
	struct mdb_ingest_opts io;
	struct cli_common co = {
		.cmd = "check", .opts = opts, .head = usage_head,
		.tail = usage_tail,
	};
	int c, ret, status = MEMDB_EXIT_OK;

	mdb_ingest_opts_init(&io);
	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		if (cli_is_capture_opt(c)) {
			if (cli_capture_opt("check", c, optarg, &io))
				return MEMDB_EXIT_USAGE;
			continue;
		}
		switch (c) {
		default:
			ret = cli_common_opt(&co, c, optarg);
			if (ret >= 0)
				return ret;
		}
	}
	if (optind >= argc)
		return cli_usage_error("check", "no PATH to check");
	if (cli_capture_files(&io))
		return cli_finish(MEMDB_EXIT_FAIL);
	if (!co.quiet) {
		io.warn = show_warning;
		io.warn_ctx = NULL;
	}
	for (int i = optind; i < argc; i++) {
		int s = check_one(argv[i], &io, co.quiet);

		/* a failure to read outranks a finding */
		if (s == MEMDB_EXIT_FAIL ||
		    (s == MEMDB_EXIT_UNCLEAN && status == MEMDB_EXIT_OK))
			status = s;
	}
	return cli_finish(status);
}
