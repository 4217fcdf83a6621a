// SPDX-License-Identifier: MIT
/*
 * The symbolize driver: gather the resolvers (vmlinux, the .ko files of
 * the modules the addresses fall in, kallsyms), the KASLR offset, the
 * addresses still worth resolving; resolve them in address order (each
 * compile unit's line table and scope index is then built once and used
 * while hot); write the rows in one transaction.  See symbolize.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/file.h"
#include "../ingest/kallsyms.h"
#include "../ingest/spool.h"
#include "dwarfsyms.h"
#include "elfsyms.h"
#include "modules.h"
#include "symbolize.h"

#define Q_KALLSYMS 1
#define Q_ELF 2
#define Q_DWARF 3

/* A vmlinux or .ko: its function table and its DWARF. */
struct image {
	struct dw_image dw;
	struct elfsyms syms;
	uint64_t text_lo, text_hi; /* span of its executable sections */
	int ok;
	int quality;         /* Q_DWARF or Q_ELF */
	const char *module;  /* NULL for the vmlinux */
	size_t damaged;      /* call sites in its damaged DWARF */
};

/* A placed section of a module: [lo, hi) at run time. */
struct mrange {
	uint64_t lo, hi;
	size_t mod, shndx;
};

/* Coarse module region, before its .ko is read. */
struct region {
	uint64_t lo, hi;
	size_t mod;
};

struct row {
	uint64_t addr, off, size;
	const char *func, *module, *resolver, *origin;
	char *file, *inlines;
	int64_t line;
	int quality;  /* with func NULL: the resolver that says '??' */
};

struct cand {
	uint64_t addr;
	int quality; /* of the row present, 0 when none */
};

struct ctx {
	struct mdb_db *db;
	int64_t src;
	const struct mdb_sym_opts *o;
	struct mdb_sym_result *r;
	struct mdb_error *e;
	struct kallsyms ks;
	int have_ks;
	char ks_origin[600];
	uint64_t ks_shift;   /* kallsyms kernel-image lookups at addr - this */
	struct image vml;
	uint64_t kaslr;
	struct kmods mods;
	struct ko_index kos;
	struct image *kimg;  /* per module of mods */
	struct mrange *mr;
	size_t nmr;
	struct cand *cands;
	size_t ncand;
	struct row *rows;
	size_t nrows;
};

static void warn(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct ctx *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!c->o->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->o->warn(c->o->warn_ctx, msg);
}

static int nomem(struct ctx *c)
{
	return mdb_error_nomem(c->e);
}

/* ---- inputs ----------------------------------------------------------- */

/*
 * The bytes of snapshot @name: the file @path when given, else the copy
 * kept with the source.  Returns 1 with *@buf (malloc'ed) and *@label (for
 * messages), 0 when there is none, <0 on error.
 */
static int snapshot(struct ctx *c, const char *path, const char *name,
		    char **buf, size_t *len, char *label, size_t lsize)
{
	void *data;
	int ret;

	*buf = NULL;
	if (path) {
		struct mdb_map m;

		ret = mdb_map_decompressed(path, &m, c->e);
		if (ret < 0)
			return ret;
		data = malloc(m.len + 1);
		if (!data) {
			mdb_unmap(&m);
			return nomem(c);
		}
		if (m.len)
			memcpy(data, m.data, m.len);
		*len = m.len;
		mdb_unmap(&m);
		ret = mdb_map_check(0, c->e);
		if (ret < 0) {
			free(data);
			return ret;
		}
		snprintf(label, lsize, "%s", path);
		*buf = data;
		return 1;
	}
	ret = mdb_db_source_file(c->db, c->src, name, &data, len, c->e);
	if (ret <= 0)
		return ret;
	snprintf(label, lsize, "%s of source %" PRId64, name, c->src);
	*buf = data;
	return 1;
}

static int load_kallsyms(struct ctx *c)
{
	char *buf;
	size_t len;
	int ret = snapshot(c, c->o->kallsyms, "kallsyms", &buf, &len,
			   c->ks_origin, sizeof(c->ks_origin));

	if (ret <= 0)
		return ret;
	snprintf(c->r->kallsyms_from, sizeof(c->r->kallsyms_from), "%s",
		 c->o->kallsyms ? "option" : "source");
	ret = mdb_kallsyms_parse(&c->ks, buf, len, c->ks_origin, c->e);
	free(buf);
	if (ret < 0)
		return ret;
	c->have_ks = 1;
	if (c->ks.malformed) {
		mdb_error_set(c->e, MDB_E_CORRUPT, c->ks_origin, -1,
			      c->ks.first_bad_line, "malformed=%llu lines=%llu",
			      (unsigned long long)c->ks.malformed,
			      (unsigned long long)c->ks.lines);
		mdb_error_msg(c->e, "malformed kallsyms line");
		mdb_error_hint(c->e, "expected 'ADDRESS TYPE NAME [MODULE]' "
				     "lines, as in /proc/kallsyms or "
				     "System.map");
		return -MDB_E_CORRUPT;
	}
	return 0;
}

