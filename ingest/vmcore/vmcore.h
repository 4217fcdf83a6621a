/* SPDX-License-Identifier: MIT */
/*
 * Linux kernel core dumps (docs/formats.md §6): the pieces of the vmcore
 * reader, private to ingest/vmcore/.
 *
 *  - flat.c: makedumpfile's flattened format, reassembled into a file
 *  - diskdump.c: a kdump-compressed file's structure against its size
 *  - vmcoreinfo.c: the VMCOREINFO note (KEY=VALUE lines)
 *  - ktypes.c: the one type-lookup interface (struct sizes, member
 *    offsets through anonymous members, enum values), BTF backend
 *  - dump.c: libkdumpfile: opening, reading kernel virtual addresses
 *  - arch.c: what depends on the architecture (x86-64, arm64, i386,
 *    s390x: the direct map, the struct page array, the kernel image)
 *  - slub.c, buddy.c: the walks
 *  - alloctag.c: the alloc_tag counters (/proc/allocinfo)
 *  - input.c: the format row's opener and the rows it hands on
 *
 * Nothing here prints or exits; walks report through struct vm_ctx's
 * warn callback and never trust a pointer read from the dump.
 */
#ifndef MDB_VMCORE_H
#define MDB_VMCORE_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/bytes.h"
#include "../../common/error.h"
#include "../snapshot.h"

/* ---- flattened makedumpfile format (flat.c) -------------------------- */

#define VM_FLAT_SIG "makedumpfile"
#define VM_FLAT_HDR 4096

/* Is @buf a flattened dump's header? */
int mdb_vm_flat_probe(const void *buf, size_t len);

/* Reassemble @buf into an unlinked temporary file: its descriptor in *@fd. */
int mdb_vm_flat_reassemble(const void *buf, size_t len, const char *name,
			   int *fd, struct mdb_error *e);

/* ---- kdump-compressed files (diskdump.c) ----------------------------- */

/*
 * What a kdump-compressed file's ELF notes tell of its architecture.
 * libkdumpfile takes the machine from the header's utsname only when its
 * sysname is filled in, which QEMU's dump-guest-memory leaves empty (its
 * machine field holds "S390X", "i686", "x86_64" or "Unknown").  The
 * notes QEMU writes for each CPU differ per target (target/ARCH/
 * arch_dump.c): NT_PRSTATUS is 144 bytes on i386, 336 on x86-64 and
 * s390x, 392 on arm64; x86 adds a "QEMU" note, s390x its NT_S390_*.
 */
struct vm_dd_arch {
	int checked;             /* a kdump-compressed file was read */
	enum mdb_order order;    /* of the header */
	unsigned word;           /* the header's long: 4 or 8 bytes */
	uint32_t block_size;
	uint64_t notes;          /* ELF notes in the sub-header */
	uint64_t prstatus;       /* "CORE" NT_PRSTATUS notes */
	uint32_t prstatus_size;  /* their size: 0 if none, or if unequal */
	uint64_t qemu;           /* "QEMU" notes (x86's QEMUCPUState) */
	uint64_t s390;           /* "LINUX" notes NT_S390_* (0x300-0x3ff) */
};

/*
 * A kdump-compressed file in @buf (anything else: 0) whose header,
 * sub-header, notes, bitmaps, page descriptors and page data all lie in
 * the file with possible sizes; else -MDB_E_TRUNCATED or -MDB_E_CORRUPT
 * with @e naming @path, the offset and the field or part.  @arch (if not
 * NULL) gets what its notes tell of its architecture.
 */
int mdb_vm_diskdump_check(const char *path, const void *buf, size_t len,
			  struct vm_dd_arch *arch, struct mdb_error *e);

/* The libkdumpfile name of the architecture @a's notes tell for certain,
 * else NULL. */
const char *mdb_vm_dd_arch_name(const struct vm_dd_arch *a);

/*
 * An ELF core in @buf (anything else: 0) whose program headers and
 * PT_LOAD data lie in the file; else -MDB_E_TRUNCATED naming @path and
 * the offset (vminput.c).
 */
int mdb_vm_elf_check(const char *path, const uint8_t *buf, size_t len,
		     struct mdb_error *e);

/* ---- VMCOREINFO (vmcoreinfo.c) ---------------------------------------- */

struct vm_info {
	char *text;            /* the note, NUL-terminated (owned) */
	char release[65];      /* OSRELEASE */
	char build_id[65];     /* BUILD-ID, hex */
	uint64_t kernel_offset; /* KERNELOFFSET (KASLR), 0 when absent */
	uint64_t page_size;    /* PAGESIZE, 0 when absent */
	int64_t crash_time;    /* CRASHTIME, -1 when absent */
};

/*
 * Parse the VMCOREINFO text @buf (@len bytes; copied).  Lines are
 * KEY=VALUE; a line without '=' or a malformed number of a key memdb uses
 * is an error naming @name and the line.
 */
