// SPDX-License-Identifier: MIT
/*
 * memdb export --clickhouse: a database's sources into ClickHouse tables
 * (clickhouse.h).  Each table is declared once below: its columns with
 * their ClickHouse types and the SQLite expression that reads each, so
 * the DDL, the SELECT and the RowBinary encoding cannot drift apart.
 *
 * Rows carry the source's export key (sid, a random 64-bit number drawn
 * per export of a source) and label.  A source's rows go first, its row
 * of memdb_source after them, in a later INSERT: the fleet reports read
 * only sources memdb_source holds, so an export cut short (a crash, a
 * network error) leaves rows nothing reads, and the next export sends
 * the source again under a new sid.  Sources whose content hash
 * memdb_source holds are not sent again; two exports racing may both
 * send one, which the reports read once (the smallest sid of a hash).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <xxhash.h>

#include "../common/u64map.h"
#include "clickhouse.h"

struct ch_col {
	const char *name, *type, *expr;
};

/*
 * A table: its columns, read by "SELECT exprs FROM ...": ?1 is the
 * source's id in SQLite, ?2 its label ('' for none), ?3 its sid, ?4 the
 * export's time (Unix seconds).
 */
struct ch_table {
	const char *name;
	const char *order;      /* ORDER BY: columns never NULL */
	const char *from;       /* NULL: filled from another table's rows */
	int opt;                /* only with --allocations */
	const struct ch_col *cols;
	const char *shard;      /* sharding key (default: the label's) */
};

#define SID { "sid", "UInt64", "?3" }
#define LABEL { "label", "String", "?2" }
#define N64(c) { c, "Nullable(Int64)", c }
#define I64(c) { c, "Int64", c }
#define END { NULL, NULL, NULL }

static const struct ch_col source_cols[] = {
	SID, { "hash", "String", "s.hash" }, LABEL,
	{ "format", "String", "s.format" },
	{ "format_version", "Nullable(String)", "s.format_version" },
	/* what the fleet reports read: 2 tags, 4 zones, else 1 (a trace) */
	{ "kinds", "UInt8", "coalesce(nullif(CASE WHEN EXISTS (SELECT 1 FROM "
	  "tag t WHERE t.source_id = s.id) THEN 2 ELSE 0 END | CASE WHEN "
	  "EXISTS (SELECT 1 FROM zone z WHERE z.source_id = s.id) THEN 4 "
	  "ELSE 0 END, 0), 1)" },
	{ "taken_at", "Nullable(DateTime)",
	  "CAST(strftime('%s', s.taken_at) AS INTEGER)" },
	/* taken_at for ordering: -1 when unknown (SQLite's NULL, first) */
	{ "taken_unix", "Int64",
	  "coalesce(CAST(strftime('%s', s.taken_at) AS INTEGER), -1)" },
	{ "ingested_at", "DateTime",
	  "coalesce(CAST(strftime('%s', s.ingested_at) AS INTEGER), 0)" },
	{ "exported_at", "DateTime", "?4" },
	{ "db_id", "Int64", "s.id" },
	{ "path", "String", "s.path" },
	{ "kernel_release", "Nullable(String)", "s.kernel_release" },
	{ "byte_order", "Nullable(String)", "s.byte_order" },
	{ "word_size", "Nullable(Int64)", "s.word_size" },
	{ "ncpus", "Nullable(Int64)", "s.ncpus" },
	{ "data_bytes", "Int64", "s.data_bytes" },
	{ "events", "Int64", "s.events" },
	{ "allocations", "Int64", "s.allocations" },
	{ "bad_frees", "Int64", "s.bad_frees" },
	{ "lost_events", "Int64", "s.lost_events" },
	{ "overruns", "Nullable(Int64)", "s.overruns" },
	{ "malformed", "Int64", "s.malformed" },
	{ "notes", "Nullable(String)", "s.notes" },
	END,
};

/*
 * A tag's rows carry its key, a hash of (file, line, function, module),
 * its names going once to memdb_tagname: the fleet reports add up a
 * tag's figures over the hosts by a number, not by its strings, which
 * ClickHouse 18.16 reads and hashes far slower (docs/usage.md).
 * "Key": the tag's key, tag_key(), sent as UInt64; "Skip": read for the
 * key and memdb_tagname, not sent with the row.
 */

