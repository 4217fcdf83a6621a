/* SPDX-License-Identifier: MIT */
/*
 * Packed columns (db/schema-11.sql, docs/design.md §3.2): a source's
 * allocation lifetimes, MDB_PC_ROWS at a time, as one BLOB per block in
 * alloc_blk, every column of alloc; its bad frees the same way in
 * bad_free_blk (db/schema-13.sql), bad_free's columns in some of alloc's
 * (db/allocvt.c maps them), the others all NULL.  The alloc virtual table
 * (db/allocvt.c) and the reports' slab_scan (report/scan.c) read a
 * block's blob into plain arrays; the writer (db/writer.c) packs them.
 *
 * A blob, all integers little-endian:
 *
 *   offset 0   u8  version, MDB_PC_VERSION
 *   offset 1   u8  columns, MDB_PC_NCOLS
 *   offset 2   u16 rows, 1 to MDB_PC_ROWS
 *   offset 4   u8  codec: MDB_PC_RAW, the body follows as it is, or
 *                  MDB_PC_ZSTD, the body follows as one zstd frame that
 *                  records its size and a checksum (blocks written
 *                  before schema 13), or MDB_PC_COLS (below: what
 *                  memdb writes)
 *   offset 5   the body:
 *     per column, MDB_PC_NCOLS times 9 bytes:
 *                u8 flags: bits 0-3 the width of a value in bytes (0, 1,
 *                   2, 4 or 8); bit 7 set when the column has NULLs;
 *                   0x48 alone: NULLs as a bitmap (below)
 *                i64 base
 *     then     per column in order, rows values of width bytes each: an
 *              unsigned u, the value base + u (modulo 2^64); with bit 7,
 *              u 0 is NULL and u > 0 is base + u - 1.  Width 0 stores
 *              nothing: every u is 0.  With flags 0x48 (a column with
 *              NULLs whose values span all 64 bits): (rows + 7) / 8
 *              bytes, bit r % 8 of byte r / 8 set when row r is NULL,
 *              then rows u of 8 bytes, the value base + u.
 *
 * The blob's length is exactly the header's plus the arrays'.  Values
 * are those of the alloc row (db/writer.c binds the same), so a column
 * is NULL where alloc's is.
 *
 * Codec MDB_PC_COLS codes each column on its own, so that a scan reads
 * only the columns it needs: after offset 5,
 *   MDB_PC_NCOLS column headers of 9 bytes, as in the body above;
 *   MDB_PC_NCOLS entries of 5 bytes: u8 MDB_PC_RAW, MDB_PC_ZSTD or
 *            MDB_PC_BITS, u32 the column's stored length;
 *   the columns' stored bytes in order: a column's values as in the
 *            body above, as they are (MDB_PC_RAW: the stored length is
 *            theirs), as one zstd frame with a checksum of them
 *            (MDB_PC_ZSTD), or bit-packed (MDB_PC_BITS, since schema
 *            14): u8 bits, 1 to MDB_PC_MAX_BITS and at most the width's
 *            8 bits a byte, then each row's u in that many bits, row 0
 *            from bit 0 of the first byte on, low bits first, in
 *            (rows * bits + 7) / 8 bytes.  Bit-packed where that is
 *            shorter than whole bytes; zstd where it saves MDB_PC_GAIN
 *            percent of the shorter of the two.
 * The blob ends with the last column's bytes.
 */
#ifndef MDB_PACKCOL_H
#define MDB_PACKCOL_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/pair.h"

#define MDB_PC_VERSION 2
#define MDB_PC_ROWS 1024   /* rows per block */

enum mdb_pc_col {
	MDB_PC_TS, MDB_PC_PTR, MDB_PC_SEQ, MDB_PC_END_TS, MDB_PC_SITE,
	MDB_PC_CACHE, MDB_PC_PID, MDB_PC_COMM, MDB_PC_REQ, MDB_PC_ALLOC,
	MDB_PC_CPU, MDB_PC_FREE_CPU, MDB_PC_TYPE, MDB_PC_STATE,
	MDB_PC_STACK, MDB_PC_GFP, MDB_PC_GFP_ID, MDB_PC_NODE,
	MDB_PC_END_SEQ, MDB_PC_FREE_SITE, MDB_PC_FREE_TYPE,
	MDB_PC_MIGRATETYPE, MDB_PC_NCOLS
};

