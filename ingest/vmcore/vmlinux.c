// SPDX-License-Identifier: MIT
/*
 * A debug vmlinux as the source of a dump's symbols (its DWARF gives the
 * types, ktypes_dwarf.c): accepted only when its GNU build id equals
 * VMCOREINFO's BUILD-ID, its symbol values then moved by KERNELOFFSET.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "vmdump.h"

#define BUILD_ID_MAX 64

static int read_symtab(struct vm_dump *d, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    !(n = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    !*n || sym.st_shndx == SHN_UNDEF)
				continue;
			if (!mdb_u64map_get(&d->vsyms, XXH64(n, strlen(n), 0)) &&
			    !mdb_u64map_put(&d->vsyms, XXH64(n, strlen(n), 0),
					    sym.st_value, NULL))
				return -1;
		}
		return 0;
	}
	return 1;
}

static int check_build_id(struct vm_dump *d, Elf *elf, const char *path,
			  struct mdb_error *e)
{
	const void *id = NULL;
	char hex[2 * BUILD_ID_MAX + 1] = "";
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

	for (ssize_t i = 0; i < n && i < BUILD_ID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", ((const uint8_t *)id)[i]);
	if (!d->info.build_id[0])
		return mdb_error_fail(e, MDB_E_INVAL, d->name, -1, -1,
				      "the dump's VMCOREINFO has no BUILD-ID "
				      "to check the vmlinux against",
				      "give --kallsyms instead");
	if (n <= 0 || strcasecmp(hex, d->info.build_id)) {
		mdb_error_set(e, MDB_E_INVAL, path, -1, -1,
			      "vmlinux_build_id=%s dump_build_id=%s",
			      n > 0 ? hex : "none", d->info.build_id);
		mdb_error_msg(e, "the vmlinux is not the dumped kernel");
		return -MDB_E_INVAL;
	}
	return 0;
}

int mdb_vm_vmlinux_symbols(struct vm_dump *d, const char *vmlinux,
			   struct mdb_error *e)
{
	int fd = open(vmlinux, O_RDONLY | O_CLOEXEC), ret;
	Elf *elf;

	if (fd < 0)
		return mdb_error_set(e, MDB_E_IO, vmlinux, -1, -1, "%s",
				     strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = mdb_error_fail(e, MDB_E_FORMAT, vmlinux, 0, -1,
				     "not an ELF file (a vmlinux)", NULL);
		goto out;
	}
	if ((ret = check_build_id(d, elf, vmlinux, e)))
		goto out;
	mdb_u64map_init(&d->vsyms);
	d->have_vsyms = 1;
	ret = read_symtab(d, elf);
	if (ret)
		ret = ret < 0 ? mdb_error_set(e, MDB_E_NOMEM, vmlinux, -1, -1,
					      NULL) :
				mdb_error_fail(e, MDB_E_FORMAT, vmlinux, -1, -1,
					       "no symbol table in the vmlinux",
					       NULL);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
