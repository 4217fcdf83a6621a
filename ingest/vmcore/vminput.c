// SPDX-License-Identifier: MIT
/*
 * The vmcore format row: probe, opener and the rows a dump becomes (one
 * snapshot source: a zone row per slab cache, the buddy free lists, the
 * counters, and on kernels with memory allocation profiling a tag row
 * per vmlinux alloc tag).  docs/formats.md §6.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/bytes.h"
#include "../hash.h"
#include "../text.h"
#include "vmdump.h"
#include "vminput.h"

/* An ELF core of a machine memdb reads: libkdumpfile's name; else NULL. */
static const char *vm_elf_machine(const uint8_t *p, size_t len);

#define ELF_HDR 64

struct vm_input {
	char *path;
	struct mdb_map map;
	int fd;
	int file_fd;         /* the input's own descriptor (fd: maybe a copy) */
	struct mdb_stamp file_st; /* and its state when opened */
	int guarded;         /* libelf and libdw map a vmlinux themselves */
	const char *vmlinux;
	struct vm_dump d;
	struct mdb_error *e;
};

/* Where the walks' rows go. */
struct vm_emit {
	const struct mdb_snap_sink *sink;
	struct mdb_snap_info *info;
};

int mdb_vm_probe(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (len >= 8 && !memcmp(p, "KDUMP   ", 8))
		return 1;
	if (mdb_vm_flat_probe(buf, len))
		return 1;
	return vm_elf_machine(p, len) != NULL;
}

/*
 * An ELF core (ELF32 or ELF64, either byte order, ET_CORE) of a machine
 * arch.c reads: its libkdumpfile name, else NULL.  QEMU writes ELF64
 * for i386 guests too (their memory map reaches 4 GiB).
 */
static const char *vm_elf_machine(const uint8_t *p, size_t len)
{
	static const struct {
		uint16_t machine;
		const char *name;
	} m[] = {
		{ 62, "x86_64" },  /* EM_X86_64 */
		{ 183, "aarch64" }, /* EM_AARCH64 */
		{ 3, "ia32" },     /* EM_386 */
		{ 22, "s390x" },   /* EM_S390 (ELF64; ELF32 is 31-bit s390) */
	};
	enum mdb_order o;

	if (len < ELF_HDR || memcmp(p, "\x7f" "ELF", 4) ||
	    (p[4] != 1 && p[4] != 2) || (p[5] != 1 && p[5] != 2))
		return NULL;
	o = p[5] == 2 ? MDB_ORDER_BIG : MDB_ORDER_LITTLE;
	if (get_u16(p + 16, o) != 4 /* ET_CORE */)
		return NULL;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (get_u16(p + 18, o) == m[i].machine &&
		    (m[i].machine != 22 || p[4] == 2))
			return m[i].name;
	return NULL;
}

/*
 * An ELF core cut short: its program headers, or the data of a PT_LOAD
 * segment, end beyond the file.  libkdumpfile would read such pages as
 * missing; memdb refuses the file at the offset where data is missing.
 */
int mdb_vm_elf_check(const char *path, const uint8_t *p, size_t len,
		     struct mdb_error *e)
{
	uint64_t phoff, end;
	uint16_t phentsize, phnum;
	enum mdb_order o;
	int is64;

	if (len < ELF_HDR || memcmp(p, "\x7f" "ELF", 4))
		return 0;
	/* ELF64 or ELF32 in its own byte order (e_ident) */
	o = p[5] == 2 ? MDB_ORDER_BIG : MDB_ORDER_LITTLE;
	is64 = p[4] != 1;
	phoff = is64 ? get_u64(p + 32, o) : get_u32(p + 28, o);
	phentsize = get_u16(p + (is64 ? 54 : 42), o);
	phnum = get_u16(p + (is64 ? 56 : 44), o);
	if (phentsize < (is64 ? 56 : 32) || phoff > len ||
	    (uint64_t)phentsize * phnum > len - phoff) {
		mdb_error_set(e, MDB_E_TRUNCATED, path, (int64_t)phoff, -1,
			      "program_headers=%u have=%zu", phnum, len);
		mdb_error_msg(e, "ELF core dump cut short: its program "
				 "headers end beyond the file");
		return -MDB_E_TRUNCATED;
	}
	for (uint16_t i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + (uint64_t)i * phentsize;
		uint64_t off = is64 ? get_u64(ph + 8, o) : get_u32(ph + 4, o),
			 filesz = is64 ? get_u64(ph + 32, o) :
					 get_u32(ph + 16, o);

		if (get_u32(ph, o) != 1 /* PT_LOAD */)
			continue;
		if (__builtin_add_overflow(off, filesz, &end) || end > len) {
			mdb_error_set(e, MDB_E_TRUNCATED, path,
				      (int64_t)(off > len ? off : len), -1,
				      "segment=%u end=%llu have=%zu", i,
				      (unsigned long long)end, len);
			mdb_error_msg(e, "ELF core dump cut short: a memory "
					 "segment ends beyond the file");
			return -MDB_E_TRUNCATED;
		}
	}
	return 0;
}

