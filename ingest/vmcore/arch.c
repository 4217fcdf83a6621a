// SPDX-License-Identifier: MIT
/*
 * What depends on the architecture, in one place: x86-64 today.  The
 * page size comes from the dump; the direct map and the struct page
 * array move with KASLR (page_offset_base, vmemmap_base are variables of
 * the kernel); per-CPU data is the __per_cpu_offset array.  Another
 * architecture is another set of these functions.
 */
#include <stdlib.h>
#include <string.h>

#include "vmcore.h"

#define MAX_CPUS 65536
#define START_KERNEL_MAP 0xffffffff80000000ull /* __START_KERNEL_map */
#define MAX_NODES 1024

static int arch_sym_u64(struct vm_ctx *c, const char *sym, uint64_t *v,
			struct mdb_error *e)
{
	uint64_t a;

	if (c->sym(c->sym_ctx, sym, &a))
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "a kernel symbol the reader needs is "
				      "missing", sym);
	if (vm_read_u64(c, a, v)) {
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

	if (c->sym(c->sym_ctx, sym, &a) || vm_read_u32(c, a, v) || !*v ||
	    *v > max) {
		mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
			      "symbol=%s value=%u", sym, *v);
		mdb_error_msg(e, "cannot read a kernel variable from the dump");
		return -MDB_E_CORRUPT;
	}
	return 0;
}

int vm_arch_init(struct vm_ctx *c, struct mdb_error *e)
{
	uint64_t pco;
	int ret;

	c->cpu_offset = NULL;
	if (!c->page_size)
		c->page_size = 4096;
	if ((ret = arch_sym_u64(c, "page_offset_base", &c->page_offset, e)) ||
	    (ret = arch_sym_u64(c, "vmemmap_base", &c->vmemmap, e)))
		return ret;
	if (vm_size(c, "struct page") <= 0)
		return mdb_error_fail(e, MDB_E_FORMAT, c->name, -1, -1,
				      "no struct page in the kernel's types",
				      NULL);
	c->page_struct = (uint64_t)vm_size(c, "struct page");
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
		if (vm_read_u64(c, pco + 8ull * i, &c->cpu_offset[i]))
			return mdb_error_set(e, MDB_E_CORRUPT, c->name, -1, -1,
					     "__per_cpu_offset[%u]", i);
	return 0;
}

void vm_arch_release(struct vm_ctx *c)
{
	free(c->cpu_offset);
	c->cpu_offset = NULL;
}

int vm_page_addr(const struct vm_ctx *c, uint64_t page, uint64_t *addr)
{
	uint64_t pfn;

	if (page < c->vmemmap || (page - c->vmemmap) % c->page_struct)
		return -1;
	pfn = (page - c->vmemmap) / c->page_struct;
	if (pfn > (1ull << 40))
		return -1;
	*addr = c->page_offset + pfn * c->page_size;
	return 0;
}

uint64_t vm_percpu(const struct vm_ctx *c, uint64_t ptr, uint32_t cpu)
{
	return ptr + c->cpu_offset[cpu];
}

int vm_arch_image_addr(uint64_t addr)
{
	return addr >= START_KERNEL_MAP;
}