#define MDB_PC_HEAD 5         /* the bytes before the body */
#define MDB_PC_RAW 0
#define MDB_PC_ZSTD 1
#define MDB_PC_COLS 2
#define MDB_PC_BITS 3         /* a column of MDB_PC_COLS: bit-packed */
#define MDB_PC_MAX_BITS 56
#define MDB_PC_GAIN 30        /* percent zstd must save of a column */
#define MDB_PC_ZMISS 4        /* misses in a row counted: the wait before
			       * the next trial is 2^misses - 1 blocks */
/* the largest body: every column 8 bytes wide, NULLs as a bitmap */
#define MDB_PC_MAX_BODY \
	((9 + 8 * MDB_PC_ROWS + MDB_PC_ROWS / 8) * MDB_PC_NCOLS)
/* the largest blob: that body, every column raw (with its 5-byte entry) */
#define MDB_PC_MAX_BYTES (MDB_PC_HEAD + MDB_PC_MAX_BODY + 5 * MDB_PC_NCOLS)

/* A block of rows, unpacked: v[col][row], null[col][row] nonzero when
 * NULL (v is then 0); body is room for packing and unpacking; zd and zc
 * the zstd contexts its unpacking and packing reuse (made at the first
 * need: zeroed by mdb_pc_block_init(), freed by mdb_pc_block_done());
 * zskip, per column, the packings left before zstd is tried again on a
 * column where it last did not pay, and zmiss its trials in a row that
 * did not. */
struct mdb_pc_block {
	size_t rows;
	void *zd, *zc;
	uint8_t zskip[MDB_PC_NCOLS], zmiss[MDB_PC_NCOLS];
	int64_t v[MDB_PC_NCOLS][MDB_PC_ROWS];
	uint8_t null[MDB_PC_NCOLS][MDB_PC_ROWS];
	uint8_t body[MDB_PC_MAX_BODY];
};

/* Before the first use of a block allocated uninitialised, and after
 * the last (its zstd context). */
void mdb_pc_block_init(struct mdb_pc_block *b);
void mdb_pc_block_done(struct mdb_pc_block *b);

/* Append lifetime @lt as the next row of @b (rows < MDB_PC_ROWS). */
void mdb_pc_add(struct mdb_pc_block *b, const struct mdb_lifetime *lt);

/* Append bad free @f as the next row of @b, in the columns bad_free's
 * virtual table maps (db/allocvt.c); the others NULL. */
void mdb_pc_add_free(struct mdb_pc_block *b, const struct mdb_free *f);

/* Pack @b's rows (1 or more) into @out (MDB_PC_MAX_BYTES); its length.
 * @b's body is overwritten. */
size_t mdb_pc_pack(struct mdb_pc_block *b, uint8_t *out);

/*
 * Unpack blob @p of @n bytes into @b.  0, or -1 with @why set to what is
 * wrong and *@off to the byte offset where.
 */
int mdb_pc_unpack(const uint8_t *p, size_t n, struct mdb_pc_block *b,
		  const char **why, size_t *off);

/* Every column, as a mask of mdb_pc_unpack_cols(). */
#define MDB_PC_ALL ((uint32_t)((1ull << MDB_PC_NCOLS) - 1))

/* The same, but only the columns of @mask (bit c: column c) are filled
 * in @b; the blob's layout is checked as by mdb_pc_unpack(), the zstd
 * frame of a column of MDB_PC_COLS only when that column is read. */
int mdb_pc_unpack_cols(const uint8_t *p, size_t n, struct mdb_pc_block *b,
		       uint32_t mask, const char **why, size_t *off);

#endif
