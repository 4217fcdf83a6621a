// SPDX-License-Identifier: MIT
/* Source selection for reports; see scope.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../db/sources.h"
#include "../ingest/ingest.h"
#include "../report/rsrc.h"
#include "cli.h"
#include "scope.h"

static void note(struct cli_scope *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct cli_scope *s, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (s->nnotes >= SCOPE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) >= 0) {
		/* notes quote sources' paths and notes: for a terminal */
		s->notes[s->nnotes++] = cli_safe(p);
		free(p);
	}
	va_end(ap);
}

void cli_scope_release(struct cli_scope *s)
{
	for (int i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	memset(s, 0, sizeof(*s));
}

/* "source 3: kmemtrace-relay '/x' (box1), 2 CPUs, 1,234 events" */
static void source_line(const struct mdb_source_desc *d, char *buf,
			size_t len)
{
	const char *fmt = d->format;
	const char *label = d->label;
	int ncpus = d->ncpus;
	int64_t id = d->id;
	char n[32];

	if (mdb_format_is_snapshot(fmt)) {
		int64_t tags = d->tags, zones = d->zones;
		char z[32];

		/* a core dump's: "1,234 zones, 5,678 tags" */
		if (tags && zones)
			snprintf(z, sizeof(z), "%s zones, ",
				 cli_num(n, sizeof(n), (uint64_t)zones));
		else
			z[0] = '\0';
		snprintf(buf, len, "source %" PRId64 ": %s%s%s '%s'%s%s%s, "
			 "taken %s, %s%s %s", id, fmt,
			 *d->version ? " " : "", d->version, d->path,
			 *label ? " (" : "", label, *label ? ")" : "",
			 *d->taken_at ? d->taken_at : "?",
			 z, cli_num(n, sizeof(n), (uint64_t)(tags ? tags :
				 zones)), tags ? "tags" : "zones");
		return;
	}
	snprintf(buf, len,
		 "source %" PRId64 ": %s '%s'%s%s%s, %d CPU%s, %s events", id,
		 fmt, d->path, *label ? " (" : "", label,
		 *label ? ")" : "", ncpus, ncpus == 1 ? "" : "s",
		 cli_num(n, sizeof(n), (uint64_t)d->events));
}

/* The warnings a source row carries. */
static void source_notes(struct cli_scope *s,
			 const struct mdb_source_desc *d)
{
	int64_t id = d->id;
	int64_t ov = d->overruns;
	int64_t lost = d->lost_events;
	int64_t missing = d->seq_missing;
	int64_t unknown = d->unknown;
	int64_t malformed = d->malformed;
	int64_t approx = d->approx;
	int64_t inaccurate = d->inaccurate;
	int64_t skipped = d->tags_skipped;
	int64_t unnamed = d->unnamed;
	const char *notes = d->notes;

	if (ov > 0)
		note(s, "warning: source %" PRId64 " lost events "
			"(total_overruns=%" PRId64 "): figures are "
			"incomplete", id, ov);
	if (lost > 0)
		note(s, "warning: source %" PRId64 " lost %" PRId64
			" events: figures are incomplete", id, lost);
	if (missing > 0 && d->whole_capture)
		note(s, "warning: source %" PRId64 ": %" PRId64
			" sequence numbers missing (lost events?)", id,
			missing);
	if (unknown > 0)
		note(s, "note: source %" PRId64 ": %" PRId64
			" records of unknown or other events skipped", id, unknown);
	if (malformed > 0)
		note(s, "note: source %" PRId64 ": %" PRId64
			" malformed lines skipped", id, malformed);
	if (approx > 0)
		note(s, "note: source %" PRId64 ": %" PRId64 " row%s humanized "
			"or rounded figures (flag approx)", id, approx,
			approx == 1 ? " has" : "s have");
	/* a core dump's tag notes are not a zones report's business */
	if (!(s->kinds & SCOPE_TAGS))
		inaccurate = skipped = 0;
	if (inaccurate > 0)
		note(s, "note: source %" PRId64 ": %" PRId64 " tag%s "
			"accurate:no: absolute values not exact, changes are "
			"(flag inaccurate)", id, inaccurate,
			inaccurate == 1 ? " says" : "s say");
	if (skipped > 0)
		note(s, "warning: source %" PRId64 ": %" PRId64 " alloc tag%s "
			"unreadable in the dump, not in its rows: tag figures "
			"are incomplete", id, skipped,
			skipped == 1 ? "" : "s");
	if (*notes)
		note(s, "note: source %" PRId64 ": %s", id, notes);
	if (unnamed > 0)
		note(s, "note: source %" PRId64 ": %" PRId64 " call site%s "
			"not named: memdb symbolize --source %" PRId64
			" --kallsyms FILE (the traced boot's /proc/kallsyms "
			"or System.map) or --vmlinux FILE names them", id,
			unnamed, unnamed == 1 ? "" : "s", id);
}

/* Where describe() puts what it reads. */
struct describing {
	struct cli_scope *s;
	char *title;
	size_t tlen;
	int n;
};

static void describe_row(void *ctx, const struct mdb_source_desc *d)
{
	struct describing *w = ctx;

	w->n++;
	if (w->title)
		source_line(d, w->title, w->tlen);
	source_notes(w->s, d);
}

/*
 * Title (when @title is not NULL) and warnings from the source rows in
 * [lo, hi]; returns how many there were in *@n.
 */
static int describe(struct mdb_db *db, struct cli_scope *s, int64_t lo,
		    int64_t hi, char *title, size_t tlen, int *n,
		    struct mdb_error *e)
{
	struct describing w = { .s = s, .title = title, .tlen = tlen };
	int ret = mdb_sources_describe(db, lo, hi, describe_row, &w, e);

	*n = w.n;
	return ret;
}

/* ---- kinds of source ------------------------------------------------ */

static const struct {
	unsigned bit;
	const char *name, *what;
} kinds[] = {
	{ SCOPE_TRACE, "trace", "a trace" },
	{ SCOPE_TAGS, "tags", "an allocation-tag snapshot (allocinfo)" },
	{ SCOPE_ZONES, "zones", "a zone snapshot (slabinfo, vmstat, memstat, "
				"a core dump's slab caches)" },
};

unsigned cli_scope_kinds(const char *list)
{
	size_t len = list ? strcspn(list, "\n") : 0;
	unsigned mask = 0;

	/* the value ends at a newline: it may be a header line in place */
	for (size_t at = 0; at < len; at += strcspn(list + at, "|\n") + 1) {
		size_t w = strcspn(list + at, "| \t\r\n");

		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (w == strlen(kinds[i].name) &&
			    !strncmp(list + at, kinds[i].name, w))
				mask |= kinds[i].bit;
	}
	return mask ? mask : SCOPE_ANY;
}

/* "a trace", "a trace or a zone snapshot (...)" for a mask: the kinds
 * joined by @sep */
static void kinds_what(unsigned mask, char *buf, size_t len,
		       const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (mask & kinds[i].bit && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? sep : "", kinds[i].what);
	if (!n)
		snprintf(buf, len, "a source");
}

/* What source_kind() looks for and finds. */
struct kind_find {
	int64_t id;
	unsigned mask, kind;
	char *fmt;
	size_t flen;
	int found;
};

static int kind_row(void *ctx, int64_t id, const char *format,
		    unsigned kind)
{
	struct kind_find *k = ctx;

	k->kind = kind;
	if (k->id || (kind & k->mask)) {
		k->found = 1;
		k->id = id;
		snprintf(k->fmt, k->flen, "%s", format);
	}
	return k->found;
}

/*
 * The kind of source @id (0: the latest of a kind in @mask) into *@kind,
 * its id into *@id and its format into @fmt; 0 when found, 1 when not.
 */
static int source_kind(struct mdb_db *db, int64_t *id, unsigned mask,
		       unsigned *kind, char *fmt, size_t flen,
		       struct mdb_error *e)
{
	struct kind_find k = { .id = *id, .mask = mask, .kind = *kind,
			       .fmt = fmt, .flen = flen };
	int ret = mdb_source_kinds(db, *id, kind_row, &k, e);

	if (ret < 0)
		return ret;
	*kind = k.kind;
	*id = k.id;
	return !k.found;
}

/* Source @id, given on the command line as @what, is of the wrong kind. */
static int wrong_kind(int64_t id, const char *what, unsigned kind,
		      const char *fmt, unsigned mask, struct mdb_error *e)
{
	char want[200], is[200];

	kinds_what(mask, want, sizeof(want), " or ");
	kinds_what(kind, is, sizeof(is), " and ");
	mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
		      "%s=%" PRId64 " format=%s", what, id, fmt);
	mdb_error_msg(e, "this report reads %s; source %" PRId64 " is %s",
		      want, id, is);
	if (!strcmp(what, "source"))
		mdb_error_hint(e, "without --source it takes the latest such "
				  "source; 'memdb sources' lists them");
	else
		mdb_error_hint(e, "'memdb sources' lists the sources and "
				  "their formats");
	return -MDB_E_INVAL;
}

