/* SPDX-License-Identifier: MIT */
/*
 * Writing the derived figures of analysis/stats.h: site_stats,
 * cache_stats, pingpong_stats, node_stats, anomaly and timeline, one row
 * per row of struct mdb_stats.
 */
#ifndef MDB_DB_STATS_H
#define MDB_DB_STATS_H

#include <sqlite3.h>
#include <stdint.h>

#include "../analysis/stats.h"
#include "../common/error.h"

/* Write every table for @source_id inside the caller's transaction. */
int mdb_stats_write(const struct mdb_stats *s, sqlite3 *db,
		    int64_t source_id, struct mdb_error *e);

#endif
