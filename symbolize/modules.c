// SPDX-License-Identifier: MIT
/* Module snapshots and the .ko index; see modules.h. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/file.h"
#include "modules.h"

#define MAX_TOKENS 8

int mdb_kmod_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') &&
				  (*b == '-' || *b == '_')))
			return 0;
	return *a == *b;
}

static void kmod_free(struct kmod *k)
{
	for (size_t i = 0; i < k->nsecs; i++)
		free(k->secs[i].name);
	free(k->secs);
	free(k->name);
}

void mdb_kmods_release(struct kmods *m)
{
	for (size_t i = 0; i < m->n; i++)
		kmod_free(&m->v[i]);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* The module called @name (@len bytes), added when new; NULL on ENOMEM. */
static struct kmod *kmod_get(struct kmods *m, const char *name, size_t len)
{
	char *n = strndup(name, len);

	if (!n)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (mdb_kmod_name_eq(m->v[i].name, n)) {
			free(n);
			return &m->v[i];
		}
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 32;
		struct kmod *nv = realloc(m->v, ncap * sizeof(*nv));

		if (!nv) {
			free(n);
			return NULL;
		}
		m->v = nv;
		m->cap = ncap;
	}
	memset(&m->v[m->n], 0, sizeof(m->v[0]));
	m->v[m->n].name = n;
	return &m->v[m->n++];
}

/* Hex with an optional 0x; the whole token. */
static int parse_hex(const char *p, size_t len, uint64_t *v)
{
	size_t digits = 0;

	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		len -= 2;
	}
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)p[i], h;

		if (c >= '0' && c <= '9')
			h = c - '0';
		else if (c >= 'a' && c <= 'f')
			h = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			h = c - 'A' + 10;
		else
			return -1;
		if (++digits > 16)
			return -1;
		*v = *v << 4 | (uint64_t)h;
	}
	return digits ? 0 : -1;
}

static int parse_dec(const char *p, size_t len, uint64_t *v)
{
	*v = 0;
	if (!len || len > 19)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		*v = *v * 10 + (uint64_t)(p[i] - '0');
	}
	return 0;
}

struct tok {
	const char *p;
	size_t len;
};

/* Split [p, end) on blanks into at most MAX_TOKENS; returns the count. */
static int split(const char *p, const char *end, struct tok *t)
{
	int n = 0;

	while (p < end) {
		const char *s;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end)
			break;
		s = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (n == MAX_TOKENS)
			return n + 1;
		t[n].p = s;
		t[n].len = (size_t)(p - s);
		n++;
	}
	return n;
}

/*
 * The next line of [*@p, @end) split into @t (split()); moves *@p past it
 * and counts it in *@line.  Returns its token count, or -1 at the end.
 */
static int next_line(const char **p, const char *end, struct tok *t,
		     int64_t *line)
{
	const char *nl, *le;
	int nt;

	if (*p >= end)
		return -1;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	le = nl ? nl : end;
	(*line)++;
	nt = split(*p, le, t);
	*p = nl ? nl + 1 : end;
	return nt;
}

static int bad_line(struct mdb_error *e, const char *fname, int64_t line,
		    const char *what, const char *want)
{
	mdb_error_set(e, MDB_E_CORRUPT, fname, -1, line, NULL);
	mdb_error_msg(e, "malformed %s line", what);
	mdb_error_hint(e, "expected '%s' lines", want);
	return -MDB_E_CORRUPT;
}

static int all_zero(struct mdb_error *e, const char *fname, const char *what,
		    size_t n)
{
	mdb_error_set(e, MDB_E_INVAL, fname, -1, -1, "entries=%zu", n);
	mdb_error_msg(e, "every %s address is zero", what);
	mdb_error_hint(e, "it was read without privilege "
			  "(kernel.kptr_restrict); read it as root on the "
			  "traced machine");
	return -MDB_E_INVAL;
}

/*
 * The lines of a /proc/modules or sections snapshot: each non-blank line
 * of @buf to @fn, which returns 0 with the address it read in *addr, 1
 * for a malformed line (refused, as @what, by @want) or a negative
 * MDB_E_* code; then a file whose every address is zero is refused.
 */