static int load_modules(struct ctx *c)
{
	char label[600], *buf;
	size_t len;
	int ret;

	ret = snapshot(c, c->o->proc_modules, "modules", &buf, &len, label,
		       sizeof(label));
	if (ret > 0) {
		ret = mdb_kmods_parse_proc(&c->mods, buf, len, label, c->e);
		free(buf);
	}
	if (ret < 0)
		return ret;
	ret = snapshot(c, c->o->sections, "sections", &buf, &len, label,
		       sizeof(label));
	if (ret > 0) {
		ret = mdb_kmods_parse_sections(&c->mods, buf, len, label, c->e);
		free(buf);
	}
	if (ret < 0)
		return ret;
	if (c->o->modules_dir) {
		ret = mdb_ko_index_build(&c->kos, c->o->modules_dir, c->e);
		if (ret < 0)
			return ret;
		if (!c->mods.n)
			warn(c, "no /proc/modules or sections snapshot: the "
				"module files under '%s' are not used",
			     c->o->modules_dir);
	}
	return 0;
}

/*
 * The span of @im's allocated sections (ELF addresses; sections at 0,
 * like x86-64's per-CPU data, left out): inside it the image's symbol
 * table is the authority, and an address in no function is '??', not a
 * kallsyms guess.
 */
static void text_span(struct image *im)
{
	Elf_Scn *scn = NULL;

	im->text_lo = UINT64_MAX;
	im->text_hi = 0;
	while ((scn = elf_nextscn(im->dw.elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_addr || !sh.sh_size)
			continue;
		if (sh.sh_addr < im->text_lo)
			im->text_lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > im->text_hi)
			im->text_hi = sh.sh_addr + sh.sh_size;
	}
}

static int load_vmlinux(struct ctx *c)
{
	const char *path = c->o->vmlinux;
	int ret = mdb_dw_open(&c->vml.dw, path, c->e);

	if (ret < 0)
		return ret;
	c->vml.ok = 1;
	ret = mdb_elfsyms_build(&c->vml.syms, c->vml.dw.elf, path, NULL, 0, c->e);
	if (ret < 0)
		return ret;
	c->vml.quality = c->vml.dw.dw ? Q_DWARF : Q_ELF;
	text_span(&c->vml);
	if (!c->vml.dw.dw)
		warn(c, "'%s' has no DWARF (%s), falling back to its symbol "
			"table: no file:line", path, c->vml.dw.nodwarf);
	return 0;
}

/* ---- KASLR ------------------------------------------------------------ */

/*
 * How many kernel-image functions of the kallsyms snapshot start where
 * the vmlinux has a function, once moved by @delta (run - link address).
 */
static void match_ratio(struct ctx *c, uint64_t delta, size_t *hit,
			size_t *checked)
{
	*hit = *checked = 0;
	for (size_t i = 0; i < c->ks.n; i++) {
		const struct ksym *s = &c->ks.syms[i];
		const struct elfsym *f;

		if (s->module || (s->type != 't' && s->type != 'T'))
			continue;
		if (i && c->ks.syms[i - 1].addr == s->addr)
			continue; /* one per address */
		(*checked)++;
		f = mdb_elfsyms_find(&c->vml.syms, s->addr - delta);
		*hit += f && f->addr == s->addr - delta;
	}
}

