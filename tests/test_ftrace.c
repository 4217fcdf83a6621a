// SPDX-License-Identifier: MIT
/*
 * The ftrace kmem text decoder (ingest/trace/ftrace_text.c): every line of the
 * committed fixtures testdata/succeed/ftrace-* decodes to the values
 * written out by hand below (one fixture per kernel version or tool, see
 * testdata/succeed/README.md), the sniffer judges each file right, and
 * malformed lines are counted, reported with their line numbers, and an
 * error under strict.  Inline lines cover the rules fixtures cannot show
 * alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../ingest/trace/ftrace.h"
#include "testlib.h"

#define A MDB_EV_ALLOC
#define F MDB_EV_FREE
#define KM MDB_TYPE_KMALLOC
#define KC MDB_TYPE_CACHE
#define PG MDB_TYPE_PAGE
#define NOGFP MDB_NO_GFP
#define NOTS MDB_NO_TS
#define S(x) (x##ULL * 1000000000ULL) /* whole seconds in ns */

/* An expected event; strings NULL when absent. */
struct xev {
	int64_t seq;
	int32_t cpu;
	int64_t ts;
	int kind, type;
	uint64_t call_site;
	const char *site;
	uint64_t ptr, req, alloc, gfp;
	const char *gfp_text;
	int32_t node;
	const char *cache;
};

/* An event as the sink saw it, strings copied. */
struct got {
	struct mdb_event ev;
	char *site, *gfp_text, *cache;
};

struct rec {
	struct got *v;
	size_t n, cap;
	int fail_at;      /* return an error from this event (1-based) */
};

static char *dup_str(const struct mdb_str *s)
{
	return s->len ? strndup(s->p, s->len) : NULL;
}

static int rec_event(void *ctx, const struct mdb_event *ev)
{
	struct rec *r = ctx;

	if (r->fail_at && (int)r->n + 1 == r->fail_at)
		return -MDB_E_DB;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	r->v[r->n].ev = *ev;
	r->v[r->n].site = dup_str(&ev->site_text);
	r->v[r->n].gfp_text = dup_str(&ev->gfp_text);
	r->v[r->n].cache = dup_str(&ev->cache);
	r->n++;
	return 0;
}

static void rec_free(struct rec *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].site);
		free(r->v[i].gfp_text);
		free(r->v[i].cache);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void str_eq(const char *got, const char *want, int64_t seq,
		   const char *what)
{
	if (!want && !got)
		return;
	if (!want || !got || strcmp(got, want))
		fail_msg("line %lld: %s is '%s', expected '%s'", (long long)seq,
			 what, got ? got : "(none)", want ? want : "(none)");
}

static void check_events(const struct rec *r, const struct xev *x, size_t n)
{
	if (r->n != n)
		fail_msg("%zu events, expected %zu", r->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct mdb_event *e = &r->v[i].ev;

		assert_int_equal(e->seq, x[i].seq);
#define EQ(f, v)                                                           \
	do {                                                               \
		if ((uint64_t)(f) != (uint64_t)(v))                        \
			fail_msg("line %lld: " #f " is %#llx, expected %#llx", \
				 (long long)x[i].seq,                      \
				 (unsigned long long)(f),                  \
				 (unsigned long long)(v));                 \
	} while (0)
		EQ(e->cpu, x[i].cpu);
		EQ(e->ts, x[i].ts);
		EQ(e->kind, x[i].kind);
		EQ(e->type, x[i].type);
		EQ(e->call_site, x[i].call_site);
		EQ(e->ptr, x[i].ptr);
		EQ(e->bytes_req, x[i].req);
		EQ(e->bytes_alloc, x[i].alloc);
		EQ(e->gfp, x[i].kind == A ? x[i].gfp : NOGFP);
		EQ(e->node, x[i].kind == A ? x[i].node : -1);
#undef EQ
		str_eq(r->v[i].site, x[i].site, x[i].seq, "site_text");
		str_eq(r->v[i].gfp_text, x[i].gfp_text, x[i].seq, "gfp_text");
		str_eq(r->v[i].cache, x[i].cache, x[i].seq, "cache");
	}
}

/* What a fixture's stats must say. */
struct xstats {
	uint64_t records, events, unknown, malformed, lost;
	int32_t ncpus;
	int ptr_digits, hashed;
};

struct warned {
	int n;
	int64_t line[8];
	char msg[8][256];
};

static void on_warn(void *ctx, const struct mdb_error *w)
{
	struct warned *wd = ctx;

	if (wd->n < 8) {
		wd->line[wd->n] = w->line;
		snprintf(wd->msg[wd->n], sizeof(wd->msg[0]), "%s", w->msg);
	}
	wd->n++;
}

/* Decode testdata/succeed/@dir/@file as ft_input_open() would set it up. */
static int decode_fixture(const char *dir, const char *file,
			  const char *ksyms_file, int strict, struct rec *r,
			  struct mdb_decode_stats *st, struct mdb_ft_sniff *sn,
			  struct warned *wd, struct mdb_error *e)
{
	char *path, *text;
	size_t len;
	struct kallsyms k;
	struct mdb_decode_opts o = { 0 };
	struct ft_params fp = { 0 };
	int ret, have_k = 0;

