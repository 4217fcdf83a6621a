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

#endif
