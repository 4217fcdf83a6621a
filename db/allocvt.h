/* SPDX-License-Identifier: MIT */
/* The alloc virtual table over alloc_blk's blocks; see allocvt.c. */
#ifndef MDB_ALLOCVT_H
#define MDB_ALLOCVT_H

#include <sqlite3.h>

/* Register module memdb_alloc and the aggregate memdb_alloc_pack on
 * @db: every connection that reads or migrates a memdb database. */
int mdb_allocvt_register(sqlite3 *db);

#endif
