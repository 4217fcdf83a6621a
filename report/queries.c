// SPDX-License-Identifier: MIT
/* The table of embedded reports; see queries.h. */
#include <ctype.h>
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

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

int mdb_query_uses(const struct mdb_query *q, const char *param)
{
	size_t n = strlen(param);
	const char *p = q->sql;

	while (*p) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			p = end ? end + 2 : p + strlen(p);
		} else if (*p == '\'' || *p == '"') {
			const char *end = strchr(p + 1, *p);

			p = end ? end + 1 : p + strlen(p);
		} else if (!strncmp(p, param, n) && !ident_char(p[n]) &&
			   (p == q->sql || !ident_char(p[-1]))) {
			return 1;
		} else {
			p++;
		}
	}
	return 0;
}
