// SPDX-License-Identifier: MIT
/*
 * ClickHouse over its HTTP interface (libcurl): statements in the body
 * of a POST, an INSERT's statement in the URL and its RowBinary rows in
 * the body.  See clickhouse.h; the export is db/export.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "../common/dl.h"
#include "clickhouse.h"

/*
 * libcurl is not linked: it is loaded at the first mdb_ch_open(), by
 * the soname memdb was built against (MDB_CURL_SONAME, from the
 * Makefile).  Linked, it and the TLS, LDAP and SSH libraries it brings
 * would be loaded at every start of every memdb command, for the one
 * command and the fleet reports that talk to ClickHouse.
 */
static struct {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_easy_init) *init;
	__typeof__(curl_easy_cleanup) *cleanup;
	__typeof__(curl_easy_reset) *reset;
	__typeof__(curl_easy_perform) *perform;
	__typeof__(curl_easy_getinfo) *getinfo;
	__typeof__(curl_easy_strerror) *strerror;
	__typeof__(curl_easy_escape) *escape;
	__typeof__(curl_free) *free;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	CURLcode (*setopt)(CURL *, CURLoption, ...);
} cu;
static char *cu_fail;  /* why it could not be loaded (dlerror()) */
static pthread_mutex_t cu_lock = PTHREAD_MUTEX_INITIALIZER;

/* libcurl loaded and initialised once; 0, or -MDB_E_DEPEND with @e. */
static int cu_ready(struct mdb_error *e)
{
	static const struct mdb_dl_sym sym[] = {
		{ "curl_global_init", (void **)&cu.global_init },
		{ "curl_easy_init", (void **)&cu.init },
		{ "curl_easy_cleanup", (void **)&cu.cleanup },
		{ "curl_easy_reset", (void **)&cu.reset },
		{ "curl_easy_perform", (void **)&cu.perform },
		{ "curl_easy_getinfo", (void **)&cu.getinfo },
		{ "curl_easy_strerror", (void **)&cu.strerror },
		{ "curl_easy_escape", (void **)&cu.escape },
		{ "curl_free", (void **)&cu.free },
		{ "curl_slist_append", (void **)&cu.slist_append },
		{ "curl_slist_free_all", (void **)&cu.slist_free_all },
		{ "curl_easy_setopt", (void **)&cu.setopt },
	};

	/* the tests name a library that is not there */
	const char *so = secure_getenv("MEMDB_TEST_CURL_SONAME");
	const char *fail;
	int ok;

	pthread_mutex_lock(&cu_lock);
	if (!cu.init && !cu_fail &&
	    mdb_dl_load(so && *so ? so : MDB_CURL_SONAME, sym,
			sizeof(sym) / sizeof(sym[0]), &cu_fail) &&
	    /* not thread-safe: memdb calls it once, here, under the lock */
	    cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		cu_fail = strdup("curl_global_init failed");
		cu.init = NULL;
	}
	ok = cu.init != NULL;
	fail = cu_fail;  /* set once, never freed */
	pthread_mutex_unlock(&cu_lock);
	if (ok)
		return 0;
	mdb_error_set(e, MDB_E_DEPEND, NULL, -1, -1, "dlopen=\"%s\"",
		      fail ? fail : "out of memory");
	mdb_error_msg(e, "cannot load libcurl (%s), which memdb talks to "
		      "ClickHouse with", so && *so ? so : MDB_CURL_SONAME);
	mdb_error_hint(e, "install it: apt-get install libcurl4");
	return -MDB_E_DEPEND;
}

/* A response body as it arrives. */
struct body {
	char *p;
	size_t n, cap;
	int nomem;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *ctx)
{
	struct body *b = ctx;
	size_t n = size * nmemb;

	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->n + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = 1;
			return 0;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = '\0';
	return n;
}

/* The URL without the value of a password= parameter, for messages. */
static char *hide_password(const char *url)
{
	char *s = strdup(url), *p;

	if (!s)
		return NULL;
	for (p = strstr(s, "password="); p; p = strstr(p, "password=")) {
		char *v = p + 9, *end = v + strcspn(v, "&#");

		if (p == s || p[-1] == '?' || p[-1] == '&') {
			memmove(v + 3, end, strlen(end) + 1);
			memcpy(v, "...", 3);
		}
		p = v;
	}
	return s;
}