int mdb_vm_info_parse(struct vm_info *vi, const char *buf, size_t len,
		      const char *name, struct mdb_error *e);
void mdb_vm_info_release(struct vm_info *vi);
/* Value of KEY (the text after "KEY="), its length in *@vlen; NULL. */
const char *mdb_vm_info_get(const struct vm_info *vi, const char *key,
			    size_t *vlen);
/* SYMBOL(@sym) as a number: 0, or -1 when absent or malformed. */
int mdb_vm_info_symbol(const struct vm_info *vi, const char *sym,
		       uint64_t *addr);
/* Each SYMBOL(name)=value line in turn: @fn(ctx, name, len, value). */
int mdb_vm_info_each_symbol(const struct vm_info *vi,
			    int (*fn)(void *ctx, const char *name, size_t len,
				      uint64_t value),
			    void *ctx);

/* ---- kernel types (ktypes.c) ------------------------------------------ */

struct vm_member {
	uint64_t bit_off;  /* from the start of the outer type */
	uint32_t bit_size; /* bitfields: their width; else 0 */
	uint64_t size;     /* bytes of the member's type */
	uint64_t nelem;    /* arrays: element count; else 0 */
	uint64_t elem_size;
};

struct vm_types {
	void *priv;
	const char *what; /* "BTF" or "DWARF", for messages */
	/* "struct kmem_cache", "union x" or a typedef name: its size */
	int (*size)(void *priv, const char *type, uint64_t *size);
	/* member "a.b" of @type, through anonymous structs and unions */
	int (*member)(void *priv, const char *type, const char *member,
		      struct vm_member *m);
	/* value of enumerator @name of any enum */
	int (*enumval)(void *priv, const char *name, int64_t *v);
	void (*release)(void *priv);
};

/* BTF from raw bytes (read out of the dump); 0 or -MDB_E_CORRUPT. */
int mdb_vm_types_btf(struct vm_types *t, const void *raw, size_t len,
		     const char *name, struct mdb_error *e);
/* DWARF of the vmlinux at @path (ktypes_dwarf.c); 0 or <0. */
int mdb_vm_types_dwarf(struct vm_types *t, const char *path, struct mdb_error *e);
void mdb_vm_types_release(struct vm_types *t);

/* ---- the dump (dump.c) ------------------------------------------------ */

struct vm_dump;
struct vm_arch;

