// SPDX-License-Identifier: MIT
/* Private to db/: SQL text and statements shared by db/; see sqlutil.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "sqlutil.h"

/*
 * The columns after ?1 are written "?", not "?N": SQLite numbers a "?"
 * one past the largest number so far, which gives the same numbers, and
 * it keeps only "?N" parameters in a list that each further "?N" is
 * looked up in, at prepare time, which grows with the square of their
 * number: a multi-row insert has about a thousand.
 */
char *mdb_sql_rows(const char *head, int nrows, int ncols, int *len)
{
	size_t cap = strlen(head) + 1 + (size_t)nrows * ((size_t)ncols + 2) * 3;
	char *s = malloc(cap);
	size_t n;

	if (!s)
		return NULL;
	n = (size_t)snprintf(s, cap, "%s", head);
	for (int k = 0; k < nrows; k++) {
		n += (size_t)snprintf(s + n, cap - n, "%s(?1", k ? ", " : "");
		for (int c = 0; c < ncols; c++) {
			memcpy(s + n, ", ?", 3);
			n += 3;
		}
		s[n++] = ')';
		s[n] = '\0';
	}
	if (len)
		*len = (int)n;
	return s;
}

int mdb_sql_prepare_id(struct mdb_db *db, const char *sql, int64_t id,
		       const char *text, sqlite3_stmt **st, const char *what,
		       struct mdb_error *e)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL))
		return mdb_db_error(db, e, what);
	sqlite3_bind_int64(*st, 1, id);
	if (text)
		sqlite3_bind_text(*st, 2, text, -1, SQLITE_STATIC);
	return 0;
}

int mdb_sql_exec_id(struct mdb_db *db, const char *sql, int64_t id,
		    const char *text, const char *what, struct mdb_error *e)
{
	sqlite3_stmt *st;
	int rc = mdb_sql_prepare_id(db, sql, id, text, &st, what, e);

	if (rc)
		return rc;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : mdb_db_error(db, e, what);
}
