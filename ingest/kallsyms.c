// SPDX-License-Identifier: MIT
/* kallsyms / System.map reader; see kallsyms.h. */
#include <stdlib.h>
#include <string.h>

#include "../common/file.h"
#include "kallsyms.h"
#include "spool.h"

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append @s (@n bytes) and a NUL to the string table; offset or 0. */
static uint32_t str_add(struct kallsyms *k, const char *s, size_t n)
{
	size_t off = k->strtab_len;

	if (k->strtab_len + n + 1 > k->strtab_cap) {
		size_t ncap = k->strtab_cap ? k->strtab_cap : 1 << 16;
		char *p;

		while (ncap < k->strtab_len + n + 1)
			ncap *= 2;
		if (ncap > UINT32_MAX)
			return 0;
		p = realloc(k->strtab, ncap);
		if (!p)
			return 0;
		k->strtab = p;
		k->strtab_cap = ncap;
	}
	memcpy(k->strtab + off, s, n);
	k->strtab[off + n] = '\0';
	k->strtab_len += n + 1;
	return (uint32_t)off;
}

static const struct kallsyms *sort_ctx;

/* Stable order by address: the index breaks ties (file order). */
struct ent {
	struct ksym s;
	size_t idx;
};

static int by_addr(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int name_cmp(const struct kallsyms *k, const struct ksym *s,
		    const char *name, size_t len, const char *mod,
		    size_t mlen)
{
	const char *sn = k->strtab + s->name, *sm = k->strtab + s->module;
	int c = strncmp(sn, name, len);
	size_t sml;

	if (c)
		return c;
	if (sn[len])
		return 1;
	sml = strlen(sm);
	c = strncmp(sm, mod ? mod : "", mlen);
	if (c)
		return c;
	return sml > mlen ? 1 : 0;
}

static int by_name(const void *a, const void *b)
{
	const struct kallsyms *k = sort_ctx;
	const struct ksym *x = &k->syms[*(const uint32_t *)a];
	const struct ksym *y = &k->syms[*(const uint32_t *)b];
	int c = strcmp(k->strtab + x->name, k->strtab + y->name);

	if (!c)
		c = strcmp(k->strtab + x->module, k->strtab + y->module);
	if (!c)
		c = (*(const uint32_t *)a > *(const uint32_t *)b) -
		    (*(const uint32_t *)a < *(const uint32_t *)b);
	return c;
}

/*
 * One line: ADDR TYPE NAME [\t[MODULE]].  Returns 1 for a symbol, 0 for
 * a blank line, -1 for a malformed one.
 */
static int parse_line(const char *p, const char *end, uint64_t *addr,
		      char *type, const char **name, size_t *nlen,
		      const char **mod, size_t *mlen)
{
	int digits = 0, h;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p == end)
		return 0;
	*addr = 0;
	while (p < end && (h = hexval((unsigned char)*p)) >= 0) {
		if (++digits > 16)
			return -1;
		*addr = *addr << 4 | (uint64_t)h;
		p++;
	}
	if (!digits || p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return -1;
	*type = *p++;
	if (p == end || (*p != ' ' && *p != '\t'))
		return -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*name = p;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
		p++;
	*nlen = (size_t)(p - *name);
	if (!*nlen)
		return -1;
	*mod = NULL;
	*mlen = 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '[') {
		const char *m = ++p;

		while (p < end && *p != ']')
			p++;
		if (p == end || p == m)
			return -1;
		*mod = m;
		*mlen = (size_t)(p - m);
		p++;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
	}
	while (p < end && *p == '\r')
		p++;
	return p == end ? 1 : -1;
}

/* A kallsyms with no symbols, or with every address hidden, is refused. */
static int ks_check(const struct kallsyms *k, size_t n, size_t nonzero,
		    const char *fname, struct mdb_error *e)
{
	if (!n) {
		mdb_error_set(e, MDB_E_FORMAT, fname, -1,
			      k->first_bad_line > 0 ? k->first_bad_line : -1,
			      "lines=%llu malformed=%llu",
			      (unsigned long long)k->lines,
			      (unsigned long long)k->malformed);
		mdb_error_msg(e, "no symbols: not a kallsyms or System.map "
				 "file");
		return -MDB_E_FORMAT;
	}
	if (!nonzero) {
		mdb_error_set(e, MDB_E_INVAL, fname, -1, -1, "symbols=%zu", n);
		mdb_error_msg(e, "every kallsyms address is zero");
		mdb_error_hint(e, "it was read without privilege "
				  "(kernel.kptr_restrict); read /proc/kallsyms "
				  "as root on the traced machine");
		return -MDB_E_INVAL;
	}
	return 0;
}