static int bad_source_arg(const char *arg, struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "source='%s'", arg);
	mdb_error_msg(e, "--source takes a source id or 'all'");
	return -MDB_E_INVAL;
}

static int no_such_source(struct mdb_db *db, const char *what, int64_t id,
			  struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1,
		      "%s=%" PRId64, what, id);
	mdb_error_msg(e, "no such source");
	mdb_error_hint(e, "'memdb sources' lists them");
	return -MDB_E_NOTFOUND;
}

int cli_scope_latest(struct mdb_db *db, unsigned mask, int64_t *id,
		     struct mdb_error *e)
{
	char fmt[64], want[200];
	unsigned kind = 0;
	int ret;

	*id = 0;
	ret = source_kind(db, id, mask, &kind, fmt, sizeof(fmt), e);
	if (ret <= 0)
		return ret;
	if (mdb_db_latest_source(db, id, e) < 0)
		return -MDB_E_DB;
	if (!*id) {
		mdb_error_set(e, MDB_E_EMPTY, db->path, -1, -1, NULL);
		mdb_error_msg(e, "the database holds no sources");
		if (db->fresh) /* still in rollback-journal mode */
			mdb_error_hint(e, "it is new: its first ingest may "
					  "still be reading its input; try "
					  "again when that has ended");
		else
			mdb_error_hint(e, "add one with 'memdb ingest PATH'");
		return -MDB_E_EMPTY;
	}
	kinds_what(mask, want, sizeof(want), " or ");
	mdb_error_set(e, MDB_E_EMPTY, db->path, -1, -1, NULL);
	mdb_error_msg(e, "the database holds no source of the kind needed, "
			 "%s", want);
	mdb_error_hint(e, "'memdb sources' lists what it holds");
	return -MDB_E_EMPTY;
}

