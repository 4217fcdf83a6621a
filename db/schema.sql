-- SPDX-License-Identifier: MIT
-- memdb database schema, version 1 (PRAGMA user_version).
--
-- Tables may change between schema versions; the v_* views at the end are
-- the stable interface for ad-hoc SQL and keep their meaning.
--
-- Addresses (call sites, pointers) are stored as 64-bit integers: values at
-- or above 2^63 (every kernel address) read back negative in SQLite.  The
-- views show them as '0x...' text; printf('0x%x', col) does the same.
--
-- Each source's rows in alloc and bad_free are one contiguous rowid range,
-- recorded in source.alloc_lo/alloc_hi and bad_lo/bad_hi: one source is
-- written in one transaction, so reports read a source with a rowid range
-- scan and no index has to be maintained on the ingest path.

-- One row per ingested input (a capture directory, a file, a snapshot).
CREATE TABLE source (
	id             INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused
	path           TEXT NOT NULL,
	format         TEXT NOT NULL,   -- kmemtrace-relay, allocinfo, ...
	format_version TEXT,            -- as the input states it: '2.0', '1'
	hash           TEXT NOT NULL,   -- XXH3-128 of the event data
	ingested_at    TEXT NOT NULL,   -- UTC, ISO 8601
	taken_at       TEXT,            -- when the data was captured (UTC,
	                                -- ISO 8601): --time, else file mtime
	label          TEXT,            -- machine name given with --label;
	                                -- snapshots of one label: a series
	kernel_release TEXT,
	abi_version    INTEGER,
	byte_order     TEXT,            -- 'little', 'big' or NULL (text)
	word_size      INTEGER,         -- producer's bytes per long
	ncpus          INTEGER,
	hashed_ptrs    INTEGER NOT NULL DEFAULT 0,
	whole_capture  INTEGER NOT NULL DEFAULT 0, -- all CPUs: seq gaps = lost
	data_bytes     INTEGER NOT NULL DEFAULT 0,
	records        INTEGER NOT NULL DEFAULT 0, -- records/lines read
	events         INTEGER NOT NULL DEFAULT 0, -- events decoded
	unknown        INTEGER NOT NULL DEFAULT 0, -- records with unknown ids
	feature_bytes  INTEGER NOT NULL DEFAULT 0, -- unknown trailing bytes
	malformed      INTEGER NOT NULL DEFAULT 0, -- text lines rejected
	overruns       INTEGER,                    -- producer's overrun count
	lost_events    INTEGER NOT NULL DEFAULT 0, -- events the producer lost
	seq_missing    INTEGER NOT NULL DEFAULT 0, -- seq numbers never seen
	seq_disorder   INTEGER NOT NULL DEFAULT 0, -- seq that did not rise
	first_seq      INTEGER,
	last_seq       INTEGER,
	first_ts       INTEGER,                    -- ns
	last_ts        INTEGER,
	allocations    INTEGER NOT NULL DEFAULT 0, -- rows in alloc
	bad_frees      INTEGER NOT NULL DEFAULT 0, -- rows in bad_free
	alloc_lo       INTEGER,                    -- rowid range in alloc
	alloc_hi       INTEGER,
	bad_lo         INTEGER,                    -- rowid range in bad_free
	bad_hi         INTEGER,
	notes          TEXT
);
CREATE INDEX source_hash ON source(hash);

-- Call sites of a source: an address, or the symbolic text a trace
-- printed (func+0xoff/0xsize), or both.
CREATE TABLE site (
	source_id INTEGER NOT NULL,
	id        INTEGER NOT NULL,
	addr      INTEGER,
	text      TEXT,
	PRIMARY KEY (source_id, id)
) WITHOUT ROWID;

-- Strings of a source: cache names, symbolic gfp flags.
CREATE TABLE str (
	source_id INTEGER NOT NULL,
	id        INTEGER NOT NULL,
	text      TEXT NOT NULL,
	PRIMARY KEY (source_id, id)
) WITHOUT ROWID;