	o.priv = &fp;
	if (asprintf(&path, "%s/succeed/%s/%s", env("TESTDATA"), dir,
		     file) < 0)
		fail();
	text = slurp(path, &len);
	if (!text)
		fail_msg("cannot read %s", path);
	if (ksyms_file) {
		char *kp;

		if (asprintf(&kp, "%s/succeed/%s/%s", env("TESTDATA"), dir,
			     ksyms_file) < 0)
			fail();
		assert_int_equal(mdb_kallsyms_load(&k, kp, e), 0);
		have_k = 1;
		free(kp);
	}
	mdb_ft_sniff(text, len, sn);
	o.name = path;
	o.ksyms = have_k ? &k : NULL;
	o.strict = strict;
	fp.hashed = sn->hashed;
	fp.ptr_digits = sn->ptr_digits;
	o.warn = on_warn;
	o.warn_ctx = wd;
	{
		struct mdb_sink sink = { r, rec_event, NULL };

		ret = mdb_ft_decode(text, len, &o, &sink, st, e);
	}
	if (have_k)
		mdb_kallsyms_release(&k);
	free(text);
	free(path);
	return ret;
}

static void run_fixture(const char *dir, const char *file,
			const char *ksyms_file, const struct xev *x, size_t n,
			const struct xstats *xs)
{
	struct rec r = { 0 };
	struct mdb_decode_stats st;
	struct mdb_ft_sniff sn;
	struct warned wd = { 0 };
	struct mdb_error e;

	assert_int_equal(decode_fixture(dir, file, ksyms_file, 0, &r, &st,
					&sn, &wd, &e), 0);
	check_events(&r, x, n);
	assert_true(sn.is_trace);
	assert_int_equal(sn.ptr_digits, xs->ptr_digits);
	assert_int_equal(sn.hashed, xs->hashed);
	assert_int_equal(st.records, xs->records);
	assert_int_equal(st.events, xs->events);
	assert_int_equal(st.unknown, xs->unknown);
	assert_int_equal(st.malformed, xs->malformed);
	assert_int_equal(st.lost_events, xs->lost);
	assert_int_equal(st.ncpus, xs->ncpus);
	assert_int_equal(st.first_seq, x[0].seq);
	assert_int_equal(st.last_seq, x[n - 1].seq);
	rec_free(&r);
}

#define RUN(dir, file, ks, x, ...)                                         \
	do {                                                               \
		const struct xstats xs_ = __VA_ARGS__;                     \
		run_fixture(dir, file, ks, x, sizeof(x) / sizeof(x[0]),    \
			    &xs_);                                         \
	} while (0)

/* 2.6.30: hex call sites, gfp_flags=%08x, _node events, (null). */
static void test_2_6_30(void **state)
{
	static const struct xev x[] = {
		{ 5, 0, S(191) + 417410000, A, KM, 0xffffffff810f44e9, NULL,
		  0xffff88003e8ac000, 4096, 4096, 0xd0, NULL, -1, NULL },
		{ 6, 0, S(191) + 417415000, A, KC, 0xffffffff8110f3b2, NULL,
		  0xffff88003f8c9cc0, 192, 192, 0x80d0, NULL, -1, NULL },
		{ 7, 1, S(191) + 417501000, A, KM, 0xffffffff8139c7c2, NULL,
		  0xffff88003dc40800, 1536, 2048, 0x20, NULL, -1, NULL },
		{ 8, 1, S(191) + 417600000, A, KC, 0xffffffff8139c77e, NULL,
		  0xffff88003f9a0e00, 256, 256, 0x20, NULL, 0, NULL },
		{ 9, 0, S(191) + 417700000, F, KM, 0xffffffff810f4592, NULL,
		  0xffff88003e8ac000, 0, 0, 0, NULL, 0, NULL },
		{ 10, 0, S(191) + 417710000, F, KM, 0xffffffff81101234, NULL,
		  0, 0, 0, 0, NULL, 0, NULL },
		{ 11, 1, S(191) + 417720000, F, KC, 0xffffffff8110f4c0, NULL,
		  0xffff88003f9a0e00, 0, 0, 0, NULL, 0, NULL },
	};

	(void)state;
	RUN("ftrace-2.6.30", "trace", NULL, x,
	    { 11, 7, 0, 0, 0, 2, 16, 0 });
}

