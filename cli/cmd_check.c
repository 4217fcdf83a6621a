// SPDX-License-Identifier: MIT
/*
 * memdb check: validate a capture without a database, as kmemtrace_check
 * did.  The decoder checks the record structure; the pairing and the
 * derived figures (db/pair.c, db/stats.c, the same code ingest runs)
 * classify every free and allocation in memory; a short verdict follows.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../analysis/pair.h"
#include "../db/stats.h"
#include "../ingest/ingest.h"
#include "cli.h"

static const char usage[] =
"usage: memdb check [--endian little|big] [--abi N] [--cpu N] [-q] PATH...\n"
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
"Options:\n"
"      --endian ORDER  byte order, little or big (default: detected)\n"
"      --abi N         read as kmemtrace ABI version N\n"
"      --cpu N         CPU of a lone per-CPU file not named cpuN\n"
"  -q, --quiet         print only the verdict line\n"
"  -h, --help          show this help\n"
"\n"
"Exit status: 0 every PATH clean, 3 some PATH not clean (or corrupt),\n"
"1 a PATH could not be read as a capture, 2 a bad command line.\n";

static const struct option longopts[] = {
	{ "endian", required_argument, NULL, CLI_OPT_ENDIAN },
	{ "abi", required_argument, NULL, CLI_OPT_ABI },
	{ "cpu", required_argument, NULL, CLI_OPT_CPU },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The in-memory sink: call sites to small ids, pairing, figures. */
struct checker {
	struct mdb_pair pair;
	struct mdb_stats *stats;
	struct u64map site_ids;  /* address, or hash of a symbolic site */
	uint64_t *site_addr;     /* id - 1 -> address (0 for text sites) */
	size_t nsites, site_cap;
	uint64_t allocs, frees;
};

static int on_lifetime(void *ctx, const struct mdb_lifetime *lt)
{
	return mdb_stats_lifetime(((struct checker *)ctx)->stats, lt);
}

static int on_bad_free(void *ctx, const struct mdb_free *f)
{
	return mdb_stats_bad_free(((struct checker *)ctx)->stats, f);
}

static int site_of(struct checker *c, const struct mdb_event *ev,
		   uint32_t *id)
{
	uint64_t key = ev->site_text.len ?
		       XXH3_64bits(ev->site_text.p, ev->site_text.len) :
		       ev->call_site;
	int added;
	uint64_t *v = u64map_put(&c->site_ids, key, 0, &added);

	if (!v)
		return -MDB_E_NOMEM;
	if (added) {
		if (c->nsites == c->site_cap) {
			size_t ncap = c->site_cap ? c->site_cap * 2 : 256;
			uint64_t *n = realloc(c->site_addr,
					      ncap * sizeof(*n));

			if (!n)
				return -MDB_E_NOMEM;
			c->site_addr = n;
			c->site_cap = ncap;
		}
		c->site_addr[c->nsites++] = ev->site_text.len ? 0 :
					    ev->call_site;
		*v = c->nsites;
	}
	*id = (uint32_t)*v;
	return 0;
}

static int check_event(void *ctx, const struct mdb_event *ev)
{
	struct checker *c = ctx;
	uint32_t site;
	int ret = site_of(c, ev, &site);

	if (ret < 0)
		return ret;
	mdb_stats_event(c->stats, ev->seq, ev->ts);
	if (ev->kind == MDB_EV_ALLOC) {
		struct mdb_lifetime lt = {
			.seq = ev->seq, .ts = ev->ts, .ptr = ev->ptr,
			.bytes_req = ev->bytes_req,
			.bytes_alloc = ev->bytes_alloc, .gfp = ev->gfp,
			.site_id = site, .cpu = ev->cpu, .node = ev->node,
			.type = ev->type,
		};

		c->allocs++;
		return mdb_pair_alloc(&c->pair, &lt);
	} else {
		struct mdb_free f = {
			.seq = ev->seq, .ts = ev->ts, .ptr = ev->ptr,
			.site_id = site, .cpu = ev->cpu, .type = ev->type,
		};

		c->frees++;
		return mdb_pair_free(&c->pair, &f);
	}
}

/* Slab figures: page events pair too loosely for a verdict (pages freed
 * in other orders or by untraced paths). */
static uint64_t an(const struct checker *c, enum mdb_anomaly cls)
{
	return c->stats->anom[cls][0].count;
}

static uint64_t an_page(const struct checker *c, enum mdb_anomaly cls)
{
	return c->stats->anom[cls][1].count;
}

static void first_at(const struct checker *c, enum mdb_anomaly cls,
		     char *buf, size_t len)
{
	const struct mdb_anom *a = &c->stats->anom[cls][0];

	if (!a->count) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, " (first at seq %" PRId64 ", cpu %d, call site "
		 "0x%" PRIx64 ")", a->seq[0], a->cpu[0],
		 a->site[0] ? c->site_addr[a->site[0] - 1] : 0);
}

