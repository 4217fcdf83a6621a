-- SPDX-License-Identifier: MIT
-- memdb database schema, version 12: the forward migration from version
-- 11 (db/schema-11.sql).  A new database runs every migration, in order.
--
-- One scan: every report that selects allocations (--time, --pid,
-- --comm, --cache, --site, --by comm and pid) reads the source's blocks
-- with slab_scan (report/scan.c), and the slicing index (the slice_*
-- tables of db/schema-5.sql to schema-7.sql, one table per selection
-- made fast) goes.  What the scan keeps of it is each block's time
-- range, a zone map: a block whose allocations were all made outside a
-- --time window is not read.
--
-- min_ts, max_ts: the smallest and largest time (ns) of the block's
-- allocations that have one; NULL when none has, or for a block written
-- before version 12 without a slice_block row, which is then always read.
ALTER TABLE alloc_blk ADD COLUMN min_ts INTEGER;
ALTER TABLE alloc_blk ADD COLUMN max_ts INTEGER;

-- kinds: which states and types the block's allocations have, bit
-- state (0 live to 4 zero-size, analysis/pair.h) and bit 8 + type (0
-- kmalloc to 2 page, ingest/event.h); NULL
-- for a block written before version 12.  alloc's virtual table passes
-- over a block without the state or type a constraint asks for (leaks'
-- live allocations, pages' page allocations) without unpacking it.
ALTER TABLE alloc_blk ADD COLUMN kinds INTEGER;

-- slice_block held the same ranges for the blocks of an indexed source
-- (block k: alloc ids alloc_lo + 1024 k on, as alloc_blk's).
UPDATE alloc_blk SET (min_ts, max_ts) = (
	SELECT k.min_ts, k.max_ts
	FROM source s JOIN slice_block k ON k.source_id = s.id
	WHERE s.id = alloc_blk.source_id
	  AND k.blk = (alloc_blk.id - s.alloc_lo) / 1024
	  AND k.min_ts <= k.max_ts);

DROP TABLE slice_meta;
DROP TABLE slice_block;
DROP TABLE slice_bucket;
DROP TABLE slice_key;
DROP TABLE slice_pid;
DROP TABLE slice_bucket_comm;
DROP TABLE slice_pp;
DROP TABLE slice_stack;
DROP TABLE slice_ptr;
DROP TABLE slice_bucket_pid;
DROP TABLE slice_pp_pid;
