// SPDX-License-Identifier: MIT
/*
 * The alloc and bad_free tables as SQL sees them: virtual tables (modules
 * memdb_alloc and memdb_bad_free) over alloc_blk and bad_free_blk, where
 * a source's allocation lifetimes and its bad frees are kept as blocks
 * of packed columns (db/packcol.h, db/schema-11.sql, db/schema-13.sql).
 * Row id k of block b is id b.id - rows + 1 + k: a block's id is the
 * last id it holds, so a source's ids stay one contiguous range
 * (source.alloc_lo to alloc_hi, bad_lo to bad_hi) and the largest id is
 * max(id).
 *
 * Constraints on id (=, <, <=, >, >=) and source_id (=) with integer
 * values choose the blocks read; comparisons and IS NULL on the other
 * columns are checked in C, row by row, and pass over whole blocks by
 * their kinds and zone maps (times, positions).  SQLite still checks
 * every constraint on the rows it gets.
 * Rows come in id order.  The tables are read-only: ingest writes blocks
 * (db/writer.c), merge and delete move them by id range like any other
 * ranged table (db/db.c's mdb_source_tables).
 *
 * The aggregates memdb_alloc_pack(base, id, columns...) and
 * memdb_bad_free_pack() pack rows into a block: the migrations of a
 * database whose alloc or bad_free was a table of rows use them
 * (db/schema-11.sql, db/schema-13.sql).
 *
 * This file is also compiled into the loadable SQLite extension
 * (db/ext/memdb.c), so that sqlite3 and Python read a memdb database.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "allocvt.h"
#include "packcol.h"

/* A column: the packed column it is, or the block's id (ROW_ID) or
 * source (ROW_SOURCE). */
enum { ROW_ID = -1, ROW_SOURCE = -2 };

struct col {
	const char *name;
	int pc;
};

/* alloc's columns, in its order */
static const struct col alloc_cols[] = {
	{ "id", ROW_ID },
	{ "source_id", ROW_SOURCE },
	{ "seq", MDB_PC_SEQ },
	{ "ts", MDB_PC_TS },
	{ "cpu", MDB_PC_CPU },
	{ "type", MDB_PC_TYPE },
	{ "site_id", MDB_PC_SITE },
	{ "ptr", MDB_PC_PTR },
	{ "bytes_req", MDB_PC_REQ },
	{ "bytes_alloc", MDB_PC_ALLOC },
	{ "gfp", MDB_PC_GFP },
	{ "gfp_id", MDB_PC_GFP_ID },
	{ "node", MDB_PC_NODE },
	{ "cache_id", MDB_PC_CACHE },
	{ "state", MDB_PC_STATE },
	{ "end_seq", MDB_PC_END_SEQ },
	{ "end_ts", MDB_PC_END_TS },
	{ "free_cpu", MDB_PC_FREE_CPU },
	{ "free_site_id", MDB_PC_FREE_SITE },
	{ "free_type", MDB_PC_FREE_TYPE },
	{ "pid", MDB_PC_PID },
	{ "comm_id", MDB_PC_COMM },
	{ "migratetype", MDB_PC_MIGRATETYPE },
	{ "stack_id", MDB_PC_STACK },
};

/* bad_free's columns after the first eight, which are alloc's
 * (db/packcol.c's mdb_pc_add_free()): the class in state's column, the
 * earlier free in end_seq's */
static const struct col bad_tail[] = {
	{ "cache_id", MDB_PC_CACHE },
	{ "class", MDB_PC_STATE },
	{ "prev_seq", MDB_PC_END_SEQ },
	{ "pid", MDB_PC_PID },
	{ "comm_id", MDB_PC_COMM },
	{ "bytes", MDB_PC_ALLOC },
};

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MAXCOLS NCOLS(alloc_cols)

/*
 * A table of blocks as SQL sees it: the module, the blocks' table, the
 * source's id range of them, the packing aggregate; its columns are the
 * first @nhead of alloc's, then @tail's.
 */
struct kind {
	const char *module, *blocks, *lo, *hi, *pack;
	int nhead, ncols;
	const struct col *tail;
};

static const struct kind tables[] = {
	{ "memdb_alloc", "alloc_blk", "alloc_lo", "alloc_hi",
	  "memdb_alloc_pack", MAXCOLS, MAXCOLS, NULL },
	{ "memdb_bad_free", "bad_free_blk", "bad_lo", "bad_hi",
	  "memdb_bad_free_pack", 8, 8 + NCOLS(bad_tail), bad_tail },
};

