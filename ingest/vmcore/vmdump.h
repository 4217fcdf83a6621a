/* SPDX-License-Identifier: MIT */
/*
 * An opened kernel core dump (dump.c): libkdumpfile's handle, the
 * VMCOREINFO, the symbols and types, and the struct vm_ctx the walks
 * read through.
 */
#ifndef MDB_VMDUMP_H
#define MDB_VMDUMP_H

#include <libkdumpfile/kdumpfile.h>

#include "../../common/u64map.h"
#include "../kallsyms.h"
#include "vmcore.h"

struct vm_dump {
	const char *name;
	kdump_ctx_t *k;
	struct vm_info info;
	struct vm_dd_arch dd;    /* a kdump-compressed file's notes */
	struct kallsyms ks;
	int have_ks;
	struct u64map vsyms;     /* a vmlinux's: hash(name) -> value */
	int have_vsyms;
	uint64_t delta;          /* added to the file's symbol values */
	struct vm_types types;
	struct vm_ctx c;
	kdump_status last;       /* of the last failed read */
	uint64_t last_addr;
	uint64_t filtered;       /* reads of pages the dump does not hold */
	/* reads that failed in the file (not filtered, not unmapped) */
	uint64_t bad_reads, bad_addr;
	kdump_status bad_status;
	char bad_msg[160];
};

/*
 * Open the dump on descriptor @fd (kept open by the caller while @d is
 * used), with the symbols of @kallsyms and the types of the dump's BTF,
 * or of the BTF file @btf; or both from @vmlinux.  On error @d must
 * still be closed with mdb_vm_dump_close().
 */
int mdb_vm_dump_open(struct vm_dump *d, const char *name, int fd,
		     const char *kallsyms, const char *vmlinux, const char *btf,
		     struct mdb_error *e);

/*
 * The symbol table of @vmlinux into d->vsyms, once its build id is
 * found equal to VMCOREINFO's BUILD-ID (else refused naming both); KASLR
 * moves them by KERNELOFFSET (vmlinux.c).
 */
int mdb_vm_vmlinux_symbols(struct vm_dump *d, const char *vmlinux,
			   struct mdb_error *e);
void mdb_vm_dump_close(struct vm_dump *d);

#endif
