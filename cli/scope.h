/* SPDX-License-Identifier: MIT */
/*
 * Which sources a report covers (--source ID|all, default the latest),
 * and the header lines that say so, with the warnings the sources carry
 * (lost events, skipped records).
 */
#ifndef MDB_SCOPE_H
#define MDB_SCOPE_H

#include "../db/db.h"

#define SCOPE_MAX_NOTES 16

struct cli_scope {
	int64_t lo, hi;            /* source id range: bind :src_lo, :src_hi */
	char json[32];             /* value for the JSON "source" field */
	char title[1024];          /* "source 3: kmemtrace-relay '/x' ..." */
	char *notes[SCOPE_MAX_NOTES + 1]; /* warnings, NULL-terminated */
	int nnotes;
};

/* Resolve @arg (NULL = latest) against @db; prints nothing. */
int cli_scope_resolve(struct mdb_db *db, const char *arg,
		      struct cli_scope *s, struct mdb_error *e);

void cli_scope_release(struct cli_scope *s);

#endif
