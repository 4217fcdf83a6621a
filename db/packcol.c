// SPDX-License-Identifier: MIT
/* Packed columns of alloc rows; see packcol.h for the blob's layout. */
#include <string.h>

#include <zstd.h>

#include "../ingest/event.h"
#include "packcol.h"

void mdb_pc_add(struct mdb_pc_block *b, const struct mdb_lifetime *lt)
{
	size_t r = b->rows++;
	int ended = lt->end_seq != MDB_NO_SEQ;
	int freed = lt->state == MDB_ST_FREED;
#define PUT(c, val, isnull) do { \
		int n_ = (isnull); \
		b->null[c][r] = (uint8_t)n_; \
		b->v[c][r] = n_ ? 0 : (int64_t)(val); \
	} while (0)

	PUT(MDB_PC_TS, lt->ts, lt->ts == MDB_NO_TS);
	PUT(MDB_PC_PTR, lt->ptr, 0);
	PUT(MDB_PC_SEQ, lt->seq, 0);
	PUT(MDB_PC_END_TS, lt->end_ts, !ended || lt->end_ts == MDB_NO_TS);
	PUT(MDB_PC_SITE, lt->site_id, 0);
	PUT(MDB_PC_CACHE, lt->cache_id, !lt->cache_id);
	PUT(MDB_PC_PID, lt->pid, lt->pid == MDB_NO_PID);
	PUT(MDB_PC_COMM, lt->comm_id, !lt->comm_id);
	PUT(MDB_PC_REQ, lt->bytes_req, 0);
	PUT(MDB_PC_ALLOC, lt->bytes_alloc, 0);
	PUT(MDB_PC_CPU, lt->cpu, 0);
	PUT(MDB_PC_FREE_CPU, lt->free_cpu, !freed);
	PUT(MDB_PC_TYPE, lt->type, 0);
	PUT(MDB_PC_STATE, lt->state, 0);
	PUT(MDB_PC_STACK, lt->stack_id, !lt->stack_id);
	PUT(MDB_PC_GFP, lt->gfp, lt->gfp == MDB_NO_GFP);
	PUT(MDB_PC_GFP_ID, lt->gfp_id, !lt->gfp_id);
	PUT(MDB_PC_NODE, lt->node, 0);
	PUT(MDB_PC_END_SEQ, lt->end_seq, !ended);
	PUT(MDB_PC_FREE_SITE, lt->free_site_id, !freed);
	PUT(MDB_PC_FREE_TYPE, lt->free_type, !freed);
	PUT(MDB_PC_MIGRATETYPE, lt->migratetype,
	    lt->migratetype == MDB_NO_MIGRATETYPE);
#undef PUT
}

void mdb_pc_add_free(struct mdb_pc_block *b, const struct mdb_free *f)
{
	size_t r = b->rows++;

	/* every column NULL but those bad_free maps (db/allocvt.c) */
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		b->null[c][r] = 1;
		b->v[c][r] = 0;
	}
#define PUT(c, val, isnull) do { \
		int n_ = (isnull); \
		b->null[c][r] = (uint8_t)n_; \
		b->v[c][r] = n_ ? 0 : (int64_t)(val); \
	} while (0)

	PUT(MDB_PC_SEQ, f->seq, 0);
	PUT(MDB_PC_TS, f->ts, f->ts == MDB_NO_TS);
	PUT(MDB_PC_CPU, f->cpu, 0);
	PUT(MDB_PC_TYPE, f->type, 0);
	PUT(MDB_PC_SITE, f->site_id, 0);
	PUT(MDB_PC_PTR, f->ptr, 0);
	PUT(MDB_PC_CACHE, f->cache_id, !f->cache_id);
	PUT(MDB_PC_STATE, f->class, 0);
	PUT(MDB_PC_END_SEQ, f->prev_seq, f->prev_seq == MDB_NO_SEQ);
	PUT(MDB_PC_PID, f->pid, f->pid == MDB_NO_PID);
	PUT(MDB_PC_COMM, f->comm_id, !f->comm_id);
	PUT(MDB_PC_ALLOC, f->bytes, !f->bytes);