/* 2.6.31: gfp_flags as names, unknown bits as hex. */
static void test_2_6_31(void **state)
{
	static const struct xev x[] = {
		{ 5, 1, S(1204) + 310118000, A, KM, 0xffffffff8126a3e1, NULL,
		  0xffff88007a43d800, 512, 512, NOGFP, "GFP_KERNEL|GFP_ZERO",
		  -1, NULL },
		{ 6, 1, S(1204) + 310125000, A, KC, 0xffffffff81271b38, NULL,
		  0xffff88007c1e0e40, 192, 192, NOGFP, "GFP_ATOMIC", -1,
		  NULL },
		{ 7, 1, S(1204) + 310140000, A, KM, 0xffffffff8126a3e1, NULL,
		  0xffff88007a43d000, 100, 128, NOGFP, "GFP_KERNEL|0x400000",
		  -1, NULL },
		{ 8, 1, S(1204) + 310200000, F, KC, 0xffffffff81271c02, NULL,
		  0xffff88007c1e0e40, 0, 0, 0, NULL, 0, NULL },
	};

	(void)state;
	RUN("ftrace-2.6.31", "trace", NULL, x, { 8, 4, 0, 0, 0, 2, 16, 0 });
}

/*
 * 2.6.32: page events, decimal pfn (1788379 = 0x1b49db, 1616384 =
 * 0x18aa00), page=(null) of a failed allocation, mm_page_free_direct and
 * mm_pagevec_free; size 4096 << order.
 */
static void test_2_6_32(void **state)
{
	static const struct xev x[] = {
		{ 5, 0, S(415) + 270001000, A, PG, 0, NULL, 0x1b49db000, 4096,
		  4096, NOGFP, "GFP_KERNEL", -1, NULL },
		{ 6, 0, S(415) + 270013000, A, PG, 0, NULL, 0x18aa00000, 16384,
		  16384, NOGFP, "GFP_HIGHUSER_MOVABLE", -1, NULL },
		{ 7, 0, S(415) + 270100000, A, PG, 0, NULL, 0, 32768, 32768,
		  NOGFP, "GFP_ATOMIC|GFP_NOWARN", -1, NULL },
		/* a page free carries its size (4096 << order) */
		{ 8, 0, S(415) + 270200000, F, PG, 0, NULL, 0x1b49db000, 0,
		  4096, 0, NULL, 0, NULL },
		{ 9, 1, S(415) + 270300000, F, PG, 0, NULL, 0x18aa00000, 0,
		  4096, 0, NULL, 0, NULL },
		{ 10, 0, S(415) + 270400000, A, KM, 0xffffffff8112c6f4, NULL,
		  0xffff88007a43d800, 64, 64, NOGFP, "GFP_KERNEL", -1, NULL },
	};

	(void)state;
	RUN("ftrace-2.6.32", "trace", NULL, x, { 10, 6, 0, 0, 0, 2, 16, 0 });
}

/*
 * 5.4: %pS call sites (kept as text: no kallsyms), " [ext4]" module
 * suffix, hashed pointers; the hash 0xa5c, below 4096, is tagged with
 * bit 32 so that it is not taken for ZERO_SIZE_PTR; #P:4 gives 4 CPUs.
 */
static void test_5_4(void **state)
{
	static const struct xev x[] = {
		{ 12, 2, S(512) + 883390000, A, KM, 0, "__alloc_skb+0x79/0x200",
		  0xd7b7e8d1, 640, 1024, NOGFP,
		  "GFP_ATOMIC|__GFP_NOWARN|__GFP_NOMEMALLOC", -1, NULL },
		{ 13, 2, S(512) + 883412000, A, KC, 0,
		  "ext4_alloc_inode+0x1a/0x160 [ext4]", 0x100000a5c, 1088,
		  1088, NOGFP, "GFP_NOFS", -1, NULL },
		{ 14, 2, S(512) + 883420000, F, KC, 0,
		  "ext4_free_in_core_inode+0x3a/0x50 [ext4]", 0x100000a5c, 0, 0,
		  0, NULL, 0, NULL },
		{ 15, 3, S(512) + 883501000, F, KM, 0,
		  "skb_release_data+0x111/0x1a0", 0xd7b7e8d1, 0, 0, 0, NULL, 0,
		  NULL },
		{ 16, 0, S(512) + 883600000, F, KM, 0, "do_sys_open+0x1e3/0x2c0",
		  0, 0, 0, 0, NULL, 0, NULL },
	};

	(void)state;
	RUN("ftrace-5.4", "trace", NULL, x, { 16, 5, 0, 0, 0, 4, 16, 1 });
}

/* ~5.12: kmem_cache_free name=; the record-tgid column, "(-------)". */
static void test_5_12(void **state)
{
	static const struct xev x[] = {
		{ 12, 1, S(100) + 1000, A, KC, 0,
		  "getname_flags.part.0+0x2c/0x1c0", 0xffff8881022e9000, 4096,
		  4096, NOGFP, "GFP_KERNEL", -1, NULL },
		{ 13, 1, S(100) + 9000, F, KC, 0, "putname+0x4c/0x60",
		  0xffff8881022e9000, 0, 0, 0, NULL, 0, "names_cache" },
		{ 14, 0, S(100) + 20000, A, KM, 0, "kvmalloc_node+0x43/0xd0",
		  0xffff888103c4a000, 4096, 4096, NOGFP,
		  "GFP_KERNEL_ACCOUNT|__GFP_ZERO", -1, NULL },
	};

	(void)state;
	RUN("ftrace-5.12", "trace", NULL, x, { 14, 3, 0, 0, 0, 2, 16, 0 });
}

