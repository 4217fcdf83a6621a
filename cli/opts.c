// SPDX-License-Identifier: MIT
/* Option tables: getopt_long and the usage text from one table. */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "render.h"

#define WIDTH 79   /* usage lines end before column 80 */
#define MAX_COL 26 /* help text starts here at the latest */

static size_t count(const struct cli_opt *opts)
{
	size_t n = 0;

	while (opts[n].name)
		n++;
	return n;
}

static int has_short(const struct cli_opt *o)
{
	return o->key > 0 && o->key < 256 && isalnum(o->key);
}

/* The getopt_long tables of @opts, built once per table. */
static int build(const struct cli_opt *opts, struct option **lo, char **so)
{
	static const struct cli_opt *built;
	static struct option *longopts;
	static char *shortopts;
	size_t n = count(opts), k = 0;

	if (built != opts) {
		free(longopts);
		free(shortopts);
		built = NULL;
		longopts = calloc(n + 1, sizeof(*longopts));
		shortopts = calloc(2 * n + 3, 1);
		if (!longopts || !shortopts)
			return -1;
		shortopts[k++] = '+'; /* for cli_getopt_in_order() */
		for (size_t i = 0; i < n; i++) {
			longopts[i].name = opts[i].name;
			longopts[i].has_arg = opts[i].arg ? required_argument :
							    no_argument;
			longopts[i].val = opts[i].key;
			if (!has_short(&opts[i]))
				continue;
			shortopts[k++] = (char)opts[i].key;
			if (opts[i].arg)
				shortopts[k++] = ':';
		}
		built = opts;
	}
	*lo = longopts;
	*so = shortopts;
	return 0;
}

int cli_getopt(int argc, char **argv, const struct cli_opt *opts)
{
	struct option *lo;
	char *so;

	if (build(opts, &lo, &so) < 0)
		return '?';
	return getopt_long(argc, argv, so + 1, lo, NULL);
}

int cli_getopt_in_order(int argc, char **argv, const struct cli_opt *opts)
{
	struct option *lo;
	char *so;

	if (build(opts, &lo, &so) < 0)
		return '?';
	return getopt_long(argc, argv, so, lo, NULL);
}

/* "  -d, --db DB" or "      --label NAME" into @out; its width. */
static int print_name(FILE *out, const struct cli_opt *o)
{
	int n;

	if (has_short(o))
		n = fprintf(out, "  -%c, --%s", o->key, o->name);
	else
		n = fprintf(out, "      --%s", o->name);
	if (o->arg)
		n += fprintf(out, " %s", o->arg);
	return n;
}

void cli_print_wrapped(FILE *out, const char *text, int at, int col)
{
	const char *p = text ? text : "";
	int first = 1, brk = 0;

	if (at < col)
		at += fprintf(out, "%*s", col - at, "");
	while (*p) {
		size_t sep = strspn(p, " "), w;

		p += sep;
		w = strcspn(p, " \n");
		if (brk) {
			at = fprintf(out, "\n%*s", col + (int)sep, "") - 1;
		} else if (!first && at + (int)(sep + w) > WIDTH) {
			at = fprintf(out, "\n%*s", col, "") - 1;
		} else if (!first) {
			at += fprintf(out, "%*s", (int)sep, "");
		}
		at += fprintf(out, "%.*s", (int)w, p);
		p += w;
		first = 0;
		brk = *p == '\n';
		if (brk)
			p++;
	}
	fputc('\n', out);
}

int cli_opts_col(const struct cli_opt *opts, int col)
{
	for (const struct cli_opt *o = opts; o->name; o++) {
		int w = 8 + (int)strlen(o->name) +
			(o->arg ? 1 + (int)strlen(o->arg) : 0) + 2;

		if (w > col && w <= MAX_COL)
			col = w;
	}
	return col;
}

void cli_print_opts_at(FILE *out, const struct cli_opt *opts, int col)
{
	for (const struct cli_opt *o = opts; o->name; o++) {
		int at = print_name(out, o);

		if (at + 2 > col)
			at += fprintf(out, "  ");
		cli_print_wrapped(out, o->help, at, col);
	}
}

void cli_print_opts(FILE *out, const struct cli_opt *opts)
{
	cli_print_opts_at(out, opts, cli_opts_col(opts, 0));
}

int cli_usage(const char *head, const struct cli_opt *opts, const char *tail)
{
	fputs(head, stdout);
	fputs("Options:\n", stdout);
	cli_print_opts(stdout, opts);
	return cli_help(tail);
}

/* Is @name a word of @list ("table, csv or json")? */
static int format_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
			return 1;
	return 0;
}

int cli_common_opt(struct cli_common *co, int c, const char *arg)
{
	switch (c) {
	case 'd':
		co->db = arg;
		return -1;
	case 's':
		co->source = arg;
		return -1;
	case 'q':
		co->quiet = 1;
		return -1;
	case 'f':
		if (!co->formats)
			break;
		co->fmt = mdb_format_parse(arg);
		if (co->fmt < 0 || !format_listed(co->formats, arg))
			return cli_usage_error(co->cmd, "--format takes %s, not "
					       "'%s'", co->formats, arg);
		return -1;
	case 'h':
		return cli_usage(co->head, co->opts, co->tail);
	}
	return cli_usage_error(co->cmd, "unknown option");
}

int cli_no_args(const struct cli_common *co, int argc, char **argv)
{
	if (optind < argc)
		return cli_usage_error(co->cmd, "unexpected argument '%s'",
				       argv[optind]);
	return -1;
}

int cli_parse(struct cli_common *co, int argc, char **argv,
	      int (*own)(void *ctx, int c, const char *arg), void *ctx)
{
	int c, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, co->opts)) != -1) {
		ret = own ? own(ctx, c, optarg) : CLI_SHARED;
		if (ret == CLI_SHARED)
			ret = cli_common_opt(co, c, optarg);
		if (ret >= 0)
			return ret;
	}
	return co->args ? -1 : cli_no_args(co, argc, argv);
}
