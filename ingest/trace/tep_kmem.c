// SPDX-License-Identifier: MIT
/* The kmem tracepoints read by field name; see tep_kmem.h. */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "tep_kmem.h"

/* The common_pid of the record, or -1. */
static int tep_kmem_pid(const struct tep_kmem *k, const void *data, size_t size);

#define MAX_ORDER 20 /* no page allocation is larger than 2^20 pages */

enum tk_field { TK_CALL_SITE, TK_PTR, TK_REQ, TK_ALLOC, TK_GFP, TK_NODE,
		TK_NAME, TK_PFN, TK_PAGE, TK_ORDER, TK_MIGRATETYPE, TK__N };

static const char *const field_names[TK__N] = {
	"call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags", "node",
	"name", "pfn", "page", "order", "migratetype",
};

/*
 * mm_page_free_batched is left out: since 3.3 each page it names is also
 * reported by mm_page_free (as the text decoder does; docs/formats.md §3).
 */
static const struct {
	const char *name;
	uint8_t kind, type;
} kmem_events[] = {
	{ "kmalloc", MDB_EV_ALLOC, MDB_TYPE_KMALLOC },
	{ "kmalloc_node", MDB_EV_ALLOC, MDB_TYPE_KMALLOC },
	{ "kfree", MDB_EV_FREE, MDB_TYPE_KMALLOC },
	{ "kmem_cache_alloc", MDB_EV_ALLOC, MDB_TYPE_CACHE },
	{ "kmem_cache_alloc_node", MDB_EV_ALLOC, MDB_TYPE_CACHE },
	{ "kmem_cache_free", MDB_EV_FREE, MDB_TYPE_CACHE },
	{ "mm_page_alloc", MDB_EV_ALLOC, MDB_TYPE_PAGE },
	{ "mm_page_free", MDB_EV_FREE, MDB_TYPE_PAGE },
	{ "mm_page_free_direct", MDB_EV_FREE, MDB_TYPE_PAGE },
	{ "mm_pagevec_free", MDB_EV_FREE, MDB_TYPE_PAGE },
};

#define NKMEM (sizeof(kmem_events) / sizeof(kmem_events[0]))

const char *mdb_tep_kmem_name(size_t i)
{
	return i < NKMEM ? kmem_events[i].name : NULL;
}

struct tep_kmem_def {
	int id;
	uint8_t kind, type;
	struct tep_format_field *f[TK__N]; /* NULL: the event has none */
};

int mdb_tep_kmem_init(struct tep_kmem *k, struct tep_handle *tep,
		      uint64_t page_size, const char *name, struct mdb_error *e)
{
	memset(k, 0, sizeof(*k));
	k->tep = tep;
	k->page_size = page_size ? page_size : 4096;
	k->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	k->defs = calloc(NKMEM, sizeof(*k->defs));
	if (!k->defs)
		return mdb_error_set(e, MDB_E_NOMEM, name, -1, -1, NULL);
	for (size_t i = 0; i < NKMEM; i++) {
		struct tep_event *ev = tep_find_event_by_name(tep, "kmem",
							      kmem_events[i].name);
		struct tep_kmem_def *d = &k->defs[k->ndefs];

		if (!ev)
			continue;
		d->id = ev->id;
		d->kind = kmem_events[i].kind;
		d->type = kmem_events[i].type;
		for (int f = 0; f < TK__N; f++)
			d->f[f] = tep_find_field(ev, field_names[f]);
		if (!k->type_field)
			k->type_field = tep_find_common_field(ev,
							      "common_type");
		if (!k->pid_field)
			k->pid_field = tep_find_common_field(ev, "common_pid");
		k->ndefs++;
	}
	if (!k->ndefs) {
		mdb_tep_kmem_release(k);
		return mdb_error_fail(e, MDB_E_FORMAT, name, -1, -1,
				      "no kmem event formats",
				      "record the kmem:kmalloc, kmem:kfree, "
				      "kmem:kmem_cache_alloc and "
				      "kmem:kmem_cache_free events (and "
				      "kmem:mm_page_* for pages)");
	}
	return 0;
}

void mdb_tep_kmem_release(struct tep_kmem *k)
{
	free(k->defs);
	k->defs = NULL;
	k->ndefs = 0;
}

/* Read number field @f of a record of @size bytes; -1 when outside. */
/*
 * Field @f of the payload as an unsigned number, what
 * tep_read_number_field() gives (sizes 1, 2, 4 and 8, in the capture's
 * byte order) read here: that library call per field was a sixth of the
 * decoding of a perf.data.  -1 when the field lies outside @size bytes.
 */
