// SPDX-License-Identifier: MIT
/* Messages, exit handling and small parsers shared by the commands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/escape.h"
#include "../common/file.h"
#include "../common/num.h"
#include "../db/db.h"
#include "../ingest/ingest.h"
#include "cli.h"

void cli_put_safe(FILE *f, const char *s)
{
	char *t;

	if (!mdb_escape_needed(s, 0)) {
		fputs(s, f);
		return;
	}
	t = mdb_escape(s, 0);
	fputs(t ? t : "(unprintable)", f);
	free(t);
}

char *cli_safe(const char *s)
{
	char *t = mdb_escape(s ? s : "", 0);

	if (!t) {
		fputs("memdb: out of memory\n", stderr);
		exit(MEMDB_EXIT_FAIL);
	}
	return t;
}

/* "memdb: " @prefix, then @fmt escaped (it names files, inputs...) */
static void message(const char *prefix, const char *fmt, va_list ap)
{
	char *m;

	fputs("memdb: ", stderr);
	fputs(prefix, stderr);
	if (vasprintf(&m, fmt, ap) < 0) {
		fputs("(out of memory)\n", stderr);
		return;
	}
	cli_put_safe(stderr, m);
	fputc('\n', stderr);
	free(m);
}

void cli_error(const struct mdb_error *e)
{
	char buf[1400];

	mdb_error_format(e, buf, sizeof(buf));
	fputs("memdb: ", stderr);
	cli_put_safe(stderr, buf);
	fputc('\n', stderr);
	if (e->hint[0]) {
		fputs("memdb: hint: ", stderr);
		cli_put_safe(stderr, e->hint);
		fputc('\n', stderr);
	}
}

void cli_errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("", fmt, ap);
	va_end(ap);
}

void cli_warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("warning: ", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "memdb: see 'memdb %s --help'\n", cmd);
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

int cli_db_end(struct mdb_db *db, int status, const struct mdb_error *e)
{
	if (status != MEMDB_EXIT_OK)
		cli_error(e);
	if (db->h)
		mdb_db_close(db, NULL);
	return cli_finish(status);
}

const char *cli_default_db(void)
{
	const char *s = getenv("MEMDB_DB");

	return s && *s ? s : "memdb.db";
}

int cli_parse_i64(const char *s, int64_t *v)
{
	return mdb_parse_int(s, v);
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

int cli_parse_time(const char *s, int64_t *t)
{
	return mdb_parse_time(s, t);
}

const char *cli_iso_time(char *buf, size_t len, int64_t t)
{
	time_t v = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&v, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "@%lld", (long long)t);
	return buf;
}

int cli_is_capture_opt(int opt)
{
	switch (opt) {
	case CLI_OPT_FORMAT:
	case CLI_OPT_ENDIAN:
	case CLI_OPT_ABI:
	case CLI_OPT_CPU:
	case CLI_OPT_KALLSYMS:
	case CLI_OPT_PAGE_SIZE:
	case CLI_OPT_STRICT:
	case CLI_OPT_VMLINUX:
	case CLI_OPT_BTF:
		return 1;
	}
	return 0;
}

/* --format NAME: one of mdb_input_formats(). */
static int capture_format(const char *cmd, const char *arg,
			  struct mdb_ingest_opts *io)
{
	for (const char *const *f = mdb_input_formats(); *f; f++)
		if (!strcmp(*f, arg)) {
			io->format = *f;
			return 0;
		}
	return cli_usage_error(cmd, "--format takes one of the formats "
			       "'memdb ingest --help' lists, not '%s'", arg);
}

/* The capture options with a number or a word for an argument. */
static int capture_value(const char *cmd, int opt, const char *arg,
			 struct mdb_ingest_opts *io)
{
	int64_t v;

	switch (opt) {
	case CLI_OPT_ENDIAN:
		if (!strcmp(arg, "little"))
			io->order = MDB_ORDER_LITTLE;
		else if (!strcmp(arg, "big"))
			io->order = MDB_ORDER_BIG;
		else
			return cli_usage_error(cmd, "--endian takes 'little' "
					       "or 'big', not '%s'", arg);
		return 0;
	case CLI_OPT_ABI:
		if (cli_parse_i64(arg, &v) || v < 1 || v > 255)
			return cli_usage_error(cmd, "--abi takes a version "
					       "number, not '%s'", arg);
		io->abi = (int)v;
		return 0;
	case CLI_OPT_CPU:
		if (cli_parse_i64(arg, &v) || v < 0 || v > 65535)
			return cli_usage_error(cmd, "--cpu takes a CPU number, "
					       "not '%s'", arg);
		io->cpu = (int)v;
		return 0;
	case CLI_OPT_PAGE_SIZE:
		if (cli_parse_i64(arg, &v) || v < 512 || v > (1 << 24) ||
		    (v & (v - 1)))
			return cli_usage_error(cmd, "--page-size takes a power "
					       "of two from 512 to 16777216, "
					       "not '%s'", arg);
		io->page_size = (uint64_t)v;
		return 0;
	}
	return cli_usage_error(cmd, "unknown option");
}

int cli_capture_opt(const char *cmd, int opt, const char *arg,
		    struct mdb_ingest_opts *io)
{
	switch (opt) {
	case CLI_OPT_FORMAT:
		return capture_format(cmd, arg, io);
	case CLI_OPT_KALLSYMS:
		io->kallsyms = arg;
		return 0;
	case CLI_OPT_VMLINUX:
		io->vmlinux = arg;
		return 0;
	case CLI_OPT_BTF:
		io->btf = arg;
		return 0;
	case CLI_OPT_STRICT:
		io->strict = 1;
		return 0;
	}
	return capture_value(cmd, opt, arg, io);
}

int cli_capture_files(const struct mdb_ingest_opts *io)
{
	const char *const files[] = { io->kallsyms, io->vmlinux, io->btf };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct mdb_error e;
		struct stat st;

		if (!files[i] || stat(files[i], &st) == 0 ||
		    (errno != ENOENT && errno != ENOTDIR))
			continue;
		mdb_path_error(files[i], errno, &e);
		cli_error(&e);
		return MEMDB_EXIT_FAIL;
	}
	return 0;
}
