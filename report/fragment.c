// SPDX-License-Identifier: MIT
/* Statements and fragments of the queries' SQL text; see fragment.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragment.h"

#define MAX_ARGS 8
#define MAX_DEPTH 8

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* The first ';' of @p outside comments and quoted text, or NULL. */
static const char *semicolon(const char *p)
{
	while (*p) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (*p == '\'' || *p == '"' || *p == '`') {
			const char *q = p + 1;

			while (*q && *q != *p)
				q += q[0] == '\\' && q[1] ? 2 : 1;
			p = *q ? q + 1 : q;
		} else if (*p == ';') {
			return p;
		} else {
			p++;
		}
	}
	return NULL;
}

/* The next statement from *@at: its start and length; 0 when only
 * blanks and comments are left. */
int mdb_sql_next_stmt(const char **at, const char **s, size_t *n)
{
	const char *p = *at, *semi = semicolon(p);
	const char *stop = semi ? semi : p + strlen(p);
	const char *q = p;

	while (q < stop) {
		if (q[0] == '-' && q[1] == '-')
			q += strcspn(q, "\n");
		else if (*q == ' ' || *q == '\t' || *q == '\n')
			q++;
		else
			break;
	}
	if (q >= stop)
		return 0;
	*s = p;
	*n = (size_t)(stop - p);
	*at = semi ? semi + 1 : stop;
	return 1;
}

struct span {
	const char *p;
	size_t n;
};

/* @p..@end past blanks and "--" comments. */
static const char *skip_blank(const char *p, const char *end)
{
	while (p < end) {
		if (p[0] == '-' && p + 1 < end && p[1] == '-')
			while (p < end && *p != '\n')
				p++;
		else if (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		else
			break;
	}
	return p;
}

/* Past the quoted text at @p ('...', "...", `...`; a backslash escapes the
 * next character, as in ClickHouse: the SQLite queries hold none). */
static const char *skip_quoted(const char *p, const char *end)
{
	const char *q = p + 1;

	while (q < end && *q != *p)
		q += *q == '\\' ? 2 : 1;
	return q < end ? q + 1 : end;
}

/*
 * The comma-separated items between the '(' at @p and its ')' into @a
 * (blanks around each trimmed): their count, or -1 when there is no
 * closing ')' or more than MAX_ARGS; *@after past the ')'.
 */
static int split_args(const char *p, const char *end, struct span *a,
		      const char **after)
{
	const char *start = ++p;
	int depth = 0, n = 0;

	for (; p < end; p++) {
		if (*p == '\'' || *p == '"' || *p == '`') {
			p = skip_quoted(p, end) - 1;
			continue;
		}
		if (*p == '(' || (*p == ')' && depth)) {
			depth += *p == '(' ? 1 : -1;
			continue;
		}
		if ((*p != ',' && *p != ')') || depth)
			continue;
		/* a comma or the closing ')' */
		while (start < p && strchr(" \t\n", *start))
			start++;
		if (n == MAX_ARGS)
			return -1;
		a[n].p = start;
		a[n].n = (size_t)(p - start);
		while (a[n].n && strchr(" \t\n", start[a[n].n - 1]))
			a[n].n--;
		/* "()": no arguments */
		if (a[n].n || *p == ',' || n)
			n++;
		start = p + 1;
		if (*p == ')') {
			*after = p + 1;
			return n;
		}
	}
	return -1;
}

/* Where the fragments are defined: the text and its file's name. */
struct shared {
	const char *text;
	const char *origin;
};

/* The definition of fragment @name (@n bytes) in @sh: its formal names
 * and its text; 0 when @sh has none. */
static int fragment(const struct shared *sh, const char *name, size_t n,
		    struct span *formal, int *nformal, struct span *text)
{
	const char *at = sh->text ? sh->text : "", *s;
	size_t len;

	while (mdb_sql_next_stmt(&at, &s, &len)) {
		const char *end = s + len, *p = skip_blank(s, end), *after;

		if (p + n + 2 > end || *p != '@' || strncmp(p + 1, name, n) ||
		    p[n + 1] != '(')
			continue;
		*nformal = split_args(p + n + 1, end, formal, &after);
		p = *nformal < 0 ? end : skip_blank(after, end);
		if (p >= end || *p != '=')
			return 0;
		text->p = p + 1;
		text->n = (size_t)(end - text->p);
		return 1;
	}
	return 0;
}

static int expand_frags(FILE *f, const struct shared *sh, const char *sql,
			size_t n, int depth, struct mdb_error *e);

/* Fragment @name's text into @f, its formals replaced by @arg. */
static int expand_call(FILE *f, const struct shared *sh, const char *name,
		       size_t nlen, const struct span *arg, int nargs,
		       int depth, struct mdb_error *e)
{
	struct span formal[MAX_ARGS], text = { NULL, 0 };
	int nformal = 0, ret;
	char *out = NULL;
	size_t len;
	FILE *g;

	if (depth >= MAX_DEPTH ||
	    !fragment(sh, name, nlen, formal, &nformal, &text) ||
	    nformal != nargs) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1,
			      "fragment=%.*s args=%d", (int)nlen, name, nargs);
		mdb_error_msg(e, "a query calls a fragment that %s does "
			      "not define so", sh->origin);
		return -MDB_E_INVAL;
	}
	g = open_memstream(&out, &len);
	if (!g)
		return mdb_error_nomem(e);
	for (const char *p = text.p, *end = text.p + text.n; p < end;) {
		int k = nformal;

		if (*p == '$')
			for (k = 0; k < nformal; k++)
				if (p + 1 + formal[k].n <= end &&
				    !strncmp(p + 1, formal[k].p, formal[k].n) &&
				    (p + 1 + formal[k].n == end ||
				     !ident_char(p[1 + formal[k].n])))
					break;
		if (k < nformal) {
			fwrite(arg[k].p, 1, arg[k].n, g);
			p += 1 + formal[k].n;
		} else if (p[0] == '-' && p + 1 < end && p[1] == '-') {
			while (p < end && *p != '\n')
				p++;
		} else {
			fputc(*p++, g);
		}
	}
	if (fclose(g)) {
		free(out);
		return mdb_error_nomem(e);
	}
	ret = expand_frags(f, sh, out, len, depth + 1, e);
	free(out);
	return ret;
}

