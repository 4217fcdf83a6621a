/* SPDX-License-Identifier: MIT */
/*
 * Pictures of reports as SVG (--format svg, memdb html): timeline (live
 * bytes and allocations per bucket, two panels with round ticks on both
 * axes, x in time or in events), callsites, zones and growth (horizontal
 * bars of the top rows, labelled with their figures grouped), stacks (a
 * flame graph weighted by bytes, root at the bottom, with cli/flame.js to
 * zoom and search).  Every mark has a <title> tooltip naming its figures
 * exactly as the CSV prints them ("bytes_alloc=4096").
 */
#ifndef MDB_PICTURE_H
#define MDB_PICTURE_H

#include <sqlite3.h>
#include <stdio.h>

#include "../common/error.h"

/* Does report @name ("callsites", "callsites@cache") have a picture? */
int mdb_picture_has(const char *report);

/* Rows a picture of @report shows by default (0: all of them). */
long mdb_picture_top(const char *report);

/* Draw @rows (bound, not stepped) of @report with @title as SVG to @out.
 * 0 or a negative MDB_E_* code with @e filled. */
int mdb_picture(FILE *out, const char *report, const char *title,
		sqlite3_stmt *rows, struct mdb_error *e);

#endif
