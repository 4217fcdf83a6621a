// SPDX-License-Identifier: MIT
/*
 * The DWARF backend of struct vm_types: the debug vmlinux (Debian's
 * linux-image-*-dbg) read with libdw.  One pass over the top-level DIEs
 * of every compile unit indexes the named structs, unions, enums and
 * typedefs (the first definition of a name wins, declarations skipped)
 * and every enumerator; lookups then follow the same rules as the BTF
 * backend (members through anonymous structs and unions, bitfields,
 * arrays), so the walks give identical rows from either.  The pass is
 * split by bytes of .debug_info into one run of whole units per CPU (up
 * to MAX_PARTS), each on its own thread with its own libdw handle; the
 * parts' indexes are merged in unit order, so the first definition still
 * wins.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "../../common/u64map.h"
#include "vmcore.h"

#define MAX_DEPTH 16
#define MAX_PARTS 4

#define SEEN_SLOTS 16384 /* a power of 2 */

/* The index of some units, or of all of them once merged. */
struct dwidx {
	struct u64map types; /* hash(kind, name) -> DIE offset + 1 */
	struct u64map enums; /* hash('v', enumerator) -> value */
	/* names already put, by the address of their string and kind: the
	 * same name of a header is the same .debug_str string in every unit,
	 * so most names are found here without hashing them */
	struct seen {
		const char *n;
		char k;
	} *seen;
	int nomem;
};

struct dw {
	int fd;
	Dwarf *dw;
	struct dwidx idx;
};

/* The units at offsets [lo, hi) of .debug_info, indexed by one thread. */
struct part {
	int fd;
	Dwarf *dw; /* this part's own handle; NULL: index it with the main one */
	Dwarf_Off lo, hi;
	struct dwidx idx;
	pthread_t th;
	int started;
};

static uint64_t key(char kind, const char *name)
{
	return XXH64(name, strlen(name), (uint64_t)(unsigned char)kind);
}

static size_t seen_slot(const char *n, char k)
{
	return (size_t)(u64map_mix((uintptr_t)n ^ (uint64_t)(unsigned char)k) &
			(SEEN_SLOTS - 1));
}

/* 1 when name @n (that very string) of kind @k was put already. */
static int seen(const struct dwidx *x, const char *n, char k)
{
	size_t i = seen_slot(n, k);

	return x->seen[i].n == n && x->seen[i].k == k;
}

static void put(struct dwidx *x, struct u64map *m, const char *n, char k,
		uint64_t v)
{
	size_t i = seen_slot(n, k);

	/* mdb_u64map_put keeps the value already there: the first wins */
	if (!mdb_u64map_put(m, key(k, n), v, NULL))
		x->nomem = 1;
	x->seen[i].n = n;
	x->seen[i].k = k;
}

static void index_enum(struct dwidx *x, Dwarf_Die *e)
{
	Dwarf_Die c;

	if (dwarf_child(e, &c) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v;
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_enumerator || !n ||
		    seen(x, n, 'v') ||
		    !dwarf_attr(&c, DW_AT_const_value, &a) ||
		    dwarf_formsdata(&a, &v))
			continue;
		put(x, &x->enums, n, 'v', (uint64_t)v);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static char kind_of(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
		return 's';
	case DW_TAG_union_type:
		return 'u';
	case DW_TAG_enumeration_type:
		return 'e';
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		return 't';
	}
	return 0;
}

