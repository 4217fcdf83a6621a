// SPDX-License-Identifier: MIT
/*
 * /proc/allocinfo (Linux memory allocation profiling), docs/formats.md §4.1:
 *
 *   allocinfo - version: 2.0
 *   #     <size>  <calls> <tag info>
 *          12288        3 drivers/foo/bar.c:20 [foomod] func:foo_start
 *          4096        1 mm/percpu.c:2976 func:pcpu_embed_first_chunk accurate:no
 *
 * A line is "%12lli %8llu <file>:<line>[ [<module>]] func:<function>" then,
 * in version 2, "key:value" pairs.  The version header is optional (files
 * from before it existed, and `sort | tail` excerpts); sizes and calls may
 * be humanized by numfmt ("2.8M"), which marks the tag approximate.
 * Versions 1.x and 2.x are read; another major version is refused.
 *
 * The kernel keeps both counters as u64: one that went below zero prints
 * negative ("%lli") or at or past 2^63 ("%llu", or by another tool).
 * Either is stored as its 64-bit pattern, two's complement (-1 for
 * 18446744073709551615), so sums and changes add up as the kernel's
 * counters do; the second is warned of, since the stored value is not
 * the printed one.
 */
#include <stdio.h>
#include <string.h>

#include "../snapshot.h"
#include "../text.h"

#define ALLOCINFO_HEADER "allocinfo - version:"

/*
 * A counter (bytes or calls): "-N" when @sign, else unsigned up to
 * 2^64 - 1, kept as its 64-bit pattern (see above).
 */
static int parse_counter(struct mdb_str t, int sign, int64_t *v,
			 int *approx)
{
	uint64_t u;

	if (t.len && t.p[0] == '-')
		return sign ? mdb_parse_human(t, v, approx) : -1;
	if (mdb_parse_human_u64(t, &u, approx) < 0)
		return -1;
	*v = (int64_t)u; /* the same 64 bits */
	return 0;
}

/* "file:123" -> file, 123; 0 on success. */
static int split_file_line(struct mdb_str t, struct mdb_str *file,
			   int64_t *line)
{
	size_t i = t.len;

	while (i && t.p[i - 1] != ':')
		i--;
	if (i < 2 || i == t.len)
		return -1;
	*file = mdb_str_make(t.p, i - 1);
	return mdb_parse_u63(mdb_str_make(t.p + i, t.len - i), line);
}

static int is_key_value(struct mdb_str t)
{
	const char *c = memchr(t.p, ':', t.len);

	return c && c != t.p;
}

struct line_error {
	const char *expected;
	struct mdb_str got;
};

/* The next token of @s as @what; -1 (with @le filled) when there is none. */
static int take(struct mdb_str *s, struct mdb_str *tok, const char *what,
		struct line_error *le)
{
	le->expected = what;
	if (!mdb_tok_next(s, tok)) {
		le->got = mdb_str_make(s->p, 0);
		return -1;
	}
	le->got = *tok;
	return 0;
}

/*
 * Parse one data line into @t.  Returns 0, or -1 with @le saying what
 * was expected where.
 */
static int parse_line(struct mdb_str s, struct mdb_tag *t,
		      struct line_error *le)
{
	struct mdb_str tok;
	int approx = 0;

	memset(t, 0, sizeof(*t));
	t->accurate = 1;
	if (take(&s, &tok, "size", le) ||
	    parse_counter(tok, 1, &t->bytes, &approx) < 0)
		return -1;
	if (take(&s, &tok, "calls", le) ||
	    parse_counter(tok, 0, &t->calls, &approx) < 0)
		return -1;
	if (take(&s, &tok, "file:line", le) ||
	    split_file_line(tok, &t->file, &t->src_line) < 0)
		return -1;
	if (take(&s, &tok, "func:NAME", le))
		return -1;
	if (tok.len > 2 && tok.p[0] == '[' && tok.p[tok.len - 1] == ']') {
		t->module = mdb_str_make(tok.p + 1, tok.len - 2);
		if (take(&s, &tok, "func:NAME", le))
			return -1;
	}
	if (!mdb_str_starts(tok, "func:") || tok.len == 5)
		return -1;
	t->function = mdb_str_make(tok.p + 5, tok.len - 5);
	t->extra = mdb_str_trim(s);
	le->expected = "key:value";
	while (mdb_tok_next(&s, &tok)) {
		le->got = tok;
		if (!is_key_value(tok))
			return -1;
		if (mdb_str_is(tok, "accurate:no"))
			t->accurate = 0;
	}
	t->approx = (uint8_t)approx;
	return 0;
}

int mdb_allocinfo_probe(const void *buf, size_t len)
{
	struct mdb_str row;
	struct mdb_tag t;
	struct line_error le;
	int r = mdb_probe_lines(buf, len, ALLOCINFO_HEADER, &row);

	/* headerless: the first data line decides */
	return r == MDB_PROBE_HEADER ||
	       (r == MDB_PROBE_ROW && parse_line(row, &t, &le) == 0);
}

/*
 * Warn of the counters of line @no (@s) printed unsigned at or past 2^63:
 * a counter that went below zero (more frees accounted to the tag than
 * allocations), not 2^64 bytes; @t holds them negative.
 */
static void warn_underflow(const struct mdb_snap_sink *sink,
			   const char *name, int64_t no, struct mdb_str s,
			   const struct mdb_tag *t)
{
	static const char *const what[2] = { "bytes", "calls" };
	const int64_t v[2] = { t->bytes, t->calls };
	struct mdb_str tok;
	struct mdb_error w;
	char shown[32];

	for (int i = 0; i < 2 && mdb_tok_next(&s, &tok); i++) {
		if (v[i] >= 0 || tok.p[0] == '-' || !sink->warn)
			continue;
		mdb_error_set(&w, MDB_E_CORRUPT, name, -1, no, "%s=%s",
			      what[i], mdb_str_show(tok, shown, sizeof(shown)));
		mdb_error_msg(&w, "counter underflowed (%s %s): stored as "
			      "%lld", what[i], shown, (long long)v[i]);
		sink->warn(sink->ctx, &w);
	}
}

/* A data line; a header after the first, or after the rows, is refused. */
static int parse_tag(struct mdb_str s, union mdb_snap_row *r,
		     const char **what, struct mdb_str *got)
{
	struct line_error le = { .expected = "size", .got = s };
	int ret = mdb_str_starts(s, ALLOCINFO_HEADER) ? -1 :
		  parse_line(s, &r->tag, &le);

	*what = le.expected;
	*got = le.got;
	return ret;
}

static int take_tag(union mdb_snap_row *r, struct mdb_str s, int64_t no,
		    const char *name, const struct mdb_snap_sink *sink,
		    struct mdb_snap_info *info)
{
	struct mdb_tag *t = &r->tag;

	t->line = no;
	if (t->bytes < 0 || t->calls < 0)
		warn_underflow(sink, name, no, s, t);
	info->tags++;
	info->approx += t->approx;
	info->inaccurate += !t->accurate;
	return sink->tag(sink->ctx, t);
}

static const struct mdb_snap_text allocinfo = {
	.rule = { ALLOCINFO_HEADER, "allocinfo", 0, 1, 2, "1.x,2.x" },
	.parse = parse_tag, .take = take_tag, .none = "no allocation tags",
};

MDB_SNAP_TEXT_DECODER(mdb_allocinfo_decode, allocinfo)
