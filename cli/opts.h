/* SPDX-License-Identifier: MIT */
/*
 * A command's options declared once: one table drives getopt_long and
 * the Options section of the command's --help, so the two cannot drift.
 */
#ifndef MDB_CLI_OPTS_H
#define MDB_CLI_OPTS_H

#include <getopt.h> /* optind, optarg */
#include <stdio.h>

#include "cli.h" /* CLI_OPT_ENDIAN, ... */

struct cli_opt {
	const char *name; /* --name */
	int key;          /* what cli_getopt() returns: the short option
			   * letter (-x), or a value from 256 up */
	const char *arg;  /* its argument in the usage text; NULL: none */
	const char *help; /* usage text, wrapped to the terminal's 80
			   * columns; '\n' starts a new line */
};

/* Rows several commands share, so that each is written once. */
#define CLI_ROW_DB { "db", 'd', "DB", "database file (default: $MEMDB_DB, " \
		     "else memdb.db)" }
#define CLI_ROW_QUIET { "quiet", 'q', NULL, "print nothing but errors" }
#define CLI_ROW_HELP { "help", 'h', NULL, "show this help" }
#define CLI_ROW_END { NULL, 0, NULL, NULL }
/* --wide, of the commands printing tables (cli/render.h) */
#define CLI_OPT_WIDE 0x2000
#define CLI_ROW_WIDE { "wide", CLI_OPT_WIDE, NULL, "tables: every column " \
		       "at full width, empty ones too.  Without it a table " \
		       "leaves out the columns empty in every row and, to " \
		       "a terminal (or with $COLUMNS set), fits its width: " \
		       "long text cut with '...', then its least important " \
		       "columns left out (a line under the table names " \
		       "them)" }
/* How to read a capture (ingest, check): parsed by cli_capture_opt(). */
#define CLI_ROWS_CAPTURE                                                   \
	{ "format", CLI_OPT_FORMAT, "NAME", "read PATH as NAME (one of the " \
	  "formats 'memdb ingest --help' lists) instead of detecting it" }, \
	{ "endian", CLI_OPT_ENDIAN, "ORDER", "byte order of binary input, " \
	  "little or big, for data too short to tell (default: detected)" }, \
	{ "abi", CLI_OPT_ABI, "N", "read the capture as kmemtrace ABI "    \
	  "version N whatever its abi_version file says (memdb knows "     \
	  "version 1)" },                                                  \
	{ "cpu", CLI_OPT_CPU, "N", "CPU of a lone per-CPU file not named " \
	  "cpuN (default 0)" },                                            \
	{ "kallsyms", CLI_OPT_KALLSYMS, "FILE", "/proc/kallsyms of the "   \
	  "traced boot: turns symbolic call sites of text (func+0x1c/0x90) " \
	  "into addresses (default: the capture directory's kallsyms); "   \
	  "for a core dump, the dumped boot's /proc/kallsyms or System.map " \
	  "(required: it locates the kernel's BTF and variables)" },       \
	{ "page-size", CLI_OPT_PAGE_SIZE, "N", "bytes per page for page "  \
	  "events of text (default 4096)" },                               \
	{ "strict", CLI_OPT_STRICT, NULL, "a malformed text line is an "   \
	  "error (the PATH is refused)" },                                 \
	{ "vmlinux", CLI_OPT_VMLINUX, "FILE", "a core dump's kernel with " \
	  "its DWARF (the -dbg package's vmlinux): types and symbols from " \
	  "it instead of BTF and --kallsyms; refused unless its build id " \
	  "is the dump's" },                                               \
	{ "btf", CLI_OPT_BTF, "FILE", "a core dump's kernel types as a BTF " \
	  "file, for a kernel whose image has none (pahole "               \
	  "--btf_encode_detached=FILE of the -dbg package's vmlinux), "    \
	  "with --kallsyms; refused unless its types are VMCOREINFO's" }

/*
 * getopt_long() over the table @opts (ended by a NULL name): the next
 * option's key, -1 at the end, '?' for an unknown option or a missing
 * argument.  Set optind = 1 before the first call.
 */
int cli_getopt(int argc, char **argv, const struct cli_opt *opts);

/* cli_getopt(), but the options end at the first argument that is not
 * one (what follows is a command and its own options). */
int cli_getopt_in_order(int argc, char **argv, const struct cli_opt *opts);

/* The table as the Options lines of a usage text. */
void cli_print_opts(FILE *out, const struct cli_opt *opts);

/*
 * The column the help texts of @opts start at: past the longest option
 * that leaves room for them, at least @col (to align two tables).
 */
int cli_opts_col(const struct cli_opt *opts, int col);

/* cli_print_opts() with the help texts at column @col. */
void cli_print_opts_at(FILE *out, const struct cli_opt *opts, int col);

/*
 * @text from column @col, wrapped at 80 columns, the first line after
 * what the caller has printed at column @at.
 */
void cli_print_wrapped(FILE *out, const char *text, int at, int col);

/*
 * Print the usage text @head, "Options:" and the table @opts, then @tail
 * (starting with its blank line) to stdout; returns MEMDB_EXIT_OK as
 * cli_help() does.
 */
int cli_usage(const char *head, const struct cli_opt *opts, const char *tail);

/*
 * The options the commands share, as their rows say: -d, -s, -q,
 * -f (@formats lists what it takes for the message, "table, csv or
 * json"), -h (the usage text @head, the table @opts, @tail).  Fill @cmd
 * and those, and the defaults of @db and @fmt, before the first option.
 */
struct cli_common {
	const char *cmd;
	const struct cli_opt *opts;
	const char *head, *tail;
	const char *formats;
	const char *db;     /* -d DB; cli_default_db() by default */
	const char *source; /* -s ID|all; NULL when not given */
	int fmt;            /* -f FMT: an MDB_FMT_* */
	int quiet;          /* -q */
	int args;           /* arguments may follow the options */
};

/*
 * Option @c (the argument @arg) of @co's command when it is one of the
 * shared ones, or an option the command does not know: -1 when the
 * command goes on, else the exit status it returns (help shown, or a
 * usage error).
 */
int cli_common_opt(struct cli_common *co, int c, const char *arg);

/* After the options: a usage error when an argument follows (its exit
 * status), else -1. */
int cli_no_args(const struct cli_common *co, int argc, char **argv);

/* What a command's own option handler returns when not an exit status. */
enum { CLI_TAKEN = -1, CLI_SHARED = -2 };

/*
 * The options of @co's command, by its table co->opts: each goes first
 * to @own(@ctx, key, argument) (NULL: the command has none of its own),
 * which returns CLI_TAKEN, CLI_SHARED (for cli_common_opt(): a shared
 * option, or an unknown one) or an exit status; then, unless co->args,
 * no argument may follow.  -1 when the command goes on (optind at its
 * first argument), else the exit status it returns.
 */
int cli_parse(struct cli_common *co, int argc, char **argv,
	      int (*own)(void *ctx, int c, const char *arg), void *ctx);

#endif
