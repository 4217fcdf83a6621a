-- SPDX-License-Identifier: MIT
-- memdb database schema, version 7: the forward migration from version 6
-- (db/schema-6.sql).  A new database runs every migration, in order.
--
-- The slicing index (docs/design.md §3.3) per address, and per task in
-- wider buckets, so that allocs with a --time window (and no other
-- selection) reads the window's whole buckets in address order, and
-- callsites, fragmentation and pingpong with --pid (or --by pid) and a
-- window read the window's whole wide buckets, instead of the window's
-- alloc rows.  Only for a source of at least 128 MiB of event data (the
-- bytes memdb maps, decompressed or spooled: MDB_SL_BIG_BYTES in
-- analysis/stats.h, about a million events): a smaller source reads its
-- alloc rows fast enough, and slice_ptr would have about as many rows
-- as alloc, written at commit.  slice_meta.level is 7 for a source
-- indexed with these tables, 6 for one without them (smaller, or
-- indexed before version 7: the reports read its alloc rows as before).
ALTER TABLE slice_meta ADD COLUMN bpid_lo INTEGER;  -- rowid range in
ALTER TABLE slice_meta ADD COLUMN bpid_hi INTEGER;  -- slice_bucket_pid
ALTER TABLE slice_meta ADD COLUMN ppid_lo INTEGER;  -- rowid range in
ALTER TABLE slice_meta ADD COLUMN ppid_hi INTEGER;  -- slice_pp_pid
-- slice_bucket_pid's and slice_pp_pid's bucket: slice_bucket's >>
-- bpid_shift
ALTER TABLE slice_meta ADD COLUMN bpid_shift INTEGER;

-- The slab allocations per bucket of their time (slice_bucket's bucket)
-- and address returned (ptr, as in alloc: failures 0): the call site
-- (site_id) and position (last_seq) of the bucket's latest allocation,
-- and perf kmem --alloc's figures as slice_bucket's (freed, pingpong,
-- live: at the end of the trace) summed over the address's buckets up
-- to this one (a row per bucket with allocations there).  So a window's
-- whole buckets [b1, b2] are, per address, the row of its largest bucket
-- up to b2 less that of its largest before b1: two seeks.
CREATE TABLE slice_ptr (
	source_id   INTEGER NOT NULL,
	ptr         INTEGER NOT NULL,
	bucket      INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	last_seq    INTEGER NOT NULL,
	hits        INTEGER NOT NULL,
	bytes_req   INTEGER NOT NULL,
	bytes_alloc INTEGER NOT NULL,
	freed       INTEGER NOT NULL,
	pingpong    INTEGER NOT NULL,
	live        INTEGER NOT NULL,
	PRIMARY KEY (source_id, ptr, bucket)
) WITHOUT ROWID;
-- slice_pid's figures per bucket of 2^bpid_shift of slice_bucket's (at
-- most 17 per source: the tasks may be many): --pid or --by pid with a
-- window, without --cache or --comm; the window's edges are read from
-- the alloc rows.
CREATE TABLE slice_bucket_pid (
	source_id   INTEGER NOT NULL,
	bucket      INTEGER NOT NULL,
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
-- The slab allocations freed on another CPU (state 1, whenever freed)
-- in slice_bucket_pid's buckets, per call site, task and CPU pair: how
-- many and their bytes (bytes_alloc): pingpong's --pid with a window.
CREATE TABLE slice_pp_pid (
	source_id   INTEGER NOT NULL,
	bucket      INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	pid         INTEGER,
	cpu         INTEGER NOT NULL,
	free_cpu    INTEGER NOT NULL,
	hits        INTEGER NOT NULL,
	bytes       INTEGER NOT NULL
);
