// SPDX-License-Identifier: MIT
/* The table of embedded reports and their header annotations; see
 * queries.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fragment.h"
#include "queries.h"

/* queries/: the reports and _shared.sql, their fragments */
static const struct mdb_query files[] = {
#include "queries.inc" /* the .sql files as strings, by tools/embed.sh */
};

/* queries/fleet/: the fleet forms, for ClickHouse */
static const struct mdb_query fleet[] = {
#include "fleet.inc"
};

const struct mdb_query *mdb_fleet_find(const char *name)
{
	for (size_t i = 0; i < sizeof(fleet) / sizeof(fleet[0]); i++)
		if (!strcmp(fleet[i].name, name))
			return &fleet[i];
	return NULL;
}

const struct mdb_query *mdb_fleet_all(size_t *n)
{
	*n = sizeof(fleet) / sizeof(fleet[0]);
	return fleet;
}

/*
 * The reports: each file of queries/ but _shared.sql, its fragment calls
 * expanded from _shared.sql, so that the engine reads (and finds the
 * parameters in) the SQL that runs.  A report is expanded when it is
 * first found (a command runs one, and its variants), all of them when
 * all are asked for.  One that cannot be expanded (no memory, a call
 * _shared.sql does not define) keeps its text, which SQLite then
 * refuses; tests/test_report_engine.c checks that each one is expanded.
 */
static struct mdb_query *table;
static unsigned char *expanded;
static size_t ntable;
static const char *shared = "";

static const struct mdb_query *reports(size_t *n)
{
	const size_t nfiles = sizeof(files) / sizeof(files[0]);

	if (!table) {
		table = calloc(nfiles, sizeof(*table));
		expanded = calloc(nfiles, 1);
		if (!table || !expanded) {
			free(table);
			free(expanded);
			table = NULL;
			expanded = NULL;
			*n = nfiles;
			return files;
		}
		for (size_t i = 0; i < nfiles; i++) {
			if (!strcmp(files[i].name, "_shared"))
				shared = files[i].sql;
			if (files[i].name[0] != '_')
				table[ntable++] = files[i];
		}
	}
	*n = ntable;
	return table;
}

/* Report @i of the table with its fragment calls expanded. */
static const struct mdb_query *expand(size_t i)
{
	struct mdb_error e;
	size_t len;
	char *sql;

	if (expanded && !expanded[i]) {
		mdb_error_clear(&e);
		sql = mdb_sql_expand(table[i].sql, strlen(table[i].sql),
				     shared, "queries/_shared.sql", &len, &e);
		if (sql)
			table[i].sql = sql;
		expanded[i] = 1;
	}
	return &table[i];
}

const struct mdb_query *mdb_query_find(const char *name)
{
	size_t n;
	const struct mdb_query *q = reports(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(q[i].name, name))
			return q == table ? expand(i) : &q[i];
	return NULL;
}

const struct mdb_query *mdb_query_all(size_t *n)
{
	const struct mdb_query *q = reports(n);

	for (size_t i = 0; q == table && i < *n; i++)
		expand(i);
	return q;
}

const char *mdb_query_annot(const struct mdb_query *q, const char *key,
			    size_t *len)
{
	size_t kl = strlen(key);

	for (const char *p = q->sql; p && !strncmp(p, "--", 2);
	     p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v = p + 2;

		while (*v == ' ')
			v++;
		if (strncmp(v, key, kl) || v[kl] != ':')
			continue;
		v += kl + 1;
		while (*v == ' ')
			v++;
		*len = strcspn(v, "\n");
		return v;
	}
	return NULL;
}

int mdb_query_in_list(const char *list, size_t len, const char *val)
{
	size_t n = strlen(val);
	const char *end = list + len;

	for (const char *p = list; p < end;) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		const char *stop = bar ? bar : end;

		if ((size_t)(stop - p) == n && !strncmp(p, val, n))
			return 1;
		p = stop + 1;
	}
	return 0;
}

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

const char *mdb_sql_find(const char *sql, const char *tok)
{
	size_t n = strlen(tok);
	const char *p = sql;

	while (*p) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			p = end ? end + 2 : p + strlen(p);
		} else if (*p == '\'' || *p == '"') {
			const char *end = strchr(p + 1, *p);

			p = end ? end + 1 : p + strlen(p);
		} else if (!strncmp(p, tok, n) && !ident_char(p[n]) &&
			   (p == sql || !ident_char(p[-1]))) {
			return p;
		} else {
			p++;
		}
	}
	return NULL;
}

int mdb_query_uses(const struct mdb_query *q, const char *param)
{
	return mdb_sql_find(q->sql, param) != NULL;
}
