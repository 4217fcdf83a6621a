// SPDX-License-Identifier: MIT
/* DWARF lookups through libdwfl; see dwarf.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/file.h"
#include "dwarf.h"

#define MAX_DEPTH 256 /* scopes nested deeper than this are cut */

/* A top-level DIE of a unit with code, one entry per address range. */
struct dw_top {
	uint64_t lo, hi;
	Dwarf_Off off;
	uint32_t order; /* position among the unit's children */
};

struct dw_cu {
	struct dw_top *tops; /* by lo */
	uint64_t *max_hi;    /* max_hi[i]: highest hi of tops[0..i] */
	size_t n;
	int use_getscopes;   /* imports partial units: ask libdw */
};

/* Separate debuginfo is not searched: the file given is the one used. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata,
			const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	*debuginfo_file_name = NULL;
	return -1;
}

static char *no_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &no_path,
};

/*
 * Refuse what is plainly not ELF (nor compressed ELF) with a hint.
 * Returns 1 for zstd (libdwfl reads it only when built with zstd).
 */
static int check_magic(const char *path, struct mdb_error *e)
{
	static const struct {
		const char *magic;
		size_t len;
	} compressed[] = {
		{ "\x1f\x8b", 2 },                 /* gzip */
		{ "\xfd" "7zXZ\0", 6 },            /* xz */
		{ "\x28\xb5\x2f\xfd", 4 },         /* zstd */
		{ "BZh", 3 },                      /* bzip2 */
	};
	unsigned char b[0x210];
	struct stat st;
	ssize_t n;
	int fd = mdb_open_regular(path, &st, e);

	if (fd < 0)
		return fd;
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				     strerror(errno));
	if (n >= 4 && !memcmp(b, "\x7f" "ELF", 4))
		return 0;
	for (size_t i = 0; i < sizeof(compressed) / sizeof(compressed[0]);
	     i++)
		if ((size_t)n >= compressed[i].len &&
		    !memcmp(b, compressed[i].magic, compressed[i].len))
			return i == 2 ? 1 : 0; /* 1: zstd, for the hint */
	mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, "size=%zd%s", n,
		      n < (ssize_t)sizeof(b) ? "" : "+");
	mdb_error_msg(e, "not an ELF file");
	if (n >= 0x206 && !memcmp(b + 0x202, "HdrS", 4))
		mdb_error_hint(e, "this is a boot image (vmlinuz/bzImage); "
				  "give the vmlinux with symbols, e.g. "
				  "/usr/lib/debug/boot/vmlinux-RELEASE");
	else
		mdb_error_hint(e, "give the vmlinux (or .ko) with symbols from "
				  "the kernel build or its debug package");
	return -MDB_E_FORMAT;
}

int dw_open(struct dw_image *im, const char *path, struct mdb_error *e)
{
	const char *base = strrchr(path, '/');
	GElf_Ehdr eh;
	Dwarf_Addr dwbias;
	int ret;

	memset(im, 0, sizeof(*im));
	u64map_init(&im->cu_map);
	ret = check_magic(path, e);
	if (ret < 0)
		return ret;
	im->path = strdup(path);
	im->dwfl = dwfl_begin(&offline_callbacks);
	if (!im->path || !im->dwfl) {
		dw_close(im);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	dwfl_report_begin(im->dwfl);
	im->mod = dwfl_report_offline(im->dwfl, base ? base + 1 : path, path,
				      -1);
	if (!im->mod || dwfl_report_end(im->dwfl, NULL, NULL) != 0)
		goto bad_elf;
	im->elf = dwfl_module_getelf(im->mod, &im->bias);
	if (!im->elf || !gelf_getehdr(im->elf, &eh))
		goto bad_elf;
	im->e_type = eh.e_type;
	im->dw = dwfl_module_getdwarf(im->mod, &dwbias);
	if (!im->dw) {
		snprintf(im->nodwarf, sizeof(im->nodwarf), "%s",
			 dwfl_errmsg(-1));
	} else {
		Dwarf_Off next;
		size_t hsize;

		if (dwarf_nextcu(im->dw, 0, &next, &hsize, NULL, NULL,
				 NULL) != 0) {
			snprintf(im->nodwarf, sizeof(im->nodwarf),
				 "no compile units");
			im->dw = NULL;
		}
	}
	return 0;
bad_elf:
	mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, "%s", dwfl_errmsg(-1));
	mdb_error_msg(e, "cannot read ELF file");
	if (ret == 1)
		mdb_error_hint(e, "this elfutils cannot read zstd-compressed "
				  "files; decompress it (unzstd)");
	dw_close(im);
	return -MDB_E_FORMAT;
}

void dw_close(struct dw_image *im)
{
	if (im->dwfl)
		dwfl_end(im->dwfl);
	for (size_t i = 0; i < im->ncus; i++) {
		free(im->cus[i].tops);
		free(im->cus[i].max_hi);
	}
	free(im->cus);
	u64map_release(&im->cu_map);
	free(im->buf);
	free(im->path);
	memset(im, 0, sizeof(*im));
}

