// SPDX-License-Identifier: MIT
/* The table of embedded reports; see queries.h. */
#include <string.h>

#include "queries.h"

static const struct mdb_query queries[] = {
#include "queries.inc" /* generated from the .sql files by tools/embed.sh */
};

const struct mdb_query *mdb_query_find(const char *name)
{
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
		if (!strcmp(queries[i].name, name))
			return &queries[i];
	return NULL;
}

const struct mdb_query *mdb_query_all(size_t *n)
{
	*n = sizeof(queries) / sizeof(queries[0]);
	return queries;
}
