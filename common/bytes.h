/* SPDX-License-Identifier: MIT */
/*
 * Explicit-endian loads and a bounds-checked cursor for untrusted bytes.
 *
 * Byte order and word size are properties of the input, never of the
 * analysing machine: every multi-byte field is assembled from bytes with
 * shifts, which works at any alignment.  No decoder lays a struct over
 * input bytes.
 */
#ifndef MDB_BYTES_H
#define MDB_BYTES_H

#include <stddef.h>
#include <stdint.h>

enum mdb_order { MDB_ORDER_UNKNOWN = 0, MDB_ORDER_LITTLE, MDB_ORDER_BIG };

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | (uint64_t)get_be32(p + 4);
}

static inline uint16_t get_u16(const uint8_t *p, enum mdb_order o)
{
	return o == MDB_ORDER_BIG ? get_be16(p) : get_le16(p);
}

static inline uint32_t get_u32(const uint8_t *p, enum mdb_order o)
{
	return o == MDB_ORDER_BIG ? get_be32(p) : get_le32(p);
}

static inline uint64_t get_u64(const uint8_t *p, enum mdb_order o)
{
	return o == MDB_ORDER_BIG ? get_be64(p) : get_le64(p);
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * (3 - i)));
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * (7 - i)));
}

static inline void put_u16(uint8_t *p, uint16_t v, enum mdb_order o)
{
	if (o == MDB_ORDER_BIG)
		put_be16(p, v);
	else
		put_le16(p, v);
}

static inline void put_u32(uint8_t *p, uint32_t v, enum mdb_order o)
{
	if (o == MDB_ORDER_BIG)
		put_be32(p, v);
	else
		put_le32(p, v);
}

static inline void put_u64(uint8_t *p, uint64_t v, enum mdb_order o)
{
	if (o == MDB_ORDER_BIG)
		put_be64(p, v);
	else
		put_le64(p, v);
}

/*
 * A read cursor over [start, end).  Every read is preceded by a check
 * written as (size_t)(end - p) < n, which cannot overflow.
 */
struct mdb_cursor {
	const uint8_t *start;
	const uint8_t *p;
	const uint8_t *end;
};

static inline void mdb_cursor_init(struct mdb_cursor *c, const void *buf,
				   size_t len)
{
	c->start = buf;
	c->p = buf;
	c->end = len ? c->start + len : c->start; /* NULL + 0 is undefined */
}

static inline size_t mdb_cursor_left(const struct mdb_cursor *c)
{
	return (size_t)(c->end - c->p);
}

static inline size_t mdb_cursor_off(const struct mdb_cursor *c)
{
	return (size_t)(c->p - c->start);
}

static inline int mdb_cursor_has(const struct mdb_cursor *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

/* Move to absolute offset @off; 0, or -1 (cursor unchanged) past the end. */
static inline int mdb_cursor_seek(struct mdb_cursor *c, size_t off)
{
	if (off > (size_t)(c->end - c->start))
		return -1;
	c->p = c->start + off;
	return 0;
}

/* Skip @n bytes; 0, or -1 (cursor unchanged) when fewer are left. */
static inline int mdb_cursor_skip(struct mdb_cursor *c, size_t n)
{
	if (!mdb_cursor_has(c, n))
		return -1;
	c->p += n;
	return 0;
}

/*
 * The next @n bytes without consuming them, or NULL when fewer are left.
 * Callers read fields of a fixed-size record at offsets below @n.
 */
static inline const uint8_t *mdb_cursor_peek(const struct mdb_cursor *c,
					     size_t n)
{
	return mdb_cursor_has(c, n) ? c->p : NULL;
}

/* Take @n bytes as a cursor of their own; -1 when fewer are left. */
static inline int mdb_cursor_sub(struct mdb_cursor *c, size_t n,
				 struct mdb_cursor *sub)
{
	if (!mdb_cursor_has(c, n))
		return -1;
	sub->start = c->start;
	sub->p = c->p;
	sub->end = c->p + n;
	c->p += n;
	return 0;
}

/*
 * Explicit-endian loads that consume what they read.  Each returns 0, or
 * -1 with the cursor unchanged when the bytes are not there.
 */
static inline int mdb_cursor_u8(struct mdb_cursor *c, uint8_t *v)
{
	if (!mdb_cursor_has(c, 1))
		return -1;
	*v = *c->p++;
	return 0;
}

static inline int mdb_cursor_u16(struct mdb_cursor *c, enum mdb_order o,
				 uint16_t *v)
{
	if (!mdb_cursor_has(c, 2))
		return -1;
	*v = get_u16(c->p, o);
	c->p += 2;
	return 0;
}

static inline int mdb_cursor_u32(struct mdb_cursor *c, enum mdb_order o,
				 uint32_t *v)
{
	if (!mdb_cursor_has(c, 4))
		return -1;
	*v = get_u32(c->p, o);
	c->p += 4;
	return 0;
}

static inline int mdb_cursor_u64(struct mdb_cursor *c, enum mdb_order o,
				 uint64_t *v)
{
	if (!mdb_cursor_has(c, 8))
		return -1;
	*v = get_u64(c->p, o);
	c->p += 8;
	return 0;
}

/* A word of @word bytes (4 or 8: a 32- or 64-bit producer's long). */
static inline int mdb_cursor_word(struct mdb_cursor *c, enum mdb_order o,
				  int word, uint64_t *v)
{
	uint32_t w;

	if (word == 8)
		return mdb_cursor_u64(c, o, v);
	if (mdb_cursor_u32(c, o, &w))
		return -1;
	*v = w;
	return 0;
}

/* Take @n bytes: *@out points at them.  0, or -1 when fewer are left. */
static inline int mdb_cursor_bytes(struct mdb_cursor *c, size_t n,
				   const uint8_t **out)
{
	if (!mdb_cursor_has(c, n))
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

/*
 * A cursor over the @n bytes at offset @off of @c's whole buffer (offsets
 * stay those of the buffer, for messages): a section a header points at.
 * -1, and an empty cursor at the start, when they are not all inside it.
 */
static inline int mdb_cursor_window(struct mdb_cursor *w,
				    const struct mdb_cursor *c, uint64_t off,
				    uint64_t n)
{
	const uint8_t *start = c->start;
	size_t len = (size_t)(c->end - c->start);

	w->start = start;
	if (off > len || n > len - off) {
		w->p = w->end = start;
		return -1;
	}
	w->p = start + off;
	w->end = w->p + n;
	return 0;
}

#endif
