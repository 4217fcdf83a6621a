-- SPDX-License-Identifier: MIT
-- memdb database schema, version 14: the forward migration from version
-- 13 (db/schema-13.sql).  A new database runs every migration, in order.
--
-- Bit-packed columns: a column of a block of codec MDB_PC_COLS may be
-- stored as MDB_PC_BITS (db/packcol.h), each value in as many bits as
-- the block's largest needs, where that is shorter than whole bytes (the
-- CPU, the type, the site).  They are read without zstd, where such a
-- column was mostly a zstd frame before.  The blocks of an older
-- database stay as they are, and are read as before; a memdb of version
-- 13 refuses this database by its version instead of reading a column
-- it does not know.
--
-- min_seq, max_seq: the smallest and largest position (seq) of a
-- block's rows, a second zone map beside min_ts and max_ts (schema 12):
-- alloc's and bad_free's virtual tables pass over a block all of whose
-- rows lie outside a constraint on seq (leaks --at a position) or ts
-- without unpacking it.  NULL only for a block without rows.
ALTER TABLE alloc_blk ADD COLUMN min_seq INTEGER;
ALTER TABLE alloc_blk ADD COLUMN max_seq INTEGER;
ALTER TABLE bad_free_blk ADD COLUMN min_seq INTEGER;
ALTER TABLE bad_free_blk ADD COLUMN max_seq INTEGER;

-- The blocks written before, from their rows (block k of a source: ids
-- alloc_lo + 1024 k on, or bad_lo + 1024 k on).
UPDATE alloc_blk SET (min_seq, max_seq) = (
	SELECT min(a.seq), max(a.seq)
	FROM source s, alloc a
	WHERE s.id = alloc_blk.source_id
	  AND a.id BETWEEN s.alloc_lo + (alloc_blk.id - s.alloc_lo) / 1024
			   * 1024 AND alloc_blk.id);
UPDATE bad_free_blk SET (min_seq, max_seq) = (
	SELECT min(f.seq), max(f.seq)
	FROM source s, bad_free f
	WHERE s.id = bad_free_blk.source_id
	  AND f.id BETWEEN s.bad_lo + (bad_free_blk.id - s.bad_lo) / 1024
			   * 1024 AND bad_free_blk.id);
