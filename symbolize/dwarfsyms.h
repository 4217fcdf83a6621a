/* SPDX-License-Identifier: MIT */
/*
 * One ELF file (a vmlinux, a .ko, possibly compressed) opened offline with
 * libdwfl, and source lookups in its DWARF: file:line from the line
 * table (dwfl_module_getsrc) and the inline chain as eu-addr2line -f -i
 * prints it.
 *
 * Addresses here are libdwfl's: the ELF address plus dw_image.bias for an
 * executable, section address (mdb_dw_section_addr) plus offset for a
 * relocatable object, as eu-addr2line -j SECTION places them.
 *
 * The inline chain is found without dwarf_getscopes, which walks its
 * compile unit's top-level DIEs on every call: the top-level DIEs holding
 * code are indexed once per unit (by address), and each lookup descends
 * only the one function holding the address, choosing at every level
 * what dwarf_getscopes would (the first DIE, in DIE order, whose ranges
 * contain it).  A unit that imports partial units falls back to
 * dwarf_getscopes.
 */
#ifndef MDB_SYM_DWARF_H
#define MDB_SYM_DWARF_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/u64map.h"

struct dw_cu;

struct dw_image {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;            /* the file's ELF, owned by libdwfl */
	GElf_Addr bias;      /* libdwfl address - ELF address */
	int e_type;          /* ET_EXEC, ET_DYN, ET_REL */
	Dwarf *dw;           /* NULL: no usable DWARF */
	char nodwarf[160];   /* why not, for the warning */
	struct u64map cu_map; /* CU DIE offset -> index + 1 in cus */
	struct dw_cu *cus;
	size_t ncus, cu_cap;
	char *buf;           /* inline chain being built */
	size_t len, cap;
	/* address span of the allocated sections (not for ET_REL): line
	 * rows outside it are discarded code (linker tombstones) */
	uint64_t span_lo, span_hi;
	/* damage found: the units whose lookups are not to be trusted */
	int broken;          /* the unit headers cannot be read: all */
	size_t ndamaged;     /* units found damaged so far */
	char *damage;        /* what the first one was, for the warning */
};

/* What mdb_dw_lookup() found; strings are malloc'ed (NULL when unknown). */
struct dw_loc {
	char *file;
	int64_t line;      /* -1 when no line */
	char *inlines;     /* "f (file:line) <- caller (file:line) ...", or
			    * NULL when the address is in no inlined code */
	int damaged;       /* the address's unit is damaged: no answer */
};

/*
 * Open @path.  Fails with a clear message when it is not an ELF file (a
 * vmlinuz, a text file ...).  Missing DWARF is not an error: dw is NULL
 * and nodwarf says why.
 */
int mdb_dw_open(struct dw_image *im, const char *path, struct mdb_error *e);

void mdb_dw_close(struct dw_image *im);

/* libdwfl address of section @shndx of a relocatable file; -1 if none. */
int mdb_dw_section_addr(const struct dw_image *im, size_t shndx, uint64_t *addr);

/*
 * Source of the instruction at libdwfl address @a (0, or -MDB_E_NOMEM).
 *
 * Damaged DWARF gives no answer rather than a wrong one: the first
 * lookup in a compile unit checks it (libdw reads its line table, DIEs
 * and address ranges without error; every line row in the image's
 * sections lies in the unit's ranges, with a valid file and a plausible
 * line; every function the unit describes starts at a line row), and an
 * address in a unit that fails, or in any unit when the unit headers
 * cannot be read, comes back with loc->damaged set and nothing else.
 * im->ndamaged and im->damage say what was found.
 */
int mdb_dw_lookup(struct dw_image *im, uint64_t a, struct dw_loc *loc);

void mdb_dw_loc_release(struct dw_loc *loc);

#endif