int mdb_ch_open(struct mdb_ch *ch, const char *url, struct mdb_error *e)
{
	size_t n = strlen(url);

	memset(ch, 0, sizeof(*ch));
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		mdb_error_set(e, MDB_E_INVAL, NULL, -1, -1, "url='%s'", url);
		mdb_error_msg(e, "a ClickHouse URL starts with http:// or "
			      "https:// (its HTTP interface, port 8123 by "
			      "default)");
		return -MDB_E_INVAL;
	}
	if (cu_ready(e))
		return -MDB_E_DEPEND;
	while (n && (url[n - 1] == '?' || url[n - 1] == '&'))
		n--;
	ch->url = strndup(url, n);
	ch->shown = ch->url ? hide_password(ch->url) : NULL;
	ch->curl = cu.init();
	if (!ch->url || !ch->shown || !ch->curl) {
		mdb_ch_close(ch);
		return mdb_error_nomem(e);
	}
	return 0;
}

void mdb_ch_close(struct mdb_ch *ch)
{
	if (ch->curl)
		cu.cleanup(ch->curl);
	free(ch->url);
	free(ch->shown);
	memset(ch, 0, sizeof(*ch));
}

/* POST @data (@n bytes) to the URL with the parameters @params added. */
static int post(struct mdb_ch *ch, const char *params, const void *data,
		size_t n, struct body *b, struct mdb_error *e)
{
	CURL *c = ch->curl;
	char *url, err[CURL_ERROR_SIZE] = "";
	long code = 0;
	CURLcode rc;

	if (asprintf(&url, "%s%s%s", ch->url, strchr(ch->url, '?') ? "&" :
		     "?", params) < 0)
		return mdb_error_nomem(e);
	cu.reset(c);
	cu.setopt(c, CURLOPT_URL, url);
	cu.setopt(c, CURLOPT_POST, 1L);
	cu.setopt(c, CURLOPT_POSTFIELDS, data);
	cu.setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
	cu.setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	cu.setopt(c, CURLOPT_WRITEDATA, b);
	cu.setopt(c, CURLOPT_ERRORBUFFER, err);
	cu.setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	cu.setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* no "Expect: 100-continue" round trip before each batch */
	{
		struct curl_slist *h = cu.slist_append(NULL, "Expect:");

		cu.setopt(c, CURLOPT_HTTPHEADER, h);
		rc = cu.perform(c);
		cu.slist_free_all(h);
	}
	free(url);
	if (b->nomem)
		return mdb_error_nomem(e);
	if (rc != CURLE_OK) {
		mdb_error_set(e, MDB_E_IO, NULL, -1, -1, "url=%s", ch->shown);
		mdb_error_msg(e, "cannot reach ClickHouse: %s", err[0] ? err :
			      cu.strerror(rc));
		mdb_error_hint(e, "give the URL of its HTTP interface, "
			       "http://HOST:8123/ by default");
		return -MDB_E_IO;
	}
	cu.getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		const char *t = b->p ? b->p : "";

		mdb_error_set(e, MDB_E_DB, NULL, -1, -1, "url=%s http=%ld",
			      ch->shown, code);
		mdb_error_msg(e, "ClickHouse: %.*s", (int)strcspn(t, "\n"), t);
		return -MDB_E_DB;
	}
	return 0;
}

int mdb_ch_query(struct mdb_ch *ch, const char *sql, char **out,
		 size_t *len, struct mdb_error *e)
{
	struct body b = { 0 };
	/*
	 * Errors of a query that fails half-way as a status, not appended
	 * to rows already sent.  On Distributed tables, "sid IN (SELECT ...
	 * FROM memdb_source)" runs on each shard over its own sources (a
	 * host's rows and sources share its shard), as an IN that the
	 * primary key serves: a GLOBAL IN is not, and is far slower.
	 */
	int ret = post(ch, "wait_end_of_query=1&distributed_product_mode=local",
		       sql, strlen(sql), &b, e);

	if (ret == 0 && out) {
		*out = b.p ? b.p : strdup("");
		if (len)
			*len = b.n;
		return *out ? 0 : mdb_error_nomem(e);
	}
	free(b.p);
	return ret;
}

int mdb_ch_insert(struct mdb_ch *ch, const char *sql, const void *data,
		  size_t n, struct mdb_error *e)
{
	struct body b = { 0 };
	char *q = cu.escape(ch->curl, sql, 0), *params;
	int ret;

	if (!q || asprintf(&params, "query=%s&insert_distributed_sync=1",
			   q) < 0) {
		cu.free(q);
		return mdb_error_nomem(e);
	}
	cu.free(q);
	ret = post(ch, params, data, n, &b, e);
	free(params);
	free(b.p);
	return ret;
}

char *mdb_ch_quote(const char *s)
{
	char *q = malloc(strlen(s) * 2 + 3), *o = q;

	if (!q)
		return NULL;
	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			*o++ = '\\';
		*o++ = *s;
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}
