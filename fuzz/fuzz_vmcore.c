// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the core-dump reader.  The first byte chooses what
 * reads the rest:
 *   00  makedumpfile's flattened format (reassembled into a temporary
 *       file, as ingest does)
 *   01  the VMCOREINFO note, then its lookups
 *   02  the kernel's BTF through the type-lookup interface the walks use
 *   03  a whole dump opened through libkdumpfile (ELF, kdump-compressed)
 *       up to its VMCOREINFO, from a memory file, once the checks ingest
 *       makes first let it through
 *   04  the alloc_tag walk over a fake kernel memory: a count of tags
 *       and a tail of 0-7 bytes, then the memory at __start_alloc_tags
 *       (tags, strings, per-CPU counters wherever the bytes point), two
 *       CPUs, the 6.10 layout's types built here once
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

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

	if (mdb_vm_info_parse(&vi, (const char *)data, size, "fuzz", &e))
		return;
	mdb_vm_info_symbol(&vi, "init_uts_ns", &a);
	mdb_vm_info_get(&vi, "KERNELOFFSET", &n);
	mdb_vm_info_each_symbol(&vi, noop, NULL);
	mdb_vm_info_release(&vi);
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

	if (mdb_vm_types_btf(&t, data, size, "fuzz", &e))
		return;
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		t.size(t.priv, q[i][0], &s);
		t.member(t.priv, q[i][0], q[i][1], &m);
	}
	t.enumval(t.priv, "MIGRATE_MOVABLE", &v);
	mdb_vm_types_release(&t);
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
	/* what ingest checks before libkdumpfile sees the file */
	memset(&d, 0, sizeof(d));
	if (mdb_vm_elf_check("fuzz", data, size, &e) ||
	    mdb_vm_diskdump_check("fuzz", data, size, &d.dd, &e))
		return;
	mdb_vm_dump_open(&d, "fuzz", fd, NULL, NULL, NULL, &e);
	mdb_vm_dump_close(&d);
}

/* ---- 04: the alloc_tag walk ---------------------------------------- */

#define TAGS_AT 0xffffffff82000000ull

struct mem {
	const uint8_t *p;
	size_t len;
};

/* The input's bytes at TAGS_AT, zeros to the end of their last page
 * (a dump holds whole pages). */
static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = ctx;
	size_t pages = (m->len + 4095) & ~(size_t)4095, off, n;

	if (addr < TAGS_AT || addr - TAGS_AT > pages ||
	    len > pages - (addr - TAGS_AT))
		return -1;
	off = (size_t)(addr - TAGS_AT);
	n = off < m->len ? m->len - off : 0;
	if (n > len)
		n = len;
	memcpy(buf, m->p + off, n);
	memset((uint8_t *)buf + n, 0, len - n);
	return 0;
}

static uint64_t tags_stop;

static int mem_sym(void *ctx, const char *name, uint64_t *addr)
{
	(void)ctx;
	if (!strcmp(name, "__start_alloc_tags"))
		*addr = TAGS_AT;
	else if (!strcmp(name, "__stop_alloc_tags"))
		*addr = tags_stop;
	else
		return -1;
	return 0;
}

static int tag_noop(void *ctx, const struct vm_tag *t)
{
	(void)ctx;
	return t->file[0] && t->function[0] ? 0 : -1;
}

/* struct codetag, alloc_tag_counters, alloc_tag as 6.10 has them. */
static const struct vm_types *tag_types(void)
{
	static struct vm_types t;
	static int done;
	struct btf *b;
	struct mdb_error e;
	const void *raw;
	uint32_t len;
	int u32, u64, str, ct, cnt;

	if (done)
		return t.priv ? &t : NULL;
	done = 1;
	if (!(b = btf__new_empty()))
		return NULL;
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	str = btf__add_ptr(b, btf__add_const(b, btf__add_int(b, "char", 1,
							    BTF_INT_SIGNED)));
	ct = btf__add_struct(b, "codetag", 32);
	btf__add_field(b, "flags", u32, 0, 0);
	btf__add_field(b, "lineno", u32, 32, 0);
	btf__add_field(b, "modname", str, 64, 0);
	btf__add_field(b, "function", str, 128, 0);
	btf__add_field(b, "filename", str, 192, 0);
	cnt = btf__add_struct(b, "alloc_tag_counters", 16);
	btf__add_field(b, "bytes", u64, 0, 0);
	btf__add_field(b, "calls", u64, 64, 0);
	cnt = btf__add_ptr(b, cnt); /* before the struct its field is in */
	btf__add_struct(b, "alloc_tag", 40);
	btf__add_field(b, "ct", ct, 0, 0);
	btf__add_field(b, "counters", cnt, 256, 0);
	raw = btf__raw_data(b, &len);
	if (!raw || mdb_vm_types_btf(&t, raw, len, "fuzz", &e))
		memset(&t, 0, sizeof(t));
	btf__free(b);
	return t.priv ? &t : NULL;
}

static void alloctag(const uint8_t *data, size_t size)
{
	static uint64_t cpu_offset[2] = { 0, 0x100 };
	struct mem m;
	struct vm_ctx c = { 0 };
	struct vm_tag_stats st;

	if (size < 2 || !(c.types = tag_types()))
		return;
	m.p = data + 2;
	m.len = size - 2;
	tags_stop = TAGS_AT + 40ull * data[0] + (data[1] & 7);
	c.read = mem_read;
	c.read_ctx = &m;
	c.sym = mem_sym;
	c.name = "fuzz";
	c.page_size = 4096;
	c.ncpus = 2;
	c.cpu_offset = cpu_offset;
	c.max_steps = 1u << 20;
	mdb_vm_alloctag_walk(&c, tag_noop, NULL, &st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	struct mdb_error e;

	if (!size)
		return 0;
	switch (data[0]) {
	case 0:
		if (!mdb_vm_flat_reassemble(data + 1, size - 1, "fuzz", &fd, &e))
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
	case 4:
		alloctag(data + 1, size - 1);
		break;
	}
	return 0;
}