/*
 * ~5.14: pfn=0x%lx; a failed allocation prints page NULL and pfn -1;
 * mm_page_free_batched repeats an mm_page_free and is skipped.
 */
static void test_5_14(void **state)
{
	static const struct xev x[] = {
		{ 7, 0, S(2045) + 118812000, A, PG, 0, NULL, 0x10ac1a000, 4096,
		  4096, NOGFP, "GFP_HIGHUSER_MOVABLE|__GFP_ZERO", -1, NULL },
		{ 8, 0, S(2045) + 118900000, A, PG, 0, NULL, 0, 2097152,
		  2097152, NOGFP, "GFP_TRANSHUGE|__GFP_THISNODE", -1, NULL },
		{ 9, 0, S(2045) + 119000000, F, PG, 0, NULL, 0x10ac1a000, 0,
		  4096, 0, NULL, 0, NULL },
		{ 11, 1, S(2045) + 119100000, A, PG, 0, NULL, 0x100000000, 32768,
		  32768, NOGFP, "GFP_KERNEL|__GFP_COMP", -1, NULL },
	};

	(void)state;
	RUN("ftrace-5.14", "trace", NULL, x, { 11, 4, 1, 0, 0, 2, 16, 0 });
}

/* ~6.0: accounted=, the _node events still there. */
static void test_6_0(void **state)
{
	static const struct xev x[] = {
		{ 7, 5, S(88) + 512301000, A, KM, 0,
		  "proc_sys_call_handler+0xc6/0x2b0", 0xffff88810a3d2000, 4096,
		  4096, NOGFP, "GFP_KERNEL", -1, NULL },
		{ 8, 5, S(88) + 512310000, A, KM, 0, "__kvmalloc_node+0x4f/0xe0",
		  0xffff888108c60000, 8192, 8192, NOGFP,
		  "GFP_KERNEL_ACCOUNT|__GFP_ZERO", -1, NULL },
		{ 9, 5, S(88) + 512320000, A, KC, 0, "__alloc_skb+0x3d/0x200",
		  0xffff888107e2b900, 232, 256, NOGFP, "GFP_KERNEL", 1, NULL },
	};

	(void)state;
	RUN("ftrace-6.0", "trace", NULL, x, { 9, 3, 0, 0, 0, 8, 16, 0 });
}

/* 6.1: node= on kmalloc and kmem_cache_alloc. */
static void test_6_1(void **state)
{
	static const struct xev x[] = {
		{ 5, 1, S(301) + 100001000, A, KM, 0,
		  "alloc_pipe_info+0x5d/0x230", 0xffff8881042a6300, 176, 192,
		  NOGFP, "GFP_KERNEL_ACCOUNT|__GFP_ZERO", -1, NULL },
		{ 6, 1, S(301) + 100002000, A, KC, 0, "alloc_inode+0xa3/0xd0",
		  0xffff888189a875f0, 616, 624, NOGFP, "GFP_KERNEL", 0, NULL },
		{ 7, 1, S(301) + 100010000, F, KM, 0, "free_pipe_info+0xa6/0xc0",
		  0xffff8881042a6300, 0, 0, 0, NULL, 0, NULL },
	};

	(void)state;
	RUN("ftrace-6.1", "trace", NULL, x, { 7, 3, 0, 0, 0, 2, 16, 0 });
}

/*
 * 6.18 with the capture's kallsyms: name= after ptr on kmem_cache_alloc;
 * a stack trace, another event, a LOST line and a buffer-start line
 * between events; comms with spaces, dashes and colons, one starting with
 * '#', one holding " 12: ".  Call sites resolve to function + offset:
 *   copy_process      0xffffffff810c8a00 + 0x18a = 0xffffffff810c8b8a
 *   lsm_blob_alloc    0xffffffff81400000 + 0x3b  = 0xffffffff8140003b
 *   load_elf_binary   two of them; the one of size 0x18a0 (the second,
 *                     0xffffffff81752000) + 0x12ce = 0xffffffff817532ce
 *   nf_ct_ext_add [nf_conntrack] 0xffffffffc0a01000 + 0x9d
 *   ida_alloc_range   0xffffffff81a00000 + 0x39b
 *   unknown_fn        absent: address 0, reported once
 */
