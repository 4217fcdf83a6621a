-- SPDX-License-Identifier: MIT
-- memdb database schema, version 10: the forward migration from version 9
-- (db/schema-9.sql).  A new database runs every migration, in order.
--
-- What a trace source needs to give perf kmem stat's own figures
-- (queries/summary.sql), NULL for sources ingested before version 10
-- and for snapshots:
--
-- cpu_node: the traced machine's CPU-to-node map as a JSON array of
-- [first CPU, last CPU, node] ranges, from the capture itself (perf.data's
-- HEADER_NUMA_TOPOLOGY: per node its CPU list); NULL when the capture
-- records none (trace.dat, text, kmemtrace), where cross-CPU
-- allocations stay unknown without --cpu-node.
--
-- perf_frees, perf_freed_bytes, perf_pingpong: the slab frees perf kmem
-- pairs with an allocation although memdb counts them as ending none
-- (analysis/pair.h: duplicate and suspect duplicate frees; NULL frees of
-- the pointer value of a failed or zero-size allocation), the bytes it
-- counts freed for them (their pointer's latest bytes_alloc) and the
-- ping-pongs it counts for them.  memdb's freed bytes plus
-- perf_freed_bytes is perf's "Total bytes freed".
ALTER TABLE source ADD COLUMN cpu_node TEXT;
ALTER TABLE source ADD COLUMN perf_frees INTEGER;
ALTER TABLE source ADD COLUMN perf_freed_bytes INTEGER;
ALTER TABLE source ADD COLUMN perf_pingpong INTEGER;