/* Check one PATH; returns an exit status. */
static int check_one(const char *path, const struct mdb_ingest_opts *io,
		     int quiet)
{
	struct mdb_pair_ops ops = { NULL, on_lifetime, on_bad_free };
	struct checker c = { 0 };
	struct mdb_input *in = NULL;
	struct mdb_decode_stats st = { 0 };
	struct mdb_sink sink = { &c, check_event };
	const struct mdb_source_meta *m;
	struct mdb_error e;
	char n1[32], n2[32], n3[32], n4[32], where[160], problems[1024] = "";
	uint64_t live = 0, live_bytes = 0, pages = 0, page_frees = 0;
	int status = MEMDB_EXIT_OK, nprob = 0, ret;
	size_t pl = 0;

#define PROBLEM(...)                                                          \
	do {                                                                  \
		if (pl < sizeof(problems))                                    \
			pl += (size_t)snprintf(problems + pl,                 \
					       sizeof(problems) - pl, "%s",   \
					       nprob++ ? ", " : "");          \
		if (pl < sizeof(problems))                                    \
			pl += (size_t)snprintf(problems + pl,                 \
					       sizeof(problems) - pl,         \
					       __VA_ARGS__);                  \
	} while (0)

	mdb_error_clear(&e);
	if (mdb_input_open(path, io, &in, &e) < 0) {
		cli_error(&e);
		return MEMDB_EXIT_FAIL;
	}
	m = mdb_input_meta(in);
	if (m->snapshot) {
		cli_errorf("'%s' is a snapshot (%s): memdb check validates "
			   "traces", path, m->format);
		mdb_input_close(in);
		return MEMDB_EXIT_FAIL;
	}
	c.stats = malloc(sizeof(*c.stats));
	if (!c.stats) {
		mdb_input_close(in);
		cli_errorf("out of memory");
		return MEMDB_EXIT_FAIL;
	}
	mdb_stats_init(c.stats);
	u64map_init(&c.site_ids);
	ops.ctx = &c;
	mdb_pair_init(&c.pair, &ops);
	mdb_pair_set_all_traced(&c.pair,
				mdb_pair_all_traced(m->format,
						    m->kernel_release));

	ret = mdb_input_decode(in, &sink, &st, &e);
	if (ret >= 0)
		ret = mdb_pair_finish(&c.pair);
	if (ret == -MDB_E_NOMEM && !e.code)
		mdb_error_set(&e, MDB_E_NOMEM, path, -1, -1, NULL);

	for (size_t i = 0; i < c.stats->sites.n; i++) {
		const struct mdb_frow *r = &c.stats->sites.rows[i];

		if (r->b != MDB_TYPE_PAGE) {
			live += r->f.live;
			live_bytes += r->f.live_bytes;
		} else {
			pages += r->f.hits;
			page_frees += r->f.freed;
		}
	}
	if (!quiet) {
		printf("%s: %s", path, m->format);
		if (m->order != MDB_ORDER_UNKNOWN)
			printf(", %s-endian", m->order == MDB_ORDER_BIG ?
			       "big" : "little");
		printf(", %d CPU%s\n", m->ncpus, m->ncpus == 1 ? "" : "s");
		printf("  records       %s events, %s with unknown ids "
		       "skipped, %s feature bytes\n",
		       cli_num(n1, sizeof(n1), st.events),
		       cli_num(n2, sizeof(n2), st.unknown),
		       cli_num(n3, sizeof(n3), st.feature_bytes));
		if (st.events)
			printf("  sequence      %" PRId64 " .. %" PRId64
			       ", %s missing, %s out of order\n",
			       st.first_seq, st.last_seq,
			       cli_num(n1, sizeof(n1), st.seq_missing),
			       cli_num(n2, sizeof(n2), st.seq_disorder));
		printf("  lost          %s%s\n",
		       m->overruns < 0 ? "overruns unknown" : "overruns ",
		       m->overruns < 0 ? "" :
		       cli_num(n1, sizeof(n1), (uint64_t)m->overruns));
		printf("  slab allocs   %s: %s failed, %s zero-size "
		       "requests, ", cli_num(n1, sizeof(n1), c.allocs - pages),
		       cli_num(n2, sizeof(n2), an(&c, MDB_AN_FAILED)),
		       cli_num(n3, sizeof(n3), an(&c, MDB_AN_ZERO_REQUEST)));
		printf("%s with bytes_alloc < bytes_req\n",
		       cli_num(n1, sizeof(n1), an(&c, MDB_AN_UNDERSIZED)));
		printf("  slab frees    %s: %s NULL, %s unknown, ",
		       cli_num(n1, sizeof(n1), c.frees - page_frees -
			       an_page(&c, MDB_AN_NULL_FREE) -
			       an_page(&c, MDB_AN_UNKNOWN_FREE) -
			       an_page(&c, MDB_AN_DUPLICATE_FREE) -
			       an_page(&c, MDB_AN_DUPLICATE_SUSPECT)),
		       cli_num(n2, sizeof(n2), an(&c, MDB_AN_NULL_FREE)),
		       cli_num(n3, sizeof(n3), an(&c, MDB_AN_UNKNOWN_FREE)));
		printf("%s duplicate, %s suspect duplicate, %s not traced\n",
		       cli_num(n1, sizeof(n1), an(&c, MDB_AN_DUPLICATE_FREE)),
		       cli_num(n2, sizeof(n2),
			       an(&c, MDB_AN_DUPLICATE_SUSPECT)),
		       cli_num(n3, sizeof(n3), an(&c, MDB_AN_NOT_TRACED)));
		printf("  mismatches    %s kmem_cache_free of kmalloc, %s "
		       "kfree of kmem_cache (legal since 6.4)\n",
		       cli_num(n1, sizeof(n1),
			       an(&c, MDB_AN_CACHE_FREE_KMALLOC)),
		       cli_num(n2, sizeof(n2), an(&c, MDB_AN_KFREE_CACHE)));
		printf("  live at end   %s slab allocations, %s bytes\n",
		       cli_num(n1, sizeof(n1), live),
		       cli_num(n2, sizeof(n2), live_bytes));
		if (pages || an_page(&c, MDB_AN_UNKNOWN_FREE) ||
		    an_page(&c, MDB_AN_DUPLICATE_FREE) ||
		    an_page(&c, MDB_AN_DUPLICATE_SUSPECT))
			printf("  pages         %s allocations, %s paired frees, "
			       "%s unknown, %s duplicate (not judged)\n",
			       cli_num(n1, sizeof(n1), pages),
			       cli_num(n2, sizeof(n2), page_frees),
			       cli_num(n3, sizeof(n3),
				       an_page(&c, MDB_AN_UNKNOWN_FREE)),
			       cli_num(n4, sizeof(n4),
				       an_page(&c, MDB_AN_DUPLICATE_FREE) +
				       an_page(&c, MDB_AN_DUPLICATE_SUSPECT)));
	}
	if (ret < 0) {
		char buf[1400];

		mdb_error_format(&e, buf, sizeof(buf));
		PROBLEM("corrupt: %s", buf);
	}
	if (m->overruns > 0)
		PROBLEM("%" PRId64 " overruns", m->overruns);
	if (st.lost_events)
		PROBLEM("%" PRIu64 " events lost", st.lost_events);
	if (st.seq_missing && m->whole_capture)
		PROBLEM("%" PRIu64 " sequence numbers missing",
			st.seq_missing);
	if (st.seq_disorder)
		PROBLEM("%" PRIu64 " sequence numbers repeated or backwards",
			st.seq_disorder);
	if (an(&c, MDB_AN_DUPLICATE_FREE)) {
		first_at(&c, MDB_AN_DUPLICATE_FREE, where, sizeof(where));
		PROBLEM("%" PRIu64 " duplicate frees%s",
			an(&c, MDB_AN_DUPLICATE_FREE), where);
	}
	if (an(&c, MDB_AN_CACHE_FREE_KMALLOC)) {
		first_at(&c, MDB_AN_CACHE_FREE_KMALLOC, where, sizeof(where));
		PROBLEM("%" PRIu64 " kmem_cache_free of kmalloc objects%s",
			an(&c, MDB_AN_CACHE_FREE_KMALLOC), where);
	}
	if (an(&c, MDB_AN_UNDERSIZED)) {
		first_at(&c, MDB_AN_UNDERSIZED, where, sizeof(where));
		PROBLEM("%" PRIu64 " allocations with bytes_alloc < "
			"bytes_req%s", an(&c, MDB_AN_UNDERSIZED), where);
	}
	if (nprob) {
		printf("%s: NOT CLEAN: %s\n", path, problems);
		status = MEMDB_EXIT_UNCLEAN;
	} else {
		printf("%s: clean\n", path);
	}
#undef PROBLEM
	mdb_pair_release(&c.pair);
	mdb_stats_release(c.stats);
	free(c.stats);
	u64map_release(&c.site_ids);
	free(c.site_addr);
	mdb_input_close(in);
	return status;
}

int cmd_check(int argc, char **argv)
{
	struct mdb_ingest_opts io;
	int quiet = 0, c, status = MEMDB_EXIT_OK;

	mdb_ingest_opts_init(&io);
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case CLI_OPT_ENDIAN:
		case CLI_OPT_ABI:
		case CLI_OPT_CPU:
			if (cli_capture_opt("check", c, optarg, &io))
				return MEMDB_EXIT_USAGE;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cli_help(usage);
		default:
			return cli_usage_error("check", "unknown option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("check", "no PATH to check");
	for (int i = optind; i < argc; i++) {
		int s = check_one(argv[i], &io, quiet);

		/* a failure to read outranks a finding */
		if (s == MEMDB_EXIT_FAIL ||
		    (s == MEMDB_EXIT_UNCLEAN && status == MEMDB_EXIT_OK))
			status = s;
	}
	return cli_finish(status);
}