/* Column @i of @k's table. */
static const struct col *col_of(const struct kind *k, int i)
{
	return i < k->nhead ? &alloc_cols[i] : &k->tail[i - k->nhead];
}

struct vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	char *schema;           /* the database the blocks are in */
	const struct kind *k;
};

struct cursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *blocks;   /* the blocks from an id on */
	sqlite3_stmt *range;    /* a source's range of ids */
	int64_t hi;             /* the last id wanted */
	int64_t source;         /* the source wanted, or -1 */
	int64_t id0;            /* the id of the block's row 0 */
	int64_t blk_source;
	size_t row;             /* the current row of the block */
	int eof;
	struct mdb_pc_block *b;
	uint32_t cols;          /* the packed columns read (idxNum) */
	/* the other columns' constraints the rows are held to here (SQLite
	 * checks them again): packed column, value, comparison */
	int nkeep;
	int keep_pc[MAXCOLS];
	int64_t keep_v[MAXCOLS];
	char keep_op[MAXCOLS];  /* op_letter()'s */
};

void *mdb_vtab_new(sqlite3 *db, const char *decl, size_t size, int *rc)
{
	void *v;

	*rc = sqlite3_declare_vtab(db, decl);
	if (*rc != SQLITE_OK)
		return NULL;
	v = sqlite3_malloc64(size);
	if (!v) {
		*rc = SQLITE_NOMEM;
		return NULL;
	}
	memset(v, 0, size);
	return v;
}

static int vt_connect(sqlite3 *db, void *aux, int argc,
		      const char *const *argv, sqlite3_vtab **out,
		      char **err)
{
	const struct kind *k = aux;
	struct vtab *v;
	sqlite3_str *s = sqlite3_str_new(db);
	char *sql;
	int rc;

	(void)argc;
	(void)err;
	for (int i = 0; i < k->ncols; i++)
		sqlite3_str_appendf(s, "%s%s INTEGER", i ? ", " : "",
				    col_of(k, i)->name);
	sql = sqlite3_str_finish(s);
	if (!sql)
		return SQLITE_NOMEM;
	s = sqlite3_str_new(db);
	sqlite3_str_appendf(s, "CREATE TABLE x(%s)", sql);
	sqlite3_free(sql);
	sql = sqlite3_str_finish(s);
	if (!sql)
		return SQLITE_NOMEM;
	v = mdb_vtab_new(db, sql, sizeof(*v), &rc);
	sqlite3_free(sql);
	if (!v)
		return rc;
	v->db = db;
	v->k = k;
	v->schema = sqlite3_mprintf("%s", argv[1]);
	if (!v->schema) {
		sqlite3_free(v);
		return SQLITE_NOMEM;
	}
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &v->base;
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *vt)
{
	struct vtab *v = (struct vtab *)vt;

	sqlite3_free(v->schema);
	sqlite3_free(v);
	return SQLITE_OK;
}

/* The letter of comparison @op: '=', 'g' >=, 'G' >, 'l' <=, 'L' <,
 * 'n' IS NULL; 0 for another. */
static char op_letter(unsigned char op)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ: return '=';
	case SQLITE_INDEX_CONSTRAINT_GE: return 'g';
	case SQLITE_INDEX_CONSTRAINT_GT: return 'G';
	case SQLITE_INDEX_CONSTRAINT_LE: return 'l';
	case SQLITE_INDEX_CONSTRAINT_LT: return 'L';
	case SQLITE_INDEX_CONSTRAINT_ISNULL: return 'n';
	default: return 0;
	}
}

/*
 * The plan: idxStr holds for each constraint 's' source_id =, or the
 * letter of a comparison of id (op_letter(), not 'n'), or 0x80 | column
 * then that letter for another column's (rows without such a value are
 * passed over in C, not handed to SQLite: leaks' state = 0 and
 * seq <= N, pages' type = 2).  All but IS NULL take an argument.
 */
