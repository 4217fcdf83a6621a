/* SPDX-License-Identifier: MIT */
/*
 * The canned reports: the .sql files of queries/, embedded at build
 * time as they are (tools/embed.sh only turns them into C strings), the
 * fragment calls expanded from queries/_shared.sql (report/fragment.h),
 * which is not a report.  Each
 * file holds a header comment, the rows statement and, optionally, a
 * second statement giving the one 'total' row.  The header's annotation
 * lines "-- KEY: value" say what the report is and takes:
 *   -- help: one line       what 'memdb report list' shows (required)
 *   -- by: a|b              values of --by; the first is the default
 *   -- sort: k=expr|y       keys of --sort and what each orders by,
 *                           descending (a bare key: the column y)
 *   -- sort-default: k,y    the keys when --sort is not given (default:
 *                           the first key)
 *   -- show: x|y            values of --show (diff); the first is the default
 *   -- scope: one source    the report covers a single source
 *   -- note: text           a header line of the report's output
 *   -- drop: x y ...        columns a table may leave out to fit the
 *                           terminal, least important first (cli/render.h)
 *   -- total: none          a fleet form (report/fleet.c) has no total
 *                           row statement
 * This file is the only parser of that header.
 */
#ifndef MDB_QUERIES_H
#define MDB_QUERIES_H

#include <stddef.h>

struct mdb_query {
	const char *name; /* file name without .sql; NAME@x is a variant */
	const char *sql;  /* the whole file */
};

/* The report called @name, or NULL. */
const struct mdb_query *mdb_query_find(const char *name);

/* All reports, sorted by name; *@n receives the count. */
const struct mdb_query *mdb_query_all(size_t *n);

/*
 * The fleet form of report @name (queries/fleet/NAME.sql: the same
 * report over ClickHouse's tables, report/fleet.c), or NULL; all of
 * them, sorted by name.
 */
const struct mdb_query *mdb_fleet_find(const char *name);
const struct mdb_query *mdb_fleet_all(size_t *n);

/*
 * The value of annotation "-- @key:" in @q's leading comment block, leading
 * blanks skipped: a pointer into @q->sql of *@len bytes (up to the end of
 * the line, not terminated), or NULL when the header has no such line.
 */
const char *mdb_query_annot(const struct mdb_query *q, const char *key,
			    size_t *len);

/* Is @val one of the '|'-separated values of @list (@len bytes)? */
int mdb_query_in_list(const char *list, size_t len, const char *val);

/*
 * Does @q's SQL use the named parameter @param (":by")?  Comments and
 * quoted strings do not count.
 */
int mdb_query_uses(const struct mdb_query *q, const char *param);

/*
 * The first @tok (":by", "@sort") in @sql outside comments and quoted
 * strings, as a whole word; NULL when there is none.
 */
const char *mdb_sql_find(const char *sql, const char *tok);

#endif
