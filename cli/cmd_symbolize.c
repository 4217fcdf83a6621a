// SPDX-License-Identifier: MIT
/* memdb symbolize: resolve call sites to function, file:line, inlines. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../db/db.h"
#include "../symbolize/symbolize.h"
#include "cli.h"
#include "opts.h"
#include "scope.h"

static const char usage_head[] =
"usage: memdb symbolize [-d DB] [--source ID|all] --vmlinux FILE\n"
"                       [--modules DIR] [--kallsyms FILE]\n"
"                       [--proc-modules FILE] [--sections FILE]\n"
"                       [--kaslr-offset HEX] [--force] [-q]\n"
"       memdb symbolize [-d DB] [--source ID|all] --kallsyms FILE\n"
"\n"
"Resolve the distinct call-site addresses of a source once and store,\n"
"for each, the function and offset, the function's size, the source\n"
"file and line, the chain of inlined functions, the module and the file\n"
"that resolved it.  Every report then shows 'func+0xoff' (with\n"
"' [module]' for a module) next to the address, and the view v_sites\n"
"has file, line and inlines.  '?\?' means no function holds the address\n"
"in the inputs given: never the nearest function's name.\n"
"\n"
"A call site is a return address: the function and offset are those of\n"
"the address itself (as %pS prints them); file, line and inline chain\n"
"are those of the address - 1, the call instruction.\n"
"\n"
"Resolvers, best first: the vmlinux's (or a .ko's) DWARF, its ELF symbol\n"
"table alone (a file without DWARF, with a warning), a kallsyms or\n"
"System.map file.  A run resolves only addresses it can do better for,\n"
"and a row is replaced only by a better one: running twice changes\n"
"nothing, a vmlinux after kallsyms upgrades, kallsyms after a vmlinux\n"
"keeps the vmlinux's rows.  The rows are written in one transaction.\n"
"\n"
"KASLR: the kernel ran at its link-time addresses plus an offset.  It is\n"
"--kaslr-offset when given; else derived from the kallsyms snapshot of\n"
"the traced boot (its _stext, else _text, minus the vmlinux's), which\n"
"must match the vmlinux (most of its functions at the same places) or\n"
"the run is refused; else 0.  A kallsyms snapshot whose addresses are\n"
"all zero (read without privilege, kernel.kptr_restrict) is refused.\n"
"With --kallsyms alone, --kaslr-offset moves the kernel's symbols (for a\n"
"System.map, which has link-time addresses).\n"
"\n"
"Modules: the load address of each module comes from a /proc/modules\n"
"snapshot ('NAME SIZE REFS DEPS STATE ADDRESS'), and the address of\n"
"each of its sections from a sections snapshot, lines 'MODULE SECTION\n"
"ADDRESS' as read from /sys/module/MODULE/sections/SECTION (or the\n"
"output of 'grep -r . /sys/module/*/sections'); without one, .text is at\n"
"the module's base and its other sections are unknown.  DWARF comes\n"
"from MODULE.ko (also .ko.xz, .ko.zst, .ko.gz) under --modules DIR;\n"
"'-' and '_' in module names are the same.  Addresses in modules with no\n"
".ko fall back to the kallsyms snapshot's module symbols.\n"
"\n"
"Snapshots kept with the source: when the ingested capture directory\n"
"held files named kallsyms, modules or sections, they were stored with\n"
"the source and are used unless an option names another file.\n"
"\n";

static const char usage_tail[] =
"\n"
"Each source is resolved in one transaction of its own.  With --source\n"
"all, a source with nothing to resolve its call sites with (no option\n"
"given, no kallsyms kept with it) is skipped with a warning.\n"
"\n"
"Exit status: 0 when done, 1 when an input was refused (the source being\n"
"resolved is unchanged; with --source all, those before it stay\n"
"resolved), 2 for a bad command line.\n"
"\n"
"Examples:\n"
"  memdb symbolize --vmlinux /usr/lib/debug/boot/vmlinux-6.1.0-13-amd64 \\\n"
"        --modules /usr/lib/debug/lib/modules/6.1.0-13-amd64 \\\n"
"        --kallsyms capture/kallsyms\n"
"  memdb symbolize --kallsyms kallsyms.txt\n"
"  memdb sql \"SELECT call_site, symbol, file, line, inlines FROM v_sites\"\n";

enum {
	OPT_VMLINUX = 256,
	OPT_MODULES,
	OPT_KALLSYMS,
	OPT_PROC_MODULES,
	OPT_SECTIONS,
	OPT_KASLR,
	OPT_FORCE,
};

static const struct cli_opt opts[] = {
	CLI_ROW_DB,
	{ "source", 's', "ID|all", "source to symbolize (default: the "
	  "latest trace)" },
	{ "vmlinux", OPT_VMLINUX, "FILE", "the traced kernel's vmlinux, with "
	  "symbols and ideally DWARF (not a vmlinuz)" },
	{ "modules", OPT_MODULES, "DIR", "where the module .ko files are" },
	{ "kallsyms", OPT_KALLSYMS, "FILE", "/proc/kallsyms of the traced "
	  "boot, or the kernel's System.map" },
	{ "proc-modules", OPT_PROC_MODULES, "FILE", "/proc/modules of the "
	  "traced boot" },
	{ "sections", OPT_SECTIONS, "FILE", "module sections snapshot of the "
	  "traced boot" },
	{ "kaslr-offset", OPT_KASLR, "HEX", "run-time minus link-time kernel "
	  "address" },
	{ "force", OPT_FORCE, NULL, "forget this source's symbols and resolve "
	  "all" },
	{ "quiet", 'q', NULL, "print nothing but errors and warnings" },
	CLI_ROW_HELP,
	CLI_ROW_END,
};

