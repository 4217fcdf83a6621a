/* SPDX-License-Identifier: MIT */
/*
 * memdb symbolize: resolve the distinct call-site addresses of a source
 * once, and store function, offset, size, file, line, inline chain and
 * module in the symbol table, which every report joins (v_sites).
 *
 * Resolvers, best first: DWARF of a vmlinux or .ko (quality 3), its ELF
 * symbol table alone (2), a kallsyms or System.map file (1).  An address
 * in damaged DWARF (dwarfsyms.h) gets the symbol table's row (2) and a
 * warning naming the file and the damage.  A run looks
 * at the addresses without a row or with a row worse than the best it
 * could give, and writes a row only when it is better than the one
 * present: a second run with the same inputs writes nothing, a better one
 * upgrades, a worse one never downgrades.  All rows are written in one
 * transaction; on error the database is unchanged.
 *
 * Semantics (docs/design.md §4.6): symbol and offset of the address
 * itself; file, line and inline chain of address - 1, the call
 * instruction.
 */
#ifndef MDB_SYMBOLIZE_H
#define MDB_SYMBOLIZE_H

#include <stdint.h>

#include "../common/error.h"
#include "../db/db.h"

struct mdb_sym_opts {
	const char *vmlinux;      /* ELF image of the traced kernel */
	const char *modules_dir;  /* .ko files, searched recursively */
	/* snapshots of the traced boot; NULL: the ones kept with the
	 * source at ingest, if any */
	const char *kallsyms;     /* /proc/kallsyms, or a System.map */
	const char *proc_modules; /* /proc/modules */
	const char *sections;     /* MODULE SECTION ADDRESS lines */
	int have_kaslr;           /* kaslr given: do not derive it */
	uint64_t kaslr;           /* run-time - link-time kernel address */
	int force;                /* drop the source's rows, resolve all */
	/* warnings ("vmlinux has no DWARF ..."); may be NULL */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

enum mdb_kaslr_from {
	MDB_KASLR_NONE,     /* no vmlinux, or nothing to derive it from: 0 */
	MDB_KASLR_GIVEN,    /* --kaslr-offset */
	MDB_KASLR_KALLSYMS, /* kallsyms anchor minus vmlinux anchor */
};

struct mdb_sym_result {
	int64_t source_id;
	uint64_t sites;       /* distinct call-site addresses of the source */
	uint64_t zero_sites;  /* of which address 0 (no caller recorded) */
	uint64_t looked_at;   /* addresses resolved by this run */
	uint64_t written;     /* rows added or upgraded */
	uint64_t by_quality[4]; /* rows of the source after the run */
	uint64_t unknown;     /* addresses still '??' */
	uint64_t damaged;     /* looked at in damaged DWARF: kept at the
			       * symbol table's quality, without file:line */
	uint64_t kaslr;
	enum mdb_kaslr_from kaslr_from;
	const char *anchor;   /* symbol the offset was derived from */
	char kallsyms_from[64]; /* "option", "source", "" */
};

/*
 * Symbolize source @source_id of @db (opened writable) with @o.
 * Returns 0, or a negative MDB_E_* code with @e filled and the database
 * untouched.
 */
int mdb_symbolize(struct mdb_db *db, int64_t source_id,
		  const struct mdb_sym_opts *o, struct mdb_sym_result *r,
		  struct mdb_error *e);

/*
 * mdb_symbolize() for each source of ids @lo to @hi that exists, @done
 * told of each result; over more than one source, one with nothing to
 * resolve its call sites with is passed over, @skipped told (both may
 * be NULL).  0, or the first failure's negative MDB_E_* code, @e filled.
 */
int mdb_symbolize_range(struct mdb_db *db, int64_t lo, int64_t hi,
			const struct mdb_sym_opts *o,
			void (*done)(void *ctx, const struct mdb_sym_result *r),
			void (*skipped)(void *ctx, int64_t id), void *ctx,
			struct mdb_error *e);

#endif
