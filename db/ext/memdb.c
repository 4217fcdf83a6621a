// SPDX-License-Identifier: MIT
/*
 * memdb.so: the loadable SQLite extension that lets sqlite3, Python's
 * sqlite3 module or any SQLite program read a memdb database's alloc
 * table (db/allocvt.c) and sum its allocations with the reports' scan,
 * slab_scan (report/scan.c; make install puts it in PREFIX/lib/memdb):
 *
 *   sqlite3 memdb.db
 *   sqlite> .load /usr/local/lib/memdb/memdb
 *   sqlite> SELECT count(*) FROM alloc;
 *   sqlite> SELECT * FROM slab_scan(1, 'site') ORDER BY bytes_alloc DESC;
 *
 * SQLite derives the entry point from the file name: sqlite3_memdb_init.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

/* allocvt.c's and scan.c's SQLite calls go through the routines SQLite
 * hands over */
#include "../allocvt.c"
#include "../../report/scan.c"

int sqlite3_memdb_init(sqlite3 *db, char **err,
		       const sqlite3_api_routines *api);

int sqlite3_memdb_init(sqlite3 *db, char **err,
		       const sqlite3_api_routines *api)
{
	int rc;

	SQLITE_EXTENSION_INIT2(api);
	(void)err;
	rc = mdb_allocvt_register(db);
	return rc == SQLITE_OK ? mdb_scan_register(db) : rc;
}