/* @sql (@n bytes) into @f with every fragment call expanded. */
static int expand_frags(FILE *f, const struct shared *sh, const char *sql,
			size_t n, int depth, struct mdb_error *e)
{
	const char *p = sql, *end = sql + n;

	while (p < end) {
		const char *q = p + 1, *after;
		struct span arg[MAX_ARGS];
		int nargs;

		if (p[0] == '-' && p + 1 < end && p[1] == '-') {
			q = p;
			while (q < end && *q != '\n')
				q++;
		} else if (*p == '\'' || *p == '"' || *p == '`') {
			q = skip_quoted(p, end);
		} else if (*p == '@' && (p == sql || !ident_char(p[-1]))) {
			while (q < end && ident_char(*q))
				q++;
			if (q < end && *q == '(' && q > p + 1) {
				nargs = split_args(q, end, arg, &after);
				if (nargs < 0)
					nargs = MAX_ARGS + 1; /* refused */
				if (expand_call(f, sh, p + 1,
						(size_t)(q - p - 1), arg,
						nargs, depth, e) < 0)
					return -MDB_E_INVAL;
				p = after;
				continue;
			}
		}
		fwrite(p, 1, (size_t)(q - p), f);
		p = q;
	}
	return 0;
}

char *mdb_sql_expand(const char *sql, size_t n, const char *shared,
		     const char *origin, size_t *len, struct mdb_error *e)
{
	const struct shared sh = { shared, origin };
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	if (!f) {
		mdb_error_nomem(e);
		return NULL;
	}
	if (expand_frags(f, &sh, sql, n, 0, e) < 0) {
		fclose(f);
		free(out);
		return NULL;
	}
	if (fclose(f)) {
		free(out);
		mdb_error_nomem(e);
		return NULL;
	}
	return out;
}