#undef PUT
}

void mdb_pc_block_init(struct mdb_pc_block *b)
{
	b->rows = 0;
	b->zd = b->zc = NULL;
	memset(b->zskip, 0, sizeof(b->zskip));
	memset(b->zmiss, 0, sizeof(b->zmiss));
}

void mdb_pc_block_done(struct mdb_pc_block *b)
{
	if (b) {
		ZSTD_freeDCtx(b->zd);
		ZSTD_freeCCtx(b->zc);
		b->zd = b->zc = NULL;
	}
}

/* @b's compression context, level 1 with checksums; NULL without one. */
static ZSTD_CCtx *cctx(struct mdb_pc_block *b)
{
	if (!b->zc && (b->zc = ZSTD_createCCtx()) &&
	    (ZSTD_isError(ZSTD_CCtx_setParameter(b->zc,
				ZSTD_c_compressionLevel, 1)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(b->zc,
				ZSTD_c_checksumFlag, 1)))) {
		ZSTD_freeCCtx(b->zc);
		b->zc = NULL;
	}
	return b->zc;
}

static void put_le(uint8_t *p, uint64_t v, unsigned w)
{
	for (unsigned i = 0; i < w; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned w)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < w; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The width that holds every u up to @max. */
static unsigned width_of(uint64_t max)
{
	return !max ? 0 : max <= 0xff ? 1 : max <= 0xffff ? 2 :
	       max <= 0xffffffffu ? 4 : 8;
}

/* The columns of @b (headers, then values) into @out; their length.
 * bits[c]: the bits column c's largest u needs (0 for none or a NULL
 * bitmap). */
static size_t pack_body(const struct mdb_pc_block *b, uint8_t *out,
			unsigned *bits)
{
	size_t n = b->rows, at = 9 * MDB_PC_NCOLS;

	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		const int64_t *v = b->v[c];
		const uint8_t *nul = b->null[c];
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		int nulls = 0, none;
		uint64_t span, max;
		unsigned w;
		uint8_t *h = out + 9 * c;

		for (size_t r = 0; r < n; r++) {
			if (nul[r]) {
				nulls = 1;
				continue;
			}
			if (v[r] < lo)
				lo = v[r];
			if (v[r] > hi)
				hi = v[r];
		}
		none = lo > hi;         /* every row NULL: width 0 */
		if (none)
			lo = hi = 0;
		span = (uint64_t)hi - (uint64_t)lo;
		/* u = v - lo, + 1 with NULLs: the largest u is span (+ 1),
		 * which overflows only when INT64_MIN and INT64_MAX are both
		 * in a column with NULLs: then the NULLs are a bitmap before
		 * the values (flag 0x40), each u plain v - lo */
		bits[c] = 0;
		if (nulls && span == UINT64_MAX) {
			h[0] = 0x40 | 8;
			put_le(h + 1, (uint64_t)lo, 8);
			memset(out + at, 0, (n + 7) / 8);
			for (size_t r = 0; r < n; r++)
				out[at + r / 8] |= (uint8_t)(nul[r] << (r % 8));
			at += (n + 7) / 8;
			for (size_t r = 0; r < n; r++, at += 8)
				put_le(out + at, nul[r] ? 0 :
				       (uint64_t)v[r] - (uint64_t)lo, 8);
			continue;
		}
		max = none ? 0 : span + (uint64_t)nulls;
		w = width_of(max);
		bits[c] = max ? 64 - (unsigned)__builtin_clzll(max) : 0;
		h[0] = (uint8_t)(w | (nulls ? 0x80 : 0));
		put_le(h + 1, (uint64_t)lo, 8);
		for (size_t r = 0; r < n && w; r++) {
			uint64_t u = nul[r] ? 0 :
				     (uint64_t)v[r] - (uint64_t)lo + (nulls ? 1 : 0);

			put_le(out + at, u, w);
			at += w;
		}
	}
	return at;
}