static void vi_free(struct vm_input *v)
{
	if (!v)
		return;
	mdb_vm_dump_close(&v->d);
	if (v->guarded)
		mdb_map_unguard();
	if (v->fd >= 0)
		close(v->fd);
	if (v->file_fd >= 0)
		close(v->file_fd);
	mdb_unmap(&v->map);
	free(v->path);
	free(v);
}

static int on_cache(void *ctx, const struct vm_cache *k)
{
	struct vm_emit *v = ctx;
	struct mdb_zone z;

	mdb_zone_init(&z, MDB_ZONE_SLAB);
	z.name = mdb_str_make(k->name, strlen(k->name));
	z.v[MDB_ZC_SIZE] = k->size;
	z.v[MDB_ZC_USED] = k->allocated;
	z.v[MDB_ZC_FREE] = k->total - k->allocated;
	z.v[MDB_ZC_BYTES] = k->total * k->size;
	z.v[MDB_ZC_ACTIVE_OBJS] = k->active_objs;
	z.v[MDB_ZC_NUM_OBJS] = k->total;
	z.v[MDB_ZC_OBJSIZE] = k->size;
	z.v[MDB_ZC_OBJPERSLAB] = k->objperslab;
	z.v[MDB_ZC_PAGESPERSLAB] = k->order < 62 ? 1ll << k->order : MDB_NA;
	z.v[MDB_ZC_ACTIVE_SLABS] = k->slabs;
	z.v[MDB_ZC_NUM_SLABS] = k->slabs;
	z.v[MDB_ZC_OBJECT_SIZE] = k->object_size;
	z.v[MDB_ZC_ALLOCATED] = k->allocated;
	z.v[MDB_ZC_TOTAL] = k->total;
	z.v[MDB_ZC_SLABS] = k->slabs;
	z.v[MDB_ZC_INCOMPLETE] = k->incomplete;
	z.v[MDB_ZC_REFCOUNT] = k->refcount < 0 ? MDB_NA : k->refcount;
	v->info->zones++;
	return v->sink->zone(v->sink->ctx, &z);
}

static int on_buddy(void *ctx, const struct vm_buddy *b)
{
	struct vm_emit *v = ctx;
	struct mdb_buddy r = {
		.node = b->node, .order = b->order,
		.zone = mdb_str_make(b->zone, strlen(b->zone)),
		.migratetype = mdb_str_make(b->migratetype,
					    strlen(b->migratetype)),
		.blocks = b->blocks,
		.nr_free = b->nr_free < 0 ? MDB_NA : b->nr_free,
		.incomplete = (uint8_t)b->incomplete,
	};

	v->info->buddy++;
	return v->sink->buddy ? v->sink->buddy(v->sink->ctx, &r) : 0;
}

static int on_counter(void *ctx, const char *scope, int node,
		      const char *zone, const char *name, int64_t val)
{
	struct vm_emit *v = ctx;
	struct mdb_counter c = {
		.scope = scope, .node = node,
		.zone = mdb_str_make(zone ? zone : "", zone ? strlen(zone) : 0),
		.name = mdb_str_make(name, strlen(name)), .value = val,
	};

	v->info->counters++;
	return v->sink->counter ? v->sink->counter(v->sink->ctx, &c) : 0;
}