int cli_scope_resolve(struct mdb_db *db, const char *arg,
		      const char *kinds_list, int pair_given,
		      struct cli_scope *s, struct mdb_error *e)
{
	unsigned mask = cli_scope_kinds(kinds_list), kind = 0;
	char fmt[64];
	int64_t id;
	int ret, n;

	memset(s, 0, sizeof(*s));
	s->kinds = mask;
	if (arg && !strcmp(arg, "all")) {
		s->lo = 0;
		s->hi = INT64_MAX;
		snprintf(s->json, sizeof(s->json), "\"all\"");
		ret = describe(db, s, s->lo, s->hi, NULL, 0, &n, e);
		if (ret == 0)
			snprintf(s->title, sizeof(s->title),
				 "all sources (%d)", n);
		return ret;
	}
	if (arg) {
		if (cli_parse_i64(arg, &id) || id <= 0)
			return bad_source_arg(arg, e);
		ret = source_kind(db, &id, mask, &kind, fmt, sizeof(fmt), e);
		if (ret < 0)
			return ret;
		if (ret)
			return no_such_source(db, "id", id, e);
		if (!(kind & mask))
			return wrong_kind(id, "source", kind, fmt, mask, e);
	} else if (pair_given) {
		/* --from and --to name both: cli_scope_series() checks them */
		return 0;
	} else {
		ret = cli_scope_latest(db, mask, &id, e);
		if (ret < 0)
			return ret;
	}
	s->lo = s->hi = id;
	snprintf(s->json, sizeof(s->json), "%" PRId64, id);
	return describe(db, s, id, id, s->title, sizeof(s->title), &n, e);
}

/* What cli_scope_label() looks for and finds. */
struct label_find {
	struct mdb_db *db;
	unsigned mask;
	int64_t id;
	struct mdb_error *e;
};

static int label_row(void *ctx, int64_t cand)
{
	struct label_find *l = ctx;
	unsigned kind = 0;
	char fmt[64];
	int ret = source_kind(l->db, &cand, l->mask, &kind, fmt, sizeof(fmt),
			      l->e);

	if (ret == 0 && (kind & l->mask))
		l->id = cand;
	return ret < 0 ? ret : l->id != 0;
}