/* The length of a column's values whose header is @h, in a block of
 * @rows rows; -1 when the header's width is not one the layout has. */
static int col_len(const uint8_t *h, size_t rows, size_t *len)
{
	unsigned w = h[0] & 0x3f;

	if (h[0] == (0x40 | 8)) {       /* a NULL bitmap, then values */
		*len = (rows + 7) / 8 + rows * 8;
		return 0;
	}
	if ((h[0] & 0x40) || (w != 0 && w != 1 && w != 2 && w != 4 && w != 8))
		return -1;
	*len = rows * w;
	return 0;
}

/* @rows unsigned values of @w bytes from @q into @u: a loop per width,
 * plain loads on a little-endian host (the compiler vectorises them). */
static void load_u(const uint8_t *q, size_t rows, unsigned w, uint64_t *u)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const int le = 1;
#else
	const int le = 0;
#endif
	switch (w) {
	case 0:
		memset(u, 0, rows * sizeof(u[0]));
		break;
	case 1:
		for (size_t r = 0; r < rows; r++)
			u[r] = q[r];
		break;
	case 2:
		for (size_t r = 0; r < rows; r++)
			u[r] = (uint64_t)q[2 * r] | (uint64_t)q[2 * r + 1] << 8;
		break;
	case 4:
		if (le) {
			uint32_t t[MDB_PC_ROWS];

			memcpy(t, q, rows * 4);
			for (size_t r = 0; r < rows; r++)
				u[r] = t[r];
		} else {
			for (size_t r = 0; r < rows; r++)
				u[r] = get_le(q + 4 * r, 4);
		}
		break;
	default:
		if (le)
			memcpy(u, q, rows * 8);
		else
			for (size_t r = 0; r < rows; r++)
				u[r] = get_le(q + 8 * r, 8);
		break;
	}
}

/* @rows unsigned values of @bits bits each (1 to 56), packed from bit 0
 * of byte 0 of @q on, into @u: (@rows * @bits + 7) / 8 bytes are read. */
static void load_bits(const uint8_t *q, size_t rows, unsigned bits,
		      uint64_t *u)
{
	size_t len = (rows * bits + 7) / 8;
	uint64_t mask = ((uint64_t)1 << bits) - 1;

	for (size_t r = 0; r < rows; r++) {
		size_t bit = r * bits, i = bit / 8;
		uint64_t w;

		if (i + 8 <= len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			memcpy(&w, q + i, 8);
#else
			w = get_le(q + i, 8);
#endif
		} else {
			w = 0;
			for (size_t k = 0; i + k < len; k++)
				w |= (uint64_t)q[i + k] << (8 * k);
		}
		u[r] = (w >> (bit % 8)) & mask;
	}
}

/* @rows values @u of @bits bits each into @q, as load_bits() reads
 * them; the bytes written. */
static size_t put_bits(uint8_t *q, const uint64_t *u, size_t rows,
		       unsigned bits)
{
	uint64_t acc = 0;
	unsigned nacc = 0;
	size_t n = 0;

	for (size_t r = 0; r < rows; r++) {
		acc |= u[r] << nacc;
		nacc += bits;
		for (; nacc >= 8; nacc -= 8, acc >>= 8)
			q[n++] = (uint8_t)acc;
	}
	if (nacc)
		q[n++] = (uint8_t)acc;
	return n;
}