-- One row per allocation lifetime: the ALLOC and, when seen, what ended it.
CREATE TABLE alloc (
	id           INTEGER PRIMARY KEY,
	source_id    INTEGER NOT NULL,
	seq          INTEGER NOT NULL, -- position of the ALLOC in global order
	ts           INTEGER,          -- ns, NULL when the format has no time
	cpu          INTEGER NOT NULL,
	type         INTEGER NOT NULL, -- 0 kmalloc, 1 kmem_cache, 2 page
	site_id      INTEGER NOT NULL,
	ptr          INTEGER NOT NULL,
	bytes_req    INTEGER NOT NULL,
	bytes_alloc  INTEGER NOT NULL,
	gfp          INTEGER,          -- numeric gfp flags, when known
	gfp_id       INTEGER,          -- str.id of symbolic gfp flags
	node         INTEGER,
	cache_id     INTEGER,          -- str.id of the cache name
	state        INTEGER NOT NULL, -- see alloc_state
	end_seq      INTEGER,          -- position of the event that ended it
	end_ts       INTEGER,
	free_cpu     INTEGER,          -- CPU of the FREE (state 1 only)
	free_site_id INTEGER,
	free_type    INTEGER
);

-- The allocations live at the end of a trace (the leaks report).  Live
-- rows are written last, when the pairing finishes, so this index costs
-- nothing on the bulk of the inserts.
CREATE INDEX alloc_live ON alloc(source_id, site_id) WHERE state = 0;