static int setup_kaslr(struct ctx *c)
{
	const struct elfsyms *v = &c->vml.syms;
	uint64_t ka = 0, va = 0;
	const char *anchor = NULL;
	size_t hit, checked;

	if (!c->vml.ok) {
		/* kallsyms alone: a System.map needs the offset given */
		c->ks_shift = c->o->have_kaslr ? c->o->kaslr : 0;
		c->r->kaslr = c->ks_shift;
		c->r->kaslr_from = c->o->have_kaslr ? MDB_KASLR_GIVEN :
						      MDB_KASLR_NONE;
		return 0;
	}
	if (c->have_ks) {
		if (v->have_stext &&
		    mdb_kallsyms_any_addr(&c->ks, "_stext", &ka) == 0) {
			anchor = "_stext";
			va = v->stext;
		} else if (v->have_text &&
			   mdb_kallsyms_any_addr(&c->ks, "_text", &ka) == 0) {
			anchor = "_text";
			va = v->text;
		}
	}
	if (c->o->have_kaslr) {
		c->kaslr = c->o->kaslr;
		c->r->kaslr_from = MDB_KASLR_GIVEN;
		if (anchor && ka - va != c->kaslr)
			warn(c, "--kaslr-offset 0x%" PRIx64 " differs from the "
				"kallsyms snapshot's 0x%" PRIx64 " (%s)",
			     c->kaslr, ka - va, anchor);
	} else if (c->have_ks) {
		if (!anchor) {
			mdb_error_set(c->e, MDB_E_NOTFOUND, c->ks_origin, -1,
				      -1, "vmlinux_stext=%s vmlinux_text=%s",
				      v->have_stext ? "yes" : "no",
				      v->have_text ? "yes" : "no");
			mdb_error_msg(c->e, "cannot derive the KASLR offset: "
					    "no _stext or _text in both the "
					    "kallsyms snapshot and the "
					    "vmlinux");
			mdb_error_hint(c->e, "give --kaslr-offset HEX (run-time "
					     "minus link-time address; 0 "
					     "without KASLR)");
			return -MDB_E_NOTFOUND;
		}
		c->kaslr = ka - va;
		c->r->kaslr_from = MDB_KASLR_KALLSYMS;
		c->r->anchor = anchor;
		/* a vmlinux of another build would name call sites wrongly */
		match_ratio(c, c->kaslr, &hit, &checked);
		if (checked >= 16 && hit * 2 < checked) {
			mdb_error_set(c->e, MDB_E_INVAL, c->o->vmlinux, -1, -1,
				      "kallsyms='%s' functions_matched=%zu/%zu "
				      "kaslr=0x%" PRIx64, c->ks_origin, hit,
				      checked, c->kaslr);
			mdb_error_msg(c->e, "vmlinux does not match the kallsyms "
					    "snapshot");
			mdb_error_hint(c->e, "give the vmlinux of the traced "
					     "kernel; --kaslr-offset HEX "
					     "uses this one anyway");
			return -MDB_E_INVAL;
		}
	} else {
		c->r->kaslr_from = MDB_KASLR_NONE;
	}
	c->r->kaslr = c->kaslr;
	/* kernel-image kallsyms lookups: that file's own offset */
	c->ks_shift = anchor ? c->kaslr - (ka - va) : 0;
	return 0;
}

/* ---- candidates ------------------------------------------------------- */

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Index of @addr in the sorted candidates, or -1. */
static long cand_find(const struct ctx *c, uint64_t addr)
{
	size_t a = 0, b = c->ncand;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (c->cands[mid].addr < addr)
			a = mid + 1;
		else
			b = mid;
	}
	return a < c->ncand && c->cands[a].addr == addr ? (long)a : -1;
}

/*
 * The distinct call-site and stack-frame addresses of the source that a
 * run with best quality @maxq can improve: plain scans (site,
 * stack_frame, symbol) and a sort, which SQLite's DISTINCT and join over
 * a large source are slow at.
 */
static int load_candidates(struct ctx *c, int maxq)
{
	sqlite3_stmt *st;
	size_t cap = 0, n = 0;
	int rc;

	/* call sites and the frames of the stacks, resolved alike */
	if (sqlite3_prepare_v2(c->db->h, "SELECT addr FROM site WHERE "
			       "source_id = ?1 AND addr IS NOT NULL "
			       "UNION ALL SELECT addr FROM stack_frame "
			       "WHERE source_id = ?1", -1, &st, NULL))
		return mdb_db_error(c->db, c->e, "cannot read call sites");
	sqlite3_bind_int64(st, 1, c->src);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (c->ncand == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct cand *nc = realloc(c->cands,
						  ncap * sizeof(*nc));

			if (!nc) {
				sqlite3_finalize(st);
				return nomem(c);
			}
			c->cands = nc;
			cap = ncap;
		}
		c->cands[c->ncand].addr =
			(uint64_t)sqlite3_column_int64(st, 0);
		c->cands[c->ncand].quality = 0;
		c->ncand++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(c->db, c->e, "cannot read call sites");
	if (c->ncand)
		qsort(c->cands, c->ncand, sizeof(*c->cands), cand_cmp);
	for (size_t i = 0; i < c->ncand; i++)
		if (!n || c->cands[i].addr != c->cands[n - 1].addr)
			c->cands[n++] = c->cands[i];
	c->ncand = n;
	c->r->sites = n;
	c->r->zero_sites = n && c->cands[0].addr == 0;
	if (c->o->force)
		return 0;
	if (sqlite3_prepare_v2(c->db->h, "SELECT addr, quality FROM symbol "
			       "WHERE source_id = ?1", -1, &st, NULL))
		return mdb_db_error(c->db, c->e, "cannot read symbols");
	sqlite3_bind_int64(st, 1, c->src);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long i = cand_find(c, (uint64_t)sqlite3_column_int64(st, 0));

		if (i >= 0)
			c->cands[i].quality = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(c->db, c->e, "cannot read symbols");
	n = 0;
	for (size_t i = 0; i < c->ncand; i++)
		if (c->cands[i].quality < maxq)
			c->cands[n++] = c->cands[i];
	c->ncand = n;
	return 0;
}