int dw_section_addr(const struct dw_image *im, size_t shndx, uint64_t *addr)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(elf_getscn(im->elf, shndx), &sh))
		return -1;
	*addr = sh.sh_addr + im->bias;
	return 0;
}

void dw_loc_release(struct dw_loc *loc)
{
	free(loc->file);
	free(loc->inlines);
	loc->file = loc->inlines = NULL;
}

/* ---- the per-unit index ------------------------------------------- */

static int top_cmp(const void *a, const void *b)
{
	const struct dw_top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cu_add(struct dw_cu *c, size_t *cap, uint64_t lo, uint64_t hi,
		  Dwarf_Off off, uint32_t order)
{
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct dw_top *nt = realloc(c->tops, ncap * sizeof(*nt));

		if (!nt)
			return -1;
		c->tops = nt;
		*cap = ncap;
	}
	c->tops[c->n].lo = lo;
	c->tops[c->n].hi = hi;
	c->tops[c->n].off = off;
	c->tops[c->n].order = order;
	c->n++;
	return 0;
}

/* Index the top-level DIEs of @cudie that have address ranges. */
static int cu_build(struct dw_cu *c, Dwarf_Die *cudie)
{
	Dwarf_Die child;
	uint32_t order = 0;
	size_t cap = 0;

	memset(c, 0, sizeof(*c));
	if (dwarf_child(cudie, &child) != 0)
		return 0;
	do {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		order++;
		if (dwarf_tag(&child) == DW_TAG_imported_unit) {
			c->use_getscopes = 1;
			continue;
		}
		if (!dwarf_hasattr(&child, DW_AT_low_pc) &&
		    !dwarf_hasattr(&child, DW_AT_ranges))
			continue;
		while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0)
			if (hi > lo && cu_add(c, &cap, lo, hi,
					      dwarf_dieoffset(&child),
					      order) < 0)
				return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (!c->n)
		return 0;
	qsort(c->tops, c->n, sizeof(*c->tops), top_cmp);
	c->max_hi = malloc(c->n * sizeof(*c->max_hi));
	if (!c->max_hi)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		c->max_hi[i] = i && c->max_hi[i - 1] > c->tops[i].hi ?
			       c->max_hi[i - 1] : c->tops[i].hi;
	return 0;
}

static struct dw_cu *cu_get(struct dw_image *im, Dwarf_Die *cudie)
{
	uint64_t key = dwarf_dieoffset(cudie) + 1; /* key 0 is fine too */
	uint64_t *v = u64map_get(&im->cu_map, key);

	if (v)
		return &im->cus[*v - 1];
	if (im->ncus == im->cu_cap) {
		size_t ncap = im->cu_cap ? im->cu_cap * 2 : 64;
		struct dw_cu *nc = realloc(im->cus, ncap * sizeof(*nc));

		if (!nc)
			return NULL;
		im->cus = nc;
		im->cu_cap = ncap;
	}
	if (cu_build(&im->cus[im->ncus], cudie) < 0) {
		free(im->cus[im->ncus].tops);
		free(im->cus[im->ncus].max_hi);
		return NULL;
	}
	if (!u64map_put(&im->cu_map, key, im->ncus + 1, NULL)) {
		free(im->cus[im->ncus].tops);
		free(im->cus[im->ncus].max_hi);
		return NULL;
	}
	return &im->cus[im->ncus++];
}

/* The first top-level DIE (in DIE order) whose ranges hold @pc. */
static int cu_top(const struct dw_cu *c, uint64_t pc, Dwarf_Off *off)
{
	size_t lo = 0, hi = c->n;
	uint32_t best = UINT32_MAX;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->tops[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && c->max_hi[lo] > pc)
		if (pc < c->tops[lo].hi && c->tops[lo].order < best) {
			best = c->tops[lo].order;
			*off = c->tops[lo].off;
		}
	return best == UINT32_MAX ? -1 : 0;
}

/* The DIEs __libdw_visit_scopes descends into. */
static int may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return 1;
	}
	return 0;
}

/*
 * The scopes holding @pc, innermost first, without the unit: what
 * dwarf_getscopes_die() of dwarf_getscopes()'s innermost scope gives.
 */
