// SPDX-License-Identifier: MIT
/* The sorted function table of an ELF file; see elfsyms.h. */
#include <stdlib.h>
#include <string.h>

#include "elfsyms.h"

struct raw {
	uint64_t addr, size, sec_end; /* sec_end 0: unknown */
	const char *name;
	size_t idx;
	unsigned weak, lds, unders;
};

/*
 * A name the linker script may provide (__start_X, __stop_X, __end_X,
 * __X_start, __X_end): scripts/kallsyms puts it after the other names
 * of its address.
 */
static unsigned linker_script_name(const char *s)
{
	size_t len = strlen(s);

	if (len < 8 || s[0] != '_' || s[1] != '_')
		return 0;
	return !strncmp(s + 2, "start_", 6) || !strncmp(s + 2, "stop_", 5) ||
	       !strncmp(s + 2, "end_", 4) ||
	       !strcmp(s + len - 6, "_start") || !strcmp(s + len - 4, "_end");
}

/*
 * Is symbol @s (in section @sh, NULL for SHN_ABS) code?  Functions, and
 * the labels of hand-written assembly: a STT_NOTYPE symbol in an
 * executable section (SYM_CODE_START, SYM_INNER_LABEL), which kallsyms
 * lists as text too.  Assembler-local and mapping symbols ($x, $d,
 * .L...) are no names of code.
 */
static int is_code(const GElf_Sym *s, const GElf_Shdr *sh, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return 1;
	if (type != STT_NOTYPE || !sh || !(sh->sh_flags & SHF_EXECINSTR))
		return 0;
	return name[0] != '$' && strncmp(name, ".L", 2);
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->weak != y->weak)
		return x->weak < y->weak ? -1 : 1;
	if (x->lds != y->lds)
		return x->lds < y->lds ? -1 : 1;
	if (x->unders != y->unders)
		return x->unders < y->unders ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int elf_fail(struct mdb_error *e, const char *path, const char *what)
{
	mdb_error_set(e, MDB_E_CORRUPT, path, -1, -1, "%s", elf_errmsg(-1));
	mdb_error_msg(e, "%s", what);
	return -MDB_E_CORRUPT;
}

/* The symbol table section: .symtab, else .dynsym; NULL when none. */
static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh, Elf_Scn **xndx)
{
	Elf_Scn *scn = NULL, *best = NULL;
	size_t best_ndx = 0;

	*xndx = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr s;

		if (!gelf_getshdr(scn, &s))
			continue;
		if (s.sh_type == SHT_SYMTAB ||
		    (s.sh_type == SHT_DYNSYM && !best)) {
			best = scn;
			*sh = s;
		}
	}
	if (!best)
		return NULL;
	best_ndx = elf_ndxscn(best);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr s;

		if (gelf_getshdr(scn, &s) && s.sh_type == SHT_SYMTAB_SHNDX &&
		    s.sh_link == best_ndx)
			*xndx = scn;
	}
	return best;
}

/* Where a file's symbols are: its sections, placed for a .ko. */
struct placing {
	Elf *elf;
	size_t shnum;
	int rel;
	const uint64_t *place;
	size_t nplace;
};

/*
 * Is symbol @s (section @shndx) code to keep?  Then its address, and the
 * end of its section (0: unknown).
 */
static int code_at(const struct placing *w, const GElf_Sym *s, size_t shndx,
		   const char *name, uint64_t *addr, uint64_t *sec_end)
{
	GElf_Shdr sh;

	*sec_end = 0;
	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_COMMON)
		return 0;
	if (s->st_shndx == SHN_ABS) {
		*addr = s->st_value;
		return !w->rel && is_code(s, NULL, name);
	}
	if (shndx >= w->shnum ||
	    !gelf_getshdr(elf_getscn(w->elf, shndx), &sh) ||
	    !is_code(s, &sh, name))
		return 0;
	if (!w->rel) {
		*addr = s->st_value;
		if (sh.sh_flags & SHF_ALLOC)
			*sec_end = sh.sh_addr + sh.sh_size;
		return 1;
	}
	if (!w->place || shndx >= w->nplace || w->place[shndx] == UINT64_MAX)
		return 0;
	*addr = w->place[shndx] + s->st_value;
	*sec_end = w->place[shndx] + sh.sh_size;
	return 1;
}

/*
 * End of a symbol without a size at @r[i] (@next: index of the next
 * higher address): the next symbol, the end of its section, or the end
 * of a sized symbol enclosing it (@open_end, 0: none), whichever comes
 * first; 0 when that leaves it empty.
 */
static uint64_t sizeless_end(const struct raw *r, size_t i, size_t next,
			     size_t nraw, uint64_t open_end)
{
	uint64_t end = next < nraw ? r[next].addr : 0;

	if (r[i].sec_end > r[i].addr && (!end || end > r[i].sec_end))
		end = r[i].sec_end;
	if (open_end > r[i].addr && (!end || end > open_end))
		end = open_end;
	return end > r[i].addr ? end : 0;
}

/*
 * One entry per address of the sorted @raw: the preferred name, the
 * largest size; a size-less one ends where sizeless_end() says.  The
 * sized symbols still open at an address (assembly nests labels in
 * functions) are a stack of ends.
 */
