// SPDX-License-Identifier: MIT
/* DWARF lookups through libdwfl; see dwarfsyms.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/file.h"
#include "dwarfsyms.h"

#define MAX_DEPTH 256 /* scopes nested deeper than this are cut */

/* A top-level DIE of a unit with code, one entry per address range. */
struct dw_top {
	uint64_t lo, hi;
	Dwarf_Off off;
	uint32_t order; /* position among the unit's children */
	int entry;      /* lo is a function's DW_AT_low_pc */
};

struct dw_cu {
	struct dw_top *tops; /* by lo */
	uint64_t *max_hi;    /* max_hi[i]: highest hi of tops[0..i] */
	size_t n;
	int use_getscopes;   /* imports partial units: ask libdw */
	int damaged;         /* failed a check: no answers from it */
};

/* A line number past this is no source line: a damaged line program. */
#define MAX_LINE (1u << 24)
/* Lines from a function's declaration to its first line row, at most. */
#define MAX_SIGNATURE 64
/* Bytes from a function's start to its first line row, less than this. */
#define MAX_ENTRY_PAD 16

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

/* Record damage (what the first one was, for the warning). */
static void damage_note(struct dw_image *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void damage_note(struct dw_image *im, const char *fmt, ...)
{
	va_list ap;
	int n;

	im->ndamaged++;
	if (im->damage)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	im->damage = malloc((size_t)n + 1);
	if (!im->damage)
		return;
	va_start(ap, fmt);
	vsnprintf(im->damage, (size_t)n + 1, fmt, ap);
	va_end(ap);
}

/* Every unit header readable, else all lookups are suspect. */
static void check_units(struct dw_image *im)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int ret;

	while ((ret = dwarf_next_unit(im->dw, off, &next, &hsize, NULL, NULL,
				      NULL, NULL, NULL, NULL)) == 0 &&
	       next > off)
		off = next;
	if (ret < 0) {
		im->broken = 1;
		damage_note(im, ".debug_info: unit header at offset 0x%llx: "
			    "%s", (unsigned long long)off, dwarf_errmsg(-1));
	}
}

/* The span of the allocated sections of an executable or shared file. */
static void alloc_span(struct dw_image *im)
{
	Elf_Scn *scn = NULL;

	im->span_lo = 0;
	im->span_hi = UINT64_MAX;
	if (im->e_type == ET_REL)
		return;
	im->span_lo = UINT64_MAX;
	im->span_hi = 0;
	while ((scn = elf_nextscn(im->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_addr || !sh.sh_size)
			continue;
		if (sh.sh_addr < im->span_lo)
			im->span_lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > im->span_hi)
			im->span_hi = sh.sh_addr + sh.sh_size;
	}
}

int mdb_dw_open(struct dw_image *im, const char *path, struct mdb_error *e)
{
	const char *base = strrchr(path, '/');
	GElf_Ehdr eh;
	Dwarf_Addr dwbias;
	int ret;

	memset(im, 0, sizeof(*im));
	mdb_u64map_init(&im->cu_map);
	ret = check_magic(path, e);
	if (ret < 0)
		return ret;
	im->path = strdup(path);
	im->dwfl = dwfl_begin(&offline_callbacks);
	if (!im->path || !im->dwfl) {
		mdb_dw_close(im);
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
		} else {
			alloc_span(im);
			check_units(im);
		}
	}
	return 0;
bad_elf:
	mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, "%s", dwfl_errmsg(-1));
	mdb_error_msg(e, "cannot read ELF file");
	if (ret == 1)
		mdb_error_hint(e, "this elfutils cannot read zstd-compressed "
				  "files; decompress it (unzstd)");
	mdb_dw_close(im);
	return -MDB_E_FORMAT;
}