static int scope_chain(struct dw_image *im, Dwarf_Die *cudie, uint64_t pc,
		       Dwarf_Die *chain, int max)
{
	struct dw_cu *c = cu_get(im, cudie);
	Dwarf_Die path[MAX_DEPTH];
	Dwarf_Off off;
	int n = 0;

	if (!c)
		return -1;
	if (c->use_getscopes) {
		Dwarf_Die *scopes = NULL, inner;
		int ns = dwarf_getscopes(cudie, pc, &scopes);

		if (ns <= 0) {
			free(scopes);
			return 0;
		}
		if (!dwarf_offdie(im->dw, dwarf_dieoffset(&scopes[0]),
				  &inner)) {
			free(scopes);
			return 0;
		}
		free(scopes);
		scopes = NULL;
		ns = dwarf_getscopes_die(&inner, &scopes);
		for (int i = 0; i < ns - 1 && n < max; i++)
			chain[n++] = scopes[i];
		free(scopes);
		return n;
	}
	if (cu_top(c, pc, &off) < 0 || !dwarf_offdie(im->dw, off, &path[0]))
		return 0;
	n = 1;
	while (n < MAX_DEPTH) {
		Dwarf_Die child;
		int found = 0;

		if (!may_have_scopes(dwarf_tag(&path[n - 1])) ||
		    !dwarf_haschildren(&path[n - 1]) ||
		    dwarf_child(&path[n - 1], &child) != 0)
			break;
		do {
			if (dwarf_haspc(&child, pc) == 1) {
				found = 1;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		path[n++] = child;
	}
	for (int i = 0; i < n && i < max; i++)
		chain[i] = path[n - 1 - i];
	return n < max ? n : max;
}

/* ---- the inline chain as text --------------------------------------- */

static int put(struct dw_image *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int put(struct dw_image *im, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = im->cap - im->len;

		va_start(ap, fmt);
		n = vsnprintf(im->buf ? im->buf + im->len : NULL, room, fmt,
			      ap);
		va_end(ap);
		if (n < 0)
			return -1;
		if ((size_t)n < room) {
			im->len += (size_t)n;
			return 0;
		}
		{
			size_t ncap = (im->cap ? im->cap * 2 : 256) + (size_t)n;
			char *nb = realloc(im->buf, ncap);

			if (!nb)
				return -1;
			im->buf = nb;
			im->cap = ncap;
		}
	}
}

/* eu-addr2line's get_diename */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die,
						     DW_AT_MIPS_linkage_name,
						     &a));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die,
						DW_AT_linkage_name, &a));
	if (!name)
		name = dwarf_diename(die);
	return name ? name : "??";
}

static int is_function(int tag)
{
	return tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point || tag == DW_TAG_subprogram;
}

/*
 * "inner (file:line) <- caller (file:line) <- ..." from @chain (innermost
 * first): each function with the place in it, as eu-addr2line -f -i lists
 * them.  Empty when no inlined code holds the address.
 */
static int format_chain(struct dw_image *im, Dwarf_Die *cudie,
			Dwarf_Die *chain, int n, const char *file,
			int64_t line)
{
	Dwarf_Files *files = NULL;
	int first = -1, inl = 0;

	im->len = 0;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (first < 0 && is_function(tag))
			first = i;
		inl |= tag == DW_TAG_inlined_subroutine;
	}
	if (!inl || first < 0)
		return 0;
	if (put(im, "%s (%s:%lld)", die_name(&chain[first]),
		file ? file : "??", (long long)(file ? line : 0)) < 0)
		return -1;
	if (dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;
	for (int i = 0; i < n; i++) {
		Dwarf_Attribute a;
		Dwarf_Word v;
		const char *src = NULL, *caller = "??";
		uint64_t ln = 0;

		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
			continue;
		for (int j = i + 1; j < n; j++)
			if (is_function(dwarf_tag(&chain[j]))) {
				caller = die_name(&chain[j]);
				break;
			}
		if (files && dwarf_formudata(dwarf_attr(&chain[i],
							DW_AT_call_file, &a),
					     &v) == 0)
			src = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a),
				    &v) == 0)
			ln = v;
		if (put(im, " <- %s (%s:%llu)", caller, src ? src : "??",
			src ? (unsigned long long)ln : 0ULL) < 0)
			return -1;
	}
	return 0;
}

int dw_lookup(struct dw_image *im, uint64_t a, struct dw_loc *loc)
{
	Dwarf_Die chain[MAX_DEPTH], *cudie;
	Dwarf_Addr cbias;
	Dwfl_Line *l;
	const char *src = NULL;
	int line = 0, col = 0, n;

	loc->file = loc->inlines = NULL;
	loc->line = -1;
	if (!im->dw)
		return 0;
	l = dwfl_module_getsrc(im->mod, a);
	if (l)
		src = dwfl_lineinfo(l, NULL, &line, &col, NULL, NULL);
	if (src) {
		loc->file = strdup(src);
		if (!loc->file)
			return -MDB_E_NOMEM;
		loc->line = line;
	}
	cudie = dwfl_module_addrdie(im->mod, a, &cbias);
	if (!cudie)
		return 0;
	n = scope_chain(im, cudie, a - cbias, chain, MAX_DEPTH);
	if (n < 0 || format_chain(im, cudie, chain, n, src, line) < 0) {
		dw_loc_release(loc);
		return -MDB_E_NOMEM;
	}
	if (im->len) {
		loc->inlines = strndup(im->buf, im->len);
		if (!loc->inlines) {
			dw_loc_release(loc);
			return -MDB_E_NOMEM;
		}
	}
	return 0;
}