size_t mdb_pc_pack(struct mdb_pc_block *b, uint8_t *out)
{
	ZSTD_CCtx *z = cctx(b);       /* NULL: no column zstd */
	uint8_t *tab = out + MDB_PC_HEAD + 9 * MDB_PC_NCOLS;
	size_t at = MDB_PC_HEAD + 14 * MDB_PC_NCOLS, from = 9 * MDB_PC_NCOLS;
	uint64_t u[MDB_PC_ROWS];
	unsigned need[MDB_PC_NCOLS];

	pack_body(b, b->body, need);
	out[0] = MDB_PC_VERSION;
	out[1] = MDB_PC_NCOLS;
	put_le(out + 2, b->rows, 2);
	out[4] = MDB_PC_COLS;
	memcpy(out + MDB_PC_HEAD, b->body, 9 * MDB_PC_NCOLS);
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		const uint8_t *h = b->body + 9 * c;
		size_t len = 0, plain, k = (size_t)-1;
		unsigned bits = 0;

		(void)col_len(h, b->rows, &len);
		plain = len;
		/* the values in as many bits as the largest needs, where
		 * that is shorter than whole bytes */
		if (need[c] && need[c] <= MDB_PC_MAX_BITS &&
		    1 + (b->rows * need[c] + 7) / 8 < len) {
			bits = need[c];
			plain = 1 + (b->rows * bits + 7) / 8;
		}
		/* zstd where it saves MDB_PC_GAIN of that (with the frame's
		 * checksum: a damaged column is an error, not other
		 * values): decompressing costs more than reading the few
		 * bytes it saves.  A column's kind of values holds from
		 * block to block (times and positions do not compress,
		 * ids do), so where zstd did not pay it is tried again
		 * after 1, 3, 7, then 15 blocks (MDB_PC_ZMISS), as it
		 * keeps failing: the trial costs what the rest of the
		 * packing does. */
		if (b->zskip[c]) {
			b->zskip[c]--;
		} else if (z && len >= 64) {
			k = ZSTD_compress2(z, out + at,
					   plain - plain * MDB_PC_GAIN / 100,
					   b->body + from, len);
			if (!ZSTD_isError(k)) {
				b->zmiss[c] = 0;
			} else {
				b->zmiss[c] += b->zmiss[c] < MDB_PC_ZMISS;
				b->zskip[c] = (uint8_t)((1u << b->zmiss[c]) -
							1);
			}
		}
		if (k != (size_t)-1 && !ZSTD_isError(k)) {
			tab[5 * c] = MDB_PC_ZSTD;
		} else if (bits) {
			tab[5 * c] = MDB_PC_BITS;
			out[at] = (uint8_t)bits;
			load_u(b->body + from, b->rows, h[0] & 0x0f, u);
			k = 1 + put_bits(out + at + 1, u, b->rows, bits);
		} else {
			tab[5 * c] = MDB_PC_RAW;
			memcpy(out + at, b->body + from, len);
			k = len;
		}
		put_le(tab + 5 * c + 1, k, 4);
		at += k;
		from += len;
	}
	return at;
}

/* Column values from the unsigned @u into @v and @nul. */
static void finish_col(const uint64_t *u, size_t rows, int nulls,
		       uint64_t base, int64_t *v, uint8_t *nul)
{
	if (!nulls) {
		memset(nul, 0, rows);
		for (size_t r = 0; r < rows; r++)
			v[r] = (int64_t)(base + u[r]);
		return;
	}
	for (size_t r = 0; r < rows; r++) {
		nul[r] = !u[r];
		v[r] = (int64_t)(base + u[r] - !!u[r]) & -(int64_t)!!u[r];
	}
}

/* Column values from @q, @w bytes each, into @v and @nul. */
static void unpack_col(const uint8_t *q, size_t rows, unsigned w, int nulls,
		       uint64_t base, int64_t *v, uint8_t *nul)
{
	uint64_t u[MDB_PC_ROWS];

	load_u(q, rows, w, u);
	finish_col(u, rows, nulls, base, v, nul);
}

/* Column @c of @b from its header @h and its values @q (col_len()'s
 * length, checked by the caller). */
static void col_unpack(const uint8_t *h, const uint8_t *q,
		       struct mdb_pc_block *b, int c)
{
	size_t rows = b->rows;
	uint64_t base = get_le(h + 1, 8);
	int64_t *v = b->v[c];
	uint8_t *nul = b->null[c];

