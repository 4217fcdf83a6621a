/* SPDX-License-Identifier: MIT */
/*
 * Which sources a report covers (--source ID|all, default the latest; for
 * reports comparing snapshots, two sources of a series), and the header
 * lines that say so, with the warnings the sources carry (lost events,
 * skipped records, approximate or inaccurate snapshot figures).
 */
#ifndef MDB_SCOPE_H
#define MDB_SCOPE_H

#include "../db/db.h"

#define SCOPE_MAX_NOTES 16

struct cli_scope {
	int64_t lo, hi;            /* source id range: bind :src_lo, :src_hi */
	int64_t from, to;          /* cli_scope_series(): bind :from, :to */
	char json[80];             /* value for the JSON "source" field */
	char title[2048];          /* "source 3: kmemtrace-relay '/x' ..." */
	char *notes[SCOPE_MAX_NOTES + 1]; /* warnings, NULL-terminated */
	int nnotes;
};

/* Resolve @arg (NULL = latest) against @db; prints nothing. */
int cli_scope_resolve(struct mdb_db *db, const char *arg,
		      struct cli_scope *s, struct mdb_error *e);

/*
 * Two snapshots to compare (reports using :from and :to): @from and @to
 * when not 0, else the first and the last (by taken_at) of the series of
 * the source @s selects (same label and format).  Sets s->from, s->to and
 * rewrites the title, JSON source and notes to name both.
 */
int cli_scope_series(struct mdb_db *db, struct cli_scope *s, int64_t from,
		     int64_t to, struct mdb_error *e);

void cli_scope_release(struct cli_scope *s);

#endif