/* Is some candidate address in [lo, hi)? */
static int cands_in(const struct ctx *c, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = c->ncand;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (c->cands[mid].addr < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < c->ncand && c->cands[a].addr < hi;
}

/* ---- modules ---------------------------------------------------------- */

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int mr_cmp(const void *a, const void *b)
{
	const struct mrange *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Section address of @name in module @k's sections snapshot. */
static int sec_addr(const struct kmod *k, const char *name, uint64_t *addr)
{
	for (size_t i = 0; i < k->nsecs; i++)
		if (!strcmp(k->secs[i].name, name)) {
			*addr = k->secs[i].addr;
			return 0;
		}
	return -1;
}

/*
 * Read module @i's .ko at @path: place its sections (the sections
 * snapshot, else .text at the module's base), build its function table
 * and record its placed sections.  A file that cannot be used is a
 * warning: its addresses fall back to kallsyms.
 */
static int open_module(struct ctx *c, size_t i, const char *path,
		       size_t *mr_cap)
{
	const struct kmod *k = &c->mods.v[i];
	struct image *im = &c->kimg[i];
	struct mdb_error e2;
	uint64_t *place = NULL;
	size_t shnum = 0, shstrndx = 0;
	char msg[1400];
	int ret = 0;

	mdb_error_clear(&e2);
	if (mdb_dw_open(&im->dw, path, &e2) < 0)
		goto unusable;
	if (im->dw.e_type != ET_REL) {
		mdb_error_set(&e2, MDB_E_FORMAT, path, -1, -1, NULL);
		mdb_error_msg(&e2, "not a relocatable module file");
		goto unusable;
	}
	if (elf_getshdrnum(im->dw.elf, &shnum) < 0 ||
	    elf_getshdrstrndx(im->dw.elf, &shstrndx) < 0) {
		mdb_error_set(&e2, MDB_E_CORRUPT, path, -1, -1, "%s",
			      elf_errmsg(-1));
		mdb_error_msg(&e2, "cannot read section headers");
		goto unusable;
	}
	place = malloc((shnum ? shnum : 1) * sizeof(*place));
	if (!place)
		return nomem(c);
	for (size_t s = 0; s < shnum; s++) {
		GElf_Shdr sh;
		const char *name;

		place[s] = UINT64_MAX;
		if (!s || !gelf_getshdr(elf_getscn(im->dw.elf, s), &sh) ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(im->dw.elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (k->nsecs ? sec_addr(k, name, &place[s]) < 0 :
			       !(k->has_base && !strcmp(name, ".text")))
			continue;
		if (!k->nsecs)
			place[s] = k->base;
		if (!sh.sh_size)
			continue;
		if (c->nmr == *mr_cap) {
			size_t ncap = *mr_cap ? *mr_cap * 2 : 64;
			struct mrange *nm = realloc(c->mr, ncap * sizeof(*nm));

			if (!nm) {
				free(place);
				return nomem(c);
			}
			c->mr = nm;
			*mr_cap = ncap;
		}
		c->mr[c->nmr].lo = place[s];
		c->mr[c->nmr].hi = place[s] + sh.sh_size;
		c->mr[c->nmr].mod = i;
		c->mr[c->nmr].shndx = s;
		c->nmr++;
	}
	ret = mdb_elfsyms_build(&im->syms, im->dw.elf, path, place, shnum, &e2);
	free(place);
	if (ret == -MDB_E_NOMEM)
		return nomem(c);
	if (ret < 0) {
		/* drop the ranges just added: nothing resolves there */
		while (c->nmr && c->mr[c->nmr - 1].mod == i)
			c->nmr--;
		goto unusable;
	}
	im->ok = 1;
	im->module = k->name;
	im->quality = im->dw.dw ? Q_DWARF : Q_ELF;
	if (!im->dw.dw)
		warn(c, "'%s' has no DWARF (%s), falling back to its symbol "
			"table: no file:line", path, im->dw.nodwarf);
	return 0;
unusable:
	mdb_error_format(&e2, msg, sizeof(msg));
	warn(c, "module %s: %s; its call sites use kallsyms", k->name, msg);
	mdb_dw_close(&im->dw);
	return 0;
}

/*
 * Open the .ko of each module some candidate address may fall in.  A
 * module's coarse region runs from each of its text sections to the next
 * known section or module start (sections snapshot), or is [base, base +
 * size) from /proc/modules; the exact ranges come from the .ko.
 */
static int setup_modules(struct ctx *c)
{
	uint64_t *points = NULL;
	size_t npoints = 0, mr_cap = 0;
	int ret = 0;

	if (!c->mods.n || !c->kos.n || !c->ncand)
		return 0;
	c->kimg = calloc(c->mods.n, sizeof(*c->kimg));
	for (size_t i = 0; i < c->mods.n; i++)
		npoints += c->mods.v[i].nsecs + 1;
	points = malloc(npoints * sizeof(*points));
	if (!c->kimg || !points) {
		free(points);
		return nomem(c);
	}
	npoints = 0;
	for (size_t i = 0; i < c->mods.n; i++) {
		const struct kmod *k = &c->mods.v[i];

		for (size_t s = 0; s < k->nsecs; s++)
			points[npoints++] = k->secs[s].addr;
		if (k->has_base)
			points[npoints++] = k->base;
	}
	qsort(points, npoints, sizeof(*points), u64_cmp);
	for (size_t i = 0; i < c->mods.n && ret >= 0; i++) {
		const struct kmod *k = &c->mods.v[i];
		const char *path = mdb_ko_index_find(&c->kos, k->name);
		int hit = 0;

		if (!path)
			continue;
		for (size_t s = 0; s < k->nsecs && !hit; s++) {
			uint64_t lo = k->secs[s].addr, hi = UINT64_MAX;
			size_t a = 0, b = npoints;

			if (!strstr(k->secs[s].name, "text"))
				continue;
			while (a < b) {
				size_t mid = a + (b - a) / 2;

				if (points[mid] <= lo)
					a = mid + 1;
				else
					b = mid;
			}
			if (a < npoints)
				hi = points[a];
			hit = cands_in(c, lo, hi);
		}
		if (!k->nsecs && k->has_base)
			hit = cands_in(c, k->base, k->base + k->size);
		if (hit)
			ret = open_module(c, i, path, &mr_cap);
	}
	free(points);
	if (c->nmr)
		qsort(c->mr, c->nmr, sizeof(*c->mr), mr_cmp);
	return ret;
}

static const struct mrange *mr_find(const struct ctx *c, uint64_t addr)
{
	size_t a = 0, b = c->nmr;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (c->mr[mid].lo <= addr)
			a = mid + 1;
		else
			b = mid;
	}
	if (a && addr < c->mr[a - 1].hi)
		return &c->mr[a - 1];
	return NULL;
}

/* ---- resolving -------------------------------------------------------- */

/*
 * @loc of @im for row @r: file, line and inlines; an address in damaged
 * DWARF keeps only what the symbol table says, at its quality, so that
 * a good file upgrades the row later.
 */
static void take_loc(struct image *im, struct dw_loc *loc, struct row *r)
{
	r->file = loc->file;
	r->line = loc->line;
	r->inlines = loc->inlines;
	if (!loc->damaged)
		return;
	r->quality = Q_ELF;
	r->resolver = "elf";
	im->damaged++;
}

static int from_image(struct ctx *c, struct image *im, const struct elfsym *s,
		      uint64_t a, uint64_t dwaddr, int have_dw, struct row *r)
{
	struct dw_loc loc = { NULL, -1, NULL, 0 };
	int ret;

	r->func = s->name;
	r->off = a - s->addr;
	r->size = s->size;
	r->module = im->module;
	r->origin = im->dw.path;
	r->quality = im->quality;
	r->resolver = im->quality == Q_DWARF ? "dwarf" : "elf";
	if (im->quality == Q_DWARF && have_dw) {
		ret = mdb_dw_lookup(&im->dw, dwaddr, &loc);
		if (ret < 0)
			return nomem(c);
	}
	take_loc(im, &loc, r);
	return 1;
}

/*
 * @im, whose symbol table covers @a (an ELF address; @m its module
 * section, NULL for the vmlinux), has no function there: a '??' row of
 * its quality, with the source of a - 1 when DWARF knows it.
 */
static int no_function(struct ctx *c, struct image *im,
		       const struct mrange *m, uint64_t a, struct row *r)
{
	struct dw_loc loc = { NULL, -1, NULL, 0 };
	uint64_t dwaddr = a - 1 + im->dw.bias;
	int have = 1;

	r->func = NULL;
	r->module = im->module;
	r->origin = im->dw.path;
	r->quality = im->quality;
	r->resolver = im->quality == Q_DWARF ? "dwarf" : "elf";
	if (m) {
		const struct mrange *m1 = mr_find(c, a - 1);
		uint64_t base;

		have = m1 && m1->mod == m->mod &&
		       mdb_dw_section_addr(&im->dw, m1->shndx, &base) == 0;
		if (have)
			dwaddr = base + (a - 1 - m1->lo);
	}
	if (im->quality == Q_DWARF && have &&
	    mdb_dw_lookup(&im->dw, dwaddr, &loc) < 0)
		return nomem(c);
	take_loc(im, &loc, r);
	return 2;
}

/*
 * Fill @r for address @a: 1 when its function was found; 2 when a file
 * with sizes says no function holds it (r->quality says which: a worse
 * row's guess is then dropped); 0 when nothing knows.
 */
static int resolve(struct ctx *c, uint64_t a, struct row *r)
{
	const struct mrange *m = mr_find(c, a);
	const struct ksym *k;

	memset(r, 0, sizeof(*r));
	r->addr = a;
	r->line = -1;
	if (m) {
		struct image *im = &c->kimg[m->mod];
		const struct elfsym *s = mdb_elfsyms_find(&im->syms, a);

		if (s) {
			/* the call is at a - 1: its own section's offset */
			const struct mrange *m1 = mr_find(c, a - 1);
			uint64_t base;
			int have = m1 && m1->mod == m->mod &&
				   mdb_dw_section_addr(&im->dw, m1->shndx,
						       &base) == 0;

			return from_image(c, im, s, a,
					  have ? base + (a - 1 - m1->lo) : 0,
					  have, r);
		}
		return no_function(c, im, m, a, r);
	} else if (c->vml.ok) {
		uint64_t x = a - c->kaslr;
		const struct elfsym *s = mdb_elfsyms_find(&c->vml.syms, x);

		if (s)
			return from_image(c, &c->vml, s, x,
					  x - 1 + c->vml.dw.bias, 1, r);
		if (x >= c->vml.text_lo && x < c->vml.text_hi)
			return no_function(c, &c->vml, NULL, x, r);
	}
	if (!c->have_ks)
		return 0;
	k = mdb_kallsyms_find(&c->ks, a);
	if (!k || !k->module) {
		a -= c->ks_shift;
		k = mdb_kallsyms_find(&c->ks, a);
		if (k && k->module)
			k = NULL;
	}
	if (!k)
		return 0;
	r->func = kallsyms_name(&c->ks, k);
	r->off = a - k->addr;
	r->size = k->size;
	r->module = kallsyms_module(&c->ks, k);
	r->origin = c->ks_origin;
	r->quality = Q_KALLSYMS;
	r->resolver = "kallsyms";
	return 1;
}

static void rows_free(struct ctx *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i].file);
		free(c->rows[i].inlines);
	}
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}

