// SPDX-License-Identifier: MIT
/*
 * Capture files kept with a source: the snapshots memdb symbolize needs
 * to resolve a boot's call sites later (its kallsyms, its /proc/modules,
 * its module sections).  Driven by file names alone, so every capture
 * directory format (kmemtrace relay, ftrace text ...) keeps them alike.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest.h"

static const char *const attach_names[] = { "kallsyms", "modules",
					    "sections" };

int mdb_attach_scan(struct mdb_source_meta *m, const char *dir,
		    struct mdb_error *e)
{
	m->nattach = 0;
	for (size_t i = 0; i < sizeof(attach_names) / sizeof(attach_names[0]);
	     i++) {
		struct mdb_attach *a = &m->attach[m->nattach];
		struct stat st;
		int n;

		n = snprintf(a->path, sizeof(a->path), "%s/%s", dir,
			     attach_names[i]);
		if (n < 0 || (size_t)n >= sizeof(a->path))
			return mdb_error_set(e, MDB_E_LIMIT, dir, -1, -1,
					     "max=%zu", sizeof(a->path));
		if (stat(a->path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		a->name = attach_names[i];
		m->nattach++;
	}
	return 0;
}
