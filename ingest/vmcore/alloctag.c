// SPDX-License-Identifier: MIT
/*
 * The alloc_tag counters of a kernel built with memory allocation
 * profiling (CONFIG_MEM_ALLOC_PROFILING, 6.10+): what /proc/allocinfo
 * would print, docs/formats.md §4.1 and §6.4.
 *
 * The vmlinux tags are an array of struct alloc_tag between the linker
 * symbols __start_alloc_tags and __stop_alloc_tags; each holds its
 * struct codetag (flags, lineno, modname, function, filename) and a
 * per-CPU pointer to struct alloc_tag_counters { bytes; calls; }, summed
 * over the CPUs as the kernel's alloc_tag_read() does.  The stride and
 * every offset come from the kernel's types.  Tags of modules live in
 * module memory, reached through the codetag type's module idr: not
 * read (one warning says so when a module is loaded).
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/bytes.h"
#include "vmcore.h"

#define MAX_TAGS (1u << 20)
#define STR_MAX 4096
#define STRIDE_MAX 4096
#define WARN_MAX 10
#define FLAG_INACCURATE 1u /* CODETAG_FLAG_INACCURATE */

struct atl {
	uint64_t stride;
	int64_t flags, lineno, modname, function, filename, counters;
	int64_t c_bytes, c_calls;
};

/* Offset of @member of @type when it is an integer of @size bytes. */
static int64_t off_sized(const struct vm_ctx *c, const char *type,
			 const char *member, uint64_t size)
{
	struct vm_member m;

	if (c->types->member(c->types->priv, type, member, &m) ||
	    m.bit_off % 8 || m.bit_size || m.size != size)
		return -1;
	return (int64_t)(m.bit_off / 8);
}

/* The layout of struct alloc_tag from the types: 0, or -1 (unknown). */
static int layout(const struct vm_ctx *c, struct atl *l)
{
	const char *t = "struct alloc_tag", *k = "struct alloc_tag_counters";
	int64_t size = mdb_vm_size(c, t);

	l->flags = off_sized(c, t, "ct.flags", 4);
	l->lineno = off_sized(c, t, "ct.lineno", 4);
	l->modname = off_sized(c, t, "ct.modname", mdb_vm_word(c));
	l->function = off_sized(c, t, "ct.function", mdb_vm_word(c));
	l->filename = off_sized(c, t, "ct.filename", mdb_vm_word(c));
	l->counters = off_sized(c, t, "counters", mdb_vm_word(c));
	l->c_bytes = off_sized(c, k, "bytes", 8);
	l->c_calls = off_sized(c, k, "calls", 8);
	if (size <= 0 || size > STRIDE_MAX || l->lineno < 0 ||
	    l->modname < 0 || l->function < 0 || l->filename < 0 ||
	    l->counters < 0 || l->c_bytes < 0 || l->c_calls < 0)
		return -1;
	l->stride = (uint64_t)size;
	/* every field inside the struct (the types say so, if sane) */
	if ((uint64_t)l->counters + mdb_vm_word(c) > l->stride ||
	    (uint64_t)l->filename + mdb_vm_word(c) > l->stride ||
	    (uint64_t)l->function + mdb_vm_word(c) > l->stride ||
	    (uint64_t)l->modname + mdb_vm_word(c) > l->stride ||
	    (uint64_t)l->lineno + 4 > l->stride ||
	    (l->flags >= 0 && (uint64_t)l->flags + 4 > l->stride))
		return -1;
	return 0;
}

/*
 * A string of the tag at @addr: NUL-terminated within STR_MAX bytes,
 * not empty, printable ASCII without spaces (what /proc/allocinfo's
 * space-separated fields can hold).  0, or -1 with *@why set.
 */
static int tag_str(const struct vm_ctx *c, uint64_t addr, char **out,
		   const char **why)
{
	size_t n;

	*out = NULL;
	if (!addr) {
		*why = "NULL";
		return -1;
	}
	if (mdb_vm_read_str(c, addr, STR_MAX, out)) {
		*why = "not in the dump";
		return -1;
	}
	n = strlen(*out);
	*why = !n ? "empty" : n >= STR_MAX ? "not terminated" : NULL;
	for (size_t i = 0; !*why && i < n; i++)
		if ((unsigned char)(*out)[i] <= ' ' ||
		    (unsigned char)(*out)[i] >= 0x7f)
			*why = "not printable";
	if (!*why)
		return 0;
	free(*out);
	*out = NULL;
	return -1;
}

struct walk {
	const struct vm_ctx *c;
	const struct atl *l;
	struct vm_tag_stats *st;
	uint64_t bad; /* tags skipped one by one */
};

/* A skipped tag: warned, the first WARN_MAX of them one by one. */
static void skip(struct walk *w, uint64_t addr, uint64_t i, const char *what,
		 const char *why)
{
	w->st->skipped++;
	if (++w->bad <= WARN_MAX)
		mdb_vm_warn(w->c, addr, "alloc tag %llu: %s %s; skipped (allocinfo "
			    "incomplete)", (unsigned long long)i, what, why);
}