void mdb_dw_close(struct dw_image *im)
{
	if (im->dwfl)
		dwfl_end(im->dwfl);
	for (size_t i = 0; i < im->ncus; i++) {
		free(im->cus[i].tops);
		free(im->cus[i].max_hi);
	}
	free(im->cus);
	mdb_u64map_release(&im->cu_map);
	free(im->damage);
	free(im->buf);
	free(im->path);
	memset(im, 0, sizeof(*im));
}

int mdb_dw_section_addr(const struct dw_image *im, size_t shndx, uint64_t *addr)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(elf_getscn(im->elf, shndx), &sh))
		return -1;
	*addr = sh.sh_addr + im->bias;
	return 0;
}

void mdb_dw_loc_release(struct dw_loc *loc)
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
		  Dwarf_Off off, uint32_t order, int entry)
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
	c->tops[c->n].entry = entry;
	c->n++;
	return 0;
}

/* The unit @cudie is damaged: say which and what (@fmt). */
static void cu_damaged(struct dw_image *im, struct dw_cu *c, Dwarf_Die *cudie,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cu_damaged(struct dw_image *im, struct dw_cu *c, Dwarf_Die *cudie,
		       const char *fmt, ...)
{
	const char *name = dwarf_diename(cudie);
	char *what = NULL;
	va_list ap;
	int n;

	c->damaged = 1;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0 && (what = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(what, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	damage_note(im, "unit '%s' at .debug_info offset 0x%llx: %s",
		    name ? name : "?", (unsigned long long)dwarf_dieoffset(cudie),
		    what ? what : "damaged");
	free(what);
}

/* One top-level DIE's ranges into @c; -1 on ENOMEM, 1 when libdw fails. */
static int cu_add_die(struct dw_cu *c, size_t *cap, Dwarf_Die *die,
		      uint32_t order)
{
	Dwarf_Addr base, lo, hi, entry = 0;
	ptrdiff_t off = 0;
	int has_entry;

	has_entry = dwarf_tag(die) == DW_TAG_subprogram &&
		    dwarf_hasattr(die, DW_AT_low_pc) &&
		    dwarf_lowpc(die, &entry) == 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (hi > lo && cu_add(c, cap, lo, hi, dwarf_dieoffset(die),
				      order, has_entry && lo == entry) < 0)
			return -1;
	return off < 0 ? 1 : 0;
}

/*
 * Does DW_TAG_imported_unit @die import another unit, as it must?  (A
 * malformed one makes libdw's dwarf_getscopes leak.)
 */
static int import_ok(Dwarf_Die *die, Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	Dwarf_Die unit;
	int tag;

	if (!dwarf_formref_die(dwarf_attr(die, DW_AT_import, &a), &unit))
		return 0;
	tag = dwarf_tag(&unit);
	return (tag == DW_TAG_partial_unit || tag == DW_TAG_compile_unit) &&
	       dwarf_dieoffset(&unit) != dwarf_dieoffset(cudie);
}

/*
 * Index the top-level DIEs of @cudie that have address ranges: 0, -1 on
 * ENOMEM, 1 when libdw cannot read them or they are malformed (the unit
 * is damaged).
 */
static int cu_build(struct dw_cu *c, Dwarf_Die *cudie, const char **why)
{
	Dwarf_Die child;
	uint32_t order = 0;
	size_t cap = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = dwarf_child(cudie, &child);
	if (ret)
		return ret < 0 ? 1 : 0;
	do {
		order++;
		if (dwarf_tag(&child) == DW_TAG_imported_unit) {
			if (!import_ok(&child, cudie)) {
				*why = "an imported unit that imports no unit";
				return 1;
			}
			c->use_getscopes = 1;
			continue;
		}
		if (!dwarf_hasattr(&child, DW_AT_low_pc) &&
		    !dwarf_hasattr(&child, DW_AT_ranges))
			continue;
		ret = cu_add_die(c, &cap, &child, order);
		if (ret)
			return ret;
	} while ((ret = dwarf_siblingof(&child, &child)) == 0);
	if (ret < 0)
		return 1;
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

/* ---- the unit's sanity checks --------------------------------------- */

struct dw_ranges {
	struct dw_top *v;    /* lo, hi; by lo */
	uint64_t *max_hi;    /* max_hi[i]: highest hi of v[0..i] */
	size_t n;
};

/* The unit's address ranges: 0, -1 on ENOMEM, 1 when libdw fails. */
static int ranges_get(struct dw_ranges *r, Dwarf_Die *cudie)
{
	struct dw_cu tmp;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t cap = 0;

	memset(&tmp, 0, sizeof(tmp));
	memset(r, 0, sizeof(*r));
	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0)
		if (hi >= lo && cu_add(&tmp, &cap, lo, hi, 0, 0, 0) < 0) {
			free(tmp.tops);
			return -1;
		}
	r->v = tmp.tops;
	r->n = tmp.n;
	if (off < 0)
		return 1;
	if (!r->n)
		return 0;
	qsort(r->v, r->n, sizeof(*r->v), top_cmp);
	r->max_hi = malloc(r->n * sizeof(*r->max_hi));
	if (!r->max_hi)
		return -1;
	for (size_t i = 0; i < r->n; i++)
		r->max_hi[i] = i && r->max_hi[i - 1] > r->v[i].hi ?
			       r->max_hi[i - 1] : r->v[i].hi;
	return 0;
}

/* Does a range hold @a ([lo, hi), or [lo, hi] for a sequence's @end)? */
static int ranges_hold(const struct dw_ranges *r, uint64_t a, int end)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && (r->max_hi[lo] > a || (end && r->max_hi[lo] == a)))
		if (r->v[lo].hi > a || (end && r->v[lo].hi == a))
			return 1;
	return 0;
}

/* A line row: address, line, file. */
struct dw_row {
	uint64_t addr;
	int line;
	const char *file;
};

/*
 * The line rows of @lines in the image's sections: each in the unit's
 * ranges, with a file and a plausible line.  They (not the ends of
 * sequences) go to @rows, in libdw's order (by address, first emitted
 * first).  0, -1 on ENOMEM, 1 when damaged.
 */
static int lines_check(struct dw_image *im, struct dw_cu *c, Dwarf_Die *cudie,
		       Dwarf_Lines *lines, size_t nl,
		       const struct dw_ranges *r, struct dw_row *rows,
		       size_t *ns)
{
	*ns = 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end;
		int line;

		if (!l || dwarf_lineaddr(l, &a) ||
		    dwarf_lineendsequence(l, &end) || dwarf_lineno(l, &line)) {
			cu_damaged(im, c, cudie, ".debug_line: row %zu: %s", i,
				   dwarf_errmsg(-1));
			return 1;
		}
		if (a < im->span_lo || a > im->span_hi)
			continue; /* discarded code */
		/* [lo, hi]: a row may stand at a sequence's very end */
		if (!ranges_hold(r, a, 1)) {
			cu_damaged(im, c, cudie, ".debug_line: row at 0x%llx "
				   "outside the unit's address ranges",
				   (unsigned long long)a);
			return 1;
		}
		if (end)
			continue;
		rows[*ns].file = dwarf_linesrc(l, NULL, NULL);
		if (!rows[*ns].file || line < 0 || (unsigned)line > MAX_LINE) {
			cu_damaged(im, c, cudie, ".debug_line: row at 0x%llx: "
				   "%s", (unsigned long long)a,
				   line < 0 || (unsigned)line > MAX_LINE ?
				   "no plausible line" : "no such file");
			return 1;
		}
		if (*ns && a < rows[*ns - 1].addr) {
			cu_damaged(im, c, cudie, ".debug_line: rows out of "
				   "order at 0x%llx", (unsigned long long)a);
			return 1;
		}
		rows[*ns].addr = a;
		rows[(*ns)++].line = line;
	}
	return 0;
}

