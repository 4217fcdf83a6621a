// SPDX-License-Identifier: MIT
/*
 * `vmstat -z` and `vmstat -m` text, as captured from a live kernel or a
 * core dump (`vmstat -M vmcore -N kernel`), docs/formats.md §5.4, §5.5.
 *
 * -z rows are "NAME: n, n, n, ..." under one of the headers
 *     ITEM SIZE LIMIT USED FREE REQUESTS FAILURES         (6 numbers)
 *     ITEM SIZE LIMIT USED FREE REQ FAIL SLEEP            (7)
 *     ITEM SIZE LIMIT USED FREE REQ FAILSLEEP XDOMAIN     (8; the words touch)
 *     ITEM SIZE LIMIT USED FREE REQ FAIL SLEEP XDOM       (8)
 * Names hold spaces and may start with digits, so a row splits at its last
 * colon; numbers split on commas, never on columns (a wide number runs
 * into its neighbour: "2105,10295,").
 *
 * -m rows are "NAME n nK - n SIZES" under one of
 *     Type InUse MemUse HighUse Requests Size(s)   (MemUse in KiB, "K")
 *     Type InUse MemUse Requests Size(s)
 *     Type Use Memory Req Size(s)                  (Memory in bytes)
 * Type names hold spaces and no colon, so a row is read from the right;
 * the size list is a comma list and may be empty.
 *
 * Without a header line (a pasted excerpt) the first row's shape picks the
 * layout: -z rows by their colon and comma list; -m rows by a HighUse
 * column of "-" (vmstat never printed anything else there, and a number
 * in its place is the Requests column of the next layout), else by the
 * KiB column ("44K"), else plain numbers are the newest layout's bytes.
 * A file may hold both sections (vmstat -m -z).  Humanized numbers
 * ("12K", "3.4M") are read and mark the row approximate; so do -m's KiB
 * figures, which vmstat rounds up.
 */
#include <string.h>

#include "../snapshot.h"
#include "../text.h"

#define PROBE_LINES 8
#define MAX_COLS 8

/* What a column of a layout means. */
enum col {
	C_SIZE, C_LIMIT, C_USED, C_FREE, C_REQ, C_FAIL, C_SLEEP, C_XDOMAIN,
	C_KIB,   /* -m MemUse: KiB with a 'K' unit */
	C_BYTES, /* -m Memory: bytes */
	C_HIGH,  /* -m HighUse: always "-" */
	C_DASH,  /* HighUse in a headerless row: "-" only */
};

struct layout {
	enum mdb_zone_kind kind; /* UMA: -z, MALLOC: -m (a size list may
				  * follow the columns) */
	int ncols;
	enum col cols[MAX_COLS];
};

/* Header words and the columns they stand for. */
static const struct {
	const char *word;
	enum col col[2];
	int n;
} words[] = {
	{ "SIZE", { C_SIZE }, 1 },       { "LIMIT", { C_LIMIT }, 1 },
	{ "USED", { C_USED }, 1 },       { "FREE", { C_FREE }, 1 },
	{ "REQ", { C_REQ }, 1 },         { "REQUESTS", { C_REQ }, 1 },
	{ "FAIL", { C_FAIL }, 1 },       { "FAILURES", { C_FAIL }, 1 },
	{ "SLEEP", { C_SLEEP }, 1 },     { "FAILSLEEP", { C_FAIL, C_SLEEP }, 2 },
	{ "XDOMAIN", { C_XDOMAIN }, 1 }, { "XDOM", { C_XDOMAIN }, 1 },
	{ "InUse", { C_USED }, 1 },      { "Use", { C_USED }, 1 },
	{ "MemUse", { C_KIB }, 1 },      { "Memory", { C_BYTES }, 1 },
	{ "HighUse", { C_HIGH }, 1 },    { "Requests", { C_REQ }, 1 },
	{ "Req", { C_REQ }, 1 },
};

/* Headerless layouts, by number of -z numbers, and the -m ones. */
static const struct layout z6 = { MDB_ZONE_UMA, 6,
	{ C_SIZE, C_LIMIT, C_USED, C_FREE, C_REQ, C_FAIL } };
static const struct layout z7 = { MDB_ZONE_UMA, 7,
	{ C_SIZE, C_LIMIT, C_USED, C_FREE, C_REQ, C_FAIL, C_SLEEP } };
static const struct layout z8 = { MDB_ZONE_UMA, 8,
	{ C_SIZE, C_LIMIT, C_USED, C_FREE, C_REQ, C_FAIL, C_SLEEP,
	  C_XDOMAIN } };
