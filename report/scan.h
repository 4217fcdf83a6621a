/* SPDX-License-Identifier: MIT */
/*
 * The table-valued function slab_scan (report/scan.c): the slab
 * allocations of a source with packed columns (db/packcol.h), selected
 * and summed per group in C.  The reports call it where no index table
 * serves their selection (queries/callsites.sql, allocs.sql).
 */
#ifndef MDB_SCAN_H
#define MDB_SCAN_H

#include <sqlite3.h>

/* Make slab_scan known to @db; an SQLite result code. */
int mdb_scan_register(sqlite3 *db);

#endif