/* The first row in [@a, @a + MAX_ENTRY_PAD), NULL when none. */
static const struct dw_row *row_at(const struct dw_row *rows, size_t n,
				   uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && rows[lo].addr - a < MAX_ENTRY_PAD ? &rows[lo] : NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Does the row at a function's entry fit its declaration: its file, and
 * a line from the declaration's to a little past it (the opening brace
 * after a signature of several lines)?  Line 0 is no line: no check.
 */
static int entry_fits(Dwarf_Die *fn, const struct dw_row *row)
{
	const char *file;
	int decl;

	if (!row->line || dwarf_decl_line(fn, &decl) != 0)
		return 1;
	file = dwarf_decl_file(fn);
	if (file && strcmp(base_name(file), base_name(row->file)))
		return 0;
	return row->line >= decl && row->line - decl <= MAX_SIGNATURE;
}

/*
 * Each function of @c starting in the unit's ranges starts at a row of
 * its declaration's file and line (entry_fits), or a few bytes after
 * (patchable function entries put no-ops before the first row).
 */
static int entries_check(struct dw_image *im, struct dw_cu *c,
			 Dwarf_Die *cudie, const struct dw_ranges *r,
			 const struct dw_row *rows, size_t ns)
{
	for (size_t i = 0; i < c->n; i++) {
		uint64_t a = c->tops[i].lo;
		const struct dw_row *row;
		Dwarf_Die fn;

		if (!c->tops[i].entry || a < im->span_lo ||
		    a >= im->span_hi || !ranges_hold(r, a, 0))
			continue;
		row = row_at(rows, ns, a);
		if (!row) {
			cu_damaged(im, c, cudie, ".debug_line: the function at "
				   "0x%llx has no line row at its start",
				   (unsigned long long)a);
			return 1;
		}
		if (dwarf_offdie(im->dw, c->tops[i].off, &fn) &&
		    !entry_fits(&fn, row)) {
			cu_damaged(im, c, cudie, ".debug_line: the function at "
				   "0x%llx starts at %s:%d, not at its "
				   "declaration", (unsigned long long)a,
				   row->file, row->line);
			return 1;
		}
	}
	return 0;
}