static const struct ch_col tag_cols[] = {
	SID, LABEL, I64("pos"), I64("input_line"),
	{ "tag_key", "Key", "NULL" }, I64("bytes"), I64("calls"),
	{ "extra", "Nullable(String)", "extra" },
	{ "accurate", "UInt8", "accurate" }, { "approx", "UInt8", "approx" },
	{ "file", "Skip", "file" }, { "lineno", "Skip", "lineno" },
	{ "function", "Skip", "function" }, { "module", "Skip", "module" },
	END,
};

/* One row per tag key: filled from memdb_tag's rows, not selected. */
static const struct ch_col tagname_cols[] = {
	{ "tag_key", "UInt64", NULL }, { "file", "String", NULL },
	{ "lineno", "Int64", NULL }, { "function", "String", NULL },
	{ "module", "Nullable(String)", NULL }, END,
};

static const struct ch_col zone_cols[] = {
	SID, LABEL, I64("pos"), { "allocator", "String", "allocator" },
	{ "name", "String", "name" }, I64("instance"), N64("input_line"),
	N64("size"), { "count_limit", "Nullable(Int64)", "\"limit\"" },
	N64("used"), N64("free"), N64("requests"), N64("frees"), N64("fails"),
	N64("sleeps"), N64("xdomain"), N64("bytes"),
	{ "unused_pct", "Nullable(Float64)", "unused_pct" },
	{ "sizes", "Nullable(String)", "sizes" }, N64("active_objs"),
	N64("num_objs"), N64("objsize"), N64("objperslab"),
	N64("pagesperslab"), N64("active_slabs"), N64("num_slabs"),
	{ "approx", "UInt8", "approx" }, N64("object_size"),
	N64("allocated"), N64("total"), N64("slabs"), N64("incomplete"),
	N64("refcount"), END,
};

static const struct ch_col kcounter_cols[] = {
	SID, LABEL, I64("pos"), { "scope", "String", "scope" }, N64("node"),
	{ "zone", "Nullable(String)", "zone" }, { "name", "String", "name" },
	I64("value"), END,
};

#define FIGURES I64("hits"), I64("bytes_req"), I64("bytes_alloc"), \
	I64("failed"), I64("zero_size"), I64("freed"), I64("freed_bytes"), \
	I64("pingpong"), I64("not_traced"), I64("live"), I64("live_bytes"), \
	I64("mismatched")

static const struct ch_col site_cols[] = {
	SID, LABEL, { "site_id", "Int64", "k.site_id" },
	{ "call_site", "Nullable(String)", "v.call_site" },
	{ "addr", "Nullable(Int64)", "v.addr" },
	{ "symbol", "String", "v.symbol" }, { "type", "UInt8", "k.type" },
	{ "cache", "Nullable(String)", "c.text" }, FIGURES, END,
};

static const struct ch_col cache_cols[] = {
	SID, LABEL, { "type", "UInt8", "k.type" },
	/* as callsites --by cache names it */
	{ "cache", "String", "coalesce(n.text, CASE WHEN k.type = 1 THEN "
	  "'cache-' || k.obj_size WHEN k.obj_size > 8192 THEN "
	  "'kmalloc-large' ELSE 'kmalloc-' || k.obj_size END)" },
	{ "obj_size", "Int64", "k.obj_size" }, FIGURES, END,
};

static const struct ch_col alloc_cols[] = {
	SID, LABEL, { "seq", "Int64", "a.seq" },
	{ "ts", "Nullable(Int64)", "a.ts" }, { "cpu", "Int64", "a.cpu" },
	{ "type", "UInt8", "a.type" },
	{ "call_site", "Nullable(String)", "v.call_site" },
	{ "symbol", "String", "v.symbol" }, { "ptr", "Int64", "a.ptr" },
	{ "bytes_req", "Int64", "a.bytes_req" },
	{ "bytes_alloc", "Int64", "a.bytes_alloc" },
	{ "gfp", "Nullable(Int64)", "a.gfp" },
	{ "node", "Nullable(Int64)", "a.node" },
	{ "cache", "Nullable(String)", "c.text" },
	{ "state", "UInt8", "a.state" },
	{ "end_seq", "Nullable(Int64)", "a.end_seq" },
	{ "end_ts", "Nullable(Int64)", "a.end_ts" },
	{ "free_cpu", "Nullable(Int64)", "a.free_cpu" },
	{ "pid", "Nullable(Int64)", "a.pid" },
	{ "comm", "Nullable(String)", "m.text" }, END,
};

