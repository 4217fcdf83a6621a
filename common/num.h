/* SPDX-License-Identifier: MIT */
/* Numbers as people type them on a command line or in a small file. */
#ifndef MDB_NUM_H
#define MDB_NUM_H

#include <stdint.h>

/*
 * Parse a whole decimal (or 0x hex; a leading zero is not octal) signed
 * 64-bit integer: nothing before or after it.  0 on success, -1 else.
 */
int mdb_parse_int(const char *s, int64_t *v);

/*
 * Parse a time: Unix seconds ("1732270000", "@1732270000") or ISO 8601
 * ("2026-11-22", "2026-11-22T10:15", "2026-11-22 10:15:30Z",
 * "2026-11-22T10:15:30+02:00"; no zone means UTC) into Unix seconds,
 * 1970 to 9999.  0 on success, -1 else.
 */
int mdb_parse_time(const char *s, int64_t *t);

#endif