/* Check unit @c (built): 0 (c->damaged says), -1 on ENOMEM. */
static int cu_check(struct dw_image *im, struct dw_cu *c, Dwarf_Die *cudie)
{
	struct dw_ranges r;
	Dwarf_Lines *lines;
	struct dw_row *rows = NULL;
	size_t nl = 0, ns = 0;
	int ret;

	if (dwarf_getsrclines(cudie, &lines, &nl) != 0) {
		if (dwarf_hasattr(cudie, DW_AT_stmt_list))
			cu_damaged(im, c, cudie, ".debug_line: %s",
				   dwarf_errmsg(-1));
		return 0;
	}
	ret = ranges_get(&r, cudie);
	if (ret > 0)
		cu_damaged(im, c, cudie, "address ranges: %s",
			   dwarf_errmsg(-1));
	if (ret || !r.n || !nl)
		goto out;
	rows = malloc(nl * sizeof(*rows));
	if (!rows) {
		ret = -1;
		goto out;
	}
	ret = lines_check(im, c, cudie, lines, nl, &r, rows, &ns);
	if (!ret)
		ret = entries_check(im, c, cudie, &r, rows, ns);
out:
	free(rows);
	free(r.v);
	free(r.max_hi);
	return ret < 0 ? -1 : 0;
}