CREATE TABLE alloc_state (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO alloc_state VALUES
	(0, 'live'),           -- not freed by the end of the trace
	(1, 'freed'),          -- ended by a FREE event
	(2, 'free_not_traced'),-- its address was allocated again while live
	(3, 'failed'),         -- the allocation returned NULL
	(4, 'zero_size');      -- returned ZERO_SIZE_PTR (or another ptr < 4096)

CREATE TABLE alloc_type (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO alloc_type VALUES (0, 'kmalloc'), (1, 'kmem_cache'), (2, 'page');

-- FREE events that ended no allocation.
CREATE TABLE bad_free (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL,
	seq       INTEGER NOT NULL,
	ts        INTEGER,
	cpu       INTEGER NOT NULL,
	type      INTEGER NOT NULL,
	site_id   INTEGER NOT NULL,
	ptr       INTEGER NOT NULL,
	cache_id  INTEGER,
	class     INTEGER NOT NULL, -- see free_class
	prev_seq  INTEGER           -- duplicate: position of the earlier free
);

CREATE TABLE free_class (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO free_class VALUES
	(1, 'null_free'),      -- ptr < 4096: legal, counted apart
	(2, 'unknown_free'),   -- address never seen: allocated before the trace, or a bad free
	(3, 'duplicate_free'); -- address already freed and not allocated again

-- Per call site aggregates, built at ingest from the alloc rows (the
-- fragmentation and callsites reports read these instead of scanning
-- alloc).  Key: call site, allocation type, cache.
CREATE TABLE site_stats (
	source_id   INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cache_id    INTEGER NOT NULL, -- 0 when the format names no cache
	hits        INTEGER NOT NULL, -- ALLOC events
	bytes_req   INTEGER NOT NULL,
	bytes_alloc INTEGER NOT NULL,
	failed      INTEGER NOT NULL, -- state 3
	zero_size   INTEGER NOT NULL, -- state 4
	freed       INTEGER NOT NULL, -- state 1
	freed_bytes INTEGER NOT NULL, -- bytes_alloc of state 1
	pingpong    INTEGER NOT NULL, -- state 1 with free_cpu <> cpu
	not_traced  INTEGER NOT NULL, -- state 2
	live        INTEGER NOT NULL, -- state 0
	live_bytes  INTEGER NOT NULL,
	mismatched  INTEGER NOT NULL, -- state 1 with free_type <> type
	PRIMARY KEY (source_id, site_id, type, cache_id)
) WITHOUT ROWID;

-- The same figures per (type, cache, object size): `callsites --by cache`.
-- cache_id 0 when the trace names no cache; obj_size is bytes_alloc.
CREATE TABLE cache_stats (
	source_id   INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cache_id    INTEGER NOT NULL,
	obj_size    INTEGER NOT NULL,
	hits        INTEGER NOT NULL,
	bytes_req   INTEGER NOT NULL,
	bytes_alloc INTEGER NOT NULL,
	failed      INTEGER NOT NULL,
	zero_size   INTEGER NOT NULL,
	freed       INTEGER NOT NULL,
	freed_bytes INTEGER NOT NULL,
	pingpong    INTEGER NOT NULL,
	not_traced  INTEGER NOT NULL,
	live        INTEGER NOT NULL,
	live_bytes  INTEGER NOT NULL,
	mismatched  INTEGER NOT NULL,
	PRIMARY KEY (source_id, type, cache_id, obj_size)
) WITHOUT ROWID;

-- Allocations freed on another CPU, per call site and CPU pair.
CREATE TABLE pingpong_stats (
	source_id   INTEGER NOT NULL,
	site_id     INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cpu         INTEGER NOT NULL, -- allocating CPU
	free_cpu    INTEGER NOT NULL, -- freeing CPU
	allocations INTEGER NOT NULL,
	bytes       INTEGER NOT NULL,
	PRIMARY KEY (source_id, site_id, type, cpu, free_cpu)
) WITHOUT ROWID;

-- Allocations per (type, allocating CPU, requested node): with a map of
-- the traced machine's CPUs to nodes, the cross-node allocations.
CREATE TABLE node_stats (
	source_id   INTEGER NOT NULL,
	type        INTEGER NOT NULL,
	cpu         INTEGER NOT NULL,
	node        INTEGER NOT NULL, -- -1: no node asked for
	allocations INTEGER NOT NULL,
	PRIMARY KEY (source_id, type, cpu, node)
) WITHOUT ROWID;

-- Error and anomaly classes with their first positions (the errors report).
CREATE TABLE anomaly (
	source_id     INTEGER NOT NULL,
	class         INTEGER NOT NULL, -- see anomaly_class
	page          INTEGER NOT NULL, -- 0 slab, 1 page events
	count         INTEGER NOT NULL,
	bytes         INTEGER NOT NULL, -- bytes concerned, see anomaly_class
	first_seq     INTEGER NOT NULL,
	first_cpu     INTEGER NOT NULL,
	first_site_id INTEGER NOT NULL,
	examples      TEXT NOT NULL,    -- first positions, space-separated
	PRIMARY KEY (source_id, class, page)
) WITHOUT ROWID;

CREATE TABLE anomaly_class (
	id    INTEGER PRIMARY KEY,
	name  TEXT NOT NULL,
	error INTEGER NOT NULL, -- 1: certainly a bug or broken promise; 0: legal,
	                        -- expected, or not decidable from the trace
	note  TEXT NOT NULL
);
INSERT INTO anomaly_class VALUES
	(1, 'null_free', 0, 'kfree(NULL) or kfree(ZERO_SIZE_PTR): legal'),
	(2, 'unknown_free', 0, 'address never seen: allocated before the trace began, or a bad free'),
	(3, 'duplicate_free', 1, 'address already freed and not allocated again'),
	(4, 'cache_free_of_kmalloc', 1, 'kmem_cache_free of a kmalloc object; position, CPU and site of the free'),
	(5, 'kfree_of_cache', 0, 'kfree of a kmem_cache object: legal since Linux 6.4, an error before'),
	(6, 'free_not_traced', 0, 'address allocated again while live: bulk or RCU free not traced; position of the allocation'),
	(7, 'alloc_failed', 0, 'allocation returned NULL; bytes requested'),
	(8, 'zero_size_request', 0, 'bytes_req is 0: kmalloc(0), though the kmemtrace ABI promises it never is'),
	(9, 'undersized', 1, 'bytes_alloc < bytes_req; bytes short');

-- Live-set deltas over the trace: at most 4096 slots of equal position
-- width; slot boundaries are where the timeline report's buckets end.
CREATE TABLE timeline (
	source_id INTEGER NOT NULL,
	slot      INTEGER NOT NULL,
	first_seq INTEGER NOT NULL,
	last_seq  INTEGER NOT NULL,
	first_ts  INTEGER,
	last_ts   INTEGER,
	allocs    INTEGER NOT NULL, -- slab allocations entering the live set
	frees     INTEGER NOT NULL, -- slab allocations leaving it
	bytes_in  INTEGER NOT NULL,
	bytes_out INTEGER NOT NULL,
	PRIMARY KEY (source_id, slot)
) WITHOUT ROWID;

-- Resolved call sites (memdb symbolize): symbol and offset of the address
-- itself; file, line and inline chain of address - 1 (the call).  No row:
-- not resolved yet ('??').  A row with func NULL: a file with function
-- sizes (quality 2 or 3) says no function holds the address ('??'), so
-- no kallsyms guess replaces it; file and line may still be known.
CREATE TABLE symbol (
	source_id INTEGER NOT NULL,
	addr      INTEGER NOT NULL,
	func      TEXT,             -- NULL: in no function ('??')
	off       INTEGER,          -- addr - start of func
	size      INTEGER,          -- of func; NULL when unknown
	file      TEXT,             -- NULL: no line information
	line      INTEGER,
	inlines   TEXT,             -- 'f (file:line) <- caller (file:line) ...',
	                            -- innermost first; NULL when not inlined
	module    TEXT,             -- NULL for the kernel image
	resolver  TEXT NOT NULL,    -- 'kallsyms', 'elf' (symbol table), 'dwarf'
	quality   INTEGER NOT NULL, -- 1 kallsyms, 2 elf, 3 dwarf: only a
	                            -- higher one replaces a row
	origin    TEXT NOT NULL,    -- the file that resolved it
	PRIMARY KEY (source_id, addr)
) WITHOUT ROWID;

-- Files of a capture kept with its source (the kallsyms, modules and
-- sections snapshots found in a capture directory), for memdb symbolize.
CREATE TABLE source_file (
	id        INTEGER PRIMARY KEY,
	source_id INTEGER NOT NULL,
	name      TEXT NOT NULL,    -- 'kallsyms', 'modules', 'sections'
	data      BLOB NOT NULL,
	UNIQUE (source_id, name)
);

-- ---- statistics snapshots ---------------------------------------------
--
-- A snapshot source holds counters taken at one moment (source.taken_at):
-- allocator zones (FreeBSD UMA zones and malloc(9) types, Linux slab
-- caches) or allocation tags (/proc/allocinfo).  Rows are keyed by
-- (source_id, pos), pos being the 1-based position in the input: zone
-- names repeat (one UMA zone per NUMA domain), positions do not.
-- Counters are stored as the 64-bit patterns the kernel keeps.

CREATE TABLE zone_kind (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO zone_kind VALUES (0, 'uma'), (1, 'malloc'), (2, 'slab');

-- One row per zone, malloc type or slab cache; NULL where the input has
-- no such figure.
CREATE TABLE zone (
	source_id    INTEGER NOT NULL,
	pos          INTEGER NOT NULL,
	kind         INTEGER NOT NULL, -- see zone_kind
	name         TEXT NOT NULL,
	instance     INTEGER NOT NULL, -- earlier rows of this kind and name
	input_line   INTEGER,          -- text inputs: line of the row
	size         INTEGER,          -- item size, bytes
	count_limit  INTEGER,          -- vmstat LIMIT (items), 0 = none
	used         INTEGER,          -- items in use (slab: active_objs)
	free         INTEGER,          -- items free (UMA: caches, zone, keg
	                               -- of a primary zone; slab: num_objs -
	                               -- active_objs)
	requests     INTEGER,          -- allocations since boot
	frees        INTEGER,          -- frees since boot (binary streams)
	fails        INTEGER,
	sleeps       INTEGER,
	xdomain      INTEGER,          -- UMA cross-domain frees
	bytes        INTEGER,          -- UMA: used x size; malloc: memory in
	                               -- use; slab: num_objs x objsize
	keg_free     INTEGER,          -- UMA stream: uth_keg_free as read
	zone_free    INTEGER,          -- UMA stream: uth_zone_free
	zone_flags   INTEGER,          -- UMA stream: bit 0 = secondary zone
	sizemask     INTEGER,          -- malloc stream: size classes used
	sizes        TEXT,             -- malloc text/json: '16,32,64'
	active_objs  INTEGER,          -- /proc/slabinfo columns
	num_objs     INTEGER,
	objsize      INTEGER,
	objperslab   INTEGER,
	pagesperslab INTEGER,
	active_slabs INTEGER,
	num_slabs    INTEGER,
	approx       INTEGER NOT NULL, -- 1: humanized or rounded figures
	PRIMARY KEY (source_id, pos)
) WITHOUT ROWID;

-- Per-CPU figures of memstat streams; CPUs whose figures are all zero
-- (idle slots: malloc_stats holds MAXCPU of them) are not stored.
CREATE TABLE zone_cpu (
	source_id   INTEGER NOT NULL,
	pos         INTEGER NOT NULL, -- zone.pos
	cpu         INTEGER NOT NULL,
	allocs      INTEGER,
	frees       INTEGER,
	cache_free  INTEGER,          -- UMA: items in the CPU's cache
	mem_alloced INTEGER,          -- malloc: bytes
	mem_freed   INTEGER,
	sizemask    INTEGER,
	PRIMARY KEY (source_id, pos, cpu)
) WITHOUT ROWID;

-- One row per /proc/allocinfo line (allocation tag).
CREATE TABLE tag (
	source_id  INTEGER NOT NULL,
	pos        INTEGER NOT NULL,
	input_line INTEGER NOT NULL, -- line of the input file
	bytes      INTEGER NOT NULL, -- signed, as the kernel prints it
	calls      INTEGER NOT NULL,
	file       TEXT NOT NULL,
	lineno     INTEGER NOT NULL, -- line in the source file
	function   TEXT NOT NULL,
	module     TEXT,             -- NULL: built into the kernel
	extra      TEXT,             -- key:value pairs after func: (2.0)
	accurate   INTEGER NOT NULL, -- 0: the line says accurate:no
	approx     INTEGER NOT NULL, -- 1: humanized figures (numfmt)
	PRIMARY KEY (source_id, pos)
) WITHOUT ROWID;

-- ---- stable views ---------------------------------------------------

CREATE VIEW v_sources AS
SELECT s.id, s.path, s.format, s.format_version, s.ingested_at,
       s.taken_at, s.label,
       s.kernel_release, s.abi_version, s.byte_order, s.word_size,
       s.ncpus, s.hashed_ptrs, s.whole_capture, s.data_bytes, s.records, s.events,
       s.unknown, s.feature_bytes, s.malformed, s.overruns, s.lost_events,
       s.seq_missing, s.seq_disorder, s.first_seq, s.last_seq, s.first_ts,
       s.last_ts, s.notes, s.hash
FROM source s;

-- A call site as people read it: the resolved symbol ('func+0xoff', with
-- ' [module]' for a module), else the text the trace printed, else '??'.
CREATE VIEW v_sites AS
SELECT t.source_id, t.id AS site_id, t.addr,
       CASE WHEN t.addr IS NULL THEN NULL ELSE printf('0x%x', t.addr) END
           AS call_site,
       COALESCE(y.func || printf('+0x%x', y.off) ||
                    CASE WHEN y.module IS NULL THEN ''
                         ELSE ' [' || y.module || ']' END,
                t.text, '??') AS symbol,
       y.file, y.line, y.inlines, y.module
FROM site t
LEFT JOIN symbol y ON y.source_id = t.source_id AND y.addr = t.addr;

-- Resolved addresses with how they were resolved (memdb symbolize).
CREATE VIEW v_symbols AS
SELECT y.source_id, printf('0x%x', y.addr) AS addr,
       COALESCE(y.func || printf('+0x%x', y.off) ||
                    CASE WHEN y.module IS NULL THEN ''
                         ELSE ' [' || y.module || ']' END, '??') AS symbol,
       y.func, y.off, y.size, y.file, y.line, y.inlines, y.module,
       y.resolver, y.quality, y.origin
FROM symbol y;

CREATE VIEW v_allocations AS
SELECT a.source_id, a.seq, a.ts, a.cpu, ty.name AS type,
       s.call_site, s.symbol, printf('0x%x', a.ptr) AS ptr,
       a.bytes_req, a.bytes_alloc, a.bytes_alloc - a.bytes_req AS waste,
       CASE WHEN a.gfp IS NOT NULL THEN printf('0x%x', a.gfp) END AS gfp,
       g.text AS gfp_text, a.node, c.text AS cache,
       st.name AS state, a.end_seq, a.end_ts, a.free_cpu,
       fs.call_site AS free_call_site, fs.symbol AS free_symbol,
       ft.name AS free_type,
       CASE WHEN a.state = 1 AND a.type = 0 AND a.free_type = 1
                THEN 'cache_free_of_kmalloc'
            WHEN a.state = 1 AND a.type = 1 AND a.free_type = 0
                THEN 'kfree_of_cache'
       END AS mismatch
FROM alloc a
JOIN alloc_type ty ON ty.id = a.type
JOIN alloc_state st ON st.id = a.state
JOIN v_sites s ON s.source_id = a.source_id AND s.site_id = a.site_id
LEFT JOIN v_sites fs ON fs.source_id = a.source_id
                    AND fs.site_id = a.free_site_id
LEFT JOIN alloc_type ft ON ft.id = a.free_type
LEFT JOIN str c ON c.source_id = a.source_id AND c.id = a.cache_id
LEFT JOIN str g ON g.source_id = a.source_id AND g.id = a.gfp_id;

CREATE VIEW v_bad_frees AS
SELECT b.source_id, b.seq, b.ts, b.cpu, ty.name AS type, s.call_site,
       s.symbol, printf('0x%x', b.ptr) AS ptr, c.text AS cache,
       fc.name AS class, b.prev_seq
FROM bad_free b
JOIN alloc_type ty ON ty.id = b.type
JOIN free_class fc ON fc.id = b.class
JOIN v_sites s ON s.source_id = b.source_id AND s.site_id = b.site_id
LEFT JOIN str c ON c.source_id = b.source_id AND c.id = b.cache_id;

-- The plain event stream: every ALLOC, every FREE that ended an
-- allocation, every FREE that ended none.  ORDER BY source_id, seq.
CREATE VIEW v_events AS
SELECT source_id, seq, ts, cpu, 'alloc' AS event, type, call_site, symbol,
       ptr, bytes_req, bytes_alloc, cache, NULL AS class
FROM v_allocations
UNION ALL
SELECT source_id, end_seq, end_ts, free_cpu, 'free', free_type,
       free_call_site, free_symbol, ptr, NULL, NULL, cache, mismatch
FROM v_allocations WHERE state = 'freed'
UNION ALL
SELECT source_id, seq, ts, cpu, 'free', type, call_site, symbol, ptr,
       NULL, NULL, cache, class
FROM v_bad_frees;

CREATE VIEW v_errors AS
SELECT a.source_id, c.name AS class,
       CASE a.page WHEN 1 THEN 'page' ELSE 'slab' END AS allocator,
       c.error, a.count, a.bytes, a.first_seq, a.first_cpu,
       v.call_site AS first_call_site, v.symbol AS first_symbol,
       a.examples, c.note
FROM anomaly a
JOIN anomaly_class c ON c.id = a.class
JOIN v_sites v ON v.source_id = a.source_id AND v.site_id = a.first_site_id;

CREATE VIEW v_callsites AS
SELECT k.source_id, s.call_site, s.symbol, ty.name AS type,
       c.text AS cache, k.hits, k.bytes_req, k.bytes_alloc,
       k.bytes_alloc - k.bytes_req AS waste, k.failed, k.zero_size,
       k.freed, k.freed_bytes, k.pingpong, k.not_traced, k.live,
       k.live_bytes, k.mismatched
FROM site_stats k
JOIN alloc_type ty ON ty.id = k.type
JOIN v_sites s ON s.source_id = k.source_id AND s.site_id = k.site_id
LEFT JOIN str c ON c.source_id = k.source_id AND c.id = k.cache_id;

-- Snapshot sources, each with its place in its series (same label and
-- format, ordered by taken_at).
CREATE VIEW v_snapshots AS
SELECT s.id AS source_id, s.format, s.format_version, s.label, s.taken_at,
       s.path,
       (SELECT count(*) FROM zone z WHERE z.source_id = s.id) AS zones,
       (SELECT count(*) FROM tag t WHERE t.source_id = s.id) AS tags,
       coalesce((SELECT sum(bytes) FROM zone z WHERE z.source_id = s.id),
                (SELECT sum(bytes) FROM tag t WHERE t.source_id = s.id))
           AS bytes,
       row_number() OVER (PARTITION BY s.label, s.format
                          ORDER BY s.taken_at, s.id) AS series_pos,
       count(*) OVER (PARTITION BY s.label, s.format) AS series_len
FROM source s
WHERE s.format IN ('allocinfo', 'memstat-uma', 'memstat-malloc',
                   'vmstat-z', 'vmstat-m', 'vmstat-json', 'slabinfo');

CREATE VIEW v_zones AS
SELECT z.source_id, z.pos, k.name AS allocator, z.name, z.instance,
       z.input_line, z.size, z.count_limit AS "limit", z.used, z.free,
       z.requests, z.frees, z.fails, z.sleeps, z.xdomain, z.bytes,
       CASE WHEN z.kind <> 2 THEN NULL
            WHEN z.num_objs > 0
                THEN 100.0 * (z.num_objs - z.active_objs) / z.num_objs
            ELSE 0.0 END AS unused_pct,
       z.sizes, z.sizemask, z.keg_free, z.zone_free, z.zone_flags,
       CASE WHEN z.zone_flags IS NOT NULL THEN z.zone_flags & 1 END
           AS secondary,
       z.active_objs, z.num_objs, z.objsize, z.objperslab, z.pagesperslab,
       z.active_slabs, z.num_slabs, z.approx,
       CASE WHEN z.approx THEN 'approx' END AS flags
FROM zone z
JOIN zone_kind k ON k.id = z.kind;

CREATE VIEW v_tags AS
SELECT t.source_id, t.pos, t.input_line, t.file || ':' || t.lineno AS tag,
       t.file, t.lineno AS line, t.function, t.module, t.bytes, t.calls,
       t.extra,
       t.accurate, t.approx,
       nullif(CASE WHEN NOT t.accurate THEN 'inaccurate' ELSE '' END ||
              CASE WHEN NOT t.accurate AND t.approx THEN ',' ELSE '' END ||
              CASE WHEN t.approx THEN 'approx' ELSE '' END, '') AS flags
FROM tag t;