static void test_6_18(void **state)
{
	static const struct xev x[] = {
		{ 13, 0, S(258) + 712849000, A, KC, 0xffffffff810c8b8a,
		  "copy_process+0x18a/0x1c80", 0xffff888102c8db00, 5824, 5824,
		  NOGFP, "GFP_KERNEL", -1, "task_struct" },
		{ 14, 0, S(258) + 712857000, A, KM, 0xffffffff8140003b,
		  "lsm_blob_alloc+0x3b/0x60", 0xffff88810024ec90, 11, 16, NOGFP,
		  "GFP_KERNEL_ACCOUNT|__GFP_ZERO", -1, NULL },
		{ 22, 1, S(258) + 712870000, A, KM, 0xffffffff817532ce,
		  "load_elf_binary+0x12ce/0x18a0", 0xffff888103a8e000, 72, 96,
		  NOGFP, "GFP_KERNEL", -1, NULL },
		{ 23, 1, S(258) + 712871000, A, KM, 0xffffffffc0a0109d,
		  "nf_ct_ext_add+0x9d/0x1b0 [nf_conntrack]", 0xffff888103a8e100,
		  20, 32, NOGFP, "GFP_ATOMIC", -1, NULL },
		{ 24, 0, S(258) + 712873000, F, KM, 0xffffffff81a0039b,
		  "ida_alloc_range+0x39b/0x400", 0, 0, 0, 0, NULL, 0, NULL },
		{ 25, 1, S(258) + 712880000, F, KC, 0, "unknown_fn+0x10/0x40",
		  0xffff888102c8db00, 0, 0, 0, NULL, 0, "task_struct" },
		{ 26, 0, S(258) + 712872000, A, PG, 0, NULL, 0x10ac1a000, 4096,
		  4096, NOGFP, "GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP", -1,
		  NULL },
	};
	struct rec r = { 0 };
	struct mdb_decode_stats st;
	struct mdb_ft_sniff sn;
	struct warned wd = { 0 };
	struct mdb_error e;

	(void)state;
	RUN("ftrace-6.18", "trace", "kallsyms", x,
	    { 26, 7, 5, 0, 1234, 2, 16, 0 });
	/* the unresolved call site is reported once, naming the first */
	assert_int_equal(decode_fixture("ftrace-6.18", "trace", "kallsyms", 0,
					&r, &st, &sn, &wd, &e), 0);
	assert_int_equal(wd.n, 1);
	assert_int_equal(wd.line[0], -1);
	assert_non_null(strstr(wd.msg[0], "'unknown_fn+0x10/0x40' at line "
					  "25"));
	rec_free(&r);
}

/*
 * perf script: "comm pid[/tid] [cpu] ts: kmem:event:", 0x pointers,
 * (nil), "func+0xoff" without size, call chain lines, nanosecond
 * timestamps, a line without the CPU column (cpu -1).
 */
static void test_perf_script(void **state)
{
	static const struct xev x[] = {
		{ 1, 0, S(258) + 712857000, A, KM, 0, "lsm_blob_alloc+0x3b",
		  0xffff88810024ec90, 11, 16, NOGFP,
		  "GFP_KERNEL_ACCOUNT|__GFP_ZERO", -1, NULL },
		{ 2, 1, S(258) + 712900000, F, KM, 0, "ida_alloc_range+0x39b", 0,
		  0, 0, 0, NULL, 0, NULL },
		{ 3, 0, S(4666) + 621521000, A, KM, 0xc0000000003ce108, NULL,
		  0xc000000fcd646360, 96, 96, NOGFP, "GFP_NOFS|GFP_ZERO", -1,
		  NULL },
		{ 7, 0, S(258) + 712999123, F, KC, 0xffffffffc0a0109d, NULL,
		  0xffff888102c8db00, 0, 0, 0, NULL, 0, "task_struct" },
		{ 8, -1, S(258) + 713001000, F, KM, 0, "lsm_blob_free+0x1c",
		  0xffff88810024ec90, 0, 0, 0, NULL, 0, NULL },
		{ 9, 0, S(258) + 713002000, A, PG, 0, NULL, 0x10ac1a000, 8192,
		  8192, NOGFP, "GFP_KERNEL", -1, NULL },
	};

	(void)state;
	RUN("ftrace-perf-script", "perf.txt", NULL, x,
	    { 9, 6, 2, 0, 0, 2, 0, 0 });
}

/*
 * trace-cmd report: its header lines, event names padded, hex gfp, the
 * kmem plugin's "(func+0xoff)" before the fields, "bytes_req=56bytes_alloc"
 * as trace-cmd sometimes prints it, "[N EVENTS DROPPED]" with and without
 * a count (the latter counts as one).
 */
static void test_trace_cmd(void **state)
{
	static const struct xev x[] = {
		{ 4, 0, S(2319) + 857000, A, PG, 0, NULL, 0x1347a7000, 4096,
		  4096, 0x152c4a, NULL, -1, NULL },
		{ 5, 0, S(2319) + 863000, A, KC, 0, "xas_alloc+0x9f",
		  0xffff88811390f6c0, 576, 584, 0x402800, NULL, -1, NULL },
		{ 6, 0, S(2319) + 878000, A, KM, 0,
		  "virtio_fs_enqueue_req+0x131", 0xffff888101a9d9c0, 56, 64,
		  0x820, NULL, -1, NULL },
		{ 8, 0, S(2319) + 880000, A, KC, 0, "getname_flags.part.0+0x2c",
		  0xffff8fff022e9000, 4096, 4096, NOGFP, "GFP_KERNEL", -1,
		  NULL },
		{ 10, 0, S(2319) + 890000, F, KM, 0xffffffffc0a0109d, NULL, 0,
		  0, 0, 0, NULL, 0, NULL },
	};

	(void)state;
	RUN("ftrace-trace-cmd", "report.txt", NULL, x,
	    { 10, 5, 0, 0, 1235, 2, 0, 0 });
}

