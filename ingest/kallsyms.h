/* SPDX-License-Identifier: MIT */
/*
 * One reader for /proc/kallsyms snapshots and System.map files, shared by
 * text ingest (symbolic call sites back to addresses) and symbolize/
 * (the fallback resolver, and the KASLR offset from _stext or _text).
 *
 * Lines: "ADDR TYPE NAME" with an optional "\t[MODULE]" (kallsyms).
 * kallsyms and System.map carry no symbol sizes: a symbol is taken to
 * extend to the next higher address in the file, and the last one has
 * no known extent.  Only text symbols (t, T, w, W) are functions.
 */
#ifndef MDB_KALLSYMS_H
#define MDB_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

struct ksym {
	uint64_t addr;
	uint64_t size;   /* up to the next higher address; 0 for the last */
	uint32_t name;   /* offset of the name in strtab */
	uint32_t module; /* offset of the module name; 0 = the kernel image */
	char type;       /* the nm-style type letter */
};

struct kallsyms {
	struct ksym *syms;   /* by address; aliases keep their file order */
	size_t n;
	char *strtab;        /* strtab[0] is "" (no module) */
	size_t strtab_len, strtab_cap;
	uint32_t *by_name;   /* indices of text symbols by (name, module) */
	size_t nby_name;
	uint64_t lines;      /* lines read */
	uint64_t malformed;  /* lines that are not "ADDR TYPE NAME" */
	int64_t first_bad_line;
	int has_modules;     /* some line carried [module] (kallsyms) */
};

/*
 * Parse @buf.  Garbage lines are counted (malformed, first_bad_line),
 * not fatal.  Errors: no symbol at all (-MDB_E_FORMAT, line of the
 * first bad line), or every address zero (-MDB_E_INVAL: the snapshot was
 * read without privilege, kernel.kptr_restrict).  @name is for messages.
 */
int mdb_kallsyms_parse(struct kallsyms *k, const void *buf, size_t len,
		       const char *name, struct mdb_error *e);

/* Map @path and parse it. */
int mdb_kallsyms_load(struct kallsyms *k, const char *path, struct mdb_error *e);

void mdb_kallsyms_release(struct kallsyms *k);

/*
 * The function containing @addr, NULL when there is none: before the
 * first symbol, at or past the end of the last one, or when the nearest
 * symbol at or below @addr is not text.  Of aliases (one address, several
 * names) the first in the file is returned, as the kernel's %pS does.
 */
const struct ksym *mdb_kallsyms_find(const struct kallsyms *k, uint64_t addr);

static inline const char *kallsyms_name(const struct kallsyms *k,
					const struct ksym *s)
{
	return k->strtab + s->name;
}

/* Module of @s, NULL for the kernel image. */
static inline const char *kallsyms_module(const struct kallsyms *k,
					  const struct ksym *s)
{
	return s->module ? k->strtab + s->module : NULL;
}

/*
 * Address of the text symbol @name (@len bytes) in @module (@mlen bytes;
 * mlen 0 = the kernel image).  Returns 0 with *@addr set, -1 when absent.
 * A name defined twice (static functions) gives the first in the file.
 */
int mdb_kallsyms_addr(const struct kallsyms *k, const char *name, size_t len,
		      const char *module, size_t mlen, uint64_t *addr);

/*
 * mdb_kallsyms_addr() for a function printed with its size, as %pS prints
 * "func+0xoff/0xsize": of several text symbols called @name in @module
 * (static functions), the one whose extent is @size.  Returns 0 with
 * *@addr set, 1 with *@addr set to the first when none has that size
 * (or @size is 0 and there are several), -1 when absent.
 */
int mdb_kallsyms_addr_sized(const struct kallsyms *k, const char *name,
			    size_t len, const char *module, size_t mlen,
			    uint64_t size, uint64_t *addr);

/* Address of a symbol of any type called @name in the kernel image. */
int mdb_kallsyms_any_addr(const struct kallsyms *k, const char *name,
			  uint64_t *addr);

#endif