static int merge(struct elfsyms *t, const struct raw *raw, size_t nraw,
		 const char *path, struct mdb_error *e)
{
	uint64_t *open = malloc(nraw * sizeof(*open));
	size_t nopen = 0;

	if (!open)
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	for (size_t i = 0, j; i < nraw; i = j) {
		uint64_t size = raw[i].size;

		for (j = i + 1; j < nraw && raw[j].addr == raw[i].addr; j++)
			if (raw[j].size > size)
				size = raw[j].size;
		while (nopen && open[nopen - 1] <= raw[i].addr)
			nopen--;
		if (!size) {
			uint64_t end = sizeless_end(raw, i, j, nraw,
						    nopen ? open[nopen - 1] : 0);

			if (!end)
				continue;
			size = end - raw[i].addr;
		} else {
			uint64_t end = raw[i].addr + size;

			open[nopen++] = end < raw[i].addr ? UINT64_MAX : end;
		}
		t->syms[t->n].addr = raw[i].addr;
		t->syms[t->n].size = size;
		t->syms[t->n].name = raw[i].name;
		t->n++;
	}
	free(open);
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = t->syms[i].addr + t->syms[i].size;

		if (end < t->syms[i].addr) /* wraps: ends at the top */
			end = UINT64_MAX;
		t->max_end[i] = i && t->max_end[i - 1] > end ?
				t->max_end[i - 1] : end;
	}
	return 0;
}

int mdb_elfsyms_build(struct elfsyms *t, Elf *elf, const char *path,
		      const uint64_t *place, size_t nplace, struct mdb_error *e)
{
	GElf_Shdr symsh;
	GElf_Ehdr eh;
	Elf_Scn *symscn, *xscn;
	Elf_Data *data, *xdata = NULL;
	struct raw *raw = NULL;
	struct placing where;
	size_t nsyms, nraw = 0, shnum = 0;
	int rel, ret = 0;

	memset(t, 0, sizeof(*t));
	memset(&symsh, 0, sizeof(symsh));
	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) < 0)
		return elf_fail(e, path, "cannot read ELF headers");
	rel = eh.e_type == ET_REL;
	where.elf = elf;
	where.shnum = shnum;
	where.rel = rel;
	where.place = place;
	where.nplace = nplace;
	symscn = find_symtab(elf, &symsh, &xscn);
	if (!symscn) {
		mdb_error_set(e, MDB_E_NOTFOUND, path, -1, -1, NULL);
		mdb_error_msg(e, "no symbol table");
		mdb_error_hint(e, "the file was stripped; give the unstripped "
				  "file from the kernel build (or its debug "
				  "package)");
		return -MDB_E_NOTFOUND;
	}
	data = elf_getdata(symscn, NULL);
	if (xscn)
		xdata = elf_getdata(xscn, NULL);
	if (!data || !symsh.sh_entsize ||
	    symsh.sh_entsize != gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT))
		return elf_fail(e, path, "corrupt symbol table");
	nsyms = data->d_size / symsh.sh_entsize;
	t->nsymtab = nsyms;
	raw = calloc(nsyms ? nsyms : 1, sizeof(*raw));
	if (!raw)
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym s;
		GElf_Word xndx = 0;
		size_t shndx;
		const char *name;
		uint64_t addr, sec_end;

		if (!gelf_getsymshndx(data, xdata, (int)i, &s, &xndx))
			continue;
		name = elf_strptr(elf, symsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		if (!rel && s.st_shndx != SHN_UNDEF) {
			if (!t->have_stext && !strcmp(name, "_stext")) {
				t->stext = s.st_value;
				t->have_stext = 1;
			} else if (!t->have_text && !strcmp(name, "_text")) {
				t->text = s.st_value;
				t->have_text = 1;
			}
		}
		if (!code_at(&where, &s, shndx, name, &addr, &sec_end))
			continue;
		raw[nraw].addr = addr;
		raw[nraw].size = s.st_size;
		raw[nraw].sec_end = sec_end;
		raw[nraw].name = name;
		raw[nraw].idx = i;
		raw[nraw].weak = GELF_ST_BIND(s.st_info) == STB_WEAK;
		raw[nraw].lds = linker_script_name(name);
		raw[nraw].unders = (unsigned)strspn(name, "_");
		nraw++;
	}
	if (!nraw) {
		mdb_error_set(e, MDB_E_NOTFOUND, path, -1, -1, "symbols=%zu",
			      nsyms);
		mdb_error_msg(e, "no function symbols");
		mdb_error_hint(e, "the file was stripped; give the unstripped "
				  "file from the kernel build (or its debug "
				  "package)");
		ret = -MDB_E_NOTFOUND;
		goto out;
	}
	qsort(raw, nraw, sizeof(*raw), raw_cmp);
	t->syms = malloc(nraw * sizeof(*t->syms));
	t->max_end = malloc(nraw * sizeof(*t->max_end));
	if (!t->syms || !t->max_end) {
		ret = mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
		goto out;
	}
	ret = merge(t, raw, nraw, path, e);
out:
	free(raw);
	if (ret < 0)
		mdb_elfsyms_release(t);
	return ret;
}

void mdb_elfsyms_release(struct elfsyms *t)
{
	free(t->syms);
	free(t->max_end);
	memset(t, 0, sizeof(*t));
}

const struct elfsym *mdb_elfsyms_find(const struct elfsyms *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * The innermost function holding @addr: the nearest start at or
	 * below it, else an earlier function that reaches over it (nested
	 * symbols in assembly).  max_end stops the walk early.
	 */
	while (lo-- > 0) {
		const struct elfsym *s = &t->syms[lo];

		if (t->max_end[lo] <= addr)
			break;
		if (addr - s->addr < s->size)
			return s;
	}
	return NULL;
}
