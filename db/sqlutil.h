/* SPDX-License-Identifier: MIT */
/* Private to db/: binding values the way every loader stores them, and
 * the statements of one source id several of db/ run (db.c). */
#ifndef MDB_SQLUTIL_H
#define MDB_SQLUTIL_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/bytes.h"

struct mdb_db;
struct mdb_error;

/* Addresses and sizes are stored as their 64-bit pattern. */
static inline void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, (sqlite3_int64)v);
}

static inline void bind_opt(sqlite3_stmt *st, int col, int64_t v, int none)
{
	if (none)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

/* @s, or NULL when @s is NULL or empty. */
static inline void bind_text_or_null(sqlite3_stmt *st, int col,
				     const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, col);
}

/*
 * @sql prepared into *@st, its ?1 bound to @id and, when @text is not
 * NULL, its ?2 to @text (not copied: it must outlive the statement); 0,
 * or -MDB_E_DB with the message @what.
 */
int mdb_sql_prepare_id(struct mdb_db *db, const char *sql, int64_t id,
		       const char *text, sqlite3_stmt **st, const char *what,
		       struct mdb_error *e);

/* mdb_sql_prepare_id() of a statement that returns no rows, run and
 * finalized. */
int mdb_sql_exec_id(struct mdb_db *db, const char *sql, int64_t id,
		    const char *text, const char *what, struct mdb_error *e);

static inline const char *order_name(enum mdb_order o)
{
	return o == MDB_ORDER_LITTLE ? "little" :
	       o == MDB_ORDER_BIG ? "big" : NULL;
}

#endif
