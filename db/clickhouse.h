/* SPDX-License-Identifier: MIT */
/*
 * ClickHouse, the column store of fleets: its HTTP interface (libcurl),
 * the tables memdb exports a database's sources into, and the export.
 * Only what both Debian 12's clickhouse-server (18.16) and current
 * ClickHouse accept: MergeTree tables with an ORDER BY of non-NULL
 * columns, Distributed tables over them, RowBinary inserts, results as
 * TabSeparatedWithNamesAndTypes.  docs/usage.md, *ClickHouse*, lists the
 * tables and their columns.
 */
#ifndef MDB_CLICKHOUSE_H
#define MDB_CLICKHOUSE_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "db.h"

/* A connection: the server's URL, as given (http://host:8123/, with
 * ?database=, user=, password= when needed). */
struct mdb_ch {
	void *curl;
	char *url;    /* as given, without a trailing '?' or '&' */
	char *shown;  /* for messages: the password left out */
};

/* Ready @ch for @url (nothing is sent yet). */
int mdb_ch_open(struct mdb_ch *ch, const char *url, struct mdb_error *e);

void mdb_ch_close(struct mdb_ch *ch);

/*
 * Run the statement @sql; the response body (results in the format the
 * statement names) into *@out, malloc'ed and NUL-terminated, when @out
 * is not NULL.  A server error is -MDB_E_DB with its first line.
 */
int mdb_ch_query(struct mdb_ch *ch, const char *sql, char **out,
		 size_t *len, struct mdb_error *e);

/* INSERT @sql ("INSERT INTO t (a, b) FORMAT RowBinary") with the @n
 * bytes of @data, synchronously also into a Distributed table's shards. */
int mdb_ch_insert(struct mdb_ch *ch, const char *sql, const void *data,
		  size_t n, struct mdb_error *e);

/* @s as a ClickHouse string literal ('...' with \ escapes), malloc'ed. */
char *mdb_ch_quote(const char *s);

/* ---- the export --------------------------------------------------------- */

/*
 * The tables' DDL, statements ended by ";\n": with @cluster, local
 * tables NAME_local on every server of the cluster and Distributed
 * tables NAME over them, sharded by label (a host's rows on one shard);
 * without, plain MergeTree tables NAME.  Every statement is CREATE TABLE
 * IF NOT EXISTS: run it again, or on each server, at will.  Malloc'ed;
 * NULL when out of memory.
 */
char *mdb_ch_ddl(const char *cluster);

struct mdb_export_opts {
	int allocations;    /* also every allocation of the traces */
	size_t batch_bytes; /* RowBinary bytes per INSERT (0: 32 MiB) */
	/* progress: called after each batch, may be NULL */
	void (*progress)(void *ctx, int64_t sources, int64_t rows);
	void *progress_ctx;
};

struct mdb_export_result {
	int64_t sources;   /* sent */
	int64_t skipped;   /* their content hash was there already */
	int64_t rows;      /* rows sent, besides the sources' own */
	int64_t tables[8]; /* rows per table, in mdb_ch_tables() order */
	int64_t batches;   /* INSERT requests */
	int created;       /* the tables were missing and made */
};

/* The names of the exported tables (memdb_source first), @n of them. */
const char *const *mdb_ch_tables(size_t *n);

/*
 * Send every source of @db whose content hash the server does not hold
 * yet: its rows, then its row of memdb_source, so a source is seen only
 * whole (rows of an export cut short are never read); in batches of
 * RowBinary.  The tables are created when memdb_source is missing.
 */
int mdb_export(struct mdb_db *db, struct mdb_ch *ch,
	       const struct mdb_export_opts *o, struct mdb_export_result *res,
	       struct mdb_error *e);

#endif