/* memdb_source first: mdb_export() sends its rows last; memdb_tagname
 * before memdb_tag, whose rows fill it (TAGNAME, TAG) */
enum { TAGNAME = 1, TAG = 2 };

static const struct ch_table tables[] = {
	{ "memdb_source", "(label, taken_unix, sid)",
	  "FROM source s WHERE s.id = ?1", 0, source_cols, NULL },
	{ "memdb_tagname", "tag_key", NULL, 0, tagname_cols, "tag_key" },
	{ "memdb_tag", "(sid, pos)",
	  "FROM tag WHERE source_id = ?1 ORDER BY pos", 0, tag_cols, NULL },
	{ "memdb_zone", "(sid, pos)",
	  "FROM v_zones WHERE source_id = ?1 ORDER BY pos", 0, zone_cols,
	  NULL },
	{ "memdb_kcounter", "(sid, pos)",
	  "FROM kcounter WHERE source_id = ?1 ORDER BY pos", 0,
	  kcounter_cols, NULL },
	{ "memdb_site", "(sid, site_id, type)",
	  "FROM site_stats k JOIN v_sites v ON v.source_id = k.source_id "
	  "AND v.site_id = k.site_id LEFT JOIN str c ON c.source_id = "
	  "k.source_id AND c.id = k.cache_id WHERE k.source_id = ?1", 0,
	  site_cols, NULL },
	{ "memdb_cache", "(sid, type, cache, obj_size)",
	  "FROM cache_stats k LEFT JOIN str n ON n.source_id = k.source_id "
	  "AND n.id = k.cache_id WHERE k.source_id = ?1", 0, cache_cols,
	  NULL },
	{ "memdb_alloc", "(sid, seq)",
	  "FROM source s CROSS JOIN alloc a ON a.id BETWEEN s.alloc_lo AND "
	  "s.alloc_hi JOIN v_sites v ON v.source_id = a.source_id AND "
	  "v.site_id = a.site_id LEFT JOIN str c ON c.source_id = "
	  "a.source_id AND c.id = a.cache_id LEFT JOIN str m ON "
	  "m.source_id = a.source_id AND m.id = a.comm_id WHERE s.id = ?1",
	  1, alloc_cols, NULL },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

_Static_assert(NTABLES <= 8, "raise mdb_export_result.tables");

const char *const *mdb_ch_tables(size_t *n)
{
	static const char *names[NTABLES];

	for (size_t i = 0; i < NTABLES; i++)
		names[i] = tables[i].name;
	*n = NTABLES;
	return names;
}

/* One CREATE TABLE of @t (named @name, engine @engine) to @f. */
static void create(FILE *f, const struct ch_table *t, const char *name,
		   const char *engine)
{
	int n = 0;

	fprintf(f, "CREATE TABLE IF NOT EXISTS %s (\n", name);
	for (const struct ch_col *c = t->cols; c->name; c++)
		if (strcmp(c->type, "Skip"))
			fprintf(f, "%s\t%s %s", n++ ? ",\n" : "", c->name,
				strcmp(c->type, "Key") ? c->type :
				"UInt64");
	fprintf(f, "\n) ENGINE = %s;\n", engine);
}

char *mdb_ch_ddl(const char *cluster)
{
	char *text = NULL, *q = cluster ? mdb_ch_quote(cluster) : NULL;
	size_t len;
	FILE *f;

	if (cluster && !q)
		return NULL;
	f = open_memstream(&text, &len);
	if (!f) {
		free(q);
		return NULL;
	}
	for (size_t i = 0; i < NTABLES; i++) {
		const struct ch_table *t = &tables[i];
		char *local = NULL, *engine = NULL;

		/* granules of 1,024 rows, not 8,192: a report reads some
		 * sources of many (a snapshot's few thousand rows), and
		 * ClickHouse reads each granule that holds one of them
		 * whole */
		if (asprintf(&engine, "MergeTree() ORDER BY %s SETTINGS "
			     "index_granularity = 1024", t->order) < 0)
			break;
		if (!cluster) {
			create(f, t, t->name, engine);
			free(engine);
			continue;
		}
		if (asprintf(&local, "%s_local", t->name) < 0) {
			free(engine);
			break;
		}
		create(f, t, local, engine);
		/* a host's rows on one shard: its label's */
		fprintf(f, "CREATE TABLE IF NOT EXISTS %s AS %s ENGINE = "
			"Distributed(%s, currentDatabase(), %s, %s);\n",
			t->name, local, q, local,
			t->shard ? t->shard : "cityHash64(label)");
		free(local);
		free(engine);
	}
	free(q);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- RowBinary ------------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t n, cap;
	int64_t rows;
};

static int room(struct buf *b, size_t more)
{
	unsigned char *p;
	size_t cap = b->cap ? b->cap : 1 << 16;

	if (b->n + more <= b->cap)
		return 0;
	while (cap < b->n + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* @n bytes of @v, little-endian */
static void put_le(struct buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		b->p[b->n++] = (unsigned char)(v >> (8 * i));
}

/*
 * A tag's key: XXH3-64 of "FILE\0LINE\0FUNCTION\0", then "\1MODULE" for
 * a module's, from columns @col (file, lineno, function, module) of @st.
 * Every memdb computes it so: exports of any version share the names.
 */
static uint64_t tag_key(sqlite3_stmt *st, const int *col)
{
	char buf[1024], *o = buf;
	size_t n, room_left = sizeof(buf);

	for (int k = 0; k < 4; k++) {
		const char *t = (const char *)sqlite3_column_text(st, col[k]);

		if (k == 3 && !t)
			break;
		if (k == 3)
			*o++ = '\1', room_left--;
		n = (size_t)sqlite3_column_bytes(st, col[k]);
		/* longer names than a kernel prints: hashed in full */
		if (n + 2 > room_left) {
			XXH3_state_t *h = XXH3_createState();
			uint64_t v = 0;

			if (h) {
				XXH3_64bits_reset(h);
				XXH3_64bits_update(h, buf, (size_t)(o - buf));
				for (int j = k; j < 4; j++) {
					const char *u = (const char *)
						sqlite3_column_text(st, col[j]);

					if (j == 3 && !u)
						break;
					if (j == 3 && j != k)
						XXH3_64bits_update(h, "\1", 1);
					XXH3_64bits_update(h, u ? u : "",
						(size_t)sqlite3_column_bytes(
							st, col[j]));
					if (j < 3)
						XXH3_64bits_update(h, "", 1);
				}
				v = XXH3_64bits_digest(h);
				XXH3_freeState(h);
			}
			return v;
		}
		if (n)
			memcpy(o, t, n);
		o += n;
		room_left -= n;
		if (k < 3) {
			*o++ = '\0';
			room_left--;
		}
	}
	return XXH3_64bits(buf, (size_t)(o - buf));
}

/* What put() writes of a column: its type, read once (kind_of()), not
 * compared as text for every row. */
enum kind { K_SKIP, K_KEY, K_STRING, K_FLOAT, K_U8, K_DATETIME, K_I64 };

static unsigned char kind_of(const char *type)
{
	int null = !strncmp(type, "Nullable(", 9);

	if (null)
		type += 9;
	return (unsigned char)((null ? 0x80 : 0) |
		(!strcmp(type, "Skip") ? K_SKIP : !strcmp(type, "Key") ? K_KEY :
		 !strncmp(type, "String", 6) ? K_STRING :
		 !strncmp(type, "Float64", 7) ? K_FLOAT :
		 !strncmp(type, "UInt8", 5) ? K_U8 :
		 !strncmp(type, "DateTime", 8) ? K_DATETIME : K_I64));
}

/* Column @i of @st as kind @kind (kind_of(); K_KEY: @key). */
static int put(struct buf *b, sqlite3_stmt *st, int i, unsigned char kind,
	       uint64_t key)
{
	size_t len;

	/* the largest fixed-size value and a Nullable's flag */
	if (kind == K_SKIP || room(b, 9))
		return kind == K_SKIP ? 0 : -1;
	if (kind & 0x80) {
		int null = sqlite3_column_type(st, i) == SQLITE_NULL;

		b->p[b->n++] = (unsigned char)null;
		if (null)
			return 0;
		kind &= 0x7f;
	}
	switch (kind) {
	case K_KEY:
		put_le(b, key, 8);
		break;
	case K_STRING: {
		const void *s = sqlite3_column_blob(st, i);
		uint64_t v;

		len = (size_t)sqlite3_column_bytes(st, i);
		if (room(b, len + 10))
			return -1;
		for (v = len; v >= 0x80; v >>= 7)
			b->p[b->n++] = (unsigned char)(v | 0x80);
		b->p[b->n++] = (unsigned char)v;
		if (len)
			memcpy(b->p + b->n, s, len);
		b->n += len;
		break;
	}
	case K_FLOAT: {
		double d = sqlite3_column_double(st, i);
		uint64_t u;

		memcpy(&u, &d, 8);
		put_le(b, u, 8);
		break;
	}
	default:
		put_le(b, (uint64_t)sqlite3_column_int64(st, i),
		       kind == K_U8 ? 1 : kind == K_DATETIME ? 4 : 8);
	}
	return 0;
}

/* ---- the export ------------------------------------------------------- */

struct export {
	struct mdb_db *db;
	struct mdb_ch *ch;
	const struct mdb_export_opts *o;
	struct mdb_export_result *res;
	struct mdb_error *e;
	sqlite3_stmt *sel[NTABLES];
	char *insert[NTABLES];  /* "INSERT INTO t (cols) FORMAT RowBinary" */
	struct buf buf[NTABLES];
	unsigned char kind[NTABLES][64]; /* each column's kind_of() */
	int ncols[NTABLES];
	int64_t pending;        /* sources whose row waits in buf[0] */
	size_t batch;
	struct u64map names;    /* tag keys memdb_tagname holds or gets */
	uint64_t *last;         /* the tag keys of the last source's rows */
	size_t nlast, cap_last;
	int name_col[4];        /* in memdb_tag's SELECT: file, lineno,
				 * function, module */
	/*
	 * The sender thread: while it sends a batch (job), this thread
	 * reads and encodes the next one into buf; flush() hands buf over
	 * once the previous batch is sent.  It alone uses ch meanwhile.
	 */
	pthread_t thread;
	int started, busy, quit, sent_ret;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct buf job[NTABLES];
	int64_t job_sources;
	struct mdb_error sent_e;
};

static int nomem(struct export *x)
{
	return mdb_error_nomem(x->e);
}

static int prepare(struct export *x)
{
	for (size_t i = 0; i < NTABLES; i++) {
		const struct ch_table *t = &tables[i];
		char *sel = NULL, *cols = NULL;
		size_t l1, l2;
		FILE *f = open_memstream(&sel, &l1), *g;

		if (!f)
			return nomem(x);
		g = open_memstream(&cols, &l2);
		if (!g) {
			fclose(f);
			free(sel);
			return nomem(x);
		}
		fputs("SELECT ", f);
		for (const struct ch_col *c = t->cols; c->name; c++) {
			int k = (int)(c - t->cols);

			/* a table of more columns than kind[] holds: a
			 * mistake in this file */
			if (k >= (int)sizeof(x->kind[i])) {
				fclose(f);
				fclose(g);
				free(sel);
				free(cols);
				return mdb_error_set(x->e, MDB_E_INVAL, NULL,
						     -1, -1, "table=%s",
						     t->name);
			}

			fprintf(f, "%s%s", k ? ", " : "", c->expr ? c->expr :
				"NULL");
			x->kind[i][k] = kind_of(c->type);
			x->ncols[i] = k + 1;
			if (strcmp(c->type, "Skip"))
				fprintf(g, "%s%s", k ? ", " : "", c->name);
			for (int n = 0; i == TAG && n < 4; n++)
				if (!strcmp(c->type, "Skip") &&
				    !strcmp(c->name, tagname_cols[n + 1].name))
					x->name_col[n] = k;
		}
		fprintf(f, " %s", t->from ? t->from : "");
		if (fclose(f) | fclose(g) ||
		    asprintf(&x->insert[i], "INSERT INTO %s (%s) FORMAT "
			     "RowBinary", t->name, cols) < 0) {
			free(sel);
			free(cols);
			x->insert[i] = NULL;
			return nomem(x);
		}
		free(cols);
		if (t->from &&
		    sqlite3_prepare_v2(x->db->h, sel, -1, &x->sel[i], NULL)) {
			free(sel);
			return mdb_db_error(x->db, x->e, "cannot read the "
					    "database to export");
		}
		free(sel);
	}
	return 0;
}

/* Send table @i's rows, if any. */
/* The sender: table @i's rows of the job, if any (counted under mu). */
static int send_table(struct export *x, size_t i)
{
	struct buf *b = &x->job[i];
	int ret;

	if (!b->n)
		return 0;
	ret = mdb_ch_insert(x->ch, x->insert[i], b->p, b->n, &x->sent_e);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&x->mu);
	x->res->batches++;
	if (i)
		x->res->rows += b->rows;
	x->res->tables[i] += b->rows;
	pthread_mutex_unlock(&x->mu);
	b->n = 0;
	b->rows = 0;
	return 0;
}

/* The sender thread: each job's rows first, then the rows of the sources
 * they complete. */
static void *sender(void *arg)
{
	struct export *x = arg;

	pthread_mutex_lock(&x->mu);
	for (;;) {
		int ret = 0;

		while (!x->busy && !x->quit)
			pthread_cond_wait(&x->cv, &x->mu);
		if (!x->busy)
			break;
		pthread_mutex_unlock(&x->mu);
		for (size_t i = 1; i < NTABLES && ret == 0; i++)
			ret = send_table(x, i);
		if (ret == 0)
			ret = send_table(x, 0);
		pthread_mutex_lock(&x->mu);
		if (ret == 0)
			x->res->sources += x->job_sources;
		else
			x->sent_ret = ret;
		x->busy = 0;
		pthread_cond_broadcast(&x->cv);
	}
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* Wait until the sender is idle: its error, if it had one. */
static int wait_sent(struct export *x)
{
	int ret;

	pthread_mutex_lock(&x->mu);
	while (x->busy)
		pthread_cond_wait(&x->cv, &x->mu);
	ret = x->sent_ret;
	if (ret < 0)
		*x->e = x->sent_e;
	pthread_mutex_unlock(&x->mu);
	return ret;
}

/* Hand every buffered row to the sender, once it has sent the last. */
static int flush(struct export *x)
{
	int ret = wait_sent(x);

	if (ret < 0)
		return ret;
	if (x->o->progress && x->res->batches)
		x->o->progress(x->o->progress_ctx, x->res->sources,
			       x->res->rows);
	for (size_t i = 0; i < NTABLES; i++) {
		struct buf t = x->job[i];

		x->job[i] = x->buf[i];
		x->buf[i] = t;
	}
	pthread_mutex_lock(&x->mu);
	x->job_sources = x->pending;
	x->pending = 0;
	x->busy = 1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return 0;
}

/* The names of the tag of row @st, key @key, into memdb_tagname's
 * buffer, when the key is new. */
static int add_name(struct export *x, sqlite3_stmt *st, uint64_t key,
		    size_t row)
{
	struct buf *b = &x->buf[TAGNAME];
	int added = 0;

	/* row @row of the last source had this key: known (a host's
	 * snapshots list their tags in one order, so most rows stop here,
	 * before a lookup in the map) */
	if (row < x->nlast && x->last[row] == key)
		return 0;
	if (row >= x->cap_last) {
		size_t c = x->cap_last ? 2 * x->cap_last : 4096;
		uint64_t *l = realloc(x->last, c * sizeof(*l));

		if (!l)
			return nomem(x);
		x->last = l;
		x->cap_last = c;
	}
	x->last[row] = key;
	if (row >= x->nlast)
		x->nlast = row + 1;
	if (!mdb_u64map_put(&x->names, key, 1, &added))
		return nomem(x);
	if (!added)
		return 0;
	if (room(b, 8))
		return nomem(x);
	put_le(b, key, 8);
	for (int n = 0; n < 4; n++)
		if (put(b, st, x->name_col[n],
			kind_of(tagname_cols[n + 1].type), 0))
			return nomem(x);
	b->rows++;
	return 0;
}

/* Table @i's rows of source @id into its buffer. */
static int add_rows(struct export *x, size_t i, int64_t id,
		    const char *label, uint64_t sid, int64_t now)
{
	sqlite3_stmt *st = x->sel[i];
	struct buf *b = &x->buf[i];
	const unsigned char *kind = x->kind[i];
	size_t row = 0;
	int rc, ret = 0;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)sid);
	sqlite3_bind_int64(st, 4, now);
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t key = i == TAG ? tag_key(st, x->name_col) : 0;

		for (int k = 0; k < x->ncols[i]; k++)
			if (put(b, st, k, kind[k], key)) {
				ret = nomem(x);
				break;
			}
		b->rows++;
		if (ret == 0 && i == TAG)
			ret = add_name(x, st, key, row);
		row++;
		/* a batch full: send the rows so far (the source's own
		 * row waits for the last of them) */
		if (ret == 0 && i && b->n >= x->batch)
			ret = flush(x);
	}
	sqlite3_reset(st);
	if (ret == 0 && rc != SQLITE_DONE)
		ret = mdb_db_error(x->db, x->e, "cannot read the database "
				   "to export");
	return ret;
}