/* trace_pipe of a 32-bit kernel: no header, 8-digit pointers, pfn -1
 * printed as 4294967295. */
static void test_trace_pipe(void **state)
{
	static const struct xev x[] = {
		{ 1, 1, S(3022) + 502187000, A, KM, 0xc04f6b1d, NULL,
		  0xf5d3e400, 252, 256, NOGFP, "GFP_KERNEL", -1, NULL },
		{ 3, 0, S(3022) + 502301000, A, KC, 0xc049f8b4, NULL,
		  0xf6a03c80, 128, 128, NOGFP, "GFP_KERNEL|GFP_ZERO", -1,
		  NULL },
		{ 4, 1, S(3022) + 502400000, F, KM, 0xc04f6c2e, NULL,
		  0xf5d3e400, 0, 0, 0, NULL, 0, NULL },
		{ 5, 0, S(3022) + 502500000, A, PG, 0, NULL, 0, 4096, 4096,
		  NOGFP, "GFP_KERNEL", -1, NULL },
	};

	(void)state;
	RUN("ftrace-trace-pipe", "trace_pipe", NULL, x,
	    { 5, 4, 0, 0, 17, 2, 8, 0 });
}

/* No context columns (nocontext-info), CRLF line ends, a counter clock's
 * integer timestamp (kept as is), nanosecond digits, gfp "none". */
static void test_misc(void **state)
{
	static const struct xev x[] = {
		{ 1, -1, NOTS, A, KM, 0xffffffff8112c6f4, NULL,
		  0xffff88007a43d800, 64, 64, NOGFP, "GFP_KERNEL", -1, NULL },
		{ 2, 0, 123456789, F, KM, 0xffffffff8112c7aa, NULL,
		  0xffff88007a43d800, 0, 0, 0, NULL, 0, NULL },
		{ 3, 0, S(1) + 123456789, A, KC, 0xffffffff8112c6f4, NULL,
		  0xffff88007a43d900, 32, 32, NOGFP, "none", -1, NULL },
	};

	(void)state;
	RUN("ftrace-misc", "trace", NULL, x, { 3, 3, 0, 0, 0, 1, 16, 0 });
}

/* Garbage, cut and field-less lines: counted, the first five reported
 * with their line numbers, the rest decoded. */
static void test_malformed(void **state)
{
	static const struct xev x[] = {
		{ 3, 0, S(191) + 417410000, A, KM, 0xffffffff810f44e9, NULL,
		  0xffff88003e8ac000, 4096, 4096, 0xd0, NULL, -1, NULL },
		{ 10, 0, S(191) + 417440000, F, KM, 0xffffffff810f4592, NULL,
		  0xffff88003e8ac000, 0, 0, 0, NULL, 0, NULL },
	};
	static const char *const why[5] = {
		"not a trace line",
		"truncated kmalloc event (no bytes_alloc=)",
		"truncated ptr= value in kfree event (12 hex digits, the "
		"file's pointers have 16)",
		"truncated line (event name cut short)",
		"bad bytes_req= value in kmalloc event",
	};
	struct rec r = { 0 };
	struct mdb_decode_stats st;
	struct mdb_ft_sniff sn;
	struct warned wd = { 0 };
	struct mdb_error e;

	(void)state;
	RUN("ftrace-malformed", "trace", NULL, x,
	    { 11, 2, 0, 7, 0, 1, 16, 0 });
	assert_int_equal(decode_fixture("ftrace-malformed", "trace", NULL, 0,
					&r, &st, &sn, &wd, &e), 0);
	assert_int_equal(wd.n, FT_WARN_LINES);
	for (int i = 0; i < FT_WARN_LINES; i++) {
		assert_int_equal(wd.line[i], 4 + i);
		assert_string_equal(wd.msg[i], why[i]);
	}
	rec_free(&r);

	/* strict: the first malformed line is the error */
	memset(&wd, 0, sizeof(wd));
	mdb_error_clear(&e);
	assert_int_equal(decode_fixture("ftrace-malformed", "trace", NULL, 1,
					&r, &st, &sn, &wd, &e),
			 -MDB_E_CORRUPT);
	assert_int_equal(e.line, 4);
	assert_string_equal(e.msg, "malformed line");
	assert_string_equal(e.detail, "not a trace line");
	assert_non_null(strstr(e.file, "ftrace-malformed/trace"));
	assert_int_equal(r.n, 1);
	assert_int_equal(wd.n, 0);
	rec_free(&r);
}

/* ---- inline lines --------------------------------------------------- */

