// SPDX-License-Identifier: MIT
/*
 * The type-lookup interface the walks use (struct vm_types), and its BTF
 * backend: the kernel's own type information (the .BTF section between
 * __start_BTF and __stop_BTF, read out of the dump), parsed by libbpf.
 * Members are found by name through anonymous structs and unions, so the
 * walks never depend on a layout: struct slab overlays struct page in
 * unions whose shape changes between releases.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "vmcore.h"

void mdb_vm_types_release(struct vm_types *t)
{
	if (t && t->release)
		t->release(t->priv);
	if (t)
		memset(t, 0, sizeof(*t));
}

/* The id of @type ("struct x", "union x", "enum x" or any name); <0. */
static int btf_find(const struct btf *b, const char *type)
{
	static const struct {
		const char *prefix;
		int kind;
	} kinds[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);

		if (!strncmp(type, kinds[i].prefix, n))
			return btf__find_by_name_kind(b, type + n,
						      kinds[i].kind);
	}
	return btf__find_by_name_kind(b, type, BTF_KIND_TYPEDEF) >= 0 ?
		       btf__find_by_name_kind(b, type, BTF_KIND_TYPEDEF) :
		       btf__find_by_name_kind(b, type, BTF_KIND_INT);
}

static int btf_size(void *priv, const char *type, uint64_t *size)
{
	const struct btf *b = priv;
	int id = btf_find(b, type);
	int64_t s = id < 0 ? -1 : btf__resolve_size(b, (uint32_t)id);

	if (s < 0)
		return -1;
	*size = (uint64_t)s;
	return 0;
}

/* Member @name (@len bytes) of composite @id, searched through anonymous
 * members; its bit offset added to *@bits. */
static int btf_member1(const struct btf *b, int id, const char *name,
		       size_t len, uint64_t *bits, int *mid, uint32_t *bsize,
		       int depth)
{
	int rid = btf__resolve_type(b, (uint32_t)id);
	const struct btf_type *t = rid < 0 ? NULL :
					     btf__type_by_id(b, (uint32_t)rid);
	const struct btf_member *m;

	if (!t || depth > 16 || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(b, m->name_off);
		uint64_t off = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strlen(mn) != len || memcmp(mn, name, len))
				continue;
			*bits += off;
			*mid = (int)m->type;
			*bsize = btf_member_bitfield_size(t, i);
			return 0;
		}
		uint64_t sub = *bits + off;

		if (!btf_member1(b, (int)m->type, name, len, &sub, mid, bsize,
				 depth + 1)) {
			*bits = sub;
			return 0;
		}
	}
	return -1;
}

static int btf_member(void *priv, const char *type, const char *member,
		      struct vm_member *out)
{
	const struct btf *b = priv;
	const struct btf_type *t;
	int id = btf_find(b, type);
	uint64_t bits = 0;
	uint32_t bsize = 0;

	memset(out, 0, sizeof(*out));
	while (id >= 0 && *member) {
		const char *dot = strchr(member, '.');
		size_t len = dot ? (size_t)(dot - member) : strlen(member);

		if (btf_member1(b, id, member, len, &bits, &id, &bsize, 0))
			return -1;
		member += len + (dot != NULL);
	}
	if (id < 0)
		return -1;
	out->bit_off = bits;
	out->bit_size = bsize;
	if (btf__resolve_size(b, (uint32_t)id) >= 0)
		out->size = (uint64_t)btf__resolve_size(b, (uint32_t)id);
	t = btf__type_by_id(b, (uint32_t)btf__resolve_type(b, (uint32_t)id));
	if (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		int64_t es = btf__resolve_size(b, a->type);

		out->nelem = a->nelems;
		out->elem_size = es > 0 ? (uint64_t)es : 0;
	}
	return 0;
}

static int btf_enumval(void *priv, const char *name, int64_t *v)
{
	const struct btf *b = priv;
	uint32_t n = btf__type_cnt(b);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);

		if (!btf_is_enum(t))
			continue;
		const struct btf_enum *en = btf_enum(t);

		for (uint16_t i = 0; i < btf_vlen(t); i++, en++)
			if (!strcmp(btf__name_by_offset(b, en->name_off),
				    name)) {
				*v = en->val;
				return 0;
			}
	}
	return -1;
}

static void btf_release(void *priv)
{
	btf__free(priv);
}

/* What mdb_vm_types_btf() fills in, but for priv. */
static const struct vm_types btf_types = {
	.what = "BTF", .size = btf_size, .member = btf_member,
	.enumval = btf_enumval, .release = btf_release,
};

int mdb_vm_types_btf(struct vm_types *t, const void *raw, size_t len,
		     const char *name, struct mdb_error *e)
{
	struct btf *b;

	memset(t, 0, sizeof(*t));
	if (len > UINT32_MAX)
		return mdb_error_set(e, MDB_E_CORRUPT, name, -1, -1,
				     "btf_bytes=%zu", len);
	b = btf__new(raw, (uint32_t)len);
	/* libbpf 1.x: NULL and errno; ENOMEM is no fault of the dump's */
	if (!b && errno == ENOMEM)
		return mdb_error_set(e, MDB_E_NOMEM, name, -1, -1,
				     "btf_bytes=%zu in libbpf", len);
	if (!b) {
		mdb_error_set(e, MDB_E_CORRUPT, name, -1, -1, "btf_bytes=%zu",
			      len);
		mdb_error_msg(e, "the kernel's BTF (__start_BTF..__stop_BTF) "
				 "does not parse");
		return -MDB_E_CORRUPT;
	}
	*t = btf_types;
	t->priv = b;
	return 0;
}
