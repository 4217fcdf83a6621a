/* SPDX-License-Identifier: MIT */
/*
 * The function table of an ELF file, built once from its symbol table
 * with libelf and sorted by address, so that finding the function of an
 * address is a binary search (elfutils 0.188's dwfl_module_addrinfo
 * scans the whole symbol table on every call).
 *
 * Functions are STT_FUNC (and STT_GNU_IFUNC) symbols, and the labels of
 * hand-written assembly: STT_NOTYPE symbols in an executable section
 * (the kernel's SYM_CODE_START and SYM_INNER_LABEL: asm_exc_nmi_noist,
 * srso_return_thunk, identity_mapped), which kallsyms lists as text as
 * well.  A function covers [addr, addr + st_size): an address past its
 * end is in no function, never "the nearest one".  A function without a
 * size extends to the next function, the end of its section, or the end
 * of a sized function holding it, whichever comes first.  A label inside
 * a sized function names the code after it, as the kernel's %pS does
 * (eu-addr2line names the enclosing one there).
 *
 * Aliases (several names at one address) are resolved as the kernel's
 * scripts/kallsyms orders them, so a vmlinux and a kallsyms snapshot of
 * it name call sites alike: a non-weak name before a weak one, then one
 * a linker script does not provide (__start_X, __X_end ...), then fewer
 * leading underscores, then symbol table order.
 */
#ifndef MDB_ELFSYMS_H
#define MDB_ELFSYMS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

struct elfsym {
	uint64_t addr;
	uint64_t size;     /* st_size, or the extent of a size-less symbol */
	const char *name;  /* in the Elf's string table: lives as the Elf */
};

struct elfsyms {
	struct elfsym *syms;  /* by address, one per address */
	size_t n;
	uint64_t *max_end;    /* max_end[i]: highest end of syms[0..i] */
	size_t nsymtab;       /* entries in the symbol table read */
	/* _stext and _text, any symbol type: the KASLR anchors */
	int have_stext, have_text;
	uint64_t stext, text;
};

/*
 * Build the table of @elf (@path for messages).  @place is NULL for an
 * executable or shared object (symbol values are addresses); for a
 * relocatable object it gives each section's address by section index
 * (UINT64_MAX: not placed, its symbols are left out), @nplace entries.
 * Errors: no symbol table (-MDB_E_NOTFOUND), no function in it, or a
 * corrupt one.
 */
int mdb_elfsyms_build(struct elfsyms *t, Elf *elf, const char *path,
		      const uint64_t *place, size_t nplace, struct mdb_error *e);

void mdb_elfsyms_release(struct elfsyms *t);

/* The function containing @addr, NULL when none does. */
const struct elfsym *mdb_elfsyms_find(const struct elfsyms *t, uint64_t addr);

#endif