	if (h[0] == (0x40 | 8)) {       /* a NULL bitmap, then values */
		size_t bm = (rows + 7) / 8;

		unpack_col(q + bm, rows, 8, 0, base, v, nul);
		for (size_t r = 0; r < rows; r++) {
			nul[r] = (q[r / 8] >> (r % 8)) & 1;
			v[r] &= -(int64_t)!nul[r];
		}
		return;
	}
	unpack_col(q, rows, h[0] & 0x3f, h[0] & 0x80, base, v, nul);
}

/* The columns of @b in @mask (bit c: column c) from body @q of @n bytes
 * (codecs MDB_PC_RAW and MDB_PC_ZSTD), every column's header and length
 * checked; offsets are the body's. */
static int unpack_body(const uint8_t *q, size_t n, struct mdb_pc_block *b,
		       uint32_t mask, const char **why, size_t *off)
{
	size_t at = 9 * MDB_PC_NCOLS;

	if (n < at) {
		*off = n;
		*why = "column headers run past the end";
		return -1;
	}
	for (int c = 0; c < MDB_PC_NCOLS; c++) {
		size_t len;

		if (col_len(q + 9 * c, b->rows, &len) < 0) {
			*off = 9 * (size_t)c;
			*why = "bad column width";
			return -1;
		}
		if (n - at < len) {
			*off = at;
			*why = "column runs past the end";
			return -1;
		}
		if (mask >> c & 1)
			col_unpack(q + 9 * c, q + at, b, c);
		at += len;
	}
	if (at != n) {
		*off = at;
		*why = "bytes after the last column";
		return -1;
	}
	return 0;
}

/* Whether a column of header @h stored as MDB_PC_BITS of @bits bits in
 * @k bytes (with that first byte) is one the layout has: 1 to
 * MDB_PC_MAX_BITS bits, no more than its width's, and its length. */
static int bits_fit(const uint8_t *h, unsigned bits, size_t rows, size_t k)
{
	unsigned w = h[0] & 0x0f;

	return h[0] != (0x40 | 8) && bits >= 1 && bits <= MDB_PC_MAX_BITS &&
	       bits <= 8 * w && k == 1 + (rows * bits + 7) / 8;
}

/*
 * The columns of @b in @mask from blob @p of @n bytes of codec
 * MDB_PC_COLS: every column's header, codec and length checked, the
 * values of a column not asked for not read (a zstd column's frame is
 * checked when it is decompressed).
 */