/* Say what damage @im's DWARF has and what it cost. */
static void warn_damaged(struct ctx *c, const struct image *im)
{
	if (!im->ok || (!im->dw.ndamaged && !im->dw.broken))
		return;
	c->r->damaged += im->damaged;
	warn(c, "'%s' has damaged DWARF: %s%s%zu compile unit%s not used "
		"(%s); %zu call site%s there keep only the symbol table's "
		"function and offset, without file:line (quality 2; a good "
		"file upgrades them)", im->dw.path,
	     im->dw.broken ? "the unit headers cannot be read, " : "",
	     im->dw.broken ? "so all units; " : "", im->dw.ndamaged,
	     im->dw.ndamaged == 1 ? "" : "s",
	     im->dw.damage ? im->dw.damage : "?", im->damaged,
	     im->damaged == 1 ? "" : "s");
}

static int resolve_all(struct ctx *c)
{
	size_t outside = 0, nonzero = 0;

	c->rows = calloc(c->ncand ? c->ncand : 1, sizeof(*c->rows));
	if (!c->rows)
		return nomem(c);
	for (size_t i = 0; i < c->ncand; i++) {
		struct row *r = &c->rows[c->nrows];
		uint64_t x = c->cands[i].addr - c->kaslr;
		int ret = resolve(c, c->cands[i].addr, r);

		if (c->vml.ok && c->cands[i].addr) {
			nonzero++;
			outside += (x < c->vml.text_lo ||
				    x >= c->vml.text_hi) &&
				   !mr_find(c, c->cands[i].addr);
		}

		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		if (r->quality <= c->cands[i].quality) {
			free(r->file);
			free(r->inlines);
			continue;
		}
		c->nrows++;
	}
	c->r->looked_at = c->ncand;
	warn_damaged(c, &c->vml);
	for (size_t i = 0; c->kimg && i < c->mods.n; i++)
		warn_damaged(c, &c->kimg[i]);
	if (nonzero >= 4 && outside * 2 > nonzero)
		warn(c, "%zu of %zu call sites are outside '%s' and the "
			"modules placed%s", outside, nonzero, c->o->vmlinux,
		     c->r->kaslr_from == MDB_KASLR_NONE ?
		     ": a KASLR boot? give the kallsyms of the traced boot "
		     "or --kaslr-offset; module addresses need modules or "
		     "sections snapshots and --modules" : "");
	return 0;
}

