/* SPDX-License-Identifier: MIT */
/*
 * Fragments: the parts several queries share, each defined once in a
 * _shared.sql (queries/ for the SQLite reports, queries/fleet/ for the
 * fleet forms) as "@NAME(a, b) = TEXT;" and called as @NAME(x, y): the
 * call becomes TEXT with each $a, $b replaced by the text given for it,
 * its "--" comments left out and its own calls expanded in turn.
 */
#ifndef MDB_FRAGMENT_H
#define MDB_FRAGMENT_H

#include <stddef.h>

#include "../common/error.h"

/*
 * The next statement of the SQL text from *@at: its start and length
 * *@s, *@n (up to its ';', not included), *@at moved past it; 0 when
 * only blanks and comments are left.
 */
int mdb_sql_next_stmt(const char **at, const char **s, size_t *n);

/*
 * @sql (@n bytes) with every fragment call expanded from the definitions
 * in @shared (the text of @origin, the file named in an error): a
 * malloc'ed string of *@len bytes, or NULL with @e set when a call names
 * no fragment @shared (NULL: none) defines with as many arguments, or
 * on no memory.
 */
char *mdb_sql_expand(const char *sql, size_t n, const char *shared,
		     const char *origin, size_t *len, struct mdb_error *e);

#endif
