/* SPDX-License-Identifier: MIT */
/* Binary inputs memdb knows by their magic but does not read as such. */
#ifndef MDB_MAGIC_H
#define MDB_MAGIC_H

#include <stddef.h>

/* What unknown binary bytes look like ("an ELF file"), or NULL. */
const char *mdb_looks_like(const void *buf, size_t len);

#endif
