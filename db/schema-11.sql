-- SPDX-License-Identifier: MIT
-- memdb database schema, version 11: the forward migration from version
-- 10 (db/schema-10.sql).  A new database runs every migration, in order.
--
-- One store for allocation lifetimes: a source's lifetimes are kept as
-- blocks of packed columns (db/packcol.h: every column of alloc, 1,024
-- rows a block, numbered from the source's first lifetime on), one row
-- of alloc_blk a block, instead of one row each.  alloc stays what SQL
-- reads: a virtual table (module memdb_alloc, db/allocvt.c) with the
-- columns and ids of the table it replaces; memdb registers the module
-- on every connection, sqlite3 and Python load it (.load memdb).
-- A block's id is the last alloc id it holds (its first: id - rows + 1),
-- so a source's ids stay source.alloc_lo to alloc_hi and the next id is
-- max(id) + 1.  The partial indexes alloc_live and alloc_page go with
-- the rows.
CREATE TABLE alloc_blk (
	id        INTEGER PRIMARY KEY, -- the last alloc id of the block
	source_id INTEGER NOT NULL,
	data      BLOB NOT NULL        -- db/packcol.h, MDB_PC_NCOLS columns
);

-- The rows of a database of version 10 or older, block by block.
INSERT INTO alloc_blk (id, source_id, data)
SELECT max(a.id), s.id,
       memdb_alloc_pack(s.alloc_lo + (a.id - s.alloc_lo) / 1024 * 1024,
			a.id, a.seq, a.ts, a.cpu, a.type, a.site_id, a.ptr,
			a.bytes_req, a.bytes_alloc, a.gfp, a.gfp_id, a.node,
			a.cache_id, a.state, a.end_seq, a.end_ts, a.free_cpu,
			a.free_site_id, a.free_type, a.pid, a.comm_id,
			a.migratetype, a.stack_id)
FROM source s JOIN alloc a ON a.id BETWEEN s.alloc_lo AND s.alloc_hi
WHERE a.source_id = s.id
GROUP BY s.id, (a.id - s.alloc_lo) / 1024;

DROP TABLE alloc;
CREATE VIRTUAL TABLE alloc USING memdb_alloc;

-- The packed columns of the large sources of versions 8 to 10
-- (slice_col, db/migrations.h) were a copy of their alloc rows' columns:
-- the blocks are now the rows, and slab_scan (report/scan.c) reads them.
DROP TABLE IF EXISTS slice_col;