static void print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	cli_warnf("%s", msg);
}

/* Hex with or without 0x; the whole string. */
static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return *end || errno ? -1 : 0;
}

static void summary(void *ctx, const struct mdb_sym_result *r)
{
	char a[32], b[32], c[32];

	(void)ctx;
	printf("source %" PRId64 ": %s call sites, %s looked at, %s rows "
	       "written\n", r->source_id, cli_num(a, sizeof(a), r->sites),
	       cli_num(b, sizeof(b), r->looked_at),
	       cli_num(c, sizeof(c), r->written));
	printf("  resolved: %s with DWARF, ", cli_num(a, sizeof(a),
						      r->by_quality[3]));
	printf("%s from an ELF symbol table, ",
	       cli_num(a, sizeof(a), r->by_quality[2]));
	printf("%s from kallsyms; ", cli_num(a, sizeof(a), r->by_quality[1]));
	printf("%s unknown (?\?)", cli_num(a, sizeof(a), r->unknown));
	if (r->zero_sites)
		printf(", of which %s the address 0 (no caller recorded)",
		       cli_num(a, sizeof(a), r->zero_sites));
	printf("\n");
	if (r->damaged)
		printf("  damaged DWARF: %s call sites without file:line, "
		       "counted with the ELF symbol table's\n",
		       cli_num(a, sizeof(a), r->damaged));
	switch (r->kaslr_from) {
	case MDB_KASLR_GIVEN:
		printf("  KASLR offset 0x%" PRIx64 " (given)\n", r->kaslr);
		break;
	case MDB_KASLR_KALLSYMS:
		printf("  KASLR offset 0x%" PRIx64 " (from the kallsyms "
		       "snapshot's %s)\n", r->kaslr, r->anchor);
		break;
	case MDB_KASLR_NONE:
		break;
	}
	if (!strcmp(r->kallsyms_from, "source"))
		printf("  kallsyms: the snapshot kept with the source\n");
}

/* Source @id of several had nothing to resolve its call sites with. */
static void skipped(void *ctx, int64_t id)
{
	(void)ctx;
	cli_warnf("source %lld skipped: nothing to resolve its call sites "
		  "with", (long long)id);
}

/*
 * Resolve the sources @source selects: NULL the latest, "all" every one
 * (skipping those with nothing to resolve with), else source @lo.
 * 0, or a negative MDB_E_* code with @e filled.
 */
static int symbolize_sources(struct mdb_db *db, const char *source,
			     int64_t lo, const struct mdb_sym_opts *o,
			     int quiet, struct mdb_error *e)
{
	int64_t hi = lo;
	int ret;

	if (!source) {
		/* snapshots have no call sites: the latest trace */
		if ((ret = cli_scope_latest(db, SCOPE_TRACE, &lo, e)) < 0)
			return ret;
		hi = lo;
	} else if (!strcmp(source, "all")) {
		lo = 1;
		if ((ret = mdb_db_latest_source(db, &hi, e)) < 0)
			return ret;
	}
	return mdb_symbolize_range(db, lo, hi, o, quiet ? NULL : summary,
				   skipped, NULL, e);
}

/* An option of memdb symbolize's own into the options *@ctx. */
static int symbolize_opt(void *ctx, int c, const char *arg)
{
	struct mdb_sym_opts *o = ctx;

	switch (c) {
	case OPT_VMLINUX:
		o->vmlinux = arg;
		return CLI_TAKEN;
	case OPT_MODULES:
		o->modules_dir = arg;
		return CLI_TAKEN;
	case OPT_KALLSYMS:
		o->kallsyms = arg;
		return CLI_TAKEN;
	case OPT_PROC_MODULES:
		o->proc_modules = arg;
		return CLI_TAKEN;
	case OPT_SECTIONS:
		o->sections = arg;
		return CLI_TAKEN;
	case OPT_KASLR:
		if (parse_hex(arg, &o->kaslr))
			return cli_usage_error("symbolize", "--kaslr-offset "
					       "takes a hex number, not '%s'",
					       arg);
		o->have_kaslr = 1;
		return CLI_TAKEN;
	case OPT_FORCE:
		o->force = 1;
		return CLI_TAKEN;
	}
	return CLI_SHARED;
}

int cmd_symbolize(int argc, char **argv)
{
	struct cli_common co = {
		.cmd = "symbolize", .opts = opts, .head = usage_head,
		.tail = usage_tail, .db = cli_default_db(),
	};
	const char *source;
	struct mdb_sym_opts o;
	struct mdb_db db = { 0 };
	struct mdb_error e;
	int64_t lo = 0;
	int ret, status = MEMDB_EXIT_FAIL;

	memset(&o, 0, sizeof(o));
	o.warn = print_warning;
	ret = cli_parse(&co, argc, argv, symbolize_opt, &o);
	if (ret >= 0)
		return ret;
	source = co.source;
	if (source && strcmp(source, "all") &&
	    (cli_parse_i64(source, &lo) || lo <= 0))
		return cli_usage_error("symbolize", "--source takes a source id "
				       "or 'all', not '%s'", source);

	mdb_error_clear(&e);
	if (mdb_db_open(&db, co.db, MDB_DB_EXISTING, &e) < 0 ||
	    symbolize_sources(&db, source, lo, &o, co.quiet, &e) < 0)
		cli_error(&e);
	else
		status = MEMDB_EXIT_OK;
	if (db.h && mdb_db_close(&db, &e) < 0) {
		cli_error(&e);
		status = MEMDB_EXIT_FAIL;
	}
	return cli_finish(status);
}