static void index_cu(struct dwidx *x, Dwarf_Die *cu)
{
	Dwarf_Die c;

	if (dwarf_child(cu, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		char k = kind_of(tag);
		const char *n;

		if (!k)
			continue;
		if (tag == DW_TAG_enumeration_type)
			index_enum(x, &c);
		n = dwarf_diename(&c);
		if (!n || seen(x, n, k) ||
		    dwarf_hasattr(&c, DW_AT_declaration))
			continue;
		put(x, &x->types, n, k, dwarf_dieoffset(&c) + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* Index the units of @p with handle @dw. */
static void index_part(struct part *p, Dwarf *dw)
{
	Dwarf_Off off = p->lo, next;
	size_t hsize;

	while (off < p->hi && !p->idx.nomem &&
	       dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			index_cu(&p->idx, &cu);
		off = next;
	}
}

static void *part_thread(void *arg)
{
	struct part *p = arg;

	if ((p->dw = dwarf_begin(p->fd, DWARF_C_READ)))
		index_part(p, p->dw);
	return NULL;
}

/* Add @from's keys that @to lacks (@to's units come first). */
static void merge_map(struct u64map *to, const struct u64map *from, int *nomem)
{
	if (from->has_zero && !mdb_u64map_put(to, 0, from->zero_val, NULL))
		*nomem = 1;
	for (size_t i = 0; from->slots && i <= from->mask; i++)
		if (from->slots[i].key &&
		    !mdb_u64map_put(to, from->slots[i].key, from->slots[i].val,
				    NULL))
			*nomem = 1;
}

/* Only the maps are kept once the index is made. */
static void idx_done(struct dwidx *x)
{
	free(x->seen);
	x->seen = NULL;
}

static void idx_release(struct dwidx *x)
{
	idx_done(x);
	mdb_u64map_release(&x->types);
	mdb_u64map_release(&x->enums);
}

/*
 * Split the units into @n runs of about equal bytes: part k starts at the
 * first unit at or past k/n of .debug_info.
 */
static int split(Dwarf *dw, struct part *parts, int n)
{
	Dwarf_Off off = 0, next, end = 0;
	size_t hsize;
	int k = 1;

	while (dwarf_nextcu(dw, end, &next, &hsize, NULL, NULL, NULL) == 0)
		end = next;
	for (int i = 0; i < n; i++)
		parts[i].lo = 0, parts[i].hi = end;
	while (k < n && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL,
				     NULL) == 0) {
		if (off && off >= end / (Dwarf_Off)n * (Dwarf_Off)k) {
			parts[k - 1].hi = parts[k].lo = off;
			k++;
			continue;
		}
		off = next;
	}
	return k; /* fewer parts than asked when there are few units */
}

/* Index every unit of @d, in parallel parts; 0 or -MDB_E_NOMEM. */
static int index_all(struct dw *d)
{
	struct part parts[MAX_PARTS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus < 1 ? 1 : cpus > MAX_PARTS ? MAX_PARTS : (int)cpus;
	int nomem = 0;

	memset(parts, 0, sizeof(parts));
	n = split(d->dw, parts, n);
	for (int i = 0; i < n; i++) {
		parts[i].fd = d->fd;
		parts[i].idx.seen = calloc(SEEN_SLOTS,
					   sizeof(*parts[i].idx.seen));
		nomem |= !parts[i].idx.seen;
	}
	if (nomem) {
		for (int i = 0; i < n; i++)
			idx_done(&parts[i].idx);
		return -MDB_E_NOMEM;
	}
	for (int i = 1; i < n; i++)
		parts[i].started = !pthread_create(&parts[i].th, NULL,
						   part_thread, &parts[i]);
	index_part(&parts[0], d->dw);
	for (int i = 1; i < n; i++) {
		if (parts[i].started)
			pthread_join(parts[i].th, NULL);
		if (!parts[i].dw) /* no thread or no handle: do it here */
			index_part(&parts[i], d->dw);
		else
			dwarf_end(parts[i].dw);
	}
	d->idx = parts[0].idx;
	idx_done(&d->idx);
	nomem = d->idx.nomem;
	for (int i = 1; i < n; i++) {
		nomem |= parts[i].idx.nomem;
		merge_map(&d->idx.types, &parts[i].idx.types, &nomem);
		merge_map(&d->idx.enums, &parts[i].idx.enums, &nomem);
		idx_release(&parts[i].idx);
	}
	return nomem ? -MDB_E_NOMEM : 0;
}

/* The DIE of "struct x", "union x", "enum x" or a typedef name. */
static int find(struct dw *d, const char *type, Dwarf_Die *out)
{
	char k = 't';
	uint64_t *off;
	const char *n = type;

	if (!strncmp(type, "struct ", 7))
		k = 's', n = type + 7;
	else if (!strncmp(type, "union ", 6))
		k = 'u', n = type + 6;
	else if (!strncmp(type, "enum ", 5))
		k = 'e', n = type + 5;
	off = mdb_u64map_get(&d->idx.types, key(k, n));
	if (!off || !dwarf_offdie(d->dw, *off - 1, out))
		return -1;
	return strcmp(dwarf_diename(out) ? dwarf_diename(out) : "", n) ? -1 :
									 0;
}

/* @die's type with typedefs and qualifiers stripped. */
static int strip(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t = *die;

	for (int i = 0; i < MAX_DEPTH; i++) {
		switch (dwarf_tag(&t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
		case DW_TAG_member:
			if (!dwarf_attr(&t, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, &t))
				return -1;
			continue;
		}
		*out = t;
		return 0;
	}
	return -1;
}

static int dw_size(void *priv, const char *type, uint64_t *size)
{
	Dwarf_Die die, t;
	Dwarf_Word s;

	if (find(priv, type, &die) || strip(&die, &t) ||
	    dwarf_aggregate_size(&t, &s))
		return -1;
	*size = s;
	return 0;
}

/* Bit offset of member DIE @m in its parent. */
static int member_bits(Dwarf_Die *m, uint64_t *bits, uint32_t *bsize)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0, bs = 0, bo, ss;
	Dwarf_Die t;

	*bsize = 0;
	if (dwarf_attr(m, DW_AT_bit_size, &a) && !dwarf_formudata(&a, &bs))
		*bsize = (uint32_t)bs;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a)) {
		if (dwarf_formudata(&a, &w))
			return -1;
		*bits = w;
		return 0;
	}
	if (dwarf_attr(m, DW_AT_data_member_location, &a) &&
	    dwarf_formudata(&a, &w))
		return -1;
	*bits = w * 8;
	if (bs && dwarf_attr(m, DW_AT_bit_offset, &a) &&
	    !dwarf_formudata(&a, &bo) && !strip(m, &t) &&
	    !dwarf_aggregate_size(&t, &ss))
		*bits += ss * 8 - bo - bs;
	return 0;
}

/* Member @name (@len bytes) of composite @die, through anonymous ones. */
static int member1(Dwarf_Die *die, const char *name, size_t len,
		   uint64_t *bits, Dwarf_Die *found, uint32_t *bsize,
		   int depth)
{
	Dwarf_Die t, c;

	if (depth > MAX_DEPTH || strip(die, &t) ||
	    (dwarf_tag(&t) != DW_TAG_structure_type &&
	     dwarf_tag(&t) != DW_TAG_union_type) || dwarf_child(&t, &c))
		return -1;
	do {
		const char *n = dwarf_diename(&c);
		uint64_t off, sub;

		if (dwarf_tag(&c) != DW_TAG_member || member_bits(&c, &off,
								  bsize))
			continue;
		if (n) {
			if (strlen(n) != len || memcmp(n, name, len))
				continue;
			*bits += off;
			*found = c;
			return 0;
		}
		sub = *bits + off;
		if (!member1(&c, name, len, &sub, found, bsize, depth + 1)) {
			*bits = sub;
			return 0;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

static void array_info(Dwarf_Die *t, struct vm_member *out)
{
	Dwarf_Die c, e;
	Dwarf_Attribute a;
	Dwarf_Word n = 0, es;

	if (dwarf_child(t, &c) || dwarf_tag(&c) != DW_TAG_subrange_type)
		return;
	if (dwarf_attr(&c, DW_AT_count, &a) && !dwarf_formudata(&a, &n))
		out->nelem = n;
	else if (dwarf_attr(&c, DW_AT_upper_bound, &a) &&
		 !dwarf_formudata(&a, &n))
		out->nelem = n + 1;
	if (dwarf_attr(t, DW_AT_type, &a) && dwarf_formref_die(&a, &e) &&
	    !strip(&e, &e) && !dwarf_aggregate_size(&e, &es))
		out->elem_size = es;
}

static int dw_member(void *priv, const char *type, const char *member,
		     struct vm_member *out)
{
	Dwarf_Die die, t;
	Dwarf_Word s;
	uint64_t bits = 0;
	uint32_t bsize = 0;

	memset(out, 0, sizeof(*out));
	if (find(priv, type, &die))
		return -1;
	while (*member) {
		const char *dot = strchr(member, '.');
		size_t len = dot ? (size_t)(dot - member) : strlen(member);

		if (member1(&die, member, len, &bits, &die, &bsize, 0))
			return -1;
		member += len + (dot != NULL);
	}
	out->bit_off = bits;
	out->bit_size = bsize;
	if (strip(&die, &t))
		return -1;
	if (!dwarf_aggregate_size(&t, &s))
		out->size = s;
	if (dwarf_tag(&t) == DW_TAG_array_type)
		array_info(&t, out);
	return 0;
}

static int dw_enumval(void *priv, const char *name, int64_t *v)
{
	struct dw *d = priv;
	uint64_t *p;

	if (!(p = mdb_u64map_get(&d->idx.enums, key('v', name))))
		return -1;
	*v = (int64_t)*p;
	return 0;
}

static void dw_release(void *priv)
{
	struct dw *d = priv;

	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->fd >= 0)
		close(d->fd);
	idx_release(&d->idx);
	free(d);
}

/* What mdb_vm_types_dwarf() fills in, but for priv. */
static const struct vm_types dw_types = {
	.what = "DWARF", .size = dw_size, .member = dw_member,
	.enumval = dw_enumval, .release = dw_release,
};

int mdb_vm_types_dwarf(struct vm_types *t, const char *path, struct mdb_error *e)
{
	struct dw *d = calloc(1, sizeof(*d));

	memset(t, 0, sizeof(*t));
	if (!d)
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0 || !(d->dw = dwarf_begin(d->fd, DWARF_C_READ))) {
		int err = errno, io = d->fd < 0;

		mdb_error_set(e, io ? MDB_E_IO : MDB_E_FORMAT, path, -1, -1,
			      "%s", io ? strerror(err) : dwarf_errmsg(-1));
		if (!io)
			mdb_error_msg(e, "no DWARF in the vmlinux");
		dw_release(d);
		return io ? -MDB_E_IO : -MDB_E_FORMAT;
	}
	if (index_all(d)) {
		dw_release(d);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1,
				     "indexing its DWARF");
	}
	*t = dw_types;
	t->priv = d;
	return 0;
}