static int vt_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const struct kind *k = ((struct vtab *)vt)->k;
	char ops[64];
	int n = 0, nargs = 0, eq = 0, range = 0, source = 0;

	for (int i = 0; i < info->nConstraint && n < 62; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		char op = c->usable ? op_letter(c->op) : 0;

		if (!op)
			continue;
		if (c->iColumn == 1 && op == '=') {
			ops[n++] = 's';
			source = 1;
		} else if ((c->iColumn == 0 || c->iColumn == -1) && op != 'n') {
			ops[n++] = op;
			eq |= op == '=';
			range++;
		} else if (c->iColumn > 1 && c->iColumn < k->ncols) {
			ops[n++] = (char)(0x80 | c->iColumn);
			ops[n++] = op;
		} else {
			continue;
		}
		if (op != 'n')
			info->aConstraintUsage[i].argvIndex = ++nargs;
	}
	ops[n] = 0;
	/* idxNum: the packed columns the statement reads (the others are
	 * not unpacked) */
	for (int i = 0; i < k->ncols; i++) {
		int pc = col_of(k, i)->pc;

		if (pc >= 0 && (info->colUsed >> (i < 63 ? i : 63) & 1))
			info->idxNum |= (int)(1u << pc);
	}
	info->idxStr = sqlite3_mprintf("%s", ops);
	if (!info->idxStr)
		return SQLITE_NOMEM;
	info->needToFreeIdxStr = 1;
	if (eq) {
		info->estimatedCost = 10;
		info->estimatedRows = 1;
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	} else if (range >= 2) {
		info->estimatedCost = 1e4;
		info->estimatedRows = 1e4;
	} else if (source || range) {
		info->estimatedCost = 1e5;
		info->estimatedRows = 1e5;
	} else {
		info->estimatedCost = 1e7;
		info->estimatedRows = 1e7;
	}
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn <= 0 &&
	    !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

/* Column @name of the blocks table if it has it, else NULL. */
static const char *opt_col(struct vtab *v, const char *name)
{
	return sqlite3_table_column_metadata(v->db, v->schema, v->k->blocks,
					     name, NULL, NULL, NULL, NULL,
					     NULL) == SQLITE_OK ? name : "NULL";
}

static int vt_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct vtab *v = (struct vtab *)vt;
	struct cursor *c = sqlite3_malloc(sizeof(*c));
	char *sql;
	int rc;

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->b = sqlite3_malloc(sizeof(*c->b));
	if (c->b)
		mdb_pc_block_init(c->b);
	/* a database a migration is still bringing up to date may not
	 * have the later columns yet: NULL, read as unknown */
	sql = sqlite3_mprintf("SELECT id, source_id, data, %s, %s, %s, %s, %s "
			      "FROM \"%w\".\"%w\" WHERE id >= ?1 ORDER BY id",
			      opt_col(v, "kinds"), opt_col(v, "min_ts"),
			      opt_col(v, "max_ts"), opt_col(v, "min_seq"),
			      opt_col(v, "max_seq"), v->schema, v->k->blocks);
	rc = c->b && sql ? SQLITE_OK : SQLITE_NOMEM;
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(v->db, sql, -1, &c->blocks, NULL);
	sqlite3_free(sql);
	if (rc == SQLITE_OK) {
		sql = sqlite3_mprintf("SELECT \"%w\", \"%w\" FROM "
				      "\"%w\".source WHERE id = ?1", v->k->lo,
				      v->k->hi, v->schema);
		rc = sql ? sqlite3_prepare_v2(v->db, sql, -1, &c->range, NULL) :
			   SQLITE_NOMEM;
		sqlite3_free(sql);
	}
	if (rc != SQLITE_OK) {
		if (rc != SQLITE_NOMEM) {
			sqlite3_free(vt->zErrMsg);
			vt->zErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(v->db));
		}
		sqlite3_finalize(c->blocks);
		sqlite3_finalize(c->range);
		mdb_pc_block_done(c->b);
		sqlite3_free(c->b);
		sqlite3_free(c);
		return rc;
	}
	*out = &c->base;
	return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;

	sqlite3_finalize(c->blocks);
	sqlite3_finalize(c->range);
	mdb_pc_block_done(c->b);
	sqlite3_free(c->b);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Can no row whose values lie from @lo to @hi (a block's zone map of
 * times or positions) pass constraint @op @x? */
static int zone_fails(char op, int64_t x, int64_t lo, int64_t hi)
{
	switch (op) {
	case '=': return x < lo || x > hi;
	case 'l': return lo > x;
	case 'L': return lo >= x;
	case 'g': return hi < x;
	case 'G': return hi <= x;
	default: return 0;              /* IS NULL: rows without one */
	}
}