/* ---- writing ---------------------------------------------------------- */

static void bind_text(sqlite3_stmt *st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

static int write_rows(struct ctx *c)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = mdb_db_exec(c->db, "BEGIN IMMEDIATE", c->e);
	if (ret < 0)
		return ret;
	ret = mdb_db_source_exists(c->db, c->src, c->e);
	if (ret == 0) {
		mdb_error_set(c->e, MDB_E_NOTFOUND, c->db->path, -1, -1,
			      "id=%" PRId64, c->src);
		mdb_error_msg(c->e, "no such source");
		ret = -MDB_E_NOTFOUND;
	}
	if (ret >= 0 && c->o->force) {
		if (sqlite3_prepare_v2(c->db->h, "DELETE FROM symbol WHERE "
				       "source_id = ?1", -1, &st, NULL)) {
			ret = mdb_db_error(c->db, c->e, "cannot write symbols");
		} else {
			sqlite3_bind_int64(st, 1, c->src);
			if (sqlite3_step(st) != SQLITE_DONE)
				ret = mdb_db_error(c->db, c->e,
						   "cannot write symbols");
			sqlite3_finalize(st);
			st = NULL;
		}
	}
	if (ret >= 0 &&
	    sqlite3_prepare_v2(c->db->h,
			       "INSERT INTO symbol (source_id, addr, func, off, "
			       "size, file, line, inlines, module, resolver, "
			       "quality, origin) VALUES (?1, ?2, ?3, ?4, ?5, "
			       "?6, ?7, ?8, ?9, ?10, ?11, ?12) "
			       "ON CONFLICT (source_id, addr) DO UPDATE SET "
			       "func = excluded.func, off = excluded.off, "
			       "size = excluded.size, file = excluded.file, "
			       "line = excluded.line, "
			       "inlines = excluded.inlines, "
			       "module = excluded.module, "
			       "resolver = excluded.resolver, "
			       "quality = excluded.quality, "
			       "origin = excluded.origin "
			       "WHERE excluded.quality > symbol.quality",
			       -1, &st, NULL))
		ret = mdb_db_error(c->db, c->e, "cannot write symbols");
	for (size_t i = 0; ret >= 0 && i < c->nrows; i++) {
		const struct row *r = &c->rows[i];

		sqlite3_bind_int64(st, 1, c->src);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)r->addr);
		bind_text(st, 3, r->func);
		if (r->func)
			sqlite3_bind_int64(st, 4, (sqlite3_int64)r->off);
		else
			sqlite3_bind_null(st, 4);
		if (r->size)
			sqlite3_bind_int64(st, 5, (sqlite3_int64)r->size);
		else
			sqlite3_bind_null(st, 5);
		bind_text(st, 6, r->file);
		if (r->line >= 0)
			sqlite3_bind_int64(st, 7, r->line);
		else
			sqlite3_bind_null(st, 7);
		bind_text(st, 8, r->inlines);
		bind_text(st, 9, r->module);
		bind_text(st, 10, r->resolver);
		sqlite3_bind_int(st, 11, r->quality);
		bind_text(st, 12, r->origin);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = mdb_db_error(c->db, c->e, "cannot write symbols");
		else
			c->r->written += (uint64_t)sqlite3_changes(c->db->h);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (ret < 0) {
		mdb_db_exec(c->db, "ROLLBACK", NULL);
		c->r->written = 0;
		return ret;
	}
	ret = mdb_db_exec(c->db, "COMMIT", c->e);
	if (ret < 0) {
		mdb_db_exec(c->db, "ROLLBACK", NULL);
		c->r->written = 0;
	}
	return ret;
}