static int num(const struct tep_kmem *k, const struct tep_format_field *f,
	       const void *data, size_t size, unsigned long long *v)
{
	const uint8_t *p;

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    (size_t)f->offset + (size_t)f->size > size)
		return -1;
	p = (const uint8_t *)data + f->offset;
	switch (f->size) {
	case 1:
		*v = p[0];
		return 0;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		*v = k->swap ? __builtin_bswap16(x) : x;
		return 0;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		*v = k->swap ? __builtin_bswap32(x) : x;
		return 0;
	}
	case 8: {
		uint64_t x;

		memcpy(&x, p, 8);
		*v = k->swap ? __builtin_bswap64(x) : x;
		return 0;
	}
	default:
		return -1;
	}
}

/* A __data_loc / __rel_loc string field: its bytes, checked. */
static int dyn_str(const struct tep_kmem *k, const struct tep_format_field *f,
		   const void *data, size_t size, struct mdb_str *s)
{
	unsigned long long loc;
	size_t off, len;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || num(k, f, data, size, &loc))
		return -1;
	off = loc & 0xffff;
	len = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (size_t)f->offset + (size_t)f->size;
	if (off > size || len > size - off)
		return -1;
	s->p = (const char *)data + off;
	s->len = strnlen(s->p, len);
	return 0;
}

static const struct tep_kmem_def *find_def(const struct tep_kmem *k, int id)
{
	for (size_t i = 0; i < k->ndefs; i++)
		if (k->defs[i].id == id)
			return &k->defs[i];
	return NULL;
}

static int page_event(const struct tep_kmem *k, const struct tep_kmem_def *d,
		      const void *data, size_t size, struct mdb_event *ev)
{
	unsigned long long pfn = 0, order = 0, page = 1;

	if (num(k, d->f[TK_ORDER], data, size, &order) || order > MAX_ORDER)
		return -1;
	/* pfn since 3.17; before, page= (a struct page pointer) */
	if (d->f[TK_PFN] ? num(k, d->f[TK_PFN], data, size, &pfn) :
			   num(k, d->f[TK_PAGE], data, size, &page))
		return -1;
	if (!d->f[TK_PFN])
		pfn = page;
	ev->ptr = !page || !pfn || pfn == UINT64_MAX || pfn > UINT64_MAX >> 12 ?
		  0 : pfn << 12;
	/* a free's size too: the page report counts freed bytes */
	ev->bytes_alloc = k->page_size << order;
	if (ev->kind != MDB_EV_ALLOC)
		return 1;
	ev->bytes_req = ev->bytes_alloc;
	if (d->f[TK_MIGRATETYPE]) {
		unsigned long long mt;

		if (num(k, d->f[TK_MIGRATETYPE], data, size, &mt))
			return -1;
		ev->migratetype = (int32_t)mt;
	}
	return 1;
}

int mdb_tep_kmem_event(const struct tep_kmem *k, const void *data, size_t size,
		       struct mdb_event *ev)
{
	const struct tep_kmem_def *d;
	unsigned long long v;

	if (num(k, k->type_field, data, size, &v))
		return -1;
	d = find_def(k, (int)v);
	if (!d)
		return 0;
	ev->kind = d->kind;
	ev->type = d->type;
	ev->gfp = MDB_NO_GFP;
	ev->node = -1;
	ev->pid = tep_kmem_pid(k, data, size);
	ev->migratetype = MDB_NO_MIGRATETYPE;
	if (d->f[TK_GFP] && ev->kind == MDB_EV_ALLOC) {
		if (num(k, d->f[TK_GFP], data, size, &v))
			return -1;
		ev->gfp = v;
	}
	if (d->type == MDB_TYPE_PAGE)
		return page_event(k, d, data, size, ev);
	if (num(k, d->f[TK_CALL_SITE], data, size, &v))
		return -1;
	ev->call_site = v;
	if (num(k, d->f[TK_PTR], data, size, &v))
		return -1;
	ev->ptr = v;
	if (d->f[TK_NAME] && dyn_str(k, d->f[TK_NAME], data, size,
				    &ev->cache))
		return -1;
	if (ev->kind == MDB_EV_FREE)
		return 1;
	if (num(k, d->f[TK_REQ], data, size, &v))
		return -1;
	ev->bytes_req = v;
	if (num(k, d->f[TK_ALLOC], data, size, &v))
		return -1;
	ev->bytes_alloc = v;
	if (d->f[TK_NODE]) {
		if (num(k, d->f[TK_NODE], data, size, &v))
			return -1;
		ev->node = (int32_t)v;
	}
	return 1;
}

static int tep_kmem_pid(const struct tep_kmem *k, const void *data, size_t size)
{
	unsigned long long v;

	return num(k, k->pid_field, data, size, &v) ? -1 : (int)(int32_t)v;
}

