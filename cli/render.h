/* SPDX-License-Identifier: MIT */
/*
 * Rendering query results as an aligned table, CSV (RFC 4180 quoting) or
 * JSON, following docs/design.md §4.5 (Output): plain integers, REAL values
 * as percentages with 3 (table) or 6 (CSV, JSON) decimals, NULL as empty
 * (CSV), null (JSON) or '-' (table).
 */
#ifndef MDB_RENDER_H
#define MDB_RENDER_H

#include <sqlite3.h>
#include <stdio.h>

#include "../common/error.h"

/*
 * FOLDED: "frame;frame;... weight" lines, the first two columns of each
 * row (the input of flame-graph tools); only for reports that say so.
 */
/* SVG: a picture (cli/picture.h), for the reports that have one. */
enum mdb_format { MDB_FMT_TABLE, MDB_FMT_CSV, MDB_FMT_JSON, MDB_FMT_FOLDED,
		  MDB_FMT_SVG };

/* Parse "table", "csv", "json", "folded" or "svg"; -1 for anything else. */
int mdb_format_parse(const char *s);

struct mdb_report_out {
	enum mdb_format fmt;
	const char *report;  /* report name, NULL for plain SQL results */
	const char *source_json; /* JSON value of "source": 3, "all", ... */
	const char *title;   /* table header line, may be NULL */
	const char **notes;  /* extra table header lines, NULL-terminated */
	int human;           /* table: sizes (columns of bytes) as B, KiB,
			      * MiB, GiB, TiB with one decimal */
	const char *columns; /* "a,b,c": only these columns, in this order
			      * (the total row too: by name); NULL: all */
	int width;           /* table: at most this wide (display columns):
			      * text columns cut with "...", then columns
			      * of @drop left out; 0: no limit */
	const char *drop;    /* table: the columns that may be left out to
			      * fit @width, space-separated, least
			      * important first; NULL: none */
	int skip_empty;      /* table: leave out the columns NULL in every
			      * row (and the total row) */
};

/*
 * The width tables to @out get: $COLUMNS when set to a number (as ps
 * reads it: to a file or a pipe too), else the terminal's when @out is
 * one (80 when it does not say), else 0 (no limit).
 */
int mdb_render_width(FILE *out);

/* Is column @name a size in bytes (--human)? */
int mdb_render_is_size(const char *name);

/* @v bytes as "512B", "1.5KiB", "-2.0MiB" into @buf. */
void mdb_render_human(char *buf, size_t len, long long v);

/*
 * Run @rows (already bound) and, when not NULL, @total (one row whose first
 * column is the label 'total') and print them to @out in @o->fmt.
 * Returns 0 or a negative MDB_E_* code with @e filled: -MDB_E_INVAL, with
 * the columns there are, for a name of @o->columns that is not one.
 */
int mdb_render(FILE *out, const struct mdb_report_out *o, sqlite3_stmt *rows,
	       sqlite3_stmt *total, struct mdb_error *e);

/*
 * Is an integer column named @col a quantity, grouped by thousands on a
 * terminal (bytes, hits), or an id, position, CPU, pid or year, never?
 */
int mdb_render_groupable(const char *col);

#endif
