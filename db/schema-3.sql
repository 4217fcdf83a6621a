-- SPDX-License-Identifier: MIT
-- memdb database schema, version 3: the forward migration from version 2
-- (db/schema.sql, then migrate_2 in db/db.c).  A new database runs every
-- migration, in order.
--
-- The task of each event where the capture names it (perf.data samples
-- and COMM records, tracefs common_pid, the comm-pid of trace text), the
-- page allocator's migratetype, and kernel call stacks stored once per
-- distinct stack.

-- pid: the kernel's task id (a thread), NULL when the capture has none;
-- comm_id: str.id of the task name.
ALTER TABLE alloc ADD COLUMN pid INTEGER;
ALTER TABLE alloc ADD COLUMN comm_id INTEGER;
-- page allocations: the kernel's enum migratetype (0 Unmovable, 1 Movable,
-- 2 Reclaimable, 3 HighAtomic since 4.4), NULL when not traced.
ALTER TABLE alloc ADD COLUMN migratetype INTEGER;
-- stack.id of the allocation's kernel callchain, NULL when none.
ALTER TABLE alloc ADD COLUMN stack_id INTEGER;

ALTER TABLE bad_free ADD COLUMN pid INTEGER;
ALTER TABLE bad_free ADD COLUMN comm_id INTEGER;
-- bytes the FREE names (page frees: page size << order), NULL unknown.
ALTER TABLE bad_free ADD COLUMN bytes INTEGER;

-- One row per distinct kernel callchain of a source, keyed by the hash of
-- its frames (XXH3-64 of the addresses); ids in order of first appearance.
CREATE TABLE stack (
	source_id INTEGER NOT NULL,
	id        INTEGER NOT NULL,
	hash      INTEGER NOT NULL,
	depth     INTEGER NOT NULL, -- frames
	PRIMARY KEY (source_id, id)
) WITHOUT ROWID;

-- The frames of a stack: pos 0 is the innermost (where the event fired),
-- depth - 1 the root.  memdb symbolize resolves addr like call sites.
CREATE TABLE stack_frame (
	source_id INTEGER NOT NULL,
	stack_id  INTEGER NOT NULL,
	pos       INTEGER NOT NULL,
	addr      INTEGER NOT NULL,
	PRIMARY KEY (source_id, stack_id, pos)
) WITHOUT ROWID;

-- The kernel's migratetype names (include/linux/mmzone.h since 4.4).
CREATE TABLE migratetype (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO migratetype VALUES
	(0, 'Unmovable'), (1, 'Movable'), (2, 'Reclaimable'), (3, 'HighAtomic'),
	(4, 'CMA'), (5, 'Isolate');

-- A stack as people read it: frames root first, each named by its
-- function ('??' when not resolved), ';'-separated.
CREATE VIEW v_stacks AS
SELECT k.source_id, k.id AS stack_id, k.depth,
       (SELECT group_concat(name, ';') FROM (
            SELECT coalesce(y.func, printf('0x%x', f.addr)) AS name
            FROM stack_frame f
            LEFT JOIN symbol y ON y.source_id = f.source_id
                              AND y.addr = f.addr
            WHERE f.source_id = k.source_id AND f.stack_id = k.id
            ORDER BY f.pos DESC)) AS folded
FROM stack k;
