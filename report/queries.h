/* SPDX-License-Identifier: MIT */
/*
 * The canned reports: the .sql files of report/sql/, embedded at build time.  Each file
 * holds a header comment (with a "-- help:" line), the rows statement and,
 * optionally, a second statement giving the one 'total' row.
 */
#ifndef MDB_QUERIES_H
#define MDB_QUERIES_H

#include <stddef.h>

struct mdb_query {
	const char *name; /* file name without .sql */
	const char *help; /* one line */
	const char *sql;  /* the whole file */
};

/* The report called @name, or NULL. */
const struct mdb_query *mdb_query_find(const char *name);

/* All reports, sorted by name; *@n receives the count. */
const struct mdb_query *mdb_query_all(size_t *n);

/*
 * Does @q's SQL use the named parameter @param (":by")?  Comments and
 * quoted strings do not count.
 */
int mdb_query_uses(const struct mdb_query *q, const char *param);

#endif
