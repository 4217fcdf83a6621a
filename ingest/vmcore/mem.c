// SPDX-License-Identifier: MIT
/*
 * Reading the dump through struct vm_ctx: typed reads, strings, member
 * offsets, warnings.  Every value read from the dump is untrusted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/bytes.h"
#include "vmcore.h"

void mdb_vm_warn(const struct vm_ctx *c, uint64_t addr, const char *fmt, ...)
{
	struct mdb_error w;
	char *msg = NULL;
	va_list ap;

	if (!c->warn)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	mdb_error_clear(&w);
	mdb_error_set(&w, MDB_E_CORRUPT, c->name, -1, -1, "addr=0x%llx",
		      (unsigned long long)addr);
	mdb_error_msg(&w, "%s", msg ? msg : fmt);
	free(msg);
	c->warn(c->warn_ctx, &w);
}

uint64_t mdb_vm_word(const struct vm_ctx *c)
{
	return c->ptr_size == 4 ? 4 : 8;
}

uint64_t mdb_vm_get_word(const struct vm_ctx *c, const uint8_t *p)
{
	return mdb_vm_word(c) == 4 ? get_u32(p, c->order) : get_u64(p, c->order);
}

int mdb_vm_read_u64(const struct vm_ctx *c, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];

	if (c->read(c->read_ctx, addr, b, 8))
		return -1;
	*v = get_u64(b, c->order);
	return 0;
}

int mdb_vm_read_u32(const struct vm_ctx *c, uint64_t addr, uint32_t *v)
{
	uint8_t b[4];

	if (c->read(c->read_ctx, addr, b, 4))
		return -1;
	*v = get_u32(b, c->order);
	return 0;
}

int mdb_vm_read_sized(const struct vm_ctx *c, uint64_t addr, uint64_t size,
		      uint64_t *v)
{
	uint8_t b[8];

	if ((size != 1 && size != 2 && size != 4 && size != 8) ||
	    c->read(c->read_ctx, addr, b, (size_t)size))
		return -1;
	*v = size == 8 ? get_u64(b, c->order) :
	     size == 4 ? get_u32(b, c->order) :
	     size == 2 ? get_u16(b, c->order) : b[0];
	return 0;
}

int mdb_vm_read_ptr(const struct vm_ctx *c, uint64_t addr, uint64_t *v)
{
	return mdb_vm_read_sized(c, addr, mdb_vm_word(c), v);
}

int mdb_vm_read_str(const struct vm_ctx *c, uint64_t addr, size_t max,
		    char **out)
{
	char *s = malloc(max + 1);
	size_t n = 0;

	*out = NULL;
	if (!s)
		return -1;
	/* byte by byte up to a page boundary would be slow; read in
	 * chunks that never cross a page */
	while (n < max) {
		uint64_t a = addr + n;
		size_t chunk = (size_t)(c->page_size - a % c->page_size);

		if (chunk > max - n)
			chunk = max - n;
		if (c->read(c->read_ctx, a, s + n, chunk)) {
			free(s);
			return -1;
		}
		if (memchr(s + n, '\0', chunk)) {
			*out = s;
			return 0;
		}
		n += chunk;
	}
	s[max] = '\0';
	*out = s;
	return 0;
}

int64_t mdb_vm_off(const struct vm_ctx *c, const char *type, const char *member)
{
	struct vm_member m;

	if (c->types->member(c->types->priv, type, member, &m) ||
	    m.bit_off % 8)
		return -1;
	return (int64_t)(m.bit_off / 8);
}

int64_t mdb_vm_size(const struct vm_ctx *c, const char *type)
{
	uint64_t s;

	if (c->types->size(c->types->priv, type, &s))
		return -1;
	return (int64_t)s;
}
