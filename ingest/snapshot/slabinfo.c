// SPDX-License-Identifier: MIT
/*
 * Linux /proc/slabinfo, docs/formats.md §4.2:
 *
 *   slabinfo - version: 2.1
 *   # name <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab>
 *     : tunables <limit> <batchcount> <sharedfactor>
 *     : slabdata <active_slabs> <num_slabs> <sharedavail>
 *   kmalloc-64  12288 12288 64 64 1 : tunables 0 0 0 : slabdata 192 192 0
 *
 * Rows split on white space (a long name pushes the columns right); the
 * ": tunables" and ": slabdata" markers anchor the numbers, so whatever
 * precedes the five numbers before ": tunables" is the name.  Sections a
 * debugging kernel appends (": globalstat ...") are skipped.  The header
 * lines are optional; a major version other than 2 is refused.
 *
 * The object and slab counts are unsigned long ("%lu"): one that went
 * below zero (SLUB's active_objs is num_objs less a count of free
 * objects, taken without a lock) prints at or past 2^63.  It is stored
 * as its 64-bit pattern (-1 for 18446744073709551615) and warned of.
 */
#include <string.h>

#include "../snapshot.h"
#include "../text.h"

#define SLABINFO_HEADER "slabinfo - version:"
#define MAX_TOKENS 64

/* A "%lu" count as its 64-bit pattern (see above). */
static int parse_count(struct mdb_str t, int64_t *v)
{
	uint64_t u;

	if (mdb_parse_u64(t, &u) < 0)
		return -1;
	*v = (int64_t)u; /* the same 64 bits */
	return 0;
}

/* Parse one row; -1 with *@what and *@got on a malformed one. */
static int parse_row(struct mdb_str s, struct mdb_zone *z, const char **what,
		     struct mdb_str *got)
{
	static const enum mdb_zone_col head[5] = {
		MDB_ZC_ACTIVE_OBJS, MDB_ZC_NUM_OBJS, MDB_ZC_OBJSIZE,
		MDB_ZC_OBJPERSLAB, MDB_ZC_PAGESPERSLAB,
	};
	struct mdb_str tok[MAX_TOKENS];
	size_t n = mdb_tok_split(s, tok, MAX_TOKENS), t;
	int64_t v;

	*what = ": tunables";
	*got = s;
	if (n > MAX_TOKENS)
		return -1;
	for (t = 7; t < n; t++)
		if (mdb_str_is(tok[t], "tunables") &&
		    mdb_str_is(tok[t - 1], ":"))
			break;
	if (t >= n)
		return -1;
	*what = "9 columns after ': tunables'";
	if (n < t + 9)
		return -1;
	mdb_zone_init(z, MDB_ZONE_SLAB);
	z->name = mdb_str_make(tok[0].p, (size_t)(tok[t - 7].p +
						   tok[t - 7].len - tok[0].p));
	*what = "number";
	for (int i = 0; i < 5; i++) {
		*got = tok[t - 6 + (size_t)i];
		if ((i < 2 ? parse_count(*got, &z->v[head[i]]) :
			     mdb_parse_u63(*got, &z->v[head[i]])) < 0)
			return -1;
	}
	for (size_t i = t + 1; i < t + 4; i++) {
		*got = tok[i];
		if (mdb_parse_u63(*got, &v) < 0)
			return -1;
	}
	*what = ": slabdata";
	*got = tok[t + 4];
	if (!mdb_str_is(tok[t + 4], ":") || !mdb_str_is(tok[t + 5], "slabdata"))
		return -1;
	*what = "number";
	for (size_t i = t + 6; i < t + 9; i++) {
		*got = tok[i];
		if (parse_count(*got, &v) < 0)
			return -1;
		if (i == t + 6)
			z->v[MDB_ZC_ACTIVE_SLABS] = v;
		else if (i == t + 7)
			z->v[MDB_ZC_NUM_SLABS] = v;
	}
	*what = ": section";
	if (t + 9 < n && !mdb_str_is(tok[t + 9], ":")) {
		*got = tok[t + 9];
		return -1;
	}
	z->v[MDB_ZC_SIZE] = z->v[MDB_ZC_OBJSIZE];
	z->v[MDB_ZC_USED] = z->v[MDB_ZC_ACTIVE_OBJS];
	if (__builtin_sub_overflow(z->v[MDB_ZC_NUM_OBJS],
				   z->v[MDB_ZC_ACTIVE_OBJS],
				   &z->v[MDB_ZC_FREE]))
		z->v[MDB_ZC_FREE] = MDB_NA;
	if (__builtin_mul_overflow(z->v[MDB_ZC_NUM_OBJS], z->v[MDB_ZC_OBJSIZE],
				   &z->v[MDB_ZC_BYTES]))
		z->v[MDB_ZC_BYTES] = MDB_NA;
	return 0;
}

int mdb_slabinfo_probe(const void *buf, size_t len)
{
	struct mdb_str row, got;
	struct mdb_zone z;
	const char *what;
	int r = mdb_probe_lines(buf, len, SLABINFO_HEADER, &row);

	return r == MDB_PROBE_HEADER ||
	       (r == MDB_PROBE_ROW && parse_row(row, &z, &what, &got) == 0);
}

/* Warn of the counts of row @z (line @no) printed at or past 2^63. */
static void warn_underflow(const struct mdb_snap_sink *sink,
			   const char *name, int64_t no,
			   const struct mdb_zone *z)
{
	static const enum mdb_zone_col cols[] = {
		MDB_ZC_ACTIVE_OBJS, MDB_ZC_NUM_OBJS, MDB_ZC_ACTIVE_SLABS,
		MDB_ZC_NUM_SLABS,
	};
	struct mdb_error w;

	for (size_t i = 0; sink->warn && i < sizeof(cols) / sizeof(cols[0]);
	     i++) {
		int64_t v = z->v[cols[i]];
		const char *col = mdb_zone_col_names[cols[i]];

		if (v >= 0)
			continue;
		mdb_error_set(&w, MDB_E_CORRUPT, name, -1, no, "%s=%llu", col,
			      (unsigned long long)v);
		/* -2^63 is MDB_NA, stored as NULL */
		if (v == MDB_NA)
			mdb_error_msg(&w, "counter underflowed (%s %llu): "
				      "stored as NULL", col,
				      (unsigned long long)v);
		else
			mdb_error_msg(&w, "counter underflowed (%s %llu): "
				      "stored as %lld", col,
				      (unsigned long long)v, (long long)v);
		sink->warn(sink->ctx, &w);
	}
}

static int parse_zone(struct mdb_str s, union mdb_snap_row *r,
		      const char **what, struct mdb_str *got)
{
	return parse_row(s, &r->zone, what, got);
}

static int take_zone(union mdb_snap_row *r, struct mdb_str s, int64_t no,
		     const char *name, const struct mdb_snap_sink *sink,
		     struct mdb_snap_info *info)
{
	(void)s;
	r->zone.line = no;
	warn_underflow(sink, name, no, &r->zone);
	info->zones++;
	return sink->zone(sink->ctx, &r->zone);
}

static const struct mdb_snap_text slabinfo = {
	.rule = { SLABINFO_HEADER, "slabinfo", 1, 2, 2, "2.x" },
	.parse = parse_zone, .take = take_zone, .none = "no slab caches",
};

MDB_SNAP_TEXT_DECODER(mdb_slabinfo_decode, slabinfo)