static int on_tag(void *ctx, const struct vm_tag *t)
{
	struct vm_emit *v = ctx;
	static const char inaccurate[] = "accurate:no";
	struct mdb_tag r = {
		.bytes = t->bytes, .calls = t->calls,
		/* no input line: the tag's position in the section */
		.line = (int64_t)t->index + 1, .src_line = t->lineno,
		.file = mdb_str_make(t->file, strlen(t->file)),
		.function = mdb_str_make(t->function, strlen(t->function)),
		.module = mdb_str_make(t->module ? t->module : "",
				       t->module ? strlen(t->module) : 0),
		.extra = mdb_str_make(inaccurate,
				      t->inaccurate ? strlen(inaccurate) : 0),
		.accurate = !t->inaccurate,
	};

	v->info->tags++;
	v->info->inaccurate += !r.accurate;
	return v->sink->tag ? v->sink->tag(v->sink->ctx, &r) : 0;
}

/* The alloc tags, then how many there are and how many were skipped. */
static int vi_tags(const struct vm_ctx *c, struct vm_emit *v)
{
	struct vm_tag_stats st;
	int ret = mdb_vm_alloctag_walk(c, on_tag, v, &st);

	if (ret < 0 || !st.present)
		return ret;
	if ((ret = on_counter(v, "kernel", -1, NULL, "alloc_tags",
			      (int64_t)st.tags)) < 0)
		return ret;
	return on_counter(v, "kernel", -1, NULL, "alloc_tags_skipped",
			  (int64_t)st.skipped);
}

int mdb_vm_decode_walks(const struct vm_ctx *c, const struct mdb_snap_sink *sink,
			struct mdb_snap_info *info, struct mdb_error *e)
{
	struct vm_emit v = { .sink = sink, .info = info };
	int ret;

	ret = mdb_vm_slub_walk(c, on_cache, &v, e);
	if (ret < 0)
		return ret;
	ret = mdb_vm_buddy_walk(c, on_buddy, &v, e);
	if (ret < 0)
		return ret;
	ret = mdb_vm_counters_walk(c, on_counter, &v);
	if (ret < 0)
		return ret;
	ret = vi_tags(c, &v);
	if (ret < 0)
		return ret;
	info->records = info->zones + info->buddy + info->counters +
			info->tags;
	return 0;
}

/* @ret, unless the dump changed since it was opened (libkdumpfile reads
 * it with read(2) and sees only a shorter file) or a vmlinux shrank under
 * libelf's and libdw's own mappings. */
static int vi_same(struct vm_input *v, int ret, const char *vmlinux,
		   struct mdb_error *e)
{
	int hit = v->guarded && mdb_map_unguard();

	v->guarded = 0;
	if (hit)
		return mdb_file_shrank(e, vmlinux ? vmlinux : v->path, -1);
	if (mdb_stamp_check(v->file_fd, &v->file_st, v->path, e) < 0)
		return -MDB_E_IO;
	return ret;
}

static int vi_decode(struct mdb_input *in, const struct mdb_snap_sink *sink,
		     struct mdb_snap_info *info, struct mdb_error *e)
{
	struct vm_input *v = in->priv;
	int ret;

	memset(info, 0, sizeof(*info));
	snprintf(info->version, sizeof(info->version), "%s",
		 v->d.c.types->what);
	ret = mdb_vm_decode_walks(&v->d.c, sink, info, e);
	if ((ret = vi_same(v, ret, v->vmlinux, e)) < 0)
		return ret;
	if (v->d.bad_reads) {
		mdb_error_set(e, MDB_E_CORRUPT, v->path, -1, -1,
			      "failed_reads=%llu first=0x%llx libkdumpfile="
			      "\"%s\"", (unsigned long long)v->d.bad_reads,
			      (unsigned long long)v->d.bad_addr, v->d.bad_msg);
		mdb_error_msg(e, "the dump is cut short or corrupt: memory it "
				 "should hold cannot be read");
		return -MDB_E_CORRUPT;
	}
	if (!info->zones)
		return mdb_error_fail(e, MDB_E_EMPTY, v->path, -1, -1,
				      "no slab cache read from the dump",
				      NULL);
	return 0;
}

static void vi_close(struct mdb_input *in)
{
	vi_free(in->priv);
	free(in);
}