static int export_source(struct export *x, int64_t id, const char *label,
			 int64_t now)
{
	uint64_t sid;
	size_t total = 0;
	int ret = 0;

	/* the export's own key: random, so two exports never mix rows */
	if (getrandom(&sid, sizeof(sid), 0) != (ssize_t)sizeof(sid))
		sid = (uint64_t)now * 0x9e3779b97f4a7c15u ^ (uint64_t)id ^
		      (uint64_t)clock();
	for (size_t i = 1; i < NTABLES && ret == 0; i++)
		if (tables[i].from && (!tables[i].opt || x->o->allocations))
			ret = add_rows(x, i, id, label, sid, now);
	if (ret == 0)
		ret = add_rows(x, 0, id, label, sid, now);
	if (ret < 0)
		return ret;
	x->pending++;
	for (size_t i = 0; i < NTABLES; i++)
		total += x->buf[i].n;
	return total >= x->batch ? flush(x) : 0;
}

/* The hashes among @hashes (@n of them) memdb_source holds, as the
 * response text, one a line. */
static int present(struct export *x, char **hashes, size_t n, char **out)
{
	char *sql = NULL;
	size_t len;
	FILE *f = open_memstream(&sql, &len);
	int ret;

	if (!f)
		return nomem(x);
	fputs("SELECT hash FROM memdb_source WHERE hash IN (", f);
	for (size_t i = 0; i < n; i++) {
		char *q = mdb_ch_quote(hashes[i]);

		fprintf(f, "%s%s", i ? ", " : "", q ? q : "''");
		free(q);
	}
	fputs(") GROUP BY hash FORMAT TabSeparated", f);
	if (fclose(f)) {
		free(sql);
		return nomem(x);
	}
	ret = mdb_ch_query(x->ch, sql, out, NULL, x->e);
	free(sql);
	return ret;
}