int cli_scope_label(struct mdb_db *db, const char *label, unsigned mask,
		    const char *what, int64_t *id, struct mdb_error *e)
{
	struct label_find l = { .db = db, .mask = mask, .e = e };
	char want[200];
	int ret = mdb_sources_labelled(db, label, label_row, &l, e);

	*id = l.id;
	if (ret < 0 || *id)
		return ret < 0 ? ret : 0;
	kinds_what(mask, want, sizeof(want), " or ");
	mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1, "%s='%s'", what,
		      label);
	mdb_error_msg(e, "no source labelled '%s' that is %s", label, want);
	mdb_error_hint(e, "'memdb sources' lists the sources and their "
			  "labels");
	return -MDB_E_NOTFOUND;
}

/*
 * Source @id named by --@what for a comparison of snapshots: exists, and
 * is a snapshot; its kind in *@kind.
 */
static int series_source(struct mdb_db *db, struct cli_scope *s, int64_t id,
			 const char *what, unsigned *kind, char *fmt,
			 size_t flen, struct mdb_error *e)
{
	int64_t got = id;
	int ret = source_kind(db, &got, s->kinds, kind, fmt, flen, e);

	if (ret < 0)
		return ret;
	if (ret)
		return no_such_source(db, what, id, e);
	return 0;
}

/* Both ends given: are they snapshots of one kind? */
static int check_pair(struct mdb_db *db, struct cli_scope *s, int64_t from,
		      int64_t to, struct mdb_error *e)
{
	char ffmt[64], tfmt[64], fw[200], tw[200];
	unsigned fk = 0, tk = 0;
	int ret;

	if ((ret = series_source(db, s, from, "from", &fk, ffmt,
				 sizeof(ffmt), e)) < 0 ||
	    (ret = series_source(db, s, to, "to", &tk, tfmt, sizeof(tfmt),
				 e)) < 0)
		return ret;
	if (fk == SCOPE_TRACE && tk == SCOPE_TRACE && !(s->kinds & fk)) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
			      "from=%" PRId64 " to=%" PRId64 " format=%s,%s",
			      from, to, ffmt, tfmt);
		mdb_error_msg(e, "this report compares snapshots, and sources "
				 "%" PRId64 " and %" PRId64 " are traces",
			      from, to);
		mdb_error_hint(e, "two traces compare per call site with "
				  "'memdb report diff --from %" PRId64
				  " --to %" PRId64 "'", from, to);
		return -MDB_E_INVAL;
	}
	if (!(fk & s->kinds))
		return wrong_kind(from, "from", fk, ffmt, s->kinds, e);
	if (!(tk & s->kinds))
		return wrong_kind(to, "to", tk, tfmt, s->kinds, e);
	/* a core dump has tags and zones: either compares */
	if (!(fk & tk & s->kinds)) {
		kinds_what(fk, fw, sizeof(fw), " and ");
		kinds_what(tk, tw, sizeof(tw), " and ");
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
			      "from=%" PRId64 " format=%s to=%" PRId64
			      " format=%s", from, ffmt, to, tfmt);
		mdb_error_msg(e, "cannot compare snapshots of different "
				 "kinds: source %" PRId64 " is %s, source %"
				 PRId64 " is %s", from, fw, to, tw);
		mdb_error_hint(e, "give --from and --to of one kind");
		return -MDB_E_INVAL;
	}
	return 0;
}

/* What a report comparing two sources compares: "trace", "snapshot". */
static const char *what_compared(const struct cli_scope *s)
{
	return s->kinds == SCOPE_TRACE ? "trace" : "snapshot";
}

