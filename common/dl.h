/* SPDX-License-Identifier: MIT */
/*
 * A library loaded when first needed rather than linked (libkdumpfile
 * for core dumps, libcurl for ClickHouse), so that memdb does not map
 * and bind it, and what it brings, at every start.
 */
#ifndef MDB_DL_H
#define MDB_DL_H

#include <stddef.h>

struct mdb_dl_sym {
	const char *name;
	void **fn;              /* where its address goes */
};

/*
 * Open library @so and look up each of the @n symbols of @sym.  The
 * handle (never closed: the symbols stay in use), or NULL with every
 * *fn NULL and *@why a malloc'ed copy of what the loader said (NULL when
 * even that could not be allocated).
 */
void *mdb_dl_load(const char *so, const struct mdb_dl_sym *sym, size_t n,
		  char **why);

#endif
