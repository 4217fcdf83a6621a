/* SPDX-License-Identifier: MIT */
/* The alloc and bad_free virtual tables over their blocks; see
 * allocvt.c. */
#ifndef MDB_ALLOCVT_H
#define MDB_ALLOCVT_H

#include <stddef.h>

#include <sqlite3.h>

/* Register modules memdb_alloc and memdb_bad_free and the aggregates
 * memdb_alloc_pack and memdb_bad_free_pack on @db: every connection
 * that reads or migrates a memdb database. */
int mdb_allocvt_register(sqlite3 *db);

/*
 * A virtual table's xConnect: declare its columns, @decl ("CREATE TABLE
 * x(...)"), on @db and allocate its sqlite3_vtab (the first member of a
 * struct of @size bytes), zeroed.  NULL with *@rc set when either fails.
 */
void *mdb_vtab_new(sqlite3 *db, const char *decl, size_t size, int *rc);

#endif
