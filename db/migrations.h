/* SPDX-License-Identifier: MIT */
/*
 * The database schema as its migrations: mdb_migrations[v] moves a
 * database from user_version v to v + 1 (version 0 is an empty file).
 * db/db.c runs them on a database of an older version.  A new database
 * gets their result in one go instead: tools/mkschema.c runs them at
 * build time and writes out the schema and rows they make, fresh_sql[]
 * (each ALTER TABLE re-reads the whole schema, so running them all at
 * each new database costs several times loading their result);
 * tests/test_cli_db.c checks that the two give the same database.
 */
#ifndef MDB_MIGRATIONS_H
#define MDB_MIGRATIONS_H

#include "schema.inc" /* schema_sql[], generated from db/schema.sql */
#include "schema3.inc" /* schema3_sql[], from db/schema-3.sql */
#include "schema4.inc" /* schema4_sql[], from db/schema-4.sql */
#include "schema9.inc" /* schema9_sql[], from db/schema-9.sql */
#include "schema10.inc" /* schema10_sql[], from db/schema-10.sql */
#include "schema11.inc" /* schema11_sql[], from db/schema-11.sql */
#include "schema12.inc" /* schema12_sql[], from db/schema-12.sql */
#include "schema13.inc" /* schema13_sql[], from db/schema-13.sql */
#include "schema14.inc" /* schema14_sql[], from db/schema-14.sql */

/*
 * Version 2: a second free of a freed allocation is a duplicate free (an
 * error) only where every allocation path is traced, else a suspect; an
 * unknown free leaves no mark (analysis/pair.h).  Sources ingested before
 * keep the classes they were given; ingest --force applies the rule.
 */
static const char migrate_2[] =
	"INSERT INTO free_class VALUES (4, 'duplicate_free_suspect');\n"
	"INSERT INTO anomaly_class VALUES (10, 'duplicate_free_suspect', 0, "
	"'a traced allocation freed twice, no traced allocation between, on "
	"a kernel with untraced allocation paths (kmem_cache_alloc_bulk "
	"since 4.2, skb caches, RCU sheaves): the object may have been "
	"allocated again untraced; a double free only if KASAN or "
	"slub_debug agrees');\n"
	"UPDATE anomaly_class SET note = 'a traced allocation freed twice, "
	"no allocation between, on a kernel that traces every allocation "
	"path (kmemtrace era): a double free' WHERE id = 3;\n"
	"UPDATE anomaly_class SET note = 'address never seen allocated: "
	"allocated before the trace began or by an untraced path, or a bad "
	"free; a later free of it is unknown again' WHERE id = 2;\n";

/*
 * Versions 5 to 8 built the slicing index, the slice_* tables (one per
 * selection made fast, docs/design.md section 3.3), which version 12
 * dropped: the scan over the blocks serves every selection.  Their
 * migrations now only move the version on, so a database older than 5
 * does not build tables only to drop them; one that has them loses them
 * at 11 (slice_col) and 12 (the rest).
 */
static const char migrate_slicing[] = "";

/*
 * migrations[v] moves a database from user_version v to v + 1.  Version 0
 * is an empty file.  Append, never edit, once a version has shipped.
 */
static const char *const mdb_migrations[] = {
	schema_sql,
	migrate_2,
	schema3_sql,
	schema4_sql,
	migrate_slicing, /* 5: slice_meta, _block, _bucket, _key, _pid */
	migrate_slicing, /* 6: slice_bucket_comm, _pp, _stack */
	migrate_slicing, /* 7: slice_ptr, _bucket_pid, _pp_pid */
	migrate_slicing, /* 8: slice_col */
	schema9_sql,
	schema10_sql,
	schema11_sql,
	schema12_sql,
	schema13_sql,
	schema14_sql,
};

#define MDB_NMIGRATIONS \
	((int)(sizeof(mdb_migrations) / sizeof(mdb_migrations[0])))

#endif
