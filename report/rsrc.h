/* SPDX-License-Identifier: MIT */
/*
 * The sources a fleet report picked (its set-up fills temp.rsrc:
 * source_id, label, ...; queries/growth.sql, outliers.sql), for the
 * report's header.
 */
#ifndef MDB_REPORT_RSRC_H
#define MDB_REPORT_RSRC_H

#include "../db/db.h"

/* How many sources and labels temp.rsrc holds and when the first and the
 * last were taken (ISO 8601; "" unknown), cut to @len bytes. */
int mdb_rsrc_summary(struct mdb_db *db, int64_t *sources, int64_t *labels,
		     char *first, char *last, size_t len,
		     struct mdb_error *e);

/* @row for each source of temp.rsrc, by id, until it returns nonzero (or
 * <0: returned as it is). */
int mdb_rsrc_each(struct mdb_db *db, int (*row)(void *ctx, int64_t id),
		  void *ctx, struct mdb_error *e);

#endif