static int count_rows(struct ctx *c)
{
	sqlite3_stmt *st;
	uint64_t resolved = 0;
	int rc;

	if (sqlite3_prepare_v2(c->db->h,
			       "SELECT quality, count(*) FROM symbol "
			       "WHERE source_id = ?1 AND func IS NOT NULL "
			       "GROUP BY quality", -1, &st, NULL))
		return mdb_db_error(c->db, c->e, "cannot count symbols");
	sqlite3_bind_int64(st, 1, c->src);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int q = sqlite3_column_int(st, 0);
		uint64_t n = (uint64_t)sqlite3_column_int64(st, 1);

		if (q >= 1 && q <= 3)
			c->r->by_quality[q] += n;
		resolved += n;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mdb_db_error(c->db, c->e, "cannot count symbols");
	c->r->unknown = c->r->sites > resolved ? c->r->sites - resolved : 0;
	return 0;
}

/* ---- the whole run ---------------------------------------------------- */

static void ctx_release(struct ctx *c)
{
	rows_free(c);
	free(c->cands);
	if (c->kimg)
		for (size_t i = 0; i < c->mods.n; i++) {
			mdb_elfsyms_release(&c->kimg[i].syms);
			mdb_dw_close(&c->kimg[i].dw);
		}
	free(c->kimg);
	free(c->mr);
	mdb_kmods_release(&c->mods);
	mdb_ko_index_release(&c->kos);
	mdb_elfsyms_release(&c->vml.syms);
	if (c->vml.ok)
		mdb_dw_close(&c->vml.dw);
	if (c->have_ks)
		mdb_kallsyms_release(&c->ks);
}

