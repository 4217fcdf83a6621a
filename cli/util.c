// SPDX-License-Identifier: MIT
/* Messages, exit handling and small parsers shared by the commands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const struct mdb_error *e)
{
	char buf[1400];

	mdb_error_format(e, buf, sizeof(buf));
	fprintf(stderr, "memdb: %s\n", buf);
	if (e->hint[0])
		fprintf(stderr, "memdb: hint: %s\n", e->hint);
}

void cli_errorf(const char *fmt, ...)
{
	va_list ap;

	fputs("memdb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warnf(const char *fmt, ...)
{
	va_list ap;

	fputs("memdb: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("memdb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nmemdb: see 'memdb %s --help'\n", cmd);
	return MEMDB_EXIT_USAGE;
}

int cli_help(const char *text)
{
	fputs(text, stdout);
	return cli_finish(MEMDB_EXIT_OK);
}

int cli_finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_errorf("cannot write output: %s", strerror(errno));
		return MEMDB_EXIT_FAIL;
	}
	if (fclose(stdout) != 0) {
		cli_errorf("cannot write output: %s", strerror(errno));
		return MEMDB_EXIT_FAIL;
	}
	return status;
}

const char *cli_default_db(void)
{
	const char *s = getenv("MEMDB_DB");

	return s && *s ? s : "memdb.db";
}

int cli_parse_i64(const char *s, int64_t *v)
{
	char *end;
	long long n;

	if (!s || !*s)
		return -1;
	errno = 0;
	n = strtoll(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = n;
	return 0;
}

int cli_show_progress(void)
{
	return isatty(STDERR_FILENO);
}

const char *cli_num(char *buf, size_t len, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	size_t o = 0;

	for (int i = 0; i < n && o + 2 < len; i++) {
		buf[o++] = tmp[i];
		if (n - i > 1 && (n - i - 1) % 3 == 0)
			buf[o++] = ',';
	}
	buf[o] = '\0';
	return buf;
}