static struct dw_cu *cu_get(struct dw_image *im, Dwarf_Die *cudie)
{
	uint64_t key = dwarf_dieoffset(cudie) + 1; /* key 0 is fine too */
	uint64_t *v = mdb_u64map_get(&im->cu_map, key);
	const char *why = NULL;
	int ret;

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
	ret = cu_build(&im->cus[im->ncus], cudie, &why);
	if (ret > 0) {
		cu_damaged(im, &im->cus[im->ncus], cudie, ".debug_info: %s",
			   why ? why : dwarf_errmsg(-1));
		im->cus[im->ncus].n = 0; /* no index: never used */
		ret = 0;
	} else if (ret == 0)
		ret = cu_check(im, &im->cus[im->ncus], cudie);
	if (ret < 0) {
		free(im->cus[im->ncus].tops);
		free(im->cus[im->ncus].max_hi);
		return NULL;
	}
	if (!mdb_u64map_put(&im->cu_map, key, im->ncus + 1, NULL)) {
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

/* A DIE of @c's subtree that libdw cannot read: the unit is damaged. */
static int walk_damaged(struct dw_image *im, struct dw_cu *c,
			Dwarf_Die *cudie)
{
	cu_damaged(im, c, cudie, ".debug_info: %s", dwarf_errmsg(-1));
	return -2;
}

/*
 * The scopes holding @pc, innermost first, without the unit: what
 * dwarf_getscopes_die() of dwarf_getscopes()'s innermost scope gives.
 * -2 when libdw fails on a DIE of the unit (c->damaged set then).
 */
static int scope_chain(struct dw_image *im, struct dw_cu *c, Dwarf_Die *cudie,
		       uint64_t pc, Dwarf_Die *chain, int max)
{
	Dwarf_Die path[MAX_DEPTH];
	Dwarf_Off off;
	int n = 0;

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
		int found = 0, ret;

		if (!may_have_scopes(dwarf_tag(&path[n - 1])) ||
		    !dwarf_haschildren(&path[n - 1]))
			break;
		ret = dwarf_child(&path[n - 1], &child);
		if (ret < 0)
			return walk_damaged(im, c, cudie);
		if (ret)
			break;
		do {
			found = dwarf_haspc(&child, pc);
			if (found < 0)
				return walk_damaged(im, c, cudie);
			if (found)
				break;
		} while ((ret = dwarf_siblingof(&child, &child)) == 0);
		if (!found && ret < 0)
			return walk_damaged(im, c, cudie);
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

int mdb_dw_lookup(struct dw_image *im, uint64_t a, struct dw_loc *loc)
{
	Dwarf_Die chain[MAX_DEPTH], *cudie;
	Dwarf_Addr cbias;
	struct dw_cu *c;
	Dwfl_Line *l;
	const char *src = NULL;
	int line = 0, col = 0, n;

	loc->file = loc->inlines = NULL;
	loc->line = -1;
	loc->damaged = 0;
	if (!im->dw)
		return 0;
	if (im->broken) {
		loc->damaged = 1;
		return 0;
	}
	cudie = dwfl_module_addrdie(im->mod, a, &cbias);
	if (!cudie)
		return 0;
	c = cu_get(im, cudie);
	if (!c)
		return -MDB_E_NOMEM;
	if (c->damaged) {
		loc->damaged = 1;
		return 0;
	}
	l = dwfl_module_getsrc(im->mod, a);
	if (l)
		src = dwfl_lineinfo(l, NULL, &line, &col, NULL, NULL);
	if (src) {
		loc->file = strdup(src);
		if (!loc->file)
			return -MDB_E_NOMEM;
		loc->line = line;
	}
	n = scope_chain(im, c, cudie, a - cbias, chain, MAX_DEPTH);
	if (n == -2) {
		mdb_dw_loc_release(loc);
		loc->line = -1;
		loc->damaged = 1;
		return 0;
	}
	if (n < 0 || format_chain(im, cudie, chain, n, src, line) < 0) {
		mdb_dw_loc_release(loc);
		return -MDB_E_NOMEM;
	}
	if (im->len) {
		loc->inlines = strndup(im->buf, im->len);
		if (!loc->inlines) {
			mdb_dw_loc_release(loc);
			return -MDB_E_NOMEM;
		}
	}
	return 0;
}