static const struct layout m_high = { MDB_ZONE_MALLOC, 4,
	{ C_USED, C_KIB, C_HIGH, C_REQ } };
static const struct layout m_kib = { MDB_ZONE_MALLOC, 3,
	{ C_USED, C_KIB, C_REQ } };
static const struct layout m_bytes = { MDB_ZONE_MALLOC, 3,
	{ C_USED, C_BYTES, C_REQ } };
/* what a headerless row must show to be of the HighUse layout */
static const struct layout m_high_guess = { MDB_ZONE_MALLOC, 4,
	{ C_USED, C_KIB, C_DASH, C_REQ } };

/*
 * A header line: "ITEM ..." (-z) or "Type ... Size(s)" (-m).  Returns 1
 * with @lo filled, 0 when @s is not a header, -1 when it starts like one
 * but holds an unknown word (*@bad).
 */
static int parse_header(struct mdb_str s, struct layout *lo,
			struct mdb_str *bad)
{
	struct mdb_str tok[16];
	size_t n = mdb_tok_split(s, tok, 16), last;

	if (n < 2 || n > 16)
		return 0;
	if (mdb_str_is(tok[0], "ITEM")) {
		lo->kind = MDB_ZONE_UMA;
		last = n;
	} else if (mdb_str_is(tok[0], "Type") &&
		   mdb_str_is(tok[n - 1], "Size(s)")) {
		lo->kind = MDB_ZONE_MALLOC;
		last = n - 1;
	} else {
		return 0;
	}
	lo->ncols = 0;
	for (size_t i = 1; i < last; i++) {
		size_t w;

		for (w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			if (mdb_str_is(tok[i], words[w].word))
				break;
		if (w == sizeof(words) / sizeof(words[0]) ||
		    lo->ncols + words[w].n > MAX_COLS) {
			*bad = tok[i];
			return -1;
		}
		for (int k = 0; k < words[w].n; k++)
			lo->cols[lo->ncols++] = words[w].col[k];
	}
	if (!lo->ncols) {
		*bad = s; /* a header naming no column at all */
		return -1;
	}
	return 1;
}

/* A comma list of numbers ("16,32,64"), as -m prints size classes. */
static int is_size_list(struct mdb_str t)
{
	size_t i = 0;

	while (i < t.len) {
		size_t j = i;

		while (j < t.len && t.p[j] >= '0' && t.p[j] <= '9')
			j++;
		if (j == i || (j < t.len && t.p[j] != ','))
			return 0;
		i = j + 1;
		if (j < t.len && i == t.len)
			return 0; /* trailing comma */
	}
	return t.len > 0;
}

/* Store column @c of @lo read from @t into @z; -1 when @t does not fit. */
static int set_col(struct mdb_zone *z, enum col c, struct mdb_str t)
{
	static const enum mdb_zone_col target[] = {
		[C_SIZE] = MDB_ZC_SIZE,       [C_LIMIT] = MDB_ZC_LIMIT,
		[C_USED] = MDB_ZC_USED,       [C_FREE] = MDB_ZC_FREE,
		[C_REQ] = MDB_ZC_REQUESTS,    [C_FAIL] = MDB_ZC_FAILS,
		[C_SLEEP] = MDB_ZC_SLEEPS,    [C_XDOMAIN] = MDB_ZC_XDOMAIN,
		[C_KIB] = MDB_ZC_BYTES,       [C_BYTES] = MDB_ZC_BYTES,
	};
	int approx = 0;
	int64_t v;

	if (c == C_HIGH)
		return mdb_str_is(t, "-") || mdb_is_number(t) ? 0 : -1;
	if (c == C_DASH)
		return mdb_str_is(t, "-") ? 0 : -1;
	if (c == C_KIB) {
		/* "%5juK": vmstat rounds bytes up to KiB */
		if (t.len < 2 || t.p[t.len - 1] != 'K')
			return -1;
		t.len--;
		if (mdb_parse_human(t, &v, &approx) < 0 || v < 0 ||
		    __builtin_mul_overflow(v, 1024, &v))
			return -1;
		approx = 1;
	} else if (mdb_parse_human(t, &v, &approx) < 0 || v < 0) {
		return -1;
	}
	z->v[target[c]] = v;
	z->approx |= (uint8_t)approx;
	return 0;
}

/* bytes = used x size, as libmemstat has it for UMA zones. */
static void uma_bytes(struct mdb_zone *z)
{
	int64_t b;

	if (z->v[MDB_ZC_USED] != MDB_NA && z->v[MDB_ZC_SIZE] != MDB_NA &&
	    !__builtin_mul_overflow(z->v[MDB_ZC_USED], z->v[MDB_ZC_SIZE], &b))
		z->v[MDB_ZC_BYTES] = b;
}

static const char *const count_words[MAX_COLS + 1] = {
	"no numbers", "1 number", "2 numbers", "3 numbers", "4 numbers",
	"5 numbers", "6 numbers", "7 numbers", "8 numbers",
};

/*
 * A -z row: "NAME: n, n, ...".  With @lo NULL, any count of numbers a
 * headerless layout knows is accepted and *@pick receives that layout.
 * Returns 0, or -1 with *@what naming the bad part.
 */
static int parse_z_row(struct mdb_str s, const struct layout *lo,
		       const struct layout **pick, struct mdb_zone *z,
		       const char **what, struct mdb_str *got)
{
	struct mdb_str nums[MAX_COLS + 1], rest;
	size_t colon = s.len, n = 0;

	*got = s;
	while (colon && s.p[colon - 1] != ':')
		colon--;
	*what = "NAME:";
	if (!colon)
		return -1;
	mdb_zone_init(z, MDB_ZONE_UMA);
	z->name = mdb_str_trim(mdb_str_make(s.p, colon - 1));
	if (!z->name.len)
		return -1;
	rest = mdb_str_make(s.p + colon, s.len - colon);
	*what = "numbers";
	while (rest.len) {
		const char *c = memchr(rest.p, ',', rest.len);
		size_t l = c ? (size_t)(c - rest.p) : rest.len;

		if (n == MAX_COLS + 1)
			return -1;
		nums[n++] = mdb_str_trim(mdb_str_make(rest.p, l));
		rest = c ? mdb_str_make(c + 1, rest.len - l - 1) :
			   mdb_str_make(rest.p + l, 0);
		if (c && !rest.len)
			return -1; /* trailing comma */
	}
	*got = mdb_str_trim(mdb_str_make(s.p + colon, s.len - colon));
	if (!lo) {
		*what = "6 to 8 numbers";
		lo = n == 6 ? &z6 : n == 7 ? &z7 : n == 8 ? &z8 : NULL;
		if (!lo)
			return -1;
		*pick = lo;
	}
	*what = count_words[lo->ncols];
	if ((int)n != lo->ncols)
		return -1;
	*what = "number";
	for (size_t i = 0; i < n; i++) {
		*got = nums[i];
		if (set_col(z, lo->cols[i], nums[i]) < 0)
			return -1;
	}
	uma_bytes(z);
	return 0;
}

/* Columns of a -m row from @tok[first ..]; 0 when they all fit @lo. */
static int m_cols(const struct layout *lo, const struct mdb_str *tok,
		  size_t first, struct mdb_zone *z)
{
	for (int i = 0; i < lo->ncols; i++)
		if (set_col(z, lo->cols[i], tok[first + (size_t)i]) < 0)
			return -1;
	return 0;
}

/*
 * A -m row, read from the right: the size list when the last token is
 * one and the columns before it fit, else the columns end the row; the
 * name is what precedes them.
 */
static int parse_m_row(struct mdb_str s, const struct layout *lo,
		       struct mdb_zone *z, const char **what,
		       struct mdb_str *got)
{
	struct mdb_str tok[64];
	size_t n = mdb_tok_split(s, tok, 64), k = (size_t)lo->ncols, first;

