// SPDX-License-Identifier: MIT
/*
 * `vmstat -z --libxo json` and `vmstat -m --libxo json` (or both in one
 * document), docs/formats.md §5.6:
 *
 *   {"__version": "1",
 *    "memory-zone-statistics": {"zone": [{"name": "UMA Kegs", "size": 384,
 *        "limit": 0, "used": 174, "free": 0, "requests": 174, "fail": 0,
 *        "sleep": 0, "xdomain": 0}, ...]},
 *    "malloc-statistics": {"memory": [{"type": "devbuf", "in-use": 100,
 *        "memory-use": 50, "high-use": "-", "requests": 2000,
 *        "size": [16, 32]}, ...]}}
 *
 * Newer systems wrap the statistics in {"__version": "2", "vmstat": {...}}.
 * memory-use is KiB rounded up, as in the text; a "memory" member is
 * bytes.  Parsed with jansson; any other shape is refused with the path
 * of the member that did not fit.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../snapshot.h"
#include "../text.h"

struct json_col {
	const char *key;
	enum mdb_zone_col col;
	int kib; /* value in KiB: bytes = v x 1024, approximate */
};

static const struct json_col zone_cols[] = {
	{ "size", MDB_ZC_SIZE, 0 },         { "limit", MDB_ZC_LIMIT, 0 },
	{ "used", MDB_ZC_USED, 0 },         { "free", MDB_ZC_FREE, 0 },
	{ "requests", MDB_ZC_REQUESTS, 0 }, { "fail", MDB_ZC_FAILS, 0 },
	{ "sleep", MDB_ZC_SLEEPS, 0 },      { "xdomain", MDB_ZC_XDOMAIN, 0 },
};

static const struct json_col malloc_cols[] = {
	{ "in-use", MDB_ZC_USED, 0 },
	{ "requests", MDB_ZC_REQUESTS, 0 },
	{ "memory-use", MDB_ZC_BYTES, 1 },
	{ "memory", MDB_ZC_BYTES, 0 },
};

struct list_kind {
	const char *container, *list, *name_key;
	enum mdb_zone_kind kind;
	const struct json_col *cols;
	size_t ncols;
};

static const struct list_kind lists[] = {
	{ "memory-zone-statistics", "zone", "name", MDB_ZONE_UMA, zone_cols,
	  sizeof(zone_cols) / sizeof(zone_cols[0]) },
	{ "malloc-statistics", "memory", "type", MDB_ZONE_MALLOC, malloc_cols,
	  sizeof(malloc_cols) / sizeof(malloc_cols[0]) },
};

int mdb_vmstat_json_probe(const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' ||
			   *p == '\n'))
		p++;
	return p < end && *p == '{';
}

/* The member at @path did not have the expected type or value. */
static int shape_error(struct mdb_error *e, const char *name,
		       const char *path, const char *expected)
{
	mdb_error_set(e, MDB_E_FORMAT, name, -1, -1, "at=%s expected=%s",
		      path, expected);
	mdb_error_msg(e, "unexpected vmstat json");
	return -MDB_E_FORMAT;
}

/* A count: a non-negative JSON integer, or a string holding a number. */
static int json_count(json_t *v, int64_t *out, int *approx)
{
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return *out >= 0 ? 0 : -1;
	}
	if (json_is_string(v)) {
		struct mdb_str s = { json_string_value(v),
				     json_string_length(v) };

		return mdb_parse_human(s, out, approx) == 0 && *out >= 0 ?
			       0 : -1;
	}
	return -1;
}

/* "size": [16, 32] -> "16,32" in @buf. */
static int size_list(json_t *a, char *buf, size_t len, struct mdb_str *out)
{
	size_t n = 0, i;
	json_t *v;

	json_array_foreach(a, i, v) {
		int r;

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return -1;
		r = snprintf(buf + n, len - n, "%s%lld", i ? "," : "",
			     (long long)json_integer_value(v));
		if (r < 0 || (size_t)r >= len - n)
			return -1;
		n += (size_t)r;
	}
	*out = mdb_str_make(buf, n);
	return 0;
}

static int decode_list(json_t *top, const struct list_kind *lk,
		       const char *name, const struct mdb_snap_sink *sink,
		       struct mdb_snap_info *info, struct mdb_error *e)
{
	json_t *cont = json_object_get(top, lk->container), *arr, *item;
	char path[128], sizes[1024];
	size_t i;