int cli_scope_series(struct mdb_db *db, struct cli_scope *s, int64_t from,
		     int64_t to, struct mdb_error *e)
{
	char a[1000], b[1000], fmt[64];
	int64_t anchor = from ? from : to ? to : s->hi;
	unsigned kind = 0;
	int ret, n;

	if (s->lo != s->hi && (!from || !to)) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, NULL);
		mdb_error_msg(e, "this report compares two %ss: give "
				 "--source ID (its series) or --from and --to",
			      what_compared(s));
		return -MDB_E_INVAL;
	}
	if (from && to)
		ret = check_pair(db, s, from, to, e);
	else if (from || to)
		ret = series_source(db, s, anchor, from ? "from" : "to",
				    &kind, fmt, sizeof(fmt), e);
	else
		ret = 0;
	if (ret < 0)
		return ret;
	if ((from || to) && !(from && to) && !(kind & s->kinds))
		return wrong_kind(anchor, from ? "from" : "to", kind, fmt,
				  s->kinds, e);
	s->from = from;
	s->to = to;
	if (!from && (ret = mdb_source_series_end(db, anchor, 0, &s->from, e)) < 0)
		return ret;
	if (!to && (ret = mdb_source_series_end(db, anchor, 1, &s->to, e)) < 0)
		return ret;
	if (!from && !to && s->from == s->to) {
		mdb_error_set(e, MDB_E_EMPTY, db->path, -1, -1,
			      "source=%" PRId64, s->from);
		mdb_error_msg(e, "one %s in the series: nothing to "
				 "compare", what_compared(s));
		mdb_error_hint(e, "ingest another with the same --label, or "
				  "give --from ID and --to ID");
		return -MDB_E_EMPTY;
	}
	for (int i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	s->nnotes = 0;
	ret = describe(db, s, s->from, s->from, a, sizeof(a), &n, e);
	if (ret == 0)
		ret = describe(db, s, s->to, s->to, b, sizeof(b), &n, e);
	if (ret < 0)
		return ret;
	snprintf(s->title, sizeof(s->title), "from %s\n  to %s", a, b);
	snprintf(s->json, sizeof(s->json),
		 "{\"from\": %" PRId64 ", \"to\": %" PRId64 "}", s->from,
		 s->to);
	return 0;
}

/* @s as a JSON string into @buf (at most @len bytes, cut short). */
static void json_str(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 3)
		return;
	buf[o++] = '"';
	for (; *s && o + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", c);
		else if (c < 0x20)
			o += (size_t)snprintf(buf + o, len - o, "\\u%04x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

void cli_scope_fleet_title(struct cli_scope *s, const char *glob, int pairs,
			   int64_t labels, int64_t n, const char *lo,
			   const char *hi, const char *where)
{
	char g[200], n1[32], n2[32], *u = where ? cli_safe(where) : NULL;

	snprintf(g, sizeof(g), "%s", glob ? glob : "*");
	snprintf(s->title, sizeof(s->title), "%s%s%s%s of %s label%s "
		 "matching '%s' (%s source%s), taken %s to %s",
		 u ? "ClickHouse " : "", u ? u : "", u ? ": " : "",
		 pairs ? "the first and the last snapshot of each series" :
		 s->kinds == SCOPE_TRACE ? "the latest trace" :
		 "the latest snapshot", cli_num(n1, sizeof(n1),
		 (uint64_t)labels), labels == 1 ? "" : "s", g,
		 cli_num(n2, sizeof(n2), (uint64_t)n), n == 1 ? "" : "s",
		 lo[0] ? lo : "?", hi[0] ? hi : "?");
	free(u);
	json_str(g, sizeof(g), glob ? glob : "*");
	snprintf(s->json, sizeof(s->json), "{\"label\": %s, \"sources\": "
		 "%lld}", g, (long long)n);
}

/* Each fleet source's warnings, as many as the notes hold. */
struct fleet_notes {
	struct mdb_db *db;
	struct cli_scope *s;
	struct mdb_error *e;
};

static int fleet_row(void *ctx, int64_t id)
{
	struct fleet_notes *f = ctx;
	int k;

	if (f->s->nnotes >= SCOPE_MAX_NOTES)
		return 1;
	return describe(f->db, f->s, id, id, NULL, 0, &k, f->e) < 0 ?
	       -MDB_E_DB : 0;
}

int cli_scope_fleet(struct mdb_db *db, struct cli_scope *s,
		    const char *glob, int pairs, struct mdb_error *e)
{
	struct fleet_notes f = { .db = db, .s = s, .e = e };
	int64_t n = 0, labels = 0;
	char lo[40], hi[40], want[200];

	if (mdb_rsrc_summary(db, &n, &labels, lo, hi, sizeof(lo), e) < 0)
		return -MDB_E_DB;
	if (!n) {
		kinds_what(s->kinds, want, sizeof(want), " or ");
		mdb_error_set(e, MDB_E_EMPTY, db->path, -1, -1, "label='%s'",
			      glob ? glob : "*");
		mdb_error_msg(e, "no label matching '%s' has %s%s", glob ?
			      glob : "*", pairs ? "two snapshots of a series, "
			      "" : "", want);
		mdb_error_hint(e, "'memdb sources' lists the sources, their "
			       "labels and when they were taken");
		return -MDB_E_EMPTY;
	}
	cli_scope_fleet_title(s, glob, pairs, labels, n, lo, hi, NULL);
	return mdb_rsrc_each(db, fleet_row, &f, e);
}