static int decode_text(const char *text, const struct mdb_decode_opts *o_in,
		       struct rec *r, struct mdb_decode_stats *st)
{
	struct mdb_decode_opts o = *o_in;
	struct mdb_sink sink = { r, rec_event, NULL };
	struct mdb_error e;

	o.name = "inline";
	return mdb_ft_decode(text, strlen(text), &o, &sink, st, &e);
}

#define PFX "            bash-1  [000] .....     1.000000: "

/* Page failures: pfn 0, all ones, 32-bit all ones only in 32-bit files,
 * page NULL whatever the pfn; --page-size scales the size. */
static void test_page_rules(void **state)
{
	static const char text[] =
		PFX "mm_page_alloc: page=ffffea0000000040 pfn=0 order=0 "
		    "migratetype=0 gfp_flags=GFP_KERNEL\n"
		PFX "mm_page_alloc: page=ffffea0000000040 pfn=4294967295 "
		    "order=1 migratetype=0 gfp_flags=GFP_KERNEL\n"
		PFX "mm_page_alloc: page=(null) pfn=12345 order=0 "
		    "migratetype=0 gfp_flags=GFP_KERNEL\n"
		PFX "mm_page_alloc: page=ffffea0000000040 pfn=0x1 order=2 "
		    "migratetype=0 gfp_flags=GFP_KERNEL\n";
	struct mdb_decode_opts o = { .page_size = 65536 };
	struct ft_params fp = { .ptr_digits = 16 };
	struct rec r = { 0 };
	struct mdb_decode_stats st;

	o.priv = &fp;
	(void)state;
	assert_int_equal(decode_text(text, &o, &r, &st), 0);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.v[0].ev.ptr, 0);
	/* a 64-bit file: pfn 0xffffffff is a page (16 TiB up) */
	assert_int_equal(r.v[1].ev.ptr, 0xffffffffULL << 12);
	assert_int_equal(r.v[1].ev.bytes_alloc, 131072);
	assert_int_equal(r.v[2].ev.ptr, 0);
	assert_int_equal(r.v[3].ev.ptr, 0x1000);
	assert_int_equal(r.v[3].ev.bytes_req, 262144);
	rec_free(&r);

	fp.ptr_digits = 8;
	assert_int_equal(decode_text(
		"  a-1 [000] 1.0: mm_page_alloc: page=c1000040 "
		"pfn=4294967295 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n",
		&o, &r, &st), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].ev.ptr, 0);
	rec_free(&r);
}

/* The line shapes: LOST markers, tools' headers, cuts. */
static void test_line_shapes(void **state)
{
	static const char text[] =
		"CPU:3 [LOST EVENTS]\n"                      /* 1: lost >= 1 */
		"CPU:12 [LOST 5 EVENTS]\n"                   /* 2 */
		"CPU:0 [LOST 5 EVENTS] extra\n"              /* 3: malformed */
		PFX "\n"                                     /* 4: no event */
		PFX "kfree\n"                                /* 5: cut name */
		PFX "kfree:\n"                               /* 6: no fields */
		PFX "do_sys_open <-__x64_sys_openat\n"       /* 7: function */
		PFX "foo:kmalloc: call_site=1 ptr=0\n"       /* 8: other system */
		PFX "kfree: call_site=f+0x1/0x2 junk ptr=0\n" /* 9: bad site */
		PFX "kfree: call_site=f+1 ptr=0\n"           /* 10: bad site */
		PFX "kfree: ptr=0 call_site=f+0x1 ptr=1\n"   /* 11: first wins */
		"\n";                                        /* 12 */
	struct mdb_decode_opts o = { 0 };
	struct ft_params fp = { 0 };
	struct rec r = { 0 };
	struct mdb_decode_stats st;

	o.priv = &fp;
	(void)state;
	assert_int_equal(decode_text(text, &o, &r, &st), 0);
	assert_int_equal(st.records, 12);
	assert_int_equal(st.lost_events, 6);
	assert_int_equal(st.malformed, 6);
	assert_int_equal(st.unknown, 2);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].ev.seq, 11);
	assert_int_equal(r.v[0].ev.ptr, 0);
	assert_string_equal(r.v[0].site, "f+0x1");
	rec_free(&r);
}

/*
 * Empty values: s390x's 6.1 kernel prints every gfp_flags= and
 * kmem_cache_free's name= empty (docs/formats.md §3.3): read, the flags
 * unknown, no cache; any other empty value, or gfp_flags missing, is
 * malformed.
 */
