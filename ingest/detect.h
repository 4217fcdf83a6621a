/* SPDX-License-Identifier: MIT */
/* Format detection (detect.c): which row of the format table reads some
 * bytes, or a refusal that says what they look like. */
#ifndef MDB_DETECT_H
#define MDB_DETECT_H

#include "../common/file.h"
#include "formats.h"

/*
 * The format of the bytes @map holds, those of file @path (or of
 * standard input, MDB_STDIN_NAME): the first row of the table whose
 * probe claims them, else a row whose claims_name() takes @path's name.
 * Returns 0 with *@f set; else refuses them (what they look like, which
 * formats memdb reads), unmaps @map and returns -MDB_E_FORMAT or
 * -MDB_E_NOMEM.
 */
int mdb_format_detect(const char *path, struct mdb_map *map,
		      const struct mdb_format **f, struct mdb_error *e);

#endif
