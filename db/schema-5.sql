-- SPDX-License-Identifier: MIT
-- memdb database schema, version 5: the forward migration from version 4
-- (db/schema-4.sql).  A new database runs every migration, in order.
--
-- The slicing index of a trace (docs/design.md §3.3): what lets
-- --time windows and the filters of callsites and fragmentation read
-- hundreds of rows instead of every alloc row.  Written at ingest from
-- the same lifetimes as site_stats.  A source ingested before version 5
-- has no slice_meta row: the reports read its alloc rows, as before.

-- One row per indexed source.  Absent when some alloc row has no time or
-- a time before 0 (then the reports read the alloc rows).
CREATE TABLE slice_meta (
	source_id  INTEGER PRIMARY KEY,
	block_rows INTEGER NOT NULL, -- alloc rows per slice_block row
	width      INTEGER NOT NULL, -- ns per bucket: a power of 2
	min_ts     INTEGER,          -- smallest alloc.ts; NULL: no rows
	max_ts     INTEGER,          -- largest alloc.ts
	max_end    INTEGER,          -- largest end_ts of states 1 and 2
	bucket_lo  INTEGER,          -- rowid range in slice_bucket
	bucket_hi  INTEGER,
	key_lo     INTEGER,          -- rowid range in slice_key
	key_hi     INTEGER,
	pid_lo     INTEGER,          -- rowid range in slice_pid
	pid_hi     INTEGER
);

-- The alloc rows of a source cut into blocks of block_rows rows by id
-- (block b: ids alloc_lo + b * block_rows and on): the range of their
-- times and of the ends of those freed or freed untraced (states 1, 2).
-- Rows are written as their lifetimes end, so a block's times are close
-- and a window reads only the blocks its edges fall in.
CREATE TABLE slice_block (
	source_id INTEGER NOT NULL,
	blk       INTEGER NOT NULL,
	min_ts    INTEGER,
	max_ts    INTEGER,
	max_end   INTEGER,           -- NULL: no row of state 1 or 2
	PRIMARY KEY (source_id, blk)
) WITHOUT ROWID;

-- The slab allocations (type < 2) per bucket of time (bucket = ts /
-- width, the allocation's time), call site, type, cache and object size:
-- hits and bytes, freed and pingpong (state 1, whenever freed), live
-- (state 0) and live_bytes.  A window's whole buckets are read here.
CREATE TABLE slice_bucket (
	source_id   INTEGER NOT NULL,
	bucket      INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cache_id    INTEGER,         -- as alloc.cache_id (NULL: none)
	bytes_alloc INTEGER NOT NULL, -- the object size
	hits        INTEGER NOT NULL,
	sum_req     INTEGER NOT NULL,
	sum_alloc   INTEGER NOT NULL,
	freed       INTEGER NOT NULL,
	pingpong    INTEGER NOT NULL,
	live        INTEGER NOT NULL,
	live_bytes  INTEGER NOT NULL
);

-- The same figures over the whole source per task name as well (comm_id
-- as in alloc): the filters without a window (or with one that covers
-- the source) read these.  Columns named as alloc's, so the filters'
-- conditions on alloc rows apply unchanged.
CREATE TABLE slice_key (
	source_id   INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cache_id    INTEGER,
	bytes_alloc INTEGER NOT NULL,
	comm_id     INTEGER,
	hits        INTEGER NOT NULL,
	sum_req     INTEGER NOT NULL,
	sum_alloc   INTEGER NOT NULL,
	freed       INTEGER NOT NULL,
	pingpong    INTEGER NOT NULL,
	live        INTEGER NOT NULL,
	live_bytes  INTEGER NOT NULL
);

-- Per task (pid) instead, without the object size (tasks are many: the
-- rows stay few): --pid without --cache or --comm, or --by pid.
CREATE TABLE slice_pid (
	source_id   INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cache_id    INTEGER,
	pid         INTEGER,
	hits        INTEGER NOT NULL,
	sum_req     INTEGER NOT NULL,
	sum_alloc   INTEGER NOT NULL,
	freed       INTEGER NOT NULL,
	pingpong    INTEGER NOT NULL,
	live        INTEGER NOT NULL,
	live_bytes  INTEGER NOT NULL
);