static void test_empty_values(void **state)
{
	static const char text[] =
		PFX "kmalloc: call_site=f+0x1/0x8 ptr=0000000000001000 "
		"bytes_req=8 bytes_alloc=8 gfp_flags= node=-1\n"
		PFX "mm_page_alloc: page=0000037200000040 pfn=0x1 order=0 "
		"migratetype=0 gfp_flags=\n"
		PFX "kmem_cache_free: call_site=f+0x2/0x8 "
		"ptr=0000000000001000 name=\n"
		PFX "kmalloc: call_site=f+0x1/0x8 ptr=0000000000002000 "
		"bytes_req= bytes_alloc=8 gfp_flags= node=-1\n"
		PFX "kmalloc: call_site=f+0x1/0x8 ptr=0000000000002000 "
		"bytes_req=8 bytes_alloc=8 node=-1\n"
		PFX "kfree: call_site= ptr=0000000000002000\n";
	struct mdb_decode_opts o = { 0 };
	struct ft_params fp = { .ptr_digits = 16 };
	struct rec r = { 0 };
	struct mdb_decode_stats st;

	o.priv = &fp;
	(void)state;
	assert_int_equal(decode_text(text, &o, &r, &st), 0);
	assert_int_equal(st.malformed, 3);
	assert_int_equal(r.n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(r.v[i].ev.seq, (int64_t)i + 1);
		assert_true(r.v[i].ev.gfp == NOGFP);
		assert_null(r.v[i].gfp_text);
		assert_null(r.v[i].cache);
	}
	assert_int_equal(r.v[0].ev.bytes_alloc, 8);
	assert_int_equal(r.v[1].ev.ptr, 0x1000);
	assert_int_equal(r.v[2].ev.kind, F);
	assert_int_equal(r.v[2].ev.ptr, 0x1000);
	rec_free(&r);
}

/* A symbolic call site the kallsyms knows under another size: resolved,
 * and reported as a kallsyms of another build. */
static void test_size_mismatch(void **state)
{
	static const char ks[] = "ffffffff81000000 T foo\n"
				 "ffffffff81000100 T bar\n";
	struct kallsyms k;
	struct mdb_error e;
	struct mdb_decode_opts o = { 0 };
	struct ft_params fp = { 0 };
	struct rec r = { 0 };
	struct mdb_decode_stats st;
	struct warned wd = { 0 };

	o.priv = &fp;
	(void)state;
	assert_int_equal(mdb_kallsyms_parse(&k, ks, sizeof(ks) - 1, "ks", &e), 0);
	o.ksyms = &k;
	o.warn = on_warn;
	o.warn_ctx = &wd;
	assert_int_equal(decode_text(PFX "kfree: call_site=foo+0x10/0x80 "
					 "ptr=0\n" PFX "kfree: call_site=foo+"
					 "0x20/0x100 ptr=0\n", &o, &r, &st), 0);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].ev.call_site, 0xffffffff81000010ULL);
	assert_int_equal(r.v[1].ev.call_site, 0xffffffff81000020ULL);
	assert_int_equal(wd.n, 1);
	assert_non_null(strstr(wd.msg[0], "1 events have call sites whose "
					  "function size differs"));
	rec_free(&r);
	mdb_kallsyms_release(&k);
}

/* The sink's error stops the decoder and comes back unchanged. */
static void test_sink_error(void **state)
{
	struct mdb_decode_opts o = { 0 };
	struct ft_params fp = { 0 };
	struct rec r = { .fail_at = 2 };
	struct mdb_decode_stats st;

	o.priv = &fp;
	(void)state;
	assert_int_equal(decode_text(PFX "kfree: call_site=1 ptr=0\n"
				     PFX "kfree: call_site=2 ptr=0\n"
				     PFX "kfree: call_site=3 ptr=0\n", &o, &r,
				     &st), -MDB_E_DB);
	assert_int_equal(r.n, 1);
	rec_free(&r);
}

/* What is not ftrace text is not taken for it. */
static void test_sniff_refuses(void **state)
{
	static const char prose[] = "This is a text file, not a trace.\n"
				    "It has lines: but no timestamps.\n";
	static const unsigned char bin[64] = { 0, 0, 56, 0, 1, 0, 0, 0 };
	struct mdb_ft_sniff s;

	(void)state;
	mdb_ft_sniff(prose, sizeof(prose) - 1, &s);
	assert_false(s.is_trace);
	mdb_ft_sniff(bin, sizeof(bin), &s);
	assert_false(s.is_trace);
	mdb_ft_sniff("", 0, &s);
	assert_false(s.is_trace);
	/* a tracer header alone is a trace (with no events yet) */
	mdb_ft_sniff("# tracer: nop\n#\n", 16, &s);
	assert_true(s.is_trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2_6_30),
		cmocka_unit_test(test_2_6_31),
		cmocka_unit_test(test_2_6_32),
		cmocka_unit_test(test_5_4),
		cmocka_unit_test(test_5_12),
		cmocka_unit_test(test_5_14),
		cmocka_unit_test(test_6_0),
		cmocka_unit_test(test_6_1),
		cmocka_unit_test(test_6_18),
		cmocka_unit_test(test_perf_script),
		cmocka_unit_test(test_trace_cmd),
		cmocka_unit_test(test_trace_pipe),
		cmocka_unit_test(test_misc),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_empty_values),
		cmocka_unit_test(test_page_rules),
		cmocka_unit_test(test_line_shapes),
		cmocka_unit_test(test_size_mismatch),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_sniff_refuses),
	};

	return cmocka_run_group_tests_name("ftrace text decoder", tests, NULL,
					   NULL);
}
