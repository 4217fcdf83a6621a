/* SPDX-License-Identifier: MIT */
/*
 * Shared by the memdb commands: exit codes, messages, option helpers.
 * cli/ is the only layer that prints or exits.
 */
#ifndef MDB_CLI_H
#define MDB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"

#define MEMDB_VERSION "0.1.0"

/* Exit codes, named so every command means the same by them. */
enum memdb_exit {
	MEMDB_EXIT_OK = 0,       /* done */
	MEMDB_EXIT_FAIL = 1,     /* an input was rejected, or a failure */
	MEMDB_EXIT_USAGE = 2,    /* bad command line */
	MEMDB_EXIT_UNCLEAN = 3,  /* memdb check: the capture has problems */
};

struct memdb_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_ingest(int argc, char **argv);
int cmd_sources(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_export(int argc, char **argv);

/*
 * Messages name files and quote inputs: everything below escapes what a
 * terminal would act on (common/escape.h).  @s to @f so.
 */
void cli_put_safe(FILE *f, const char *s);

/* @s escaped, malloc'ed (exits when out of memory): free it. */
char *cli_safe(const char *s);

/* "memdb: <error>" and, when there is one, "memdb: hint: <hint>". */
void cli_error(const struct mdb_error *e);

/* "memdb: <message>" on stderr. */
void cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "memdb: warning: <message>" on stderr. */
void cli_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Report a usage error for @cmd and return MEMDB_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print @text (a usage text) to stdout and return MEMDB_EXIT_OK. */
int cli_help(const char *text);

/*
 * Flush and close stdout; a report counts as written only when this
 * succeeds (a full disk is an error).  Returns @status, or FAIL.
 */
int cli_finish(int status);

struct mdb_db;

/*
 * The end of a command that opened @db (or tried): @e said unless
 * @status is MEMDB_EXIT_OK, @db closed when open, then cli_finish().
 */
int cli_db_end(struct mdb_db *db, int status, const struct mdb_error *e);

/* The database path: $MEMDB_DB, else memdb.db in the current directory. */
const char *cli_default_db(void);

/* Parse a whole decimal (or 0x hex) integer; 0 on success. */
int cli_parse_i64(const char *s, int64_t *v);

/*
 * Parse a time: Unix seconds ("1732270000", "@1732270000") or ISO 8601
 * ("2026-11-22", "2026-11-22T10:15", "2026-11-22 10:15:30Z",
 * "2026-11-22T10:15:30+02:00"; no zone means UTC) into Unix seconds,
 * 1970 to 9999.  0 on success.
 */
int cli_parse_time(const char *s, int64_t *t);

/* @t (Unix seconds) as "2026-11-22T10:15:30Z" in @buf. */
const char *cli_iso_time(char *buf, size_t len, int64_t t);

/* 1 when stderr is a terminal and progress lines make sense. */
int cli_show_progress(void);

/*
 * The options that say how to read a capture, shared by ingest and check
 * (check reads as ingest would): their getopt values (their table rows
 * are CLI_ROWS_CAPTURE, opts.h), and the parser of one of them into @io
 * (returns 0, or the usage error's exit status).
 */
enum {
	CLI_OPT_ENDIAN = 0x1000, CLI_OPT_ABI, CLI_OPT_CPU, CLI_OPT_KALLSYMS,
	CLI_OPT_PAGE_SIZE, CLI_OPT_STRICT, CLI_OPT_VMLINUX, CLI_OPT_BTF,
	CLI_OPT_FORMAT = 'F',
};

/* Is @opt (a getopt value) one of the capture options? */
int cli_is_capture_opt(int opt);

struct mdb_ingest_opts;
int cli_capture_opt(const char *cmd, int opt, const char *arg,
		    struct mdb_ingest_opts *io);

/*
 * The files the capture options name (--kallsyms, --vmlinux) are there:
 * 0, or MEMDB_EXIT_FAIL after "no such file" naming the first that is
 * not, before any input is read.
 */
int cli_capture_files(const struct mdb_ingest_opts *io);

/* Group digits: 1234567 -> "1,234,567" in @buf. */
const char *cli_num(char *buf, size_t len, uint64_t v);

#endif
