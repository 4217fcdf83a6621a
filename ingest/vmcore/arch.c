// SPDX-License-Identifier: MIT
/*
 * What depends on the architecture, in one place: where the direct map
 * (the kernel's address of physical memory) and the struct page array
 * are, and which addresses are the kernel image's (those KASLR moves).
 * The word size, byte order and page size come from the dump; per-CPU
 * data is the __per_cpu_offset array on all of them.
 *
 *   x86_64   both move with KASLR: page_offset_base, vmemmap_base
 *   aarch64  VMCOREINFO: the linear map at -(1 << VA_BITS) holds
 *            PHYS_OFFSET (memstart_addr) at its start; vmemmap is
 *            VMEMMAP_START less PHYS_OFFSET's struct pages
 *   ia32     the direct map: high_memory - max_low_pfn pages; FLATMEM,
 *            mem_map is pfn 0's struct page
 *   s390x    6.1 maps physical memory 1:1 (__identity_base since 6.7);
 *            the vmemmap variable
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmcore.h"

#define MAX_CPUS 65536
#define MAX_NODES 1024
#define START_KERNEL_MAP 0xffffffff80000000ull /* x86-64 __START_KERNEL_map */

struct vm_arch {
	const char *name;   /* libkdumpfile's */
	/* c->page_offset and c->vmemmap (c->page_struct known) */
	int (*map)(struct vm_ctx *c, struct mdb_error *e);
	int (*image)(uint64_t addr);
};

static int arch_sym_ptr(struct vm_ctx *c, const char *sym, uint64_t *v,
			struct mdb_error *e)
{
	uint64_t a;

	if (c->sym(c->sym_ctx, sym, &a))
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "a kernel symbol the reader needs is "
				      "missing", sym);
	if (mdb_vm_read_ptr(c, a, v)) {
		mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
			      "symbol=%s addr=0x%llx", sym,
			      (unsigned long long)a);
		mdb_error_msg(e, "cannot read a kernel variable from the dump");
		return -MDB_E_CORRUPT;
	}
	return 0;
}

static int arch_sym_u32(struct vm_ctx *c, const char *sym, uint32_t *v,
			uint32_t max, struct mdb_error *e)
{
	uint64_t a;

	if (c->sym(c->sym_ctx, sym, &a) || mdb_vm_read_u32(c, a, v) || !*v ||
	    *v > max) {
		mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
			      "symbol=%s value=%u", sym, *v);
		mdb_error_msg(e, "cannot read a kernel variable from the dump");
		return -MDB_E_CORRUPT;
	}
	return 0;
}

/* NUMBER(@key) of VMCOREINFO (hex with 0x, else decimal): 0 or -1. */
static int info_number(const struct vm_ctx *c, const char *key, uint64_t *v)
{
	char k[64], buf[32], *end;
	const char *s;
	size_t n;

	snprintf(k, sizeof(k), "NUMBER(%s)", key);
	s = c->info ? mdb_vm_info_get(c->info, k, &n) : NULL;
	if (!s || !n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtoull(buf, &end, 0);
	return *end ? -1 : 0;
}

static int need_number(const struct vm_ctx *c, const char *key, uint64_t *v,
		       struct mdb_error *e)
{
	if (!info_number(c, key, v))
		return 0;
	mdb_error_set(e, MDB_E_FORMAT, c->name, -1, -1, "key=NUMBER(%s)", key);
	mdb_error_msg(e, "the dump's VMCOREINFO lacks a line the %s reader "
			 "needs", mdb_vm_arch_name(c->arch));
	return -MDB_E_FORMAT;
}

/* ---- x86-64 ----------------------------------------------------------- */

static int x86_64_map(struct vm_ctx *c, struct mdb_error *e)
{
	int ret;

	if ((ret = arch_sym_ptr(c, "page_offset_base", &c->page_offset, e)) ||
	    (ret = arch_sym_ptr(c, "vmemmap_base", &c->vmemmap, e)))
		return ret;
	return 0;
}

static int x86_64_image(uint64_t addr)
{
	return addr >= START_KERNEL_MAP;
}

/* ---- arm64 (arch/arm64/include/asm/memory.h, 5.11+) ------------------- */

static int arm64_map(struct vm_ctx *c, struct mdb_error *e)
{
	uint64_t va_bits, phys, vmemmap_start;
	int ret;

	if ((ret = need_number(c, "VA_BITS", &va_bits, e)) ||
	    (ret = need_number(c, "PHYS_OFFSET", &phys, e)) ||
	    (ret = need_number(c, "VMEMMAP_START", &vmemmap_start, e)))
		return ret;
	if (va_bits < 36 || va_bits > 52)
		return mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
				     "NUMBER(VA_BITS)=%llu",
				     (unsigned long long)va_bits);
	/* __va(p) = (p - PHYS_OFFSET) | PAGE_OFFSET, PAGE_OFFSET =
	 * -(1 << VA_BITS): physical 0 (wrapping) is PAGE_OFFSET - PHYS_OFFSET */
	c->page_offset = -(1ull << va_bits) - phys;
	/* vmemmap = (struct page *)VMEMMAP_START - (memstart_addr >>
	 * PAGE_SHIFT) */
	c->vmemmap = vmemmap_start - phys / c->page_size * c->page_struct;
	return 0;
}

/* Above the linear map: image, modules, vmalloc (48-bit VA; the image of
 * a 39-bit VA kernel is above ffffffc000000000, also above this). */
static int arm64_image(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}

/* ---- i386 (32-bit, PAE or not) --------------------------------------- */