static int parse_lines(struct kmods *m, const char *buf, size_t len,
		       const char *fname, const char *what, const char *want,
		       int (*fn)(struct kmods *m, const struct tok *t, int nt,
				 uint64_t *addr),
		       struct mdb_error *e)
{
	const char *p = buf, *end = buf + len;
	size_t n = 0, nonzero = 0;
	int64_t line = 0;
	struct tok t[MAX_TOKENS];
	int nt, ret;

	while ((nt = next_line(&p, end, t, &line)) >= 0) {
		uint64_t addr;

		if (!nt)
			continue;
		ret = fn(m, t, nt, &addr);
		if (ret > 0)
			return bad_line(e, fname, line, what, want);
		if (ret < 0)
			return mdb_error_set(e, -ret, fname, -1, -1, NULL);
		nonzero += addr != 0;
		n++;
	}
	if (n && !nonzero)
		return all_zero(e, fname, what, n);
	return 0;
}

/* "NAME SIZE REFCOUNT DEPS STATE ADDRESS [TAINTS]" */
static int proc_line(struct kmods *m, const struct tok *t, int nt,
		     uint64_t *addr)
{
	uint64_t size;
	struct kmod *k;

	if (nt < 6 || nt > 7 || memchr(t[0].p, '\0', t[0].len) ||
	    parse_dec(t[1].p, t[1].len, &size) ||
	    parse_hex(t[5].p, t[5].len, addr))
		return 1;
	k = kmod_get(m, t[0].p, t[0].len);
	if (!k)
		return -MDB_E_NOMEM;
	k->base = *addr;
	k->size = size;
	k->has_base = 1;
	return 0;
}

int mdb_kmods_parse_proc(struct kmods *m, const char *buf, size_t len,
			 const char *fname, struct mdb_error *e)
{
	return parse_lines(m, buf, len, fname, "/proc/modules",
			   "NAME SIZE REFCOUNT DEPS STATE ADDRESS", proc_line,
			   e);
}

/* /sys/module/NAME/sections/SECTION:ADDRESS into its three parts. */
static int sysfs_section(struct tok t, struct tok *mod, struct tok *sec,
			 struct tok *adr)
{
	const char *s = t.p + 12, *te = t.p + t.len;
	const char *slash = memchr(s, '/', (size_t)(te - s));
	const char *colon;

	if (!slash || (size_t)(te - slash) < 10 ||
	    memcmp(slash, "/sections/", 10))
		return 1;
	mod->p = s;
	mod->len = (size_t)(slash - s);
	sec->p = slash + 10;
	colon = memchr(sec->p, ':', (size_t)(te - sec->p));
	if (!colon)
		return 1;
	sec->len = (size_t)(colon - sec->p);
	adr->p = colon + 1;
	adr->len = (size_t)(te - adr->p);
	return 0;
}

static int add_section(struct kmod *k, struct tok sec, uint64_t addr)
{
	if (k->nsecs == k->sec_cap) {
		size_t ncap = k->sec_cap ? k->sec_cap * 2 : 16;
		struct kmod_sec *ns = realloc(k->secs, ncap * sizeof(*ns));

		if (!ns)
			return -MDB_E_NOMEM;
		k->secs = ns;
		k->sec_cap = ncap;
	}
	k->secs[k->nsecs].name = strndup(sec.p, sec.len);
	if (!k->secs[k->nsecs].name)
		return -MDB_E_NOMEM;
	k->secs[k->nsecs].addr = addr;
	k->nsecs++;
	return 0;
}

/* "MODULE SECTION ADDRESS", or the sysfs path form of it. */
static int section_line(struct kmods *m, const struct tok *t, int nt,
			uint64_t *addr)
{
	struct tok mod, sec, adr;
	struct kmod *k;

	if (nt == 3) {
		mod = t[0];
		sec = t[1];
		adr = t[2];
	} else if (nt != 1 || t[0].len <= 12 ||
		   memcmp(t[0].p, "/sys/module/", 12) ||
		   sysfs_section(t[0], &mod, &sec, &adr)) {
		return 1;
	}
	if (!mod.len || !sec.len || memchr(mod.p, '\0', mod.len) ||
	    memchr(sec.p, '\0', sec.len) || parse_hex(adr.p, adr.len, addr))
		return 1;
	k = kmod_get(m, mod.p, mod.len);
	if (!k)
		return -MDB_E_NOMEM;
	return add_section(k, sec, *addr);
}