/* ---- event formats, checked before libtraceevent sees them ------------- */

/* Consume literal @lit at *@s (before @e); 1 when it was there. */
static int fmt_lit(const char **s, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(e - *s) < n || memcmp(*s, lit, n))
		return 0;
	*s += n;
	return 1;
}

/* Consume characters of @set (at least one); 1 when there were any. */
static int fmt_span(const char **s, const char *e, const char *set)
{
	const char *b = *s;

	while (*s < e && **s && strchr(set, **s))
		(*s)++;
	return *s > b;
}

#define FMT_DIGITS "0123456789"
#define FMT_WORD "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
		 FMT_DIGITS "_"

/*
 * A C declaration as the kernel prints it: words and '*' separated by
 * spaces, ending with the name, which may carry "[N]" or "[]"
 * ("const void * ptr", "char comm[16]"); or "[]" once after the type of
 * a __data_loc or __rel_loc, of one word or more ("__data_loc char[]
 * name", 6.18's "__data_loc unsigned int[] lengths"), the name then
 * bare.  libtraceevent 1.7.1 leaks on brackets anywhere else.
 */
static int fmt_decl(const char **s, const char *e)
{
	const char *p = *s;
	int words = 0, last_word = 0, loc = fmt_lit(&p, e, "__data_loc ") ||
					    fmt_lit(&p, e, "__rel_loc ");
	int typed = 0;  /* the __data_loc type's "[]" seen */

	while (p < e && *p != ';') {
		if (fmt_span(&p, e, FMT_WORD)) {
			int name;

			words++;
			last_word = 1;
			if (fmt_lit(&p, e, "[]")) {
				name = p >= e || *p == ';';
				if (name ? typed : !loc || typed++)
					return 0;
			} else if (fmt_lit(&p, e, "[") &&
				   (fmt_span(&p, e, FMT_DIGITS),
				    !fmt_lit(&p, e, "]") ||
				    (p < e && *p != ';') || typed)) {
				return 0;
			}
		} else if (*p == '*' || (*p == ' ' && p > *s && p[-1] != ' ')) {
			last_word = 0;
			p++;
		} else {
			return 0;
		}
	}
	*s = p;
	return words + loc >= 2 && last_word;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" (signed since 2.6.32) */
static int fmt_field_line(const char *s, const char *e)
{
	if (!fmt_lit(&s, e, "\tfield:") || !fmt_decl(&s, e) ||
	    !fmt_lit(&s, e, ";\toffset:") ||
	    !fmt_span(&s, e, FMT_DIGITS) || !fmt_lit(&s, e, ";\tsize:") ||
	    !fmt_span(&s, e, FMT_DIGITS) || !fmt_lit(&s, e, ";"))
		return 0;
	if (fmt_lit(&s, e, "\tsigned:") &&
	    (!fmt_span(&s, e, FMT_DIGITS) || !fmt_lit(&s, e, ";")))
		return 0;
	return s == e;
}

/*
 * The field list of an event format, checked line by line as the kernel
 * writes it before libtraceevent sees it (1.7.1 leaks on a malformed
 * declaration; testdata/libtraceevent/README.md):
 *   name: NAME / ID: N / format: / field lines and empty lines.
 */
static int format_fields_ok(const char *p, size_t n)
{
	const char *e = p + n, *s = p, *nl;
	int line = 0;

	for (; s < e; s = nl + 1, line++) {
		const char *t = s;

		nl = memchr(s, '\n', (size_t)(e - s));
		if (!nl)
			return 0;
		if (line == 0 ? !fmt_lit(&t, nl, "name: ") ||
					!fmt_span(&t, nl, FMT_WORD) || t != nl :
		    line == 1 ? !fmt_lit(&t, nl, "ID: ") ||
					!fmt_span(&t, nl, FMT_DIGITS) || t != nl :
		    line == 2 ? !fmt_lit(&t, nl, "format:") || t != nl :
				s != nl && !fmt_field_line(s, nl))
			return 0;
	}
	return line > 3;
}

int mdb_tep_kmem_fields_ok(const char *buf, size_t len)
{
	const char *pf = memmem(buf, len, "\nprint fmt:", 11);

	return format_fields_ok(buf, pf ? (size_t)(pf - buf) + 1 : len);
}

int mdb_tep_kmem_parse_format(struct tep_handle *tep, const char *buf,
			      size_t len, const char *sys)
{
	const char *pf = memmem(buf, len, "\nprint fmt:", 11);

	/* memdb reads no print format: libtraceevent never sees it */
	if (pf)
		len = (size_t)(pf - buf) + 1;
	if (!format_fields_ok(buf, len))
		return 1;
	return tep_parse_event(tep, buf, len, sys) ? -1 : 0;
}
