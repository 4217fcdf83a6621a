-- SPDX-License-Identifier: MIT
-- memdb database schema, version 12: the forward migration from version
-- 11 (db/schema-11.sql).  A new database runs every migration, in order.
--
-- One scan: every report that selects allocations (--time, --pid,
-- --comm, --cache, --site, --by comm and pid) reads the source's blocks
-- with slab_scan (report/scan.c), and the slicing index (the slice_*
-- tables of versions 5 to 7, one per selection made fast, which a
-- database older than 5 no longer builds: db/migrations.h) goes.  What
-- the scan keeps of it is each block's time range, a zone map: a block
-- whose allocations were all made outside a --time window is not read.
--
-- min_ts, max_ts: the smallest and largest time (ns) of the block's
-- allocations that have one; NULL when none has (the block is then
-- always read).
ALTER TABLE alloc_blk ADD COLUMN min_ts INTEGER;
ALTER TABLE alloc_blk ADD COLUMN max_ts INTEGER;

-- kinds: which states and types the block's allocations have, bit
-- state (0 live to 4 zero-size, analysis/pair.h) and bit 8 + type (0
-- kmalloc to 2 page, ingest/event.h); NULL
-- for a block written before version 12.  alloc's virtual table passes
-- over a block without the state or type a constraint asks for (leaks'
-- live allocations, pages' page allocations) without unpacking it.
ALTER TABLE alloc_blk ADD COLUMN kinds INTEGER;

-- The blocks written before: their allocations' times, read through
-- alloc's virtual table (block k of a source: alloc ids alloc_lo +
-- 1024 k on).
UPDATE alloc_blk SET (min_ts, max_ts) = (
	SELECT min(a.ts), max(a.ts)
	FROM source s, alloc a
	WHERE s.id = alloc_blk.source_id
	  AND a.id BETWEEN s.alloc_lo + (alloc_blk.id - s.alloc_lo) / 1024
			   * 1024 AND alloc_blk.id);

DROP TABLE IF EXISTS slice_meta;
DROP TABLE IF EXISTS slice_block;
DROP TABLE IF EXISTS slice_bucket;
DROP TABLE IF EXISTS slice_key;
DROP TABLE IF EXISTS slice_pid;
DROP TABLE IF EXISTS slice_bucket_comm;
DROP TABLE IF EXISTS slice_pp;
DROP TABLE IF EXISTS slice_stack;
DROP TABLE IF EXISTS slice_ptr;
DROP TABLE IF EXISTS slice_bucket_pid;
DROP TABLE IF EXISTS slice_pp_pid;