static int ia32_map(struct vm_ctx *c, struct mdb_error *e)
{
	uint64_t high, low_pfn;
	int ret;

	/* high_memory = __va(max_low_pfn << PAGE_SHIFT): the direct map's
	 * end; slabs live in lowmem, below it */
	if ((ret = arch_sym_ptr(c, "high_memory", &high, e)) ||
	    (ret = arch_sym_ptr(c, "max_low_pfn", &low_pfn, e)) ||
	    (ret = arch_sym_ptr(c, "mem_map", &c->vmemmap, e)))
		return ret;
	if (low_pfn * c->page_size > high)
		return mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
				     "high_memory=0x%llx max_low_pfn=%llu",
				     (unsigned long long)high,
				     (unsigned long long)low_pfn);
	c->page_offset = high - low_pfn * c->page_size;
	if (c->page_offset != VM_IA32_PAGE_OFFSET) {
		mdb_error_set(e, MDB_E_FORMAT, c->name, -1, -1,
			      "page_offset=0x%llx",
			      (unsigned long long)c->page_offset);
		mdb_error_msg(e, "an i386 kernel whose direct map is not at "
				 "0xc0000000 (not the 3G/1G split), where "
				 "libkdumpfile looks for its page tables");
		return -MDB_E_FORMAT;
	}
	return 0;
}

/* Every symbol of a 32-bit kernel is above PAGE_OFFSET (at least 1 GiB,
 * VMSPLIT_1G) and in the image or its modules. */
static int ia32_image(uint64_t addr)
{
	return addr >= 0x40000000u;
}

/* ---- s390x ------------------------------------------------------------ */

static int s390x_map(struct vm_ctx *c, struct mdb_error *e)
{
	uint64_t a;
	int ret;

	c->page_offset = 0;
	if (!c->sym(c->sym_ctx, "__identity_base", &a) &&
	    (ret = arch_sym_ptr(c, "__identity_base", &c->page_offset, e)))
		return ret;
	return arch_sym_ptr(c, "vmemmap", &c->vmemmap, e);
}

/* Identity-mapped: the image is where KASLR put it, low in memory; every
 * symbol of a System.map or kallsyms is in it. */
static int s390x_image(uint64_t addr)
{
	(void)addr;
	return 1;
}

static const struct vm_arch arches[] = {
	{ "x86_64", x86_64_map, x86_64_image },
	{ "aarch64", arm64_map, arm64_image },
	{ "ia32", ia32_map, ia32_image },
	{ "s390x", s390x_map, s390x_image },
};

const struct vm_arch *mdb_vm_arch_find(const char *name)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

const char *mdb_vm_arch_name(const struct vm_arch *a)
{
	return (a ? a : &arches[0])->name;
}

const char *mdb_vm_arch_names(void)
{
	return "x86_64, aarch64, ia32, s390x";
}

int mdb_vm_arch_init(struct vm_ctx *c, struct mdb_error *e)
{
	const struct vm_arch *a = c->arch ? c->arch : &arches[0];
	uint64_t pco;
	int ret;

	c->cpu_offset = NULL;
	if (!c->page_size)
		c->page_size = 4096;
	if (mdb_vm_size(c, "struct page") <= 0)
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "no struct page in the kernel's types",
				      NULL);
	c->page_struct = (uint64_t)mdb_vm_size(c, "struct page");
	if ((ret = a->map(c, e)))
		return ret;
	c->nnodes = 1;
	if (!c->sym(c->sym_ctx, "nr_node_ids", &pco) &&
	    (ret = arch_sym_u32(c, "nr_node_ids", &c->nnodes, MAX_NODES, e)))
		return ret;
	if ((ret = arch_sym_u32(c, "nr_cpu_ids", &c->ncpus, MAX_CPUS, e)))
		return ret;
	if (c->sym(c->sym_ctx, "__per_cpu_offset", &pco))
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "a kernel symbol the reader needs is "
				      "missing", "__per_cpu_offset");
	c->cpu_offset = calloc(c->ncpus, sizeof(*c->cpu_offset));
	if (!c->cpu_offset)
		return mdb_error_set(e, MDB_E_NOMEM, c->name, -1, -1, NULL);
	for (uint32_t i = 0; i < c->ncpus; i++)
		if (mdb_vm_read_ptr(c, pco + mdb_vm_word(c) * i, &c->cpu_offset[i]))
			return mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
					     "__per_cpu_offset[%u]", i);
	return 0;
}

void mdb_vm_arch_release(struct vm_ctx *c)
{
	free(c->cpu_offset);
	c->cpu_offset = NULL;
}

int mdb_vm_page_addr(const struct vm_ctx *c, uint64_t page, uint64_t *addr)
{
	uint64_t pfn;

	if (page < c->vmemmap || (page - c->vmemmap) % c->page_struct)
		return -1;
	pfn = (page - c->vmemmap) / c->page_struct;
	if (pfn > (1ull << 40))
		return -1;
	*addr = c->page_offset + pfn * c->page_size;
	if (mdb_vm_word(c) == 4)
		*addr &= 0xffffffffu;
	return 0;
}

uint64_t mdb_vm_percpu(const struct vm_ctx *c, uint64_t ptr, uint32_t cpu)
{
	uint64_t a = ptr + c->cpu_offset[cpu];

	/* a 32-bit kernel's sum wraps at 32 bits */
	return mdb_vm_word(c) == 4 ? a & 0xffffffffu : a;
}

int mdb_vm_arch_image_addr(const struct vm_arch *a, uint64_t addr)
{
	return (a ? a : &arches[0])->image(addr);
}