	if (!json_is_object(cont))
		return shape_error(e, name, lk->container, "object");
	arr = json_object_get(cont, lk->list);
	snprintf(path, sizeof(path), "%s.%s", lk->container, lk->list);
	if (!json_is_array(arr))
		return shape_error(e, name, path, "array");
	json_array_foreach(arr, i, item) {
		json_t *nm = json_object_get(item, lk->name_key), *sz;
		struct mdb_zone z;
		int ret;

		snprintf(path, sizeof(path), "%s.%s[%zu]", lk->container,
			 lk->list, i);
		if (!json_is_object(item))
			return shape_error(e, name, path, "object");
		snprintf(path, sizeof(path), "%s.%s[%zu].%s", lk->container,
			 lk->list, i, lk->name_key);
		if (!json_is_string(nm))
			return shape_error(e, name, path, "string");
		mdb_zone_init(&z, lk->kind);
		z.name = mdb_str_make(json_string_value(nm),
				      json_string_length(nm));
		for (size_t c = 0; c < lk->ncols; c++) {
			json_t *v = json_object_get(item, lk->cols[c].key);
			int approx = 0;
			int64_t n;

			if (!v)
				continue;
			snprintf(path, sizeof(path), "%s.%s[%zu].%s",
				 lk->container, lk->list, i, lk->cols[c].key);
			if (json_count(v, &n, &approx) < 0 ||
			    (lk->cols[c].kib &&
			     __builtin_mul_overflow(n, 1024, &n)))
				return shape_error(e, name, path, "count");
			z.v[lk->cols[c].col] = n;
			z.approx |= (uint8_t)(approx | lk->cols[c].kib);
		}
		sz = json_object_get(item, "size");
		if (lk->kind == MDB_ZONE_MALLOC && sz) {
			snprintf(path, sizeof(path), "%s.%s[%zu].size",
				 lk->container, lk->list, i);
			if (!json_is_array(sz) ||
			    size_list(sz, sizes, sizeof(sizes), &z.sizes) < 0)
				return shape_error(e, name, path,
						   "array of sizes");
		}
		if (lk->kind == MDB_ZONE_UMA &&
		    z.v[MDB_ZC_USED] != MDB_NA && z.v[MDB_ZC_SIZE] != MDB_NA &&
		    __builtin_mul_overflow(z.v[MDB_ZC_USED], z.v[MDB_ZC_SIZE],
					   &z.v[MDB_ZC_BYTES]))
			z.v[MDB_ZC_BYTES] = MDB_NA;
		info->records++;
		info->zones++;
		info->approx += z.approx;
		ret = sink->zone(sink->ctx, &z);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* "'a','b',..." of the top-level keys, for the shape error. */
static void key_list(json_t *o, char *buf, size_t len)
{
	const char *k;
	size_t n = 0;
	json_t *v;

	buf[0] = '\0';
	json_object_foreach(o, k, v) {
		int r = snprintf(buf + n, len - n, "%s'%s'", n ? "," : "", k);

		if (r < 0 || (size_t)r >= len - n) {
			snprintf(buf + n, len - n, ",...");
			return;
		}
		n += (size_t)r;
	}
}

int mdb_vmstat_json_decode(const void *buf, size_t len, const char *name,
			   const struct mdb_snap_sink *sink,
			   struct mdb_snap_info *info, struct mdb_error *e)
{
	json_error_t jerr;
	json_t *root, *top, *ver;
	int ret = 0, found = 0;

	memset(info, 0, sizeof(*info));
	if (!len) {
		mdb_error_set(e, MDB_E_EMPTY, name, 0, -1, NULL);
		mdb_error_msg(e, "empty json document");
		return -MDB_E_EMPTY;
	}
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		mdb_error_set(e, MDB_E_CORRUPT, name, -1, jerr.line,
			      "column=%d %s", jerr.column, jerr.text);
		mdb_error_msg(e, "malformed json");
		return -MDB_E_CORRUPT;
	}
	top = root;
	if (json_is_object(root) &&
	    json_is_object(json_object_get(root, "vmstat")))
		top = json_object_get(root, "vmstat");
	ver = json_object_get(root, "__version");
	if (json_is_string(ver) &&
	    json_string_length(ver) < sizeof(info->version))
		strcpy(info->version, json_string_value(ver));
	for (size_t i = 0; ret >= 0 && json_is_object(top) &&
			   i < sizeof(lists) / sizeof(lists[0]); i++) {
		if (!json_object_get(top, lists[i].container))
			continue;
		found = 1;
		ret = decode_list(top, &lists[i], name, sink, info, e);
	}
	if (ret >= 0 && !found) {
		char keys[160];

		if (json_is_object(top))
			key_list(top, keys, sizeof(keys));
		else
			snprintf(keys, sizeof(keys), "(not an object)");
		mdb_error_set(e, MDB_E_FORMAT, name, 0, -1, "keys=%s", keys);
		mdb_error_msg(e, "not vmstat --libxo json output");
		mdb_error_hint(e, "memdb reads the json of 'vmstat -z' and "
				  "'vmstat -m' (memory-zone-statistics, "
				  "malloc-statistics)");
		ret = -MDB_E_FORMAT;
	}
	if (ret >= 0 && !info->zones) {
		mdb_error_set(e, MDB_E_EMPTY, name, -1, -1, NULL);
		mdb_error_msg(e, "no vmstat rows");
		ret = -MDB_E_EMPTY;
	}
	json_decref(root);
	return ret;
}