/* Does block @st's zone map in columns @col and @col + 1 (lowest and
 * highest) rule out constraint @k of @c? */
static int zone_lacks(const struct cursor *c, int k, sqlite3_stmt *st,
		      int col)
{
	return sqlite3_column_type(st, col) == SQLITE_INTEGER &&
	       sqlite3_column_type(st, col + 1) == SQLITE_INTEGER &&
	       zone_fails(c->keep_op[k], c->keep_v[k],
			  sqlite3_column_int64(st, col),
			  sqlite3_column_int64(st, col + 1));
}

/*
 * Can block @st's row be passed over unread: the block lies before the
 * range's end, and its kinds (db/schema-12.sql) lack a state or type a
 * constraint asks for, or a zone map (the range of its rows' times that
 * are known, schema 12, or of their positions, schema 14) lies outside
 * a constraint on ts or seq?
 */
static int block_lacks(const struct cursor *c, sqlite3_stmt *st)
{
	int kinds_known = sqlite3_column_type(st, 3) == SQLITE_INTEGER;
	int64_t kinds = sqlite3_column_int64(st, 3);

	if (!c->nkeep || sqlite3_column_int64(st, 0) > c->hi)
		return 0;
	for (int k = 0; k < c->nkeep; k++) {
		int64_t v = c->keep_v[k];
		int bit = c->keep_pc[k] == MDB_PC_STATE ? 0 :
			  c->keep_pc[k] == MDB_PC_TYPE ? 8 : -1;

		if (kinds_known && c->keep_op[k] == '=' && bit >= 0 &&
		    v >= 0 && v < 8 && !(kinds >> (bit + v) & 1))
			return 1;
		if ((c->keep_pc[k] == MDB_PC_TS && zone_lacks(c, k, st, 4)) ||
		    (c->keep_pc[k] == MDB_PC_SEQ && zone_lacks(c, k, st, 6)))
			return 1;
	}
	return 0;
}

/* Read the next block of the range into the cursor; eof at its end. */
static int next_block(struct cursor *c)
{
	struct vtab *v = (struct vtab *)c->base.pVtab;
	const void *p;
	const char *why;
	size_t off;
	int64_t last;
	int rc;

	for (;;) {
		rc = sqlite3_step(c->blocks);
		if (rc == SQLITE_DONE) {
			c->eof = 1;
			return SQLITE_OK;
		}
		if (rc != SQLITE_ROW) {
			sqlite3_free(v->base.zErrMsg);
			v->base.zErrMsg = sqlite3_mprintf("%s",
							  sqlite3_errmsg(v->db));
			return rc;
		}
		last = sqlite3_column_int64(c->blocks, 0);
		c->blk_source = sqlite3_column_int64(c->blocks, 1);
		if (block_lacks(c, c->blocks))
			continue;
		p = sqlite3_column_blob(c->blocks, 2);
		if (mdb_pc_unpack_cols(p,
				       (size_t)sqlite3_column_bytes(c->blocks, 2),
				       c->b, c->cols, &why, &off) < 0) {
			sqlite3_free(v->base.zErrMsg);
			v->base.zErrMsg = sqlite3_mprintf(
				"%s row %lld (source %lld): %s at byte %lld",
				v->k->blocks, (long long)last,
				(long long)c->blk_source, why, (long long)off);
			return SQLITE_CORRUPT;
		}
		c->id0 = last - (int64_t)c->b->rows + 1;
		if (c->id0 > c->hi) {
			c->eof = 1;
			return SQLITE_OK;
		}
		if (c->source < 0 || c->blk_source == c->source)
			return SQLITE_OK;
	}
}

/* Does the current row have every value the constraints ask for?  A
 * NULL compares to nothing, as in SQL. */
static int row_kept(const struct cursor *c)
{
	for (int k = 0; k < c->nkeep; k++) {
		int null = c->b->null[c->keep_pc[k]][c->row];
		int64_t v = c->b->v[c->keep_pc[k]][c->row], x = c->keep_v[k];
		int ok;

		switch (c->keep_op[k]) {
		case 'n': ok = null; break;
		case '=': ok = !null && v == x; break;
		case 'g': ok = !null && v >= x; break;
		case 'G': ok = !null && v > x; break;
		case 'l': ok = !null && v <= x; break;
		default: ok = !null && v < x; break;
		}
		if (!ok)
			return 0;
	}
	return 1;
}