/* Read @len bytes at kernel virtual address @addr: 0, or -1 (see err). */
typedef int (*vm_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/*
 * What the walks need: memory, types, symbols, the architecture's
 * constants, and where warnings go.
 */
struct vm_ctx {
	vm_read_fn read;
	void *read_ctx;
	const struct vm_types *types;
	int (*sym)(void *ctx, const char *name, uint64_t *addr);
	void *sym_ctx;
	void (*warn)(void *ctx, const struct mdb_error *w);
	void *warn_ctx;
	const char *name;        /* the dump, for messages */
	/* the architecture (arch.c); NULL: x86-64 (the tests' fake kernels) */
	const struct vm_arch *arch;
	const struct vm_info *info; /* VMCOREINFO: the architecture's keys */
	unsigned ptr_size;       /* the dumped kernel's long and pointer; 0: 8 */
	enum mdb_order order;    /* its byte order; unknown: little-endian */
	uint64_t page_size;
	uint64_t page_offset;    /* direct map: the address of physical 0 */
	uint64_t vmemmap;        /* the struct page of pfn 0 */
	uint64_t page_struct;    /* sizeof(struct page) */
	uint32_t ncpus;          /* nr_cpu_ids */
	uint64_t *cpu_offset;    /* __per_cpu_offset[ncpus] (owned) */
	uint32_t nnodes;         /* nr_node_ids */
	uint64_t max_steps;      /* bound of every list walk */
};

/* Warn through @c: "@what" at @addr in @obj. */
void mdb_vm_warn(const struct vm_ctx *c, uint64_t addr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Typed reads in the dump's byte order; 0 or -1 (unreadable: not in the
 * dump, filtered).  mdb_vm_read_ptr reads a pointer or an unsigned long (the
 * kernel's word: 4 bytes on i386), mdb_vm_read_sized 1, 2, 4 or 8 bytes.
 */
int mdb_vm_read_u64(const struct vm_ctx *c, uint64_t addr, uint64_t *v);
int mdb_vm_read_u32(const struct vm_ctx *c, uint64_t addr, uint32_t *v);
int mdb_vm_read_ptr(const struct vm_ctx *c, uint64_t addr, uint64_t *v);
int mdb_vm_read_sized(const struct vm_ctx *c, uint64_t addr, uint64_t size,
		      uint64_t *v);
/* The kernel's word size in bytes (4 or 8). */
uint64_t mdb_vm_word(const struct vm_ctx *c);
/* A word (mdb_vm_word bytes) at @p, read from the dump, in its byte order. */
uint64_t mdb_vm_get_word(const struct vm_ctx *c, const uint8_t *p);
/* A NUL-terminated string of at most @max bytes, malloc'd. */
int mdb_vm_read_str(const struct vm_ctx *c, uint64_t addr, size_t max,
		    char **out);
/* Offset in bytes of @type's @member, or -1 (not in the types). */
int64_t mdb_vm_off(const struct vm_ctx *c, const char *type, const char *member);
int64_t mdb_vm_size(const struct vm_ctx *c, const char *type);

/* ---- the architecture (arch.c) ---------------------------------------- */

/* i386's direct map: where libkdumpfile 0.5.1's ia32 translation puts it
 * (dump.c gives it the page tables' physical address by it) */
#define VM_IA32_PAGE_OFFSET 0xc0000000ull

/*
 * The architecture of libkdumpfile's name @name ("x86_64", "aarch64",
 * "ia32", "s390x"), NULL when memdb does not read it; its name back.
 */
const struct vm_arch *mdb_vm_arch_find(const char *name);
const char *mdb_vm_arch_name(const struct vm_arch *a);
/* The names memdb reads, for messages: "x86_64, aarch64, ..." */
const char *mdb_vm_arch_names(void);

/*
 * Fill c->page_offset, vmemmap, page_struct, ncpus, cpu_offset, nnodes
 * (c->arch, c->info and the symbols set).
 */
int mdb_vm_arch_init(struct vm_ctx *c, struct mdb_error *e);
void mdb_vm_arch_release(struct vm_ctx *c);
/* Address of the memory a struct page (or slab, folio) describes. */
int mdb_vm_page_addr(const struct vm_ctx *c, uint64_t page, uint64_t *addr);
/* Is @addr in the kernel image of @a (where symbols move with KASLR)? */
int mdb_vm_arch_image_addr(const struct vm_arch *a, uint64_t addr);
/* Per-CPU pointer @ptr of CPU @cpu. */
uint64_t mdb_vm_percpu(const struct vm_ctx *c, uint64_t ptr, uint32_t cpu);

/* ---- the walks (slub.c, buddy.c) ------------------------------------- */

struct vm_cache {
	char *name;
	int64_t object_size, size, objperslab, order, refcount;
	/* exact: objects allocated (total - free on every list walked) */
	int64_t allocated, total, slabs;
	/* /proc/slabinfo's: per-CPU slabs counted as full */
	int64_t active_objs;
	int incomplete;
};

/* Every slab cache in list order: @fn for each; 0 or <0 (fatal). */
int mdb_vm_slub_walk(const struct vm_ctx *c,
		     int (*fn)(void *ctx, const struct vm_cache *k), void *ctx,
		     struct mdb_error *e);

struct vm_buddy {
	int node;
	const char *zone;
	int order;
	const char *migratetype;
	int64_t blocks;    /* free blocks on the list */
	int64_t nr_free;   /* the zone's free_area[order].nr_free */
	int incomplete;
};

int mdb_vm_buddy_walk(const struct vm_ctx *c,
		      int (*fn)(void *ctx, const struct vm_buddy *b), void *ctx,
		      struct mdb_error *e);

/* One vmlinux alloc tag: a line of /proc/allocinfo (alloctag.c). */
struct vm_tag {
	uint64_t index;        /* in the alloc_tags section, from 0 */
	char *file, *function;
	char *module;          /* codetag.modname; NULL: none */
	uint32_t lineno;
	int64_t bytes;         /* signed, as the kernel prints it */
	int64_t calls;
	int inaccurate;        /* CODETAG_FLAG_INACCURATE: accurate:no */
};

struct vm_tag_stats {
	int present;           /* the kernel has alloc tags */
	uint64_t tags;         /* in the vmlinux alloc_tags section */
	uint64_t skipped;      /* unreadable (or beyond the cap): no row */
};

/*
 * Every vmlinux alloc tag in section order: @fn for each readable one.
 * No symbols __start_alloc_tags/__stop_alloc_tags: nothing, silently.
 * 0, or what @fn returned when < 0.
 */
int mdb_vm_alloctag_walk(const struct vm_ctx *c,
			 int (*fn)(void *ctx, const struct vm_tag *t), void *ctx,
			 struct vm_tag_stats *st);

/*
 * The kernel's clock at the dump: wall seconds (xtime) and seconds since
 * boot, from shadow_timekeeper (counters.c).  0, or -1 when unreadable.
 */
int mdb_vm_clock(const struct vm_ctx *c, int64_t *wall, int64_t *uptime);

/* The vm_stat counters and the clock (counters.c). */
int mdb_vm_counters_walk(const struct vm_ctx *c,
			 int (*fn)(void *ctx, const char *scope, int node,
				   const char *zone, const char *name, int64_t v),
			 void *ctx);

#endif