int mdb_symbolize(struct mdb_db *db, int64_t source_id,
		  const struct mdb_sym_opts *o, struct mdb_sym_result *r,
		  struct mdb_error *e)
{
	struct ctx c;
	int ret, maxq;

	memset(&c, 0, sizeof(c));
	memset(r, 0, sizeof(*r));
	c.db = db;
	c.src = source_id;
	c.o = o;
	c.r = r;
	c.e = e;
	r->source_id = source_id;
	ret = mdb_db_source_exists(db, source_id, e);
	if (ret == 0) {
		mdb_error_set(e, MDB_E_NOTFOUND, db->path, -1, -1,
			      "id=%" PRId64, source_id);
		mdb_error_msg(e, "no such source");
		return -MDB_E_NOTFOUND;
	}
	if (ret < 0)
		return ret;
	/* libdwfl maps the vmlinux and the modules itself */
	mdb_map_guard();
	ret = load_kallsyms(&c);
	if (ret >= 0)
		ret = load_modules(&c);
	if (ret >= 0 && o->vmlinux)
		ret = load_vmlinux(&c);
	if (ret >= 0 && !c.vml.ok && !c.have_ks) {
		mdb_error_set(e, MDB_E_NORESOLVER, NULL, -1, -1,
			      "source=%" PRId64, source_id);
		mdb_error_hint(e, "give --vmlinux FILE or --kallsyms FILE (a "
				  "capture directory holding 'kallsyms' keeps "
				  "it with the source)");
		ret = -MDB_E_NORESOLVER;
	}
	if (ret >= 0)
		ret = setup_kaslr(&c);
	maxq = c.vml.ok ? c.vml.quality : Q_KALLSYMS;
	if (c.mods.n && c.kos.n)
		maxq = Q_DWARF;
	if (ret >= 0)
		ret = load_candidates(&c, maxq);
	if (ret >= 0)
		ret = setup_modules(&c);
	if (ret >= 0)
		ret = resolve_all(&c);
	if (mdb_map_unguard())
		ret = mdb_file_shrank(e, o->vmlinux ? o->vmlinux :
				      "a kernel module's file", -1);
	if (ret >= 0 && (c.nrows || o->force))
		ret = write_rows(&c);
	if (ret >= 0)
		ret = count_rows(&c);
	ctx_release(&c);
	return ret < 0 ? ret : 0;
}
