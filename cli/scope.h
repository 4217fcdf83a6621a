/* SPDX-License-Identifier: MIT */
/*
 * Which sources a report covers (--source ID|all, default the latest; for
 * reports comparing two snapshots or traces, two sources of a series),
 * and the header lines that say so, with the warnings the sources carry
 * (lost events, skipped records, approximate or inaccurate snapshot
 * figures).
 */
#ifndef MDB_SCOPE_H
#define MDB_SCOPE_H

#include "../db/sources.h"

#define SCOPE_MAX_NOTES 16

/* Kinds of source, as a report's "-- source:" header names them: the
 * kinds the database tells (mdb_source_kinds()). */
enum {
	SCOPE_TRACE = MDB_KIND_TRACE, /* "trace": alloc/free events */
	SCOPE_TAGS = MDB_KIND_TAGS,   /* "tags": allocation tags (allocinfo) */
	SCOPE_ZONES = MDB_KIND_ZONES, /* "zones": zones, malloc types, slab
				       * caches */
	SCOPE_ANY = 7,
};

/* The kinds a "-- source:" value ("trace", "tags|zones", up to the end
 * of its line) names; NULL or nothing known: any. */
unsigned cli_scope_kinds(const char *list);

/*
 * The latest source of a kind in @kinds (SCOPE_*) into *@id; an error
 * naming the kind when the database holds none.
 */
int cli_scope_latest(struct mdb_db *db, unsigned kinds, int64_t *id,
		     struct mdb_error *e);

struct cli_scope {
	unsigned kinds;            /* SCOPE_* the report reads */
	int64_t lo, hi;            /* source id range: bind :src_lo, :src_hi */
	int64_t from, to;          /* cli_scope_series(): bind :from, :to */
	char json[320];            /* value for the JSON "source" field */
	char title[2048];          /* "source 3: kmemtrace-relay '/x' ..." */
	char *notes[SCOPE_MAX_NOTES + 1]; /* warnings, NULL-terminated */
	int nnotes;
};

/*
 * Resolve --source @arg against @db for a report reading the kinds of
 * source @kinds names (its "-- source:" header; NULL: any): an id must be
 * of such a kind (else MDB_E_INVAL, a usage error, as for a malformed
 * @arg); NULL means the latest source of such a kind, and when
 * @pair_given (--from and --to both given) no default is looked up at
 * all.  Prints nothing.
 */
int cli_scope_resolve(struct mdb_db *db, const char *arg, const char *kinds,
		      int pair_given, struct cli_scope *s,
		      struct mdb_error *e);

/*
 * Two snapshots or traces to compare (reports using :from and :to): @from
 * and @to when not 0, else the first and the last (by taken_at) of the
 * series of the source @s selects (same label and format).  Sets s->from,
 * s->to and rewrites the title, JSON source and notes to name both.  Both
 * must be sources of the kinds cli_scope_resolve() was given (diff:
 * traces), and of one kind.
 */
int cli_scope_series(struct mdb_db *db, struct cli_scope *s, int64_t from,
		     int64_t to, struct mdb_error *e);

/*
 * The latest source (by taken_at, then id) labelled @label of a kind in
 * @mask (SCOPE_*) into *@id; MDB_E_NOTFOUND naming --@what when there is
 * none.
 */
int cli_scope_label(struct mdb_db *db, const char *label, unsigned mask,
		    const char *what, int64_t *id, struct mdb_error *e);

/*
 * A fleet (the report's set-up picked each label's latest source, or
 * with @pairs the first and last of each series, into temp.rsrc):
 * title, JSON source and the sources' warnings from those sources;
 * MDB_E_EMPTY naming @glob (NULL: any label) when there are none.
 */
int cli_scope_fleet(struct mdb_db *db, struct cli_scope *s,
		    const char *glob, int pairs, struct mdb_error *e);

/*
 * The title and JSON source of a fleet of @labels labels and @sources
 * sources taken from @lo to @hi (ISO 8601, "" unknown); @where: the
 * ClickHouse server when the fleet is there.
 */
void cli_scope_fleet_title(struct cli_scope *s, const char *glob, int pairs,
			   int64_t labels, int64_t sources, const char *lo,
			   const char *hi, const char *where);

void cli_scope_release(struct cli_scope *s);

#endif