/* Sort @ents by address, size each symbol, index text symbols by name. */
static int ks_index(struct kallsyms *k, struct ent *ents, size_t n)
{
	qsort(ents, n, sizeof(*ents), by_addr);
	k->syms = malloc(n * sizeof(*k->syms));
	k->by_name = malloc(n * sizeof(*k->by_name));
	if (!k->syms || !k->by_name)
		return -1;
	for (size_t i = 0; i < n; i++)
		k->syms[i] = ents[i].s;
	k->n = n;
	/* extent: to the next higher address */
	for (size_t i = n; i-- > 0;) {
		size_t j = i + 1;

		while (j < n && k->syms[j].addr == k->syms[i].addr)
			j++;
		k->syms[i].size = j < n ? k->syms[j].addr - k->syms[i].addr : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (is_text(k->syms[i].type))
			k->by_name[k->nby_name++] = (uint32_t)i;
	sort_ctx = k;
	qsort(k->by_name, k->nby_name, sizeof(*k->by_name), by_name);
	sort_ctx = NULL;
	return 0;
}

int mdb_kallsyms_parse(struct kallsyms *k, const void *buf, size_t len,
		       const char *fname, struct mdb_error *e)
{
	const char *p = buf, *end = p + len;
	struct ent *ents = NULL;
	size_t n = 0, cap = 0, nonzero = 0;
	uint32_t lastmod = 0;
	const char *lastmod_s = NULL;
	size_t lastmod_len = 0;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	k->first_bad_line = -1;
	if (str_add(k, "", 0) != 0 || !k->strtab)
		return mdb_error_set(e, MDB_E_NOMEM, fname, -1, -1, NULL);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *name = NULL, *mod = NULL;
		size_t nlen = 0, mlen = 0;
		uint64_t addr = 0;
		char type = 0;
		int r;

		k->lines++;
		r = parse_line(p, le, &addr, &type, &name, &nlen, &mod, &mlen);
		p = nl ? nl + 1 : end;
		if (r == 0)
			continue;
		/* a last line without its newline may hold a cut name */
		if (r < 0 || !nl || memchr(name, '\0', nlen) ||
		    (mod && memchr(mod, '\0', mlen))) {
			k->malformed++;
			if (k->first_bad_line < 0)
				k->first_bad_line = (int64_t)k->lines;
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct ent *ne = realloc(ents, ncap * sizeof(*ne));

			if (!ne)
				goto nomem;
			ents = ne;
			cap = ncap;
		}
		memset(&ents[n], 0, sizeof(ents[n]));
		ents[n].idx = n;
		ents[n].s.addr = addr;
		ents[n].s.type = type;
		ents[n].s.name = str_add(k, name, nlen);
		if (!ents[n].s.name)
			goto nomem;
		if (mod) {
			/* module lines come in runs: share the string */
			if (!lastmod || mlen != lastmod_len ||
			    memcmp(mod, lastmod_s, mlen)) {
				lastmod = str_add(k, mod, mlen);
				if (!lastmod)
					goto nomem;
				lastmod_s = mod;
				lastmod_len = mlen;
			}
			ents[n].s.module = lastmod;
			k->has_modules = 1;
		}
		nonzero += addr != 0;
		n++;
	}
	ret = ks_check(k, n, nonzero, fname, e);
	if (ret < 0)
		goto out;
	if (ks_index(k, ents, n) < 0)
		goto nomem;
	goto out;
nomem:
	ret = mdb_error_set(e, MDB_E_NOMEM, fname, -1, -1, NULL);
out:
	free(ents);
	if (ret < 0)
		mdb_kallsyms_release(k);
	return ret;
}

int mdb_kallsyms_load(struct kallsyms *k, const char *path, struct mdb_error *e)
{
	struct mdb_map m;
	int ret = mdb_map_decompressed(path, &m, e);

	if (ret < 0)
		return ret;
	ret = mdb_kallsyms_parse(k, m.data, m.len, path, e);
	mdb_unmap(&m);
	return ret;
}

void mdb_kallsyms_release(struct kallsyms *k)
{
	free(k->syms);
	free(k->strtab);
	free(k->by_name);
	memset(k, 0, sizeof(*k));
}

const struct ksym *mdb_kallsyms_find(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;
	const struct ksym *s;

	/* last symbol with address <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &k->syms[lo - 1];
	/* back to the first alias at that address */
	while (s > k->syms && s[-1].addr == s->addr)
		s--;
	/* prefer a text alias */
	for (const struct ksym *t = s; t < k->syms + k->n && t->addr == s->addr;
	     t++)
		if (is_text(t->type)) {
			s = t;
			break;
		}
	if (!is_text(s->type))
		return NULL;
	if (!s->size ? addr != s->addr : addr - s->addr >= s->size)
		return NULL;
	return s;
}

/* Index in by_name of the first (name, module) match, or nby_name. */
static size_t first_by_name(const struct kallsyms *k, const char *name,
			    size_t len, const char *module, size_t mlen)
{
	size_t lo = 0, hi = k->nby_name;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (name_cmp(k, &k->syms[k->by_name[mid]], name, len, module,
			     mlen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->nby_name &&
	    !name_cmp(k, &k->syms[k->by_name[lo]], name, len, module, mlen))
		return lo;
	return k->nby_name;
}

int mdb_kallsyms_addr_sized(const struct kallsyms *k, const char *name,
			    size_t len, const char *module, size_t mlen,
			    uint64_t size, uint64_t *addr)
{
	size_t i = first_by_name(k, name, len, module, mlen), n = 0;

	if (i == k->nby_name)
		return -1;
	*addr = k->syms[k->by_name[i]].addr;
	for (size_t j = i; j < k->nby_name &&
	     !name_cmp(k, &k->syms[k->by_name[j]], name, len, module, mlen);
	     j++, n++)
		if (size && k->syms[k->by_name[j]].size == size) {
			*addr = k->syms[k->by_name[j]].addr;
			return 0;
		}
	return size || n > 1 ? 1 : 0;
}

int mdb_kallsyms_addr(const struct kallsyms *k, const char *name, size_t len,
		      const char *module, size_t mlen, uint64_t *addr)
{
	size_t i = first_by_name(k, name, len, module, mlen);

	if (i == k->nby_name)
		return -1;
	*addr = k->syms[k->by_name[i]].addr;
	return 0;
}

int mdb_kallsyms_any_addr(const struct kallsyms *k, const char *name,
			  uint64_t *addr)
{
	for (size_t i = 0; i < k->n; i++)
		if (!k->syms[i].module && !strcmp(k->strtab + k->syms[i].name,
						  name)) {
			*addr = k->syms[i].addr;
			return 0;
		}
	return -1;
}
