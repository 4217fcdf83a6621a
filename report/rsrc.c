// SPDX-License-Identifier: MIT
/* The sources a fleet report picked; see rsrc.h. */
#include <stdio.h>

#include "../db/sources.h"
#include "rsrc.h"

int mdb_rsrc_summary(struct mdb_db *db, int64_t *sources, int64_t *labels,
		     char *first, char *last, size_t len,
		     struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc;

	*sources = *labels = 0;
	first[0] = last[0] = '\0';
	if (sqlite3_prepare_v2(db->h, "SELECT count(*), count(DISTINCT "
			       "r.label), min(s.taken_at), max(s.taken_at) "
			       "FROM temp.rsrc r JOIN source s ON s.id = "
			       "r.source_id", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *a = sqlite3_column_text(st, 2),
				    *b = sqlite3_column_text(st, 3);

		*sources = sqlite3_column_int64(st, 0);
		*labels = sqlite3_column_int64(st, 1);
		snprintf(first, len, "%s", a ? (const char *)a : "");
		snprintf(last, len, "%s", b ? (const char *)b : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return mdb_db_error(db, e, "cannot read sources");
	return 0;
}

int mdb_rsrc_each(struct mdb_db *db, int (*row)(void *ctx, int64_t id),
		  void *ctx, struct mdb_error *e)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db->h, "SELECT source_id FROM temp.rsrc "
			       "ORDER BY source_id", -1, &st, NULL))
		return mdb_db_error(db, e, "cannot read sources");
	return mdb_sources_each_id(db, st, row, ctx, e);
}