static const struct mdb_input_ops vi_ops = {
	.decode_snap = vi_decode,
	.close = vi_close,
};

static void vi_meta(struct vm_input *v, struct mdb_source_meta *m)
{
	struct mdb_hasher *h = mdb_hash_begin(VM_FORMAT, v->e);
	int64_t wall, up;

	m->format = VM_FORMAT;
	m->snapshot = 1;
	m->abi_version = -1;
	m->overruns = -1;
	m->order = v->d.c.order;
	m->word_size = (int)mdb_vm_word(&v->d.c);
	m->ncpus = (int)v->d.c.ncpus;
	m->data_bytes = v->map.len;
	/* kdump's CRASHTIME, else the kernel's clock (QEMU dumps) */
	if (v->d.info.crash_time > 0)
		m->taken = v->d.info.crash_time;
	else if (!mdb_vm_clock(&v->d.c, &wall, &up) && wall > 0)
		m->taken = wall;
	snprintf(m->kernel_release, sizeof(m->kernel_release), "%s",
		 v->d.info.release);
	snprintf(m->notes, sizeof(m->notes), "core dump, build id %s%s",
		 v->d.info.build_id[0] ? v->d.info.build_id : "unknown",
		 v->d.info.kernel_offset ? ", KASLR" : "");
	if (h) {
		mdb_hash_map(h, &v->map, MDB_RELEASE_STEP);
		mdb_hash_end(h, m);
	}
}

/* The kdump-compressed file a flattened one was reassembled into. */
static int flat_check(const char *path, int fd, struct vm_dd_arch *arch,
		      struct mdb_error *e)
{
	struct stat st;
	void *p;
	int ret;

	if (fstat(fd, &st) < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	if (st.st_size == 0)
		return 0;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return mdb_error_set(e, errno == ENOMEM ? MDB_E_NOMEM :
				     MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	ret = mdb_vm_diskdump_check(path, p, (size_t)st.st_size, arch, e);
	munmap(p, (size_t)st.st_size);
	return ret;
}

/* The descriptor libkdumpfile reads: the file's, or the flattened
 * format reassembled. */
static int vi_file(struct vm_input *v, const char *path, int fd,
		   struct mdb_error *e)
{
	int ret = mdb_vm_elf_check(path, v->map.data, v->map.len, e);

	if (ret ||
	    (ret = mdb_vm_diskdump_check(path, v->map.data, v->map.len, &v->d.dd,
					 e)))
		return ret;
	v->file_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (v->file_fd < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	if ((ret = mdb_stamp_fd(v->file_fd, path, &v->file_st, e)))
		return ret;
	if (mdb_vm_flat_probe(v->map.data, v->map.len)) {
		if ((ret = mdb_vm_flat_reassemble(v->map.data, v->map.len, path,
						  &v->fd, e)))
			return ret;
		return flat_check(path, v->fd, &v->d.dd, e);
	}
	v->fd = fcntl(v->file_fd, F_DUPFD_CLOEXEC, 0);
	if (v->fd < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	return 0;
}

int mdb_vm_input_open(const char *path, struct mdb_map *map, int fd,
		      const struct mdb_ingest_opts *o, struct mdb_input **out,
		      struct mdb_error *e)
{
	struct mdb_input *in;
	struct vm_input *v = MDB_INPUT_ALLOC(struct vm_input, path, map, &in,
					     e);
	int ret;

	*out = NULL;
	if (!v)
		return -MDB_E_NOMEM;
	v->fd = v->file_fd = -1;
	v->vmlinux = o->vmlinux;
	mdb_map_guard();
	v->guarded = 1;
	v->e = e;
	ret = vi_file(v, path, fd, e);
	if (!ret)
		ret = mdb_vm_dump_open(&v->d, v->path, v->fd, o->kallsyms,
				       o->vmlinux, o->btf, e);
	if (ret && v->file_fd >= 0)
		ret = vi_same(v, ret, o->vmlinux, e);
	if (ret) {
		vi_free(v);
		free(in);
		return ret;
	}
	v->d.c.warn = o->warn;
	v->d.c.warn_ctx = o->warn_ctx;
	vi_meta(v, &in->meta);
	in->ops = &vi_ops;
	in->priv = v;
	*out = in;
	return 0;
}
