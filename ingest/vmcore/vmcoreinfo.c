// SPDX-License-Identifier: MIT
/*
 * The VMCOREINFO note: lines of KEY=VALUE the crashed kernel wrote for
 * dump tools (OSRELEASE, BUILD-ID, PAGESIZE, SYMBOL(name)=hex,
 * KERNELOFFSET=hex, CRASHTIME=decimal, ...).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmcore.h"

void mdb_vm_info_release(struct vm_info *vi)
{
	free(vi->text);
	memset(vi, 0, sizeof(*vi));
}

const char *mdb_vm_info_get(const struct vm_info *vi, const char *key,
			    size_t *vlen)
{
	size_t klen = strlen(key);
	const char *p = vi->text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > klen && !memcmp(p, key, klen) && p[klen] == '=') {
			*vlen = n - klen - 1;
			return p + klen + 1;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* @s (@n bytes) as a number in @base, all of it. */
static int parse_num(const char *s, size_t n, int base, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*v = x;
	return 0;
}

int mdb_vm_info_symbol(const struct vm_info *vi, const char *sym,
		       uint64_t *addr)
{
	size_t n = strlen(sym) + 9, vlen;
	char *key = malloc(n);
	const char *v;

	if (!key)
		return -1;
	snprintf(key, n, "SYMBOL(%s)", sym);
	v = mdb_vm_info_get(vi, key, &vlen);
	free(key);
	return v ? parse_num(v, vlen, 16, addr) : -1;
}

int mdb_vm_info_each_symbol(const struct vm_info *vi,
			    int (*fn)(void *ctx, const char *name, size_t len,
				      uint64_t value),
			    void *ctx)
{
	const char *p = vi->text;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *close, *eq;
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		uint64_t v;
		int ret;

		eq = memchr(p, '=', n);
		close = memchr(p, ')', n);
		if (n > 8 && !memcmp(p, "SYMBOL(", 7) && eq && close &&
		    close + 1 == eq &&
		    !parse_num(eq + 1, n - (size_t)(eq + 1 - p), 16, &v)) {
			ret = fn(ctx, p + 7, (size_t)(close - p - 7), v);
			if (ret)
				return ret;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Line number of @v's line in the note, for messages. */
static int64_t line_of(const struct vm_info *vi, const char *v)
{
	int64_t line = 1;

	for (const char *p = vi->text; p < v; p++)
		line += *p == '\n';
	return line;
}

static int info_num(struct vm_info *vi, const char *key, int base,
		    uint64_t *out, const char *name, struct mdb_error *e)
{
	size_t vlen;
	const char *v = mdb_vm_info_get(vi, key, &vlen);

	if (!v)
		return 0;
	if (parse_num(v, vlen, base, out) < 0) {
		mdb_error_set(e, MDB_E_CORRUPT, name, -1, line_of(vi, v),
			      "%s='%.*s'", key, (int)(vlen > 40 ? 40 : vlen),
			      v);
		mdb_error_msg(e, "VMCOREINFO: malformed number");
		return -MDB_E_CORRUPT;
	}
	return 1;
}

static void info_str(struct vm_info *vi, const char *key, char *out,
		     size_t cap)
{
	size_t vlen;
	const char *v = mdb_vm_info_get(vi, key, &vlen);

	if (v)
		snprintf(out, cap, "%.*s", (int)(vlen < cap ? vlen : cap - 1),
			 v);
}

int mdb_vm_info_parse(struct vm_info *vi, const char *buf, size_t len,
		      const char *name, struct mdb_error *e)
{
	uint64_t t = 0;
	int ret;

	memset(vi, 0, sizeof(*vi));
	vi->crash_time = -1;
	vi->text = malloc(len + 1);
	if (!vi->text)
		return mdb_error_set(e, MDB_E_NOMEM, name, -1, -1, NULL);
	memcpy(vi->text, buf, len);
	vi->text[len] = '\0';
	if (strlen(vi->text) != len) {
		ret = mdb_error_set(e, MDB_E_CORRUPT, name, -1,
				    line_of(vi, vi->text + strlen(vi->text)),
				    "nul=%zu", strlen(vi->text));
		mdb_error_msg(e, "VMCOREINFO: a NUL byte inside the note");
		goto fail;
	}
	info_str(vi, "OSRELEASE", vi->release, sizeof(vi->release));
	info_str(vi, "BUILD-ID", vi->build_id, sizeof(vi->build_id));
	if ((ret = info_num(vi, "KERNELOFFSET", 16, &vi->kernel_offset, name,
			    e)) < 0 ||
	    (ret = info_num(vi, "PAGESIZE", 10, &vi->page_size, name, e)) < 0)
		goto fail;
	if ((ret = info_num(vi, "CRASHTIME", 10, &t, name, e)) < 0)
		goto fail;
	if (ret)
		vi->crash_time = (int64_t)(t > INT64_MAX ? INT64_MAX : t);
	if (!vi->release[0]) {
		ret = mdb_error_fail(e, MDB_E_CORRUPT, name, -1, -1,
				     "VMCOREINFO without OSRELEASE", NULL);
		goto fail;
	}
	return 0;
fail:
	mdb_vm_info_release(vi);
	return ret;
}