int mdb_kmods_parse_sections(struct kmods *m, const char *buf, size_t len,
			     const char *fname, struct mdb_error *e)
{
	return parse_lines(m, buf, len, fname, "sections",
			   "MODULE SECTION ADDRESS", section_line, e);
}

/* ---- .ko files ------------------------------------------------------ */

static const char *const ko_suffixes[] = { ".ko", ".ko.xz", ".ko.zst",
					   ".ko.gz" };

/* Module name of file @base, normalized, or NULL; *@rank: suffix index. */
static char *ko_name(const char *base, size_t *rank)
{
	size_t bl = strlen(base);

	for (size_t i = 0; i < sizeof(ko_suffixes) / sizeof(ko_suffixes[0]);
	     i++) {
		size_t sl = strlen(ko_suffixes[i]);
		char *n;

		if (bl <= sl || strcmp(base + bl - sl, ko_suffixes[i]))
			continue;
		n = strndup(base, bl - sl);
		if (!n)
			return NULL;
		for (char *c = n; *c; c++)
			if (*c == '-')
				*c = '_';
		*rank = i;
		return n;
	}
	return NULL;
}

static int ko_add(struct ko_index *x, char *name, const char *path)
{
	if (x->n == x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 256;
		struct ko_ent *nv = realloc(x->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		x->v = nv;
		x->cap = ncap;
	}
	x->v[x->n].name = name;
	x->v[x->n].path = strdup(path);
	if (!x->v[x->n].path)
		return -1;
	x->n++;
	return 0;
}

static int ko_scan(struct ko_index *x, const char *dir, int depth,
		   struct mdb_error *e)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (depth > 16)
		return 0;
	d = opendir(dir);
	if (!d) {
		if (depth)
			return 0; /* an unreadable subdirectory */
		mdb_error_set(e, MDB_E_IO, dir, -1, -1, "%s", strerror(errno));
		mdb_error_msg(e, "cannot read module directory");
		return -MDB_E_IO;
	}
	while (!ret && (de = readdir(d))) {
		struct stat st;
		char *path, *name;
		size_t rank;

		if (de->d_name[0] == '.')
			continue;
		path = mdb_path_join(dir, de->d_name);
		if (!path) {
			ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
			break;
		}
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			ret = ko_scan(x, path, depth + 1, e);
		} else if ((name = ko_name(de->d_name, &rank))) {
			if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
				free(name);
			} else if (ko_add(x, name, path) < 0) {
				free(name);
				ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1,
						    -1, NULL);
			}
		}
		free(path);
	}
	closedir(d);
	return ret;
}

/* By name, then uncompressed first, then path. */
static int ko_cmp(const void *a, const void *b)
{
	const struct ko_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	size_t rx = 0, ry = 0;
	const char *bx = strrchr(x->path, '/'), *by = strrchr(y->path, '/');
	char *nx, *ny;

	if (c)
		return c;
	nx = ko_name(bx ? bx + 1 : x->path, &rx);
	ny = ko_name(by ? by + 1 : y->path, &ry);
	free(nx);
	free(ny);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x->path, y->path);
}

int mdb_ko_index_build(struct ko_index *x, const char *dir, struct mdb_error *e)
{
	int ret;

	memset(x, 0, sizeof(*x));
	ret = ko_scan(x, dir, 0, e);
	if (ret < 0) {
		mdb_ko_index_release(x);
		return ret;
	}
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), ko_cmp);
	return 0;
}

const char *mdb_ko_index_find(const struct ko_index *x, const char *name)
{
	size_t lo = 0, hi = x->n;
	char *n = strdup(name);

	if (!n)
		return NULL;
	for (char *c = n; *c; c++)
		if (*c == '-')
			*c = '_';
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(x->v[mid].name, n) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	name = lo < x->n && !strcmp(x->v[lo].name, n) ? x->v[lo].path : NULL;
	free(n);
	return name;
}

void mdb_ko_index_release(struct ko_index *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->v[i].name);
		free(x->v[i].path);
	}
	free(x->v);
	memset(x, 0, sizeof(*x));
}