/* The next row, kept or not. */
static int step_row(struct cursor *c)
{
	if (++c->row < c->b->rows) {
		if (c->id0 + (int64_t)c->row > c->hi)
			c->eof = 1;
		return SQLITE_OK;
	}
	c->row = 0;
	return next_block(c);
}

/* From the current row on, the first kept one (or eof). */
static int skip_rows(struct cursor *c)
{
	int rc = SQLITE_OK;

	while (rc == SQLITE_OK && !c->eof && !row_kept(c))
		rc = step_row(c);
	return rc;
}

static int vt_next(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	int rc = step_row(c);

	return rc == SQLITE_OK ? skip_rows(c) : rc;
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx, const char *ops,
		     int argc, sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)cur;
	const struct kind *k = ((struct vtab *)cur->pVtab)->k;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	int rc;

	c->cols = (uint32_t)idx;
	c->source = -1;
	c->eof = 0;
	c->nkeep = 0;
	for (int i = 0, j = 0; ops[j]; j++) {
		int col = -1;
		char op = ops[j];
		int64_t x = 0;

		if ((unsigned char)op & 0x80) {
			col = (unsigned char)op & 0x7f;
			op = ops[++j];
			if (!op)
				break;
		}
		if (op != 'n') {
			sqlite3_value *a = i < argc ? argv[i++] : NULL;

			/* a NULL, real or text value narrows nothing: SQLite
			 * checks every constraint again on the rows (omit is
			 * not set) */
			if (!a || sqlite3_value_type(a) != SQLITE_INTEGER)
				continue;
			x = sqlite3_value_int64(a);
		}
		if (col >= 0) {
			if (col < k->ncols && col_of(k, col)->pc >= 0 &&
			    c->nkeep < MAXCOLS) {
				c->keep_pc[c->nkeep] = col_of(k, col)->pc;
				c->cols |= 1u << col_of(k, col)->pc;
				c->keep_op[c->nkeep] = op;
				c->keep_v[c->nkeep++] = x;
			}
			continue;
		}
		switch (op) {
		case 's': c->source = x; break;
		case '=': lo = x > lo ? x : lo; hi = x < hi ? x : hi; break;
		case 'g': lo = x > lo ? x : lo; break;
		case 'G':
			if (x == INT64_MAX) {
				c->eof = 1;
				return SQLITE_OK;
			}
			lo = x + 1 > lo ? x + 1 : lo;
			break;
		case 'l': hi = x < hi ? x : hi; break;
		case 'L':
			if (x == INT64_MIN) {
				c->eof = 1;
				return SQLITE_OK;
			}
			hi = x - 1 < hi ? x - 1 : hi;
			break;
		}
	}
	if (c->source >= 0) {
		/* the source's rows are its range */
		sqlite3_bind_int64(c->range, 1, c->source);
		rc = sqlite3_step(c->range);
		if (rc == SQLITE_ROW &&
		    sqlite3_column_type(c->range, 0) == SQLITE_INTEGER &&
		    sqlite3_column_type(c->range, 1) == SQLITE_INTEGER) {
			int64_t a = sqlite3_column_int64(c->range, 0);
			int64_t b = sqlite3_column_int64(c->range, 1);

			lo = a > lo ? a : lo;
			hi = b < hi ? b : hi;
		} else {
			hi = INT64_MIN;  /* no such source, or no rows */
		}
		sqlite3_reset(c->range);
	}
	c->hi = hi;
	if (lo > hi) {
		c->eof = 1;
		return SQLITE_OK;
	}
	sqlite3_reset(c->blocks);
	sqlite3_bind_int64(c->blocks, 1, lo);
	c->row = 0;
	rc = next_block(c);
	if (rc != SQLITE_OK || c->eof)
		return rc;
	/* into the block, at lo */
	if (lo > c->id0) {
		c->row = (size_t)(lo - c->id0);
		if (c->row >= c->b->rows)   /* a damaged id: no row */
			c->eof = 1;
	}
	if (!c->eof && c->id0 + (int64_t)c->row > c->hi)
		c->eof = 1;
	return skip_rows(c);
}