	*what = "TYPE and columns";
	*got = s;
	if (n > 64 || n < k + 1)
		return -1;
	mdb_zone_init(z, MDB_ZONE_MALLOC);
	if (n >= k + 2 && is_size_list(tok[n - 1]) &&
	    m_cols(lo, tok, n - 1 - k, z) == 0) {
		first = n - 1 - k;
		z->sizes = tok[n - 1];
	} else {
		mdb_zone_init(z, MDB_ZONE_MALLOC);
		if (m_cols(lo, tok, n - k, z) < 0)
			return -1;
		first = n - k;
	}
	z->name = mdb_str_make(tok[0].p,
			       (size_t)(tok[first - 1].p + tok[first - 1].len -
					tok[0].p));
	return 0;
}

enum { SEC_NONE, SEC_Z, SEC_M };

/* The layout a headerless first row implies; 0 when none fits. */
static int guess_row(struct mdb_str s, struct layout *lo)
{
	const struct layout *pick = NULL;
	const char *what;
	struct mdb_str got;
	struct mdb_zone z;

	if (parse_z_row(s, NULL, &pick, &z, &what, &got) == 0) {
		*lo = *pick;
		return SEC_Z;
	}
	if (parse_m_row(s, &m_high_guess, &z, &what, &got) == 0) {
		*lo = m_high;
		return SEC_M;
	}
	if (parse_m_row(s, &m_kib, &z, &what, &got) == 0) {
		*lo = m_kib;
		return SEC_M;
	}
	if (parse_m_row(s, &m_bytes, &z, &what, &got) == 0) {
		*lo = m_bytes;
		return SEC_M;
	}
	return SEC_NONE;
}

/* Which section does the start of @buf open?  SEC_NONE: not vmstat. */
static int probe(const void *buf, size_t len)
{
	struct mdb_str s, bad;
	struct layout lo;
	int64_t no;
	int h;

	if (!mdb_first_line(buf, len, PROBE_LINES, &s, &no) ||
	    mdb_str_has_nul(s))
		return SEC_NONE;
	h = parse_header(s, &lo, &bad);
	if (h > 0)
		return lo.kind == MDB_ZONE_UMA ? SEC_Z : SEC_M;
	if (h < 0)
		return SEC_NONE;
	return guess_row(s, &lo);
}

int mdb_vmstat_z_probe(const void *buf, size_t len)
{
	return probe(buf, len) == SEC_Z;
}

int mdb_vmstat_m_probe(const void *buf, size_t len)
{
	return probe(buf, len) == SEC_M;
}

static int bad_row(struct mdb_error *e, const char *name, int64_t no,
		   int sec, const char *what, struct mdb_str got)
{
	return mdb_snap_bad_line(e, name, no,
				 sec == SEC_M ? "vmstat -m" : "vmstat -z", what,
				 got);
}

static int vmstat_decode(const void *buf, size_t len, const char *name,
			 const struct mdb_snap_sink *sink,
			 struct mdb_snap_info *info, struct mdb_error *e)
{
	struct mdb_lines l;
	struct mdb_str s, got;
	struct layout lo;
	int sec = SEC_NONE, ret;

