-- SPDX-License-Identifier: MIT
-- memdb database schema, version 8: the forward migration from version 7
-- (db/schema-7.sql).  A new database runs every migration, in order.
--
-- Packed columns (docs/design.md §3.3): a large source's alloc rows
-- (the sources that get the level 7 tables, MDB_SL_BIG_BYTES) also as
-- one BLOB per block of MDB_PC_ROWS (1024) rows, slice_block's blocks:
-- the columns the slicing reports select and sum by, each as offsets
-- from the block's smallest value in 0 to 8 bytes (db/packcol.h gives
-- the layout).  A report whose selection no index table serves (allocs
-- with a filter, callsites with a filter and a window, --by pid or comm
-- with a window) reads the blocks its window reaches in C
-- (report/scan.c, the table-valued function slab_scan) instead of
-- decoding each alloc row: 10M events, any selection, under a second.
-- slice_meta.col_lo and col_hi are the source's rowid range in
-- slice_col, NULL for a source without packed columns (smaller, or
-- ingested before version 8), which the reports read as before.
CREATE TABLE slice_col (
	source_id INTEGER NOT NULL,
	blk       INTEGER NOT NULL,  -- slice_block's: rows alloc_lo +
	                             -- 1024 blk onwards
	data      BLOB NOT NULL
);
ALTER TABLE slice_meta ADD COLUMN col_lo INTEGER;
ALTER TABLE slice_meta ADD COLUMN col_hi INTEGER;
