// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the core-dump reader.  The first byte chooses what
 * reads the rest:
 *   00  makedumpfile's flattened format (reassembled into a temporary
 *       file, as ingest does)
 *   01  the VMCOREINFO note, then its lookups
 *   02  the kernel's BTF through the type-lookup interface the walks use
 *   03  a whole dump opened through libkdumpfile (ELF, kdump-compressed)
 *       up to its VMCOREINFO, from a memory file
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../ingest/vmcore/vmcore.h"
#include "../ingest/vmcore/vmdump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int noop(void *ctx, const char *name, size_t len, uint64_t v)
{
	(void)ctx;
	(void)name;
	(void)len;
	(void)v;
	return 0;
}

static void info(const uint8_t *data, size_t size)
{
	struct vm_info vi;
	struct mdb_error e;
	uint64_t a;
	size_t n;

	if (vm_info_parse(&vi, (const char *)data, size, "fuzz", &e))
		return;
	vm_info_symbol(&vi, "init_uts_ns", &a);
	vm_info_get(&vi, "KERNELOFFSET", &n);
	vm_info_each_symbol(&vi, noop, NULL);
	vm_info_release(&vi);
}

static void types(const uint8_t *data, size_t size)
{
	static const char *const q[][2] = {
		{ "struct kmem_cache", "node" }, { "struct slab", "objects" },
		{ "struct slab", "slab_list.next" }, { "struct zone", "name" },
		{ "struct free_area", "free_list" },
	};
	struct vm_types t;
	struct vm_member m;
	struct mdb_error e;
	uint64_t s;
	int64_t v;

	if (vm_types_btf(&t, data, size, "fuzz", &e))
		return;
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		t.size(t.priv, q[i][0], &s);
		t.member(t.priv, q[i][0], q[i][1], &m);
	}
	t.enumval(t.priv, "MIGRATE_MOVABLE", &v);
	vm_types_release(&t);
}

static void whole(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct vm_dump d;
	struct mdb_error e;

	if (fd < 0 && (fd = memfd_create("fuzz_vmcore", MFD_CLOEXEC)) < 0)
		return;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return;
	memset(&d, 0, sizeof(d));
	vm_dump_open(&d, "fuzz", fd, NULL, NULL, &e);
	vm_dump_close(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	struct mdb_error e;

	if (!size)
		return 0;
	switch (data[0]) {
	case 0:
		if (!vm_flat_reassemble(data + 1, size - 1, "fuzz", &fd, &e))
			close(fd);
		break;
	case 1:
		info(data + 1, size - 1);
		break;
	case 2:
		types(data + 1, size - 1);
		break;
	case 3:
		whole(data + 1, size - 1);
		break;
	}
	return 0;
}