	mdb_snap_lines_init(&l, buf, len, info);
	while (mdb_lines_next(&l, &s)) {
		const struct layout *pick;
		const char *what;
		struct mdb_zone z;
		int h;

		info->records++;
		if (mdb_str_has_nul(s))
			return bad_row(e, name, l.no, sec, "text",
				       mdb_str_make(s.p, 0));
		if (mdb_str_blank(s))
			continue;
		h = parse_header(s, &lo, &got);
		if (h < 0)
			return bad_row(e, name, l.no,
				       lo.kind == MDB_ZONE_UMA ? SEC_Z : SEC_M,
				       "header word", got);
		if (h > 0) {
			sec = lo.kind == MDB_ZONE_UMA ? SEC_Z : SEC_M;
			if (l.cut)
				break;
			continue;
		}
		if (sec == SEC_NONE) {
			sec = guess_row(s, &lo);
			/* a colon makes it a -z row: say what is wrong */
			if (sec == SEC_NONE && memchr(s.p, ':', s.len) &&
			    parse_z_row(s, NULL, &pick, &z, &what, &got) < 0)
				return bad_row(e, name, l.no, SEC_Z, what,
					       got);
			if (sec == SEC_NONE)
				return bad_row(e, name, l.no, SEC_Z,
					       "header or row", s);
		}
		if (sec == SEC_Z)
			ret = parse_z_row(s, &lo, &pick, &z, &what, &got);
		else
			ret = parse_m_row(s, &lo, &z, &what, &got);
		if (ret < 0)
			return bad_row(e, name, l.no, sec, what, got);
		if (l.cut)
			break;
		z.line = l.no;
		info->zones++;
		info->approx += z.approx;
		ret = sink->zone(sink->ctx, &z);
		if (ret < 0)
			return ret;
	}
	/* a line that parses but ends the file without its newline: its
	 * last field may be cut short (text.h) */
	if (l.cut && !mdb_str_blank(s))
		return bad_row(e, name, l.no, sec, MDB_CUT_WHAT,
			       mdb_str_trim(s));
	return info->zones ? 0 : mdb_snap_no_rows(e, name, info, "no vmstat rows");
}

int mdb_vmstat_z_decode(const void *buf, size_t len, const char *name,
			const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e)
{
	return vmstat_decode(buf, len, name, sink, info, e);
}

int mdb_vmstat_m_decode(const void *buf, size_t len, const char *name,
			const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e)
{
	return vmstat_decode(buf, len, name, sink, info, e);
}