/* Create the tables when memdb_source is missing: 1 made, 0 there. */
static int ensure_tables(struct export *x)
{
	char *out = NULL, *ddl, *p;
	int ret = mdb_ch_query(x->ch, "EXISTS TABLE memdb_source FORMAT "
			       "TabSeparated", &out, NULL, x->e);

	if (ret < 0)
		return ret;
	ret = out[0] == '1';
	free(out);
	if (ret)
		return 0;
	ddl = mdb_ch_ddl(NULL);
	if (!ddl)
		return nomem(x);
	for (p = ddl; *p && ret >= 0;) {
		char *end = strstr(p, ";\n");

		*end = '\0';
		ret = mdb_ch_query(x->ch, p, NULL, NULL, x->e);
		p = end + 2;
	}
	free(ddl);
	return ret < 0 ? ret : 1;
}

/* The tag keys memdb_tagname holds: their names are not sent again. */
static int known_names(struct export *x)
{
	char *out = NULL, *save = NULL;
	int ret = mdb_ch_query(x->ch, "SELECT DISTINCT tag_key FROM "
			       "memdb_tagname FORMAT TabSeparated", &out,
			       NULL, x->e);

	for (char *l = out; ret == 0 && (l = strtok_r(l, "\n", &save));
	     l = NULL)
		if (!mdb_u64map_put(&x->names, strtoull(l, NULL, 10), 1, NULL))
			ret = nomem(x);
	free(out);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Insert @h into the sorted array *@there of *@n hashes. */
static int add_there(struct export *x, char ***there, size_t *n,
		     const char *h)
{
	char **t = realloc(*there, (*n + 1) * sizeof(**there)), *c;
	size_t lo = 0, hi = *n;

	if (t)
		*there = t;
	if (!t || !(c = strdup(h)))
		return nomem(x);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(t[mid], h) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(t + lo + 1, t + lo, (*n - lo) * sizeof(*t));
	t[lo] = c;
	(*n)++;
	return 0;
}

#define HASHES_PER_QUERY 500

int mdb_export(struct mdb_db *db, struct mdb_ch *ch,
	       const struct mdb_export_opts *o, struct mdb_export_result *res,
	       struct mdb_error *e)
{
	struct export x = { .db = db, .ch = ch, .o = o, .res = res, .e = e };
	sqlite3_stmt *list = NULL;
	char **hash = NULL, **label = NULL, **there = NULL;
	int64_t *id = NULL, now = (int64_t)time(NULL);
	size_t n = 0, cap = 0, nthere = 0;
	int ret, rc, in_txn = 0;

	memset(res, 0, sizeof(*res));
	x.batch = o->batch_bytes ? o->batch_bytes : 32u << 20;
	mdb_u64map_init(&x.names);
	pthread_mutex_init(&x.mu, NULL);
	pthread_cond_init(&x.cv, NULL);
	ret = ensure_tables(&x);
	if (ret < 0)
		goto done;
	res->created = ret;
	ret = known_names(&x);
	if (ret < 0)
		goto done;
	if (pthread_create(&x.thread, NULL, sender, &x)) {
		ret = nomem(&x);
		goto done;
	}
	x.started = 1;
	/* one read transaction: the database as of one moment */
	ret = mdb_db_exec(db, "BEGIN", e);
	if (ret < 0)
		goto done;
	in_txn = 1;
	ret = prepare(&x);
	if (ret == 0 &&
	    sqlite3_prepare_v2(db->h, "SELECT id, hash, coalesce(label, '') "
			       "FROM source ORDER BY id", -1, &list, NULL))
		ret = mdb_db_error(db, e, "cannot read the sources");
	while (ret == 0 && (rc = sqlite3_step(list)) == SQLITE_ROW) {
		if (n == cap) {
			size_t c = cap ? 2 * cap : 256;
			void *a = realloc(hash, c * sizeof(*hash)),
			     *b = a ? realloc(label, c * sizeof(*label)) : NULL,
			     *d = b ? realloc(id, c * sizeof(*id)) : NULL;

			if (a)
				hash = a;
			if (b)
				label = b;
			if (!d) {
				ret = nomem(&x);
				break;
			}
			id = d;
			cap = c;
		}
		id[n] = sqlite3_column_int64(list, 0);
		hash[n] = strdup((const char *)sqlite3_column_text(list, 1));
		label[n] = strdup((const char *)sqlite3_column_text(list, 2));
		n++;
		if (!hash[n - 1] || !label[n - 1])
			ret = nomem(&x);
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = mdb_db_error(db, e, "cannot read the sources");
	/* the hashes the server holds already, sorted for lookups */
	for (size_t at = 0; ret == 0 && at < n; at += HASHES_PER_QUERY) {
		size_t k = n - at < HASHES_PER_QUERY ? n - at :
			   HASHES_PER_QUERY;
		char *out = NULL;

		ret = present(&x, hash + at, k, &out);
		for (char *l = out, *save = NULL; ret == 0 &&
		     (l = strtok_r(l, "\n", &save)); l = NULL) {
			char **t = realloc(there, (nthere + 1) *
					   sizeof(*there));

			if (!t || !(t[nthere] = strdup(l))) {
				there = t ? t : there;
				ret = nomem(&x);
				break;
			}
			there = t;
			nthere++;
		}
		free(out);
	}
	if (nthere)
		qsort(there, nthere, sizeof(*there), cmp_str);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		char **at = nthere ? bsearch(&hash[i], there, nthere,
					     sizeof(*there), cmp_str) : NULL;

		if (at) {
			res->skipped++;
			continue;
		}
		ret = export_source(&x, id[i], label[i], now);
		/* the same content twice in this database: sent once */
		if (ret == 0)
			ret = add_there(&x, &there, &nthere, hash[i]);
	}
	if (ret == 0)
		ret = flush(&x);
	{
		int sent = wait_sent(&x);

		if (ret == 0)
			ret = sent;
	}
done:
	sqlite3_finalize(list);
	for (size_t i = 0; i < NTABLES; i++) {
		sqlite3_finalize(x.sel[i]);
		free(x.insert[i]);
		free(x.buf[i].p);
	}
	if (in_txn)
		mdb_db_exec(db, "ROLLBACK", NULL);
	if (x.started) {
		pthread_mutex_lock(&x.mu);
		while (x.busy)
			pthread_cond_wait(&x.cv, &x.mu);
		x.quit = 1;
		pthread_cond_broadcast(&x.cv);
		pthread_mutex_unlock(&x.mu);
		pthread_join(x.thread, NULL);
	}
	for (size_t i = 0; i < NTABLES; i++)
		free(x.job[i].p);
	pthread_cond_destroy(&x.cv);
	pthread_mutex_destroy(&x.mu);
	mdb_u64map_release(&x.names);
	free(x.last);
	for (size_t i = 0; i < n; i++) {
		free(hash[i]);
		free(label[i]);
	}
	for (size_t i = 0; i < nthere; i++)
		free(there[i]);
	free(there);
	free(hash);
	free(label);
	free(id);
	return ret;
}
