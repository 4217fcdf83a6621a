-- SPDX-License-Identifier: MIT
-- memdb database schema, version 13: the forward migration from version
-- 12 (db/schema-12.sql).  A new database runs every migration, in order.
--
-- Bad frees kept as the lifetimes are: a source's frees that ended
-- nothing are blocks of packed columns (db/packcol.h, 1,024 a block) in
-- bad_free_blk, with the same zone map and kinds as alloc_blk (kinds'
-- low bits are the classes), instead of one row each.  bad_free stays
-- what SQL reads: a virtual table (module memdb_bad_free, db/allocvt.c)
-- with the columns and ids of the table it replaces; a block's id is the
-- last bad_free id it holds, so a source's ids stay source.bad_lo to
-- bad_hi.
CREATE TABLE bad_free_blk (
	id        INTEGER PRIMARY KEY, -- the last bad_free id of the block
	source_id INTEGER NOT NULL,
	data      BLOB NOT NULL,       -- db/packcol.h, MDB_PC_NCOLS columns
	min_ts    INTEGER,             -- as alloc_blk's (db/schema-12.sql)
	max_ts    INTEGER,
	kinds     INTEGER              -- bit class, bit 8 + type
);

-- The rows of a database of version 12 or older, block by block; the
-- kinds are the sum of the distinct bits, which is their OR.
INSERT INTO bad_free_blk (id, source_id, data, min_ts, max_ts, kinds)
SELECT max(b.id), s.id,
       memdb_bad_free_pack(s.bad_lo + (b.id - s.bad_lo) / 1024 * 1024,
			   b.id, b.seq, b.ts, b.cpu, b.type, b.site_id,
			   b.ptr, b.cache_id, b.class, b.prev_seq, b.pid,
			   b.comm_id, b.bytes),
       min(b.ts), max(b.ts),
       coalesce(sum(DISTINCT CASE WHEN b.class BETWEEN 0 AND 7
				  THEN 1 << b.class END), 0) +
       coalesce(sum(DISTINCT CASE WHEN b.type BETWEEN 0 AND 7
				  THEN 1 << (8 + b.type) END), 0)
FROM source s JOIN bad_free b ON b.id BETWEEN s.bad_lo AND s.bad_hi
WHERE b.source_id = s.id
GROUP BY s.id, (b.id - s.bad_lo) / 1024;

DROP TABLE bad_free;
CREATE VIRTUAL TABLE bad_free USING memdb_bad_free;