/* Bytes and calls of the tag: its counters summed over the CPUs. */
static int sum_counters(struct walk *w, uint64_t ptr, struct vm_tag *t)
{
	const struct vm_ctx *c = w->c;
	uint64_t bytes = 0, calls = 0;

	for (uint32_t cpu = 0; cpu < c->ncpus; cpu++) {
		uint64_t p = mdb_vm_percpu(c, ptr, cpu), b, n;

		if (mdb_vm_read_u64(c, p + (uint64_t)w->l->c_bytes, &b) ||
		    mdb_vm_read_u64(c, p + (uint64_t)w->l->c_calls, &n))
			return -1;
		/* u64 arithmetic, as the kernel's: a CPU may have freed
		 * what another allocated */
		bytes += b;
		calls += n;
	}
	t->bytes = (int64_t)bytes; /* printed %lli */
	t->calls = (int64_t)calls;
	return calls > INT64_MAX ? -2 : 0;
}

/* Tag @i at @addr: 1 when read into @t (strings malloc'd), 0 skipped. */
static int read_tag(struct walk *w, uint64_t addr, uint64_t i,
		    struct vm_tag *t)
{
	const struct atl *l = w->l;
	uint8_t buf[STRIDE_MAX];
	const char *why;
	uint64_t mod;
	int ret;

	memset(t, 0, sizeof(*t));
	t->index = i;
	if (w->c->read(w->c->read_ctx, addr, buf, (size_t)l->stride)) {
		skip(w, addr, i, "struct alloc_tag", "not in the dump");
		return 0;
	}
	t->lineno = get_u32(buf + l->lineno, w->c->order);
	t->inaccurate = l->flags >= 0 &&
			(get_u32(buf + l->flags, w->c->order) &
			 FLAG_INACCURATE);
	if (tag_str(w->c, mdb_vm_get_word(w->c, buf + l->filename), &t->file,
		    &why)) {
		skip(w, addr, i, "filename", why);
		return 0;
	}
	if (tag_str(w->c, mdb_vm_get_word(w->c, buf + l->function), &t->function,
		    &why)) {
		skip(w, addr, i, "function", why);
		return 0;
	}
	mod = mdb_vm_get_word(w->c, buf + l->modname);
	if (mod && tag_str(w->c, mod, &t->module, &why)) {
		skip(w, addr, i, "modname", why);
		return 0;
	}
	ret = sum_counters(w, mdb_vm_get_word(w->c, buf + l->counters), t);
	if (ret) {
		skip(w, addr, i, "counters", ret == -1 ? "not in the dump" :
			"out of range (calls above 2^63)");
		return 0;
	}
	return 1;
}

static void tag_free(struct vm_tag *t)
{
	free(t->file);
	free(t->function);
	free(t->module);
	t->file = t->function = t->module = NULL;
}

/* Is a module loaded (the kernel's modules list not empty)?  Unknown
 * counts as yes. */
static int modules_loaded(const struct vm_ctx *c)
{
	uint64_t head, next;

	if (c->sym(c->sym_ctx, "modules", &head) ||
	    mdb_vm_read_ptr(c, head, &next))
		return 1;
	return next != head;
}

int mdb_vm_alloctag_walk(const struct vm_ctx *c,
			 int (*fn)(void *ctx, const struct vm_tag *t), void *ctx,
			 struct vm_tag_stats *st)
{
	uint64_t start, stop, n;
	struct atl l;
	struct walk w = { .c = c, .l = &l, .st = st };

	memset(st, 0, sizeof(*st));
	/* a kernel without CONFIG_MEM_ALLOC_PROFILING: nothing to say */
	if (c->sym(c->sym_ctx, "__start_alloc_tags", &start) ||
	    c->sym(c->sym_ctx, "__stop_alloc_tags", &stop) || start == stop)
		return 0;
	if (layout(c, &l)) {
		mdb_vm_warn(c, start, "alloc tags present, but the kernel's types "
			    "have no struct alloc_tag layout memdb knows; not "
			    "read");
		return 0;
	}
	if (stop < start) {
		mdb_vm_warn(c, start, "__stop_alloc_tags (0x%llx) before "
			    "__start_alloc_tags; not read",
			    (unsigned long long)stop);
		return 0;
	}
	st->present = 1;
	n = (stop - start) / l.stride;
	if ((stop - start) % l.stride)
		mdb_vm_warn(c, stop, "alloc_tags is not a whole number of "
			    "%llu-byte struct alloc_tag; the last %llu bytes not "
			    "read", (unsigned long long)l.stride,
			    (unsigned long long)((stop - start) % l.stride));
	st->tags = n;
	if (n > MAX_TAGS) {
		mdb_vm_warn(c, start, "alloc_tags holds %llu tags, more than %u: "
			    "the rest not read (allocinfo incomplete)",
			    (unsigned long long)n, MAX_TAGS);
		st->skipped = n - MAX_TAGS;
		n = MAX_TAGS;
	}
	if (modules_loaded(c))
		mdb_vm_warn(c, start, "alloc tags of modules are not read");
	for (uint64_t i = 0; i < n; i++) {
		struct vm_tag t;
		int ret;

		if (!read_tag(&w, start + i * l.stride, i, &t)) {
			tag_free(&t);
			continue;
		}
		ret = fn(ctx, &t);
		tag_free(&t);
		if (ret < 0)
			return ret;
	}
	if (w.bad > WARN_MAX)
		mdb_vm_warn(c, start, "%llu of %llu alloc tags skipped in all "
			    "(allocinfo incomplete)",
			    (unsigned long long)st->skipped,
			    (unsigned long long)st->tags);
	return 0;
}