static int unpack_cols(const uint8_t *p, size_t n, struct mdb_pc_block *b,
		       uint32_t mask, const char **why, size_t *off)
{
	const uint8_t *h = p + MDB_PC_HEAD, *tab = h + 9 * MDB_PC_NCOLS;
	size_t at = MDB_PC_HEAD + 14 * MDB_PC_NCOLS;
	int ret = 0;

	if (n < at) {
		*off = n;
		*why = "column headers run past the end";
		return -1;
	}
	for (int c = 0; c < MDB_PC_NCOLS && !ret; c++) {
		const uint8_t *t = tab + 5 * c;
		size_t len, k = (size_t)get_le(t + 1, 4), got;

		*off = (size_t)(h - p) + 9 * (size_t)c;
		if (col_len(h + 9 * c, b->rows, &len) < 0) {
			*why = "bad column width";
			return -1;
		}
		*off = (size_t)(t - p);
		if ((t[0] != MDB_PC_RAW && t[0] != MDB_PC_ZSTD &&
		     t[0] != MDB_PC_BITS) ||
		    (t[0] == MDB_PC_RAW && k != len)) {
			*why = "bad column codec or length";
			ret = -1;
			break;
		}
		if (n - at < k) {
			*off = at;
			*why = "column runs past the end";
			ret = -1;
			break;
		}
		if (t[0] == MDB_PC_BITS &&
		    (!k || !bits_fit(h + 9 * c, p[at], b->rows, k))) {
			*off = at;
			*why = "bad bit width of a column";
			ret = -1;
			break;
		}
		if (mask >> c & 1) {
			const uint8_t *q = p + at;

			if (t[0] == MDB_PC_BITS) {
				uint64_t u[MDB_PC_ROWS];

				load_bits(q + 1, b->rows, q[0], u);
				finish_col(u, b->rows, h[9 * c] & 0x80,
					   get_le(h + 9 * c + 1, 8), b->v[c],
					   b->null[c]);
				at += k;
				continue;
			}
			if (t[0] == MDB_PC_ZSTD) {
				if (!b->zd && !(b->zd = ZSTD_createDCtx())) {
					*why = "out of memory";
					ret = -1;
					break;
				}
				got = ZSTD_decompressDCtx(b->zd, b->body,
							  sizeof(b->body), q,
							  k);
				if (ZSTD_isError(got) || got != len) {
					*off = at;
					*why = "a zstd column does not "
					       "decompress";
					ret = -1;
					break;
				}
				q = b->body;
			}
			col_unpack(h + 9 * c, q, b, c);
		}
		at += k;
	}
	if (!ret && at != n) {
		*off = at;
		*why = "bytes after the last column";
		ret = -1;
	}
	return ret;
}

int mdb_pc_unpack(const uint8_t *p, size_t n, struct mdb_pc_block *b,
		  const char **why, size_t *off)
{
	return mdb_pc_unpack_cols(p, n, b, MDB_PC_ALL, why, off);
}

int mdb_pc_unpack_cols(const uint8_t *p, size_t n, struct mdb_pc_block *b,
		       uint32_t mask, const char **why, size_t *off)
{
	unsigned long long body;
	size_t got;
	int ret;

	*off = 0;
	if (n < MDB_PC_HEAD) {
		*why = "shorter than the header";
		return -1;
	}
	if (p[0] != MDB_PC_VERSION) {
		*why = "unknown version";
		return -1;
	}
	if (p[1] != MDB_PC_NCOLS) {
		*off = 1;
		*why = "wrong number of columns";
		return -1;
	}
	b->rows = (size_t)get_le(p + 2, 2);
	if (!b->rows || b->rows > MDB_PC_ROWS) {
		*off = 2;
		*why = "row count out of range";
		return -1;
	}
	if (p[4] == MDB_PC_COLS)
		return unpack_cols(p, n, b, mask, why, off);
	if (p[4] == MDB_PC_RAW) {
		ret = unpack_body(p + MDB_PC_HEAD, n - MDB_PC_HEAD, b, mask, why,
				  off);
		*off += MDB_PC_HEAD;
		return ret;
	}
	if (p[4] != MDB_PC_ZSTD) {
		*off = 4;
		*why = "unknown codec";
		return -1;
	}
	*off = MDB_PC_HEAD;
	body = ZSTD_getFrameContentSize(p + MDB_PC_HEAD, n - MDB_PC_HEAD);
	if (body == ZSTD_CONTENTSIZE_ERROR ||
	    body == ZSTD_CONTENTSIZE_UNKNOWN || body > sizeof(b->body)) {
		*why = "not a zstd frame of the columns' size";
		return -1;
	}
	if (!b->zd && !(b->zd = ZSTD_createDCtx())) {
		*why = "out of memory";
		return -1;
	}
	got = ZSTD_decompressDCtx(b->zd, b->body, sizeof(b->body),
				  p + MDB_PC_HEAD, n - MDB_PC_HEAD);
	if (ZSTD_isError(got) || got != body) {
		*why = "the zstd frame does not decompress";
		return -1;
	}
	ret = unpack_body(b->body, got, b, mask, why, off);
	*off = MDB_PC_HEAD;  /* what is wrong is inside the frame */
	return ret;
}