static int vt_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct cursor *)cur)->eof;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
	struct cursor *c = (struct cursor *)cur;
	int pc = col_of(((struct vtab *)cur->pVtab)->k, i)->pc;

	if (pc == ROW_ID)
		sqlite3_result_int64(ctx, c->id0 + (int64_t)c->row);
	else if (pc == ROW_SOURCE)
		sqlite3_result_int64(ctx, c->blk_source);
	else if (!c->b->null[pc][c->row])
		sqlite3_result_int64(ctx, c->b->v[pc][c->row]);
	return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *id)
{
	struct cursor *c = (struct cursor *)cur;

	*id = c->id0 + (int64_t)c->row;
	return SQLITE_OK;
}

static sqlite3_module blocks_module = {
	.iVersion = 0,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

/*
 * memdb_alloc_pack(base, id, seq, ts, ...): the rows of one block, each
 * at id - base (0 to MDB_PC_ROWS - 1), their columns in alloc's order
 * from seq on.  The rows must be base, base + 1, ... with none missing.
 * memdb_bad_free_pack() the same with bad_free's columns.
 */
struct pack {
	struct mdb_pc_block *b;
	uint8_t have[MDB_PC_ROWS];
	int64_t base;
	int failed;
};

static void pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct kind *k = sqlite3_user_data(ctx);
	struct pack *p = sqlite3_aggregate_context(ctx, sizeof(*p));
	int64_t at;

	if (!p)
		return (void)sqlite3_result_error_nomem(ctx);
	if (p->failed)
		return;
	if (!p->b) {
		p->b = sqlite3_malloc(sizeof(*p->b));
		if (p->b)
			mdb_pc_block_init(p->b);
		if (!p->b) {
			p->failed = 1;
			return (void)sqlite3_result_error_nomem(ctx);
		}
		memset(p->b->null, 1, sizeof(p->b->null));
		memset(p->b->v, 0, sizeof(p->b->v));
		p->b->rows = 0;
		p->base = sqlite3_value_int64(argv[0]);
	}
	at = sqlite3_value_int64(argv[1]) - p->base;
	if (argc != k->ncols || at < 0 || at >= MDB_PC_ROWS || p->have[at] ||
	    sqlite3_value_int64(argv[0]) != p->base) {
		p->failed = 1;
		return;
	}
	p->have[at] = 1;
	for (int i = 2; i < k->ncols; i++) {
		int pc = col_of(k, i)->pc;
		int null = sqlite3_value_type(argv[i]) == SQLITE_NULL;

		p->b->null[pc][at] = (uint8_t)null;
		p->b->v[pc][at] = null ? 0 : sqlite3_value_int64(argv[i]);
	}
}

static void pack_final(sqlite3_context *ctx)
{
	struct pack *p = sqlite3_aggregate_context(ctx, 0);
	size_t rows = 0, n;
	uint8_t *out;

	if (!p || !p->b) {
		sqlite3_result_null(ctx);
		return;
	}
	while (rows < MDB_PC_ROWS && p->have[rows])
		rows++;
	for (size_t r = rows; r < MDB_PC_ROWS && !p->failed; r++)
		p->failed = p->have[r];
	if (p->failed || !rows) {
		char *m = sqlite3_mprintf("%s: the rows of a block are not "
					  "one run of ids",
					  ((const struct kind *)
					   sqlite3_user_data(ctx))->pack);

		sqlite3_result_error(ctx, m ? m : "out of memory", -1);
		sqlite3_free(m);
		goto out;
	}
	p->b->rows = rows;
	out = sqlite3_malloc(MDB_PC_MAX_BYTES);
	if (!out) {
		sqlite3_result_error_nomem(ctx);
		goto out;
	}
	n = mdb_pc_pack(p->b, out);
	sqlite3_result_blob(ctx, out, (int)n, sqlite3_free);
out:
	mdb_pc_block_done(p->b);
	sqlite3_free(p->b);
	p->b = NULL;
}

int mdb_allocvt_register(sqlite3 *db)
{
	int rc = SQLITE_OK;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) &&
			   rc == SQLITE_OK; i++) {
		const struct kind *k = &tables[i];

		rc = sqlite3_create_module(db, k->module, &blocks_module,
					   (void *)k);
		if (rc == SQLITE_OK)
			rc = sqlite3_create_function(db, k->pack, k->ncols,
						     SQLITE_UTF8 |
						     SQLITE_DETERMINISTIC,
						     (void *)k, NULL, pack_step,
						     pack_final);
	}
	return rc;
}
