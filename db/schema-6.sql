-- SPDX-License-Identifier: MIT
-- memdb database schema, version 6: the forward migration from version 5
-- (db/schema-5.sql).  A new database runs every migration, in order.
--
-- More of the slicing index (docs/design.md §3.3), so that a --time
-- window of pingpong and stacks, and --comm with a window, read the
-- window's whole buckets instead of its alloc rows.  A source indexed
-- before version 6 has NULL in the new columns of slice_meta and no rows
-- in the new tables: the reports read it as before.

-- level: 6 when the source's index has what this version adds; NULL
-- before.
ALTER TABLE slice_meta ADD COLUMN level INTEGER;
ALTER TABLE slice_meta ADD COLUMN bcomm_lo INTEGER; -- rowid range in
ALTER TABLE slice_meta ADD COLUMN bcomm_hi INTEGER; -- slice_bucket_comm
-- slice_bucket_comm's bucket: slice_bucket's >> bcomm_shift
ALTER TABLE slice_meta ADD COLUMN bcomm_shift INTEGER;
ALTER TABLE slice_meta ADD COLUMN pp_lo INTEGER;    -- rowid range in
ALTER TABLE slice_meta ADD COLUMN pp_hi INTEGER;    -- slice_pp
ALTER TABLE slice_meta ADD COLUMN stack_lo INTEGER; -- rowid range in
ALTER TABLE slice_meta ADD COLUMN stack_hi INTEGER; -- slice_stack

-- slice_bucket's figures per task name (comm_id as in alloc) instead of
-- cache and object size, in buckets of 2^bcomm_shift of slice_bucket's:
-- --comm and --by comm with a window, without --cache or --by cache
-- (the window's edges are read in wider blocks).  A table of its own,
-- with fewer keys and buckets, so the rows stay few at ingest and a
-- window without --comm reads only slice_bucket's.
CREATE TABLE slice_bucket_comm (
	source_id   INTEGER NOT NULL,
	bucket      INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	comm_id     INTEGER,
	hits        INTEGER NOT NULL,
	sum_req     INTEGER NOT NULL,
	sum_alloc   INTEGER NOT NULL,
	freed       INTEGER NOT NULL,
	pingpong    INTEGER NOT NULL,
	live        INTEGER NOT NULL,
	live_bytes  INTEGER NOT NULL
);

-- The slab allocations freed on another CPU than the allocating one
-- (state 1, whenever freed) per bucket of their time and slice_bucket's
-- key, with the two CPUs: pingpong's --time.  Their bytes are hits *
-- bytes_alloc.
CREATE TABLE slice_pp (
	source_id   INTEGER NOT NULL,
	bucket      INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cache_id    INTEGER,
	bytes_alloc INTEGER NOT NULL,
	comm_id     INTEGER,
	cpu         INTEGER NOT NULL,
	free_cpu    INTEGER NOT NULL,
	hits        INTEGER NOT NULL
);

-- The bytes allocated (bytes_alloc) per bucket and kernel stack by the
-- slab allocations that did not fail and have a stack: stacks' --time.
CREATE TABLE slice_stack (
	source_id INTEGER NOT NULL,
	bucket    INTEGER NOT NULL,
	stack_id  INTEGER NOT NULL,
	bytes     INTEGER NOT NULL
);
