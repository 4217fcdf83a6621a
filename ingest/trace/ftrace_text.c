// SPDX-License-Identifier: MIT
/*
 * ftrace kmem text decoder; see ftrace.h and docs/formats.md §3.
 *
 * A trace line, whichever tool printed it:
 *   trace, trace_pipe   <comm>-<pid> [(<tgid>)] [<cpu>] [<flags>] <s>.<us>: <event>: <fields>
 *   perf script         <comm> <pid>[/<tid>] [[<cpu>]] <s>.<us>: kmem:<event>: <fields>
 *   trace-cmd report    <comm>-<pid> [<cpu>] [<flags>] <s>.<us>: <event>:<pad> [(<func>)] <fields>
 * The comm may hold spaces, dashes, colons and brackets, so a line is
 * anchored on its timestamp, "<digits>[.<digits>]:" between a space and
 * a space: the CPU column is the "[N]" token just before it (or before
 * the flags), the event name the token just after it.  Fields are
 * key=value pairs found by name; a token that is not key=value belongs
 * to the value before it (a call site's " [module]" suffix).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../../common/grow.h"
#include "../../common/u64map.h"
#include "ftrace.h"

#define FT_MIN_ADDR 4096     /* pointers below this are not addresses */
#define FT_MAX_CPU (1 << 20)
#define FT_MAX_ORDER 30
#define SNIFF_POINTERS 4096  /* pointers looked at to judge hashing */

enum ft_kind { FT_NONE, FT_BLANK, FT_HEADER, FT_LOST, FT_STACK, FT_OTHER,
	       FT_EVENT, FT_BAD };

/* Fields of the kmem events, found by name. */
enum ft_field { F_SITE, F_PTR, F_REQ, F_ALLOC, F_GFP, F_NODE, F_NAME,
		F_PAGE, F_PFN, F_ORDER, F_MIGRATETYPE, F__N };

static const char *const field_name[F__N] = {
	"call_site", "ptr", "bytes_req", "bytes_alloc", "gfp_flags", "node",
	"name", "page", "pfn", "order", "migratetype",
};

#define B(f) (1u << (f))
#define SLAB_ALLOC (B(F_SITE) | B(F_PTR) | B(F_REQ) | B(F_ALLOC) | B(F_GFP))
#define SLAB_FREE (B(F_SITE) | B(F_PTR))

struct ft_event_def {
	const char *name;
	uint8_t len;
	uint8_t kind, type;
	unsigned need; /* fields every kernel prints for this event */
};

/*
 * mm_page_free_batched is deliberately absent, so it is skipped as
 * another event: since 3.3 every page it names is also reported by
 * mm_page_free (from free_pages_prepare()), and counting both would make
 * each batched free a duplicate.  Before 3.3, mm_page_free_direct and
 * mm_pagevec_free covered disjoint paths and both are frees.
 */
static const struct ft_event_def ft_events[] = {
	{ "kmalloc", 7, MDB_EV_ALLOC, MDB_TYPE_KMALLOC, SLAB_ALLOC },
	{ "kmalloc_node", 12, MDB_EV_ALLOC, MDB_TYPE_KMALLOC,
	  SLAB_ALLOC | B(F_NODE) },
	{ "kfree", 5, MDB_EV_FREE, MDB_TYPE_KMALLOC, SLAB_FREE },
	{ "kmem_cache_alloc", 16, MDB_EV_ALLOC, MDB_TYPE_CACHE, SLAB_ALLOC },
	{ "kmem_cache_alloc_node", 21, MDB_EV_ALLOC, MDB_TYPE_CACHE,
	  SLAB_ALLOC | B(F_NODE) },
	{ "kmem_cache_free", 15, MDB_EV_FREE, MDB_TYPE_CACHE, SLAB_FREE },
	{ "mm_page_alloc", 13, MDB_EV_ALLOC, MDB_TYPE_PAGE,
	  B(F_PFN) | B(F_ORDER) | B(F_GFP) },
	{ "mm_page_free", 12, MDB_EV_FREE, MDB_TYPE_PAGE, B(F_PFN) | B(F_ORDER) },
	{ "mm_page_free_direct", 19, MDB_EV_FREE, MDB_TYPE_PAGE,
	  B(F_PFN) | B(F_ORDER) },
	{ "mm_pagevec_free", 15, MDB_EV_FREE, MDB_TYPE_PAGE,
	  B(F_PFN) | B(F_ORDER) },
};

#define NEVENTS (sizeof(ft_events) / sizeof(ft_events[0]))

/* Why a line was rejected. */
enum ft_bad { BAD_NOT_TRACE = 1, BAD_NO_EVENT, BAD_CUT_NAME, BAD_TS,
	      BAD_NO_FIELD, BAD_VALUE, BAD_WIDTH, BAD_ORDER, BAD_PFN,
	      BAD_CUT_LINE };

/* One line, split. */
struct ft_line {
	int64_t ts;
	int32_t cpu;
	int32_t pid;                /* MDB_NO_PID when the prefix has none */
	struct mdb_str comm;
	const struct ft_event_def *def;
	const char *f, *fe;         /* the fields */
	uint64_t lost;              /* FT_LOST: events lost (0: unknown) */
	int ncpus;                  /* FT_HEADER: from "#P:N" / "cpus=N" */
	struct mdb_str v[F__N];     /* field values, found by name */
	unsigned have;              /* bit per field found */
	enum ft_bad bad;
	int bad_field;              /* enum ft_field, or -1 */
	int width;                  /* BAD_WIDTH: digits seen */
	int stack_hdr;              /* FT_OTHER: ftrace's "<stack trace>" */
};

/*
 * A kmem event held until its kernel stack, which follows it, is read:
 * perf script's indented callchain lines right after it, or ftrace's
 * "<stack trace>" event of the same CPU (other CPUs' lines may come
 * between) and the " => func[+0xoff/0xsize]" lines after that.
 */
struct ft_held {
	struct mdb_event ev;
	int done;           /* no more frames can come */
	int broken;         /* a frame could not be given an address */
	uint32_t n;
	uint64_t frames[MDB_MAX_STACK];
};

/* Held events in line order: a ring of at most FT_HOLD. */
#define FT_HOLD 256
struct ft_pend {
	struct ft_held *q;  /* FT_HOLD entries, allocated on first use */
	size_t head, len;
	long cur;           /* entry the stack lines go to (offset from
			     * head), -1 none */
};

/* A symbolic call site already looked up in the kallsyms. */
struct ft_sym {
	char *text;         /* as printed */
	size_t len;
	uint64_t addr;      /* of the function, when found */
	int found;          /* mdb_kallsyms_addr_sized(): 0, 1 (size differs), -1 */
};

/* Decoder state beyond the options. */
struct ft_dec {
	const struct mdb_decode_opts *o;
	int hashed, ptr_digits; /* struct ft_params */
	uint64_t page_size;
	uint64_t unresolved, size_mismatch;
	int64_t unresolved_line;
	char unresolved_text[128]; /* a copy: the input may be released */
	/* call site text -> lookup: one kallsyms search per distinct site */
	struct u64map sym_idx;  /* XXH3 of the text (probed on) -> index + 1 */
	struct ft_sym *syms;
	size_t nsyms, syms_cap;
	struct ft_pend pend;
};

/* ---- small scanners --------------------------------------------------- */

static inline int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static inline int is_space(int c)
{
	return c == ' ' || c == '\t';
}

static inline int is_keych(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_';
}

static int str_is(const struct mdb_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len == n && !memcmp(s->p, lit, n);
}

static int has_0x(const char *p, size_t n)
{
	return n > 2 && p[0] == '0' && (p[1] | 0x20) == 'x';
}

/* Whole of [p, p+n) as hex (1..16 digits, no prefix). */
static int parse_hex(const char *p, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int h = hexval((unsigned char)p[i]);

		if (h < 0)
			return -1;
		x = x << 4 | (uint64_t)h;
	}
	*v = x;
	return 0;
}

/* Hex with an optional 0x; more than 16 digits only as leading zeros. */
static int parse_hex0x(const char *p, size_t n, uint64_t *v)
{
	if (has_0x(p, n)) {
		p += 2;
		n -= 2;
	}
	while (n > 16 && *p == '0') {
		p++;
		n--;
	}
	return parse_hex(p, n, v);
}

static int parse_u64(const char *p, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)p[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int parse_i32(const char *p, size_t n, int32_t *v)
{
	uint64_t x;
	int neg = n && *p == '-';

	if (parse_u64(p + neg, n - (size_t)neg, &x) ||
	    x > (uint64_t)INT32_MAX + (uint64_t)neg)
		return -1;
	*v = neg ? (int32_t)(-(int64_t)x) : (int32_t)x;
	return 0;
}

/* The printed NULL pointer forms: "(null)" (%p, old kernels), "(nil)"
 * (glibc %p: perf script, trace-cmd). */
static int is_null_form(const struct mdb_str *s)
{
	return str_is(s, "(null)") || str_is(s, "(nil)");
}

/* ---- the line prefix -------------------------------------------------- */

/*
 * Is [s, c) a timestamp "<digits>[.<digits>]" ending at the colon @c?
 * Returns its start, or NULL.
 */
static const char *ts_start(const char *q, const char *c)
{
	const char *d = c;

	while (d > q && is_digit((unsigned char)d[-1]))
		d--;
	if (d == c)
		return NULL;
	if (d > q && d[-1] == '.') {
		const char *e = d - 1;

		while (e > q && is_digit((unsigned char)e[-1]))
			e--;
		if (e == d - 1)
			return NULL;
		d = e;
	}
	if (d > q && !is_space((unsigned char)d[-1]))
		return NULL;
	return d;
}

/*
 * Nanoseconds of "<secs>.<frac>" in [s, c); digits past the 9th are below
 * a nanosecond and dropped.  A plain "<count>" is what the counter and
 * TSC trace clocks print: kept as it is, in the clock's units.
 */
static int parse_ts(const char *s, const char *c, int64_t *ns)
{
	const char *dot = memchr(s, '.', (size_t)(c - s));
	uint64_t secs, frac = 0;
	size_t fl = 0;

	if (parse_u64(s, (size_t)((dot ? dot : c) - s), &secs))
		return -1;
	if (!dot) {
		if (secs > INT64_MAX)
			return -1;
		*ns = (int64_t)secs;
		return 0;
	}
	if (secs > (uint64_t)INT64_MAX / 1000000000u - 1)
		return -1;
	for (const char *p = dot + 1; p < c && fl < 9; p++, fl++)
		frac = frac * 10 + (uint64_t)(*p - '0');
	for (; fl < 9; fl++)
		frac *= 10;
	*ns = (int64_t)(secs * 1000000000u + frac);
	return 0;
}

/* "[N]" in [t, te): the CPU, or -1 when it is not such a token. */
static int32_t cpu_token(const char *t, const char *te)
{
	uint64_t v;

	if (te - t < 3 || *t != '[' || te[-1] != ']' ||
	    parse_u64(t + 1, (size_t)(te - t - 2), &v) || v >= FT_MAX_CPU)
		return -1;
	return (int32_t)v;
}

/* The token ending just before @p (spaces skipped): [*t, return). */
static const char *token_before(const char *q, const char *p,
				const char **t)
{
	const char *te;

	while (p > q && is_space((unsigned char)p[-1]))
		p--;
	te = p;
	while (p > q && !is_space((unsigned char)p[-1]))
		p--;
	*t = p;
	return te;
}

/*
 * The task of a line's prefix [q, e) (before the CPU column, or before
 * the time when there is none): "<comm>-<pid>" (ftrace, trace-cmd), with
 * an optional " (<tgid>)", or "<comm> <pid>[/<tid>]" (perf script; the
 * tid is the task).  The comm may hold spaces and dashes: the pid is the
 * digits at the end.
 */
static void task_prefix(const char *q, const char *e, struct ft_line *l)
{
	const char *d;
	uint64_t v;

	while (e > q && is_space((unsigned char)e[-1]))
		e--;
	if (e > q && e[-1] == ')') {
		const char *o = e - 1;

		while (o > q && *o != '(')
			o--;
		for (e = o; e > q && is_space((unsigned char)e[-1]);)
			e--;
	}
	d = e;
	while (d > q && is_digit((unsigned char)d[-1]))
		d--;
	if (d == e || d == q || parse_u64(d, (size_t)(e - d), &v) ||
	    v > INT32_MAX)
		return;
	if (d[-1] == '/') { /* perf script "pid/tid" */
		for (d--; d > q && is_digit((unsigned char)d[-1]);)
			d--;
		if (d == q)
			return;
	}
	if (d[-1] != '-' && !is_space((unsigned char)d[-1]))
		return;
	for (e = d - 1; e > q && is_space((unsigned char)e[-1]);)
		e--;
	l->pid = (int32_t)v;
	/* ftrace's and trace-cmd's name for a task they cannot name */
	if ((size_t)(e - q) == sizeof(MDB_COMM_UNKNOWN) - 1 &&
	    !memcmp(q, MDB_COMM_UNKNOWN, sizeof(MDB_COMM_UNKNOWN) - 1))
		return;
	l->comm.p = q;
	l->comm.len = (size_t)(e - q);
}

/* The kmem event called [p, p+n), perf's "kmem:" system prefix allowed. */
static const struct ft_event_def *find_event(const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n);

	if (colon) {
		if (colon - p != 4 || memcmp(p, "kmem", 4))
			return NULL;
		n -= 5;
		p += 5;
	}
	for (size_t i = 0; i < NEVENTS; i++)
		if (ft_events[i].len == n && !memcmp(ft_events[i].name, p, n))
			return &ft_events[i];
	return NULL;
}

/* A token cut short of a kmem event name (the line ended inside it)? */
static int is_cut_event(const char *p, size_t n)
{
	if (n >= 5 && !memcmp(p, "kmem:", 5)) {
		p += 5;
		n -= 5;
	} else if (n < 5 && !memcmp("kmem:", p, n)) {
		return 1;
	}
	for (size_t i = 0; i < NEVENTS; i++)
		if (n <= ft_events[i].len && !memcmp(ft_events[i].name, p, n))
			return 1;
	return 0;
}

/* ---- fields ----------------------------------------------------------- */

static int field_of(const char *k, size_t n)
{
	switch (n) {
	case 3:
		if (!memcmp(k, "ptr", 3))
			return F_PTR;
		if (!memcmp(k, "pfn", 3))
			return F_PFN;
		break;
	case 4:
		if (!memcmp(k, "node", 4))
			return F_NODE;
		if (!memcmp(k, "name", 4))
			return F_NAME;
		if (!memcmp(k, "page", 4))
			return F_PAGE;
		break;
	case 5:
		if (!memcmp(k, "order", 5))
			return F_ORDER;
		break;
	case 9:
		if (!memcmp(k, "call_site", 9))
			return F_SITE;
		if (!memcmp(k, "bytes_req", 9))
			return F_REQ;
		if (!memcmp(k, "gfp_flags", 9))
			return F_GFP;
		break;
	case 11:
		if (!memcmp(k, "bytes_alloc", 11))
			return F_ALLOC;
		if (!memcmp(k, "migratetype", 11))
			return F_MIGRATETYPE;
		break;
	}
	return -1;
}

/*
 * Split [p, le) into key=value pairs.  A token that is not key=value
 * extends the value before it (" [module]"); tokens before the first
 * pair are ignored (trace-cmd's "(func+0x2c)").  A value with '=' inside
 * ("56bytes_alloc=64", seen in trace-cmd output) is split before the
 * key that follows its digits.  The first of repeated keys wins.
 */
static void split_fields(const char *p, const char *le, struct ft_line *l)
{
	struct mdb_str *cur = NULL;

	l->have = 0;
	while (p < le) {
		const char *t, *k, *v, *ve;

		while (p < le && is_space((unsigned char)*p))
			p++;
		if (p == le)
			break;
		t = k = p;
		while (k < le && is_keych((unsigned char)*k))
			k++;
		if (k == t || k == le || *k != '=') {
			/* not key=value: part of the value before it */
			while (p < le && !is_space((unsigned char)*p))
				p++;
			if (cur)
				cur->len = (size_t)(p - cur->p);
			continue;
		}
		v = ve = k + 1;
		while (ve < le && !is_space((unsigned char)*ve))
			ve++;
		{
			const char *eq = memchr(v, '=', (size_t)(ve - v));

			if (eq) {
				const char *r = eq;

				while (r > v && ((r[-1] >= 'a' && r[-1] <= 'z') ||
						 r[-1] == '_'))
					r--;
				if (r > v && r < eq && is_digit((unsigned char)r[-1]))
					ve = r;
			}
		}
		{
			int f = field_of(t, (size_t)(k - t));

			cur = NULL;
			if (f >= 0 && !(l->have & B(f))) {
				l->have |= B(f);
				l->v[f].p = v;
				l->v[f].len = (size_t)(ve - v);
				cur = &l->v[f];
			}
		}
		p = ve;
	}
}

/* ---- classifying a line ----------------------------------------------- */

/* An optional "<count> " at @p: past it (count in *@n), NULL if bad. */
static const char *opt_count(const char *p, const char *le, uint64_t *n)
{
	const char *d = p;

	while (p < le && is_digit((unsigned char)*p))
		p++;
	if (p == d)
		return p;
	if (p == le || *p != ' ' || parse_u64(d, (size_t)(p - d), n))
		return NULL;
	return p + 1;
}

static const char *skip_lit(const char *p, const char *le, const char *lit)
{
	size_t n = strlen(lit);

	if (!p || (size_t)(le - p) < n || memcmp(p, lit, n))
		return NULL;
	return p + n;
}

/* "CPU:N [LOST N EVENTS]" (kernel), "CPU:N [N EVENTS DROPPED]"
 * (trace-cmd), either without the count.  1 with l->lost set, else 0. */
static int lost_line(const char *q, const char *le, struct ft_line *l)
{
	const char *p = skip_lit(q, le, "CPU:"), *d;
	uint64_t n = 0;

	if (!p)
		return 0;
	for (d = p; p < le && is_digit((unsigned char)*p); p++)
		;
	if (p == d || !(p = skip_lit(p, le, " [")))
		return 0;
	if ((d = skip_lit(p, le, "LOST ")))
		p = skip_lit(opt_count(d, le, &n), le, "EVENTS]");
	else
		p = skip_lit(opt_count(p, le, &n), le, "EVENTS DROPPED]");
	if (!p)
		return 0;
	while (p < le && is_space((unsigned char)*p))
		p++;
	if (p != le)
		return 0;
	l->lost = n;
	return 1;
}

/* "#P:N" in a header line, "cpus=N" (trace-cmd): the CPU count. */
static int header_ncpus(const char *q, const char *le)
{
	const char *p = NULL;
	uint64_t v;
	size_t n = 0;

	if (le - q > 5 && !memcmp(q, "cpus=", 5)) {
		p = q + 5;
	} else {
		for (const char *s = q; s + 3 < le; s++)
			if (s[0] == '#' && s[1] == 'P' && s[2] == ':') {
				p = s + 3;
				break;
			}
	}
	if (!p)
		return 0;
	while (p + n < le && is_digit((unsigned char)p[n]))
		n++;
	if (parse_u64(p, n, &v) || v > FT_MAX_CPU)
		return 0;
	return (int)v;
}

/* Lines trace-cmd report prints before the events. */
static int trace_cmd_header(const char *q, const char *le)
{
	size_t n = (size_t)(le - q);

	if (n > 5 && !memcmp(q, "cpus=", 5))
		return 1;
	if (n > 9 && !memcmp(q, "version =", 9))
		return 1;
	if (n > 4 && !memcmp(q, "CPU ", 4) && n > 9 &&
	    !memcmp(le - 9, " is empty", 9))
		return 1;
	return 0;
}

/* perf script call chain line: indented "<hex> <symbol> (<dso>)". */
static int perf_chain_line(const char *p, const char *q, const char *le)
{
	const char *t = q;

	if (q == p)
		return 0;
	while (t < le && hexval((unsigned char)*t) >= 0)
		t++;
	return t > q && t < le && is_space((unsigned char)*t);
}

/* After the event name: an event of ours, another event, or a cut. */
static enum ft_kind event_after(const char *n, const char *le,
				struct ft_line *l)
{
	const char *ne = n;

	while (ne < le && !is_space((unsigned char)*ne))
		ne++;
	if (ne == n) {
		l->bad = BAD_NO_EVENT;
		return FT_BAD;
	}
	if (ne[-1] != ':') {
		/* function tracer "func <-parent", "<stack trace>", ... */
		l->stack_hdr = ne - n == 6 && !memcmp(n, "<stack", 6);
		if (ne == le && *n != '<' &&
		    is_cut_event(n, (size_t)(ne - n))) {
			l->bad = BAD_CUT_NAME;
			return FT_BAD;
		}
		return FT_OTHER;
	}
	l->def = find_event(n, (size_t)(ne - n - 1));
	if (!l->def)
		return FT_OTHER;
	l->f = ne;
	l->fe = le;
	return FT_EVENT;
}

/*
 * A line anchored on its timestamp: "<digits>[.<digits>]:" between
 * spaces.  A comm can hold such a pattern ("x 12: y"), so a candidate
 * that gives no kmem event yields to a later one; the first candidate's
 * reading stands when none does.  FT_NONE when there is no candidate.
 */
static enum ft_kind trace_line(const char *q, const char *le,
			       struct ft_line *l)
{
	enum ft_kind first = FT_NONE;
	struct ft_line fl = *l;

	for (const char *c = q; (c = memchr(c, ':', (size_t)(le - c))); c++) {
		const char *s, *t, *te, *n;
		enum ft_kind k;

		if (c + 1 < le && !is_space((unsigned char)c[1]))
			continue;
		s = ts_start(q, c);
		if (!s)
			continue;
		if (parse_ts(s, c, &l->ts)) {
			l->bad = BAD_TS;
			k = FT_BAD;
		} else {
			/* "[cpu]" right before the time, or before the
			 * flags; perf script without -a prints no CPU */
			te = token_before(q, s, &t);
			l->cpu = cpu_token(t, te);
			if (l->cpu < 0 && t > q) {
				te = token_before(q, t, &t);
				l->cpu = cpu_token(t, te);
			}
			l->pid = MDB_NO_PID;
			l->comm.len = 0;
			task_prefix(q, l->cpu >= 0 ? t : s, l);
			for (n = c + 1; n < le && is_space((unsigned char)*n);)
				n++;
			k = event_after(n, le, l);
		}
		if (k == FT_EVENT)
			return k;
		if (first == FT_NONE) {
			first = k;
			fl = *l;
		}
		l->def = NULL;
		l->bad = 0;
	}
	*l = fl;
	return first;
}

/* Classify [p, le) (no newline); split a trace line into its parts. */
static enum ft_kind ft_line(const char *p, const char *le, struct ft_line *l)
{
	const char *q = p;
	enum ft_kind k;

	l->ts = MDB_NO_TS;
	l->cpu = -1;
	l->pid = MDB_NO_PID;
	l->comm.len = 0;
	l->def = NULL;
	l->bad = 0;
	l->bad_field = -1;
	l->ncpus = 0;
	l->stack_hdr = 0;
	while (q < le && is_space((unsigned char)*q))
		q++;
	if (q == le)
		return FT_BLANK;
	if (*q == '#') {
		/* a comm may start with '#': only a kmem event beats a
		 * header */
		if (trace_line(q, le, l) == FT_EVENT)
			return FT_EVENT;
		l->def = NULL;
		l->ncpus = header_ncpus(q, le);
		return FT_HEADER;
	}
	if (*q == 'C' && lost_line(q, le, l))
		return FT_LOST;
	if (le - q >= 2 && q[0] == '=' && q[1] == '>')
		return FT_STACK;
	k = trace_line(q, le, l);
	if (k != FT_NONE)
		return k;
	if (trace_cmd_header(q, le)) {
		l->ncpus = header_ncpus(q, le);
		return FT_HEADER;
	}
	if (perf_chain_line(p, q, le))
		return FT_STACK;
	/* nocontext-info: "kmalloc: call_site=..." without a prefix */
	if (event_after(q, le, l) == FT_EVENT)
		return FT_EVENT;
	l->def = NULL;
	l->bad = BAD_NOT_TRACE;
	return FT_BAD;
}

/* ---- building an event ------------------------------------------------ */

static int bad_value(struct ft_line *l, int f)
{
	l->bad = BAD_VALUE;
	l->bad_field = f;
	return -1;
}

/*
 * A pointer: the printed NULL forms, 0x hex (perf, trace-cmd), or the
 * kernel's zero-padded hex, whose width must be the file's.  Hashed
 * values below 4096 are tagged (FT_HASH_TAG) so that only a printed NULL
 * is taken for one: the kernel prints NULL (and error pointers)
 * unhashed, and a 32-bit hash can fall below 4096 by chance.
 */
static int parse_ptr(const struct ft_dec *d, struct ft_line *l, int f,
		     uint64_t *out)
{
	const struct mdb_str *s = &l->v[f];

	if (is_null_form(s)) {
		*out = 0;
		return 0;
	}
	if (has_0x(s->p, s->len)) {
		if (parse_hex0x(s->p, s->len, out))
			return bad_value(l, f);
		return 0;
	}
	if (parse_hex(s->p, s->len, out))
		return bad_value(l, f);
	if (d->ptr_digits && s->len != (size_t)d->ptr_digits) {
		l->bad = BAD_WIDTH;
		l->bad_field = f;
		l->width = (int)s->len;
		return -1;
	}
	if (f == F_PTR && d->hashed && *out && *out < FT_MIN_ADDR)
		*out |= FT_HASH_TAG;
	return 0;
}

/* A string field: no spaces (only call sites take a " [module]"). */
static int text_value(struct ft_line *l, int f, struct mdb_str *out)
{
	const struct mdb_str *s = &l->v[f];

	for (size_t i = 0; i < s->len; i++)
		if (is_space((unsigned char)s->p[i]) || !s->p[i])
			return bad_value(l, f);
	if (!s->len)
		return bad_value(l, f);
	*out = *s;
	return 0;
}

/*
 * gfp_flags: "%08x" (2.6.30), 0x hex (libtraceevent), else the names.
 * Empty ("gfp_flags= node=-1") is the kernel failing to print flags it
 * holds (Debian's s390x 6.1 prints every one so, and every name= too;
 * docs/formats.md §3.3): flags unknown, the event read.
 */
static int parse_gfp(struct ft_line *l, struct mdb_event *ev)
{
	const struct mdb_str *s = &l->v[F_GFP];

	ev->gfp = MDB_NO_GFP;
	if (!s->len)
		return 0;
	if (!parse_hex0x(s->p, s->len, &ev->gfp))
		return 0;
	ev->gfp = MDB_NO_GFP;
	return text_value(l, F_GFP, &ev->gfp_text);
}

/* The cached lookup of call site @s, adding @found/@addr when new (a
 * failed allocation only costs the next event another search). */
static struct ft_sym *sym_cached(struct ft_dec *d, const struct mdb_str *s)
{
	uint64_t key = XXH3_64bits(s->p, s->len);
	uint64_t *v;

	for (; (v = mdb_u64map_get(&d->sym_idx, key)); key++) {
		struct ft_sym *y = &d->syms[*v - 1];

		if (y->len == s->len && !memcmp(y->text, s->p, s->len))
			return y;
	}
	if (MDB_GROW(d->syms, d->nsyms, d->syms_cap, 256))
		return NULL;
	d->syms[d->nsyms].text = malloc(s->len ? s->len : 1);
	if (!d->syms[d->nsyms].text)
		return NULL;
	if (!mdb_u64map_put(&d->sym_idx, key, d->nsyms + 1, NULL)) {
		free(d->syms[d->nsyms].text);
		return NULL;
	}
	memcpy(d->syms[d->nsyms].text, s->p, s->len);
	d->syms[d->nsyms].len = s->len;
	d->syms[d->nsyms].found = -2; /* not looked up yet */
	return &d->syms[d->nsyms++];
}

static void syms_release(struct ft_dec *d)
{
	for (size_t i = 0; i < d->nsyms; i++)
		free(d->syms[i].text);
	free(d->syms);
	mdb_u64map_release(&d->sym_idx);
}

/* Resolve "func+0xoff/0xsize [mod]" with the kallsyms, when there is one. */
static void resolve_site(struct ft_dec *d, int64_t line, struct mdb_event *ev,
			 const char *name, size_t nlen, const char *mod,
			 size_t mlen, uint64_t off, uint64_t size)
{
	struct ft_sym one, *y;

	if (!d->o->ksyms)
		return;
	y = sym_cached(d, &ev->site_text);
	if (!y) {
		y = &one;
		y->found = -2;
	}
	if (y->found == -2)
		y->found = mdb_kallsyms_addr_sized(d->o->ksyms, name, nlen, mod,
						   mlen, size, &y->addr);
	if (y->found < 0) {
		if (!d->unresolved++) {
			d->unresolved_line = line;
			snprintf(d->unresolved_text,
				 sizeof(d->unresolved_text), "%.*s",
				 (int)ev->site_text.len, ev->site_text.p);
		}
		return;
	}
	if (y->found == 1 && size)
		d->size_mismatch++;
	ev->call_site = y->addr + off;
}

/*
 * call_site: "%lx" (before 5.4; "0x" from libtraceevent when it cannot
 * name the address), or "%pS": "func+0xoff/0xsize", with " [module]"
 * for module code; perf and trace-cmd print "func+0xoff".
 */
static int parse_site(struct ft_dec *d, struct ft_line *l, int64_t line,
		      struct mdb_event *ev)
{
	const struct mdb_str *s = &l->v[F_SITE];
	const char *p = s->p, *end = s->p + s->len, *name = p, *mod = NULL;
	uint64_t off = 0, size = 0;
	size_t nlen, mlen = 0;

	if (!parse_hex0x(s->p, s->len, &ev->call_site))
		return 0;
	ev->call_site = 0;
	while (p < end && *p != '+' && !is_space((unsigned char)*p))
		p++;
	nlen = (size_t)(p - name);
	if (!nlen)
		return bad_value(l, F_SITE);
	if (p < end && *p == '+') {
		const char *h = ++p;

		while (p < end && *p != '/' && !is_space((unsigned char)*p))
			p++;
		if (!has_0x(h, (size_t)(p - h)) ||
		    parse_hex(h + 2, (size_t)(p - h - 2), &off))
			return bad_value(l, F_SITE);
		if (p < end && *p == '/') {
			h = ++p;
			while (p < end && !is_space((unsigned char)*p))
				p++;
			if (!has_0x(h, (size_t)(p - h)) ||
			    parse_hex(h + 2, (size_t)(p - h - 2), &size))
				return bad_value(l, F_SITE);
		}
	}
	if (p < end) {
		/* " [module]" (a build id may follow the name: "[mod id]") */
		if (end - p < 4 || p[0] != ' ' || p[1] != '[' || end[-1] != ']')
			return bad_value(l, F_SITE);
		mod = p + 2;
		while (mod + mlen < end - 1 && mod[mlen] != ' ')
			mlen++;
		if (!mlen || memchr(mod, '[', mlen) || memchr(mod, ']', mlen))
			return bad_value(l, F_SITE);
	}
	if (memchr(s->p, '\0', s->len))
		return bad_value(l, F_SITE);
	ev->site_text = *s;
	resolve_site(d, line, ev, name, nlen, mod, mlen, off, size);
	return 0;
}

static int build_slab(struct ft_dec *d, struct ft_line *l, int64_t line,
		      struct mdb_event *ev)
{
	if (parse_site(d, l, line, ev) || parse_ptr(d, l, F_PTR, &ev->ptr))
		return -1;
	/* "name=" empty: as gfp_flags= below, a string the kernel did not
	 * print; no cache name */
	if ((l->have & B(F_NAME)) && l->v[F_NAME].len &&
	    text_value(l, F_NAME, &ev->cache))
		return -1;
	if (ev->kind == MDB_EV_FREE)
		return 0;
	if (parse_u64(l->v[F_REQ].p, l->v[F_REQ].len, &ev->bytes_req))
		return bad_value(l, F_REQ);
	if (parse_u64(l->v[F_ALLOC].p, l->v[F_ALLOC].len, &ev->bytes_alloc))
		return bad_value(l, F_ALLOC);
	if (parse_gfp(l, ev))
		return -1;
	if ((l->have & B(F_NODE)) &&
	    parse_i32(l->v[F_NODE].p, l->v[F_NODE].len, &ev->node))
		return bad_value(l, F_NODE);
	return 0;
}

/*
 * Page events: the key is pfn << 12, the size page_size << order.  A
 * failed allocation prints page=NULL and pfn -1 (or 0, or a value
 * computed from NULL on 2.6.32): it becomes ptr 0, a failure.
 */
static int build_page(struct ft_dec *d, struct ft_line *l,
		      struct mdb_event *ev)
{
	const struct mdb_str *s = &l->v[F_PFN];
	uint64_t pfn, order, page = 1;

	if (has_0x(s->p, s->len) ? parse_hex0x(s->p, s->len, &pfn) :
				   parse_u64(s->p, s->len, &pfn))
		return bad_value(l, F_PFN);
	if (parse_u64(l->v[F_ORDER].p, l->v[F_ORDER].len, &order))
		return bad_value(l, F_ORDER);
	if (order > FT_MAX_ORDER) {
		l->bad = BAD_ORDER;
		return -1;
	}
	/* page=%p: only whether it is NULL matters */
	if ((l->have & B(F_PAGE)) && parse_ptr(d, l, F_PAGE, &page))
		return -1;
	if (!page || !pfn || pfn == UINT64_MAX ||
	    (pfn == UINT32_MAX && d->ptr_digits == 8)) {
		ev->ptr = 0;
	} else if (pfn > UINT64_MAX >> 12) {
		l->bad = BAD_PFN;
		return -1;
	} else {
		ev->ptr = pfn << 12;
	}
	/* a free's size too: the page report counts freed bytes */
	ev->bytes_alloc = d->page_size << order;
	if (ev->kind == MDB_EV_FREE)
		return 0;
	ev->bytes_req = ev->bytes_alloc;
	if ((l->have & B(F_MIGRATETYPE)) &&
	    parse_i32(l->v[F_MIGRATETYPE].p, l->v[F_MIGRATETYPE].len,
		      &ev->migratetype))
		return bad_value(l, F_MIGRATETYPE);
	return parse_gfp(l, ev);
}

static int build_event(struct ft_dec *d, struct ft_line *l, int64_t line,
		       struct mdb_event *ev)
{
	const struct ft_event_def *def = l->def;
	unsigned missing;

	split_fields(l->f, l->fe, l);
	missing = def->need & ~l->have;
	if (missing) {
		l->bad = BAD_NO_FIELD;
		l->bad_field = __builtin_ctz(missing);
		return -1;
	}
	mdb_event_init(ev);
	ev->seq = line;
	ev->ts = l->ts;
	ev->cpu = l->cpu;
	ev->kind = def->kind;
	ev->type = def->type;
	ev->pid = l->pid;
	ev->comm = l->comm;
	if (def->type == MDB_TYPE_PAGE)
		return build_page(d, l, ev);
	return build_slab(d, l, line, ev);
}

/* ---- stacks ----------------------------------------------------------- */

static struct ft_held *held(struct ft_dec *d, size_t k)
{
	return &d->pend.q[(d->pend.head + k) % FT_HOLD];
}

/* Hand on the held events from the first, while they are done. */
static int pend_emit(struct ft_dec *d, const struct mdb_sink *sink, int all)
{
	struct ft_pend *pd = &d->pend;

	while (pd->len && (all || held(d, 0)->done)) {
		struct ft_held *h = held(d, 0);
		int ret;

		h->ev.nstack = h->broken ? 0 : h->n;
		h->ev.stack = h->ev.nstack ? h->frames : NULL;
		ret = sink->event(sink->ctx, &h->ev);
		if (ret < 0)
			return ret;
		pd->head = (pd->head + 1) % FT_HOLD;
		pd->len--;
		pd->cur = pd->cur > 0 ? pd->cur - 1 : -1;
	}
	return 0;
}

/*
 * A line that is not a stack line: the stack being read ends, and the
 * held event of CPU @cpu (>= 0) gets no stack after this line.
 */
static void pend_line(struct ft_dec *d, int32_t cpu)
{
	struct ft_pend *pd = &d->pend;

	if (pd->cur >= 0)
		held(d, (size_t)pd->cur)->done = 1;
	pd->cur = -1;
	for (size_t k = 0; cpu >= 0 && k < pd->len; k++)
		if (held(d, k)->ev.cpu == cpu)
			held(d, k)->done = 1;
}

/* Hold @ev, the event of a line (after pend_line() for it). */
static int pend_hold(struct ft_dec *d, const struct mdb_sink *sink,
		     const struct mdb_event *ev)
{
	struct ft_pend *pd = &d->pend;
	struct ft_held *h;
	int ret;

	if (pd->len == FT_HOLD) {
		/* a stack is a few lines after its event, never this far */
		held(d, 0)->done = 1;
		ret = pend_emit(d, sink, 0);
		if (ret < 0)
			return ret;
	}
	h = held(d, pd->len++);
	h->ev = *ev;
	h->done = 0;
	h->broken = 0;
	h->n = 0;
	return pend_emit(d, sink, 0);
}

/* ftrace's "<stack trace>" on CPU @cpu: the stack of its held event. */
static void pend_stack_hdr(struct ft_dec *d, int32_t cpu)
{
	struct ft_pend *pd = &d->pend;

	pend_line(d, -1);
	for (size_t k = pd->len; k-- > 0;) {
		struct ft_held *h = held(d, k);

		if (h->ev.cpu == cpu) {
			if (!h->done && !h->n)
				pd->cur = (long)k;
			return;
		}
	}
}

/* Another event's line: ftrace's "<stack trace>", or it ends stacks. */
static int pend_other(struct ft_dec *d, const struct ft_line *l,
		      const struct mdb_sink *sink)
{
	if (l->stack_hdr)
		pend_stack_hdr(d, l->cpu);
	else
		pend_line(d, l->cpu);
	return pend_emit(d, sink, 0);
}

/*
 * ftrace " => func+0xoff/0xsize [mod]", " => func" (without the
 * sym-offset option: the function's start) or " => 0xaddr": its address.
 */
static int ftrace_frame(struct ft_dec *d, const char *p, const char *le,
			uint64_t *addr)
{
	const char *t = p, *plus, *slash, *mod = NULL;
	uint64_t off, size;
	size_t mlen = 0;

	while (t < le && !is_space((unsigned char)*t))
		t++;
	if (has_0x(p, (size_t)(t - p)))
		return parse_hex0x(p, (size_t)(t - p), addr);
	plus = memchr(p, '+', (size_t)(t - p));
	slash = plus ? memchr(plus, '/', (size_t)(t - plus)) : NULL;
	off = size = 0; /* without sym-offset: the function's start */
	if (!d->o->ksyms || (plus && !slash) ||
	    (slash && (parse_hex0x(plus + 1, (size_t)(slash - plus - 1),
				   &off) ||
		       parse_hex0x(slash + 1, (size_t)(t - slash - 1),
				   &size))))
		return -1;
	while (t < le && is_space((unsigned char)*t))
		t++;
	if (le - t > 2 && *t == '[' && le[-1] == ']') {
		mod = t + 1;
		mlen = (size_t)(le - t - 2);
	}
	if (mdb_kallsyms_addr_sized(d->o->ksyms, p, (size_t)((plus ? plus : t) - p),
				    mod, mlen, size, addr) < 0)
		return -1;
	*addr += off;
	return 0;
}

/*
 * A stack line after the held event: perf script's "<hex> sym (dso)"
 * (kernel frames: the upper half of the address space) or ftrace's
 * " => ..." after a "<stack trace>" line.
 */
static void pend_frame(struct ft_dec *d, const char *p, const char *le)
{
	struct ft_pend *pd = &d->pend;
	struct ft_held *h;
	const char *t;
	uint64_t addr;
	int ftrace;

	while (p < le && is_space((unsigned char)*p))
		p++;
	ftrace = le - p >= 2 && p[0] == '=' && p[1] == '>';
	/* perf script: the lines right after the event */
	if (!ftrace && pd->cur < 0 && pd->len && !held(d, pd->len - 1)->done &&
	    !held(d, pd->len - 1)->n)
		pd->cur = (long)pd->len - 1;
	if (pd->cur < 0)
		return;
	h = held(d, (size_t)pd->cur);
	if (h->n == MDB_MAX_STACK)
		return;
	if (ftrace) {
		for (p += 2; p < le && is_space((unsigned char)*p);)
			p++;
		if (ftrace_frame(d, p, le, &addr))
			h->broken = 1;
		else
			h->frames[h->n++] = addr;
		return;
	}
	for (t = p; t < le && !is_space((unsigned char)*t);)
		t++;
	if (!parse_hex(p, (size_t)(t - p), &addr) && addr >> 63)
		h->frames[h->n++] = addr;
}

/* ---- messages --------------------------------------------------------- */

static void describe_bad(const struct ft_dec *d, const struct ft_line *l,
			 char *buf, size_t len)
{
	const char *ev = l->def ? l->def->name : "kmem";
	const char *f = l->bad_field >= 0 ? field_name[l->bad_field] : "";

	switch (l->bad) {
	case BAD_NOT_TRACE:
		snprintf(buf, len, "not a trace line");
		break;
	case BAD_NO_EVENT:
		snprintf(buf, len, "truncated line (nothing after the time)");
		break;
	case BAD_CUT_NAME:
		snprintf(buf, len, "truncated line (event name cut short)");
		break;
	case BAD_TS:
		snprintf(buf, len, "bad timestamp");
		break;
	case BAD_NO_FIELD:
		snprintf(buf, len, "truncated %s event (no %s=)", ev, f);
		break;
	case BAD_VALUE:
		snprintf(buf, len, "bad %s= value in %s event", f, ev);
		break;
	case BAD_WIDTH:
		snprintf(buf, len, "truncated %s= value in %s event (%d hex "
			 "digits, the file's pointers have %d)", f, ev,
			 l->width, d->ptr_digits);
		break;
	case BAD_ORDER:
		snprintf(buf, len, "page order out of range in %s event", ev);
		break;
	case BAD_PFN:
		snprintf(buf, len, "pfn out of range in %s event", ev);
		break;
	case BAD_CUT_LINE:
		snprintf(buf, len, "last line without its newline: the file "
			 "is cut short, the line may be too");
		break;
	}
}

static void warn(const struct ft_dec *d, int64_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(const struct ft_dec *d, int64_t line, const char *fmt, ...)
{
	struct mdb_error w;
	va_list ap;

	if (!d->o->warn)
		return;
	mdb_error_set(&w, MDB_E_CORRUPT, d->o->name, -1, line, NULL);
	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof(w.msg), fmt, ap);
	va_end(ap);
	d->o->warn(d->o->warn_ctx, &w);
}

/* ---- the decoder ------------------------------------------------------ */

#define FT_SNIFF_BYTES (1u << 20) /* prefix mdb_ft_sniff() looks at */

int mdb_ft_probe(const void *buf, size_t len)
{
	struct mdb_ft_sniff s;

	if (!len)
		return 0;
	mdb_ft_sniff(buf, len < FT_SNIFF_BYTES ? len : FT_SNIFF_BYTES, &s);
	return s.is_trace;
}

int mdb_ft_describe(const void *buf, size_t len, struct mdb_decode_opts *o,
		    struct mdb_source_meta *m, struct mdb_error *e)
{
	struct mdb_ft_sniff s;

	(void)o;
	(void)e;
	memset(&s, 0, sizeof(s));
	if (len)
		mdb_ft_sniff(buf, len < FT_SNIFF_BYTES ? len : FT_SNIFF_BYTES, &s);
	m->word_size = s.ptr_digits / 2;
	m->ncpus = s.ncpus;
	m->hashed_ptrs = s.hashed;
	m->unknown_what = "lines of other events and stack traces";
	if (s.hashed)
		snprintf(m->notes, sizeof(m->notes),
			 "pointers are hashed (hash-ptr): they pair, but are "
			 "not addresses");
	return 0;
}

/* The pointer width and hashing of @buf: given in o->priv, or sniffed. */
static void ft_params_of(const void *buf, size_t len,
			 const struct mdb_decode_opts *o, struct ft_dec *d)
{
	const struct ft_params *fp = o->priv;
	struct mdb_ft_sniff s;

	if (fp) {
		d->hashed = fp->hashed;
		d->ptr_digits = fp->ptr_digits;
		return;
	}
	memset(&s, 0, sizeof(s));
	if (len)
		mdb_ft_sniff(buf, len < FT_SNIFF_BYTES ? len : FT_SNIFF_BYTES, &s);
	d->hashed = s.hashed;
	d->ptr_digits = s.ptr_digits;
}

/* Classify the line [p, le) (@cut: no newline ends it); build its event. */
static enum ft_kind read_line(struct ft_dec *d, const char *p, const char *le,
			      int cut, int64_t line, struct ft_line *l,
			      struct mdb_event *ev)
{
	enum ft_kind k = ft_line(p, le, l);

	if (k == FT_EVENT && build_event(d, l, line, ev))
		k = FT_BAD;
	if (cut && k != FT_BLANK && k != FT_HEADER && k != FT_BAD) {
		/* its last field may be a prefix of what was printed:
		 * never an event */
		k = FT_BAD;
		l->bad = BAD_CUT_LINE;
	}
	if (k != FT_EVENT && k != FT_OTHER && k != FT_STACK)
		pend_line(d, -1);
	return k;
}

/*
 * A malformed line: counted and warned about, or with --strict an error
 * (the events held before it are handed on first, as read).
 */
static int bad_line(struct ft_dec *d, const struct ft_line *l,
		    int64_t line, struct mdb_decode_stats *st,
		    const struct mdb_sink *sink, struct mdb_error *e)
{
	char why[200];

	describe_bad(d, l, why, sizeof(why));
	st->malformed++;
	if (d->o->strict) {
		int ret = pend_emit(d, sink, 1);

		if (ret < 0)
			return ret;
		mdb_error_set(e, MDB_E_CORRUPT, d->o->name, -1, line, "%s",
			      why);
		mdb_error_msg(e, "malformed line");
		mdb_error_hint(e, "without --strict, malformed lines are "
				  "counted and skipped");
		return -MDB_E_CORRUPT;
	}
	if (st->malformed <= FT_WARN_LINES)
		warn(d, line, "%s", why);
	return 0;
}

int mdb_ft_decode(const void *buf, size_t len, const struct mdb_decode_opts *o,
		  const struct mdb_sink *sink, struct mdb_decode_stats *st,
		  struct mdb_error *e)
{
	const char *start = buf, *p = start, *end = start + len;
	struct ft_dec d = { .o = o, .unresolved_line = -1, .pend.cur = -1 };
	size_t done_next = o->done_step;
	int32_t maxcpu = -1;
	int hdr_cpus = 0, ret = 0;
	int64_t line = 0;

	memset(st, 0, sizeof(*st));
	ft_params_of(buf, len, o, &d);
	mdb_u64map_init(&d.sym_idx);
	d.page_size = o->page_size ? o->page_size : FT_PAGE_SIZE;
	d.pend.q = malloc(FT_HOLD * sizeof(*d.pend.q));
	if (!d.pend.q)
		return mdb_error_set(e, MDB_E_NOMEM, o->name, -1, -1, NULL);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct ft_line l;
		struct mdb_event ev;
		enum ft_kind k;
		const char *p0 = p;

		line++;
		if (le > p && le[-1] == '\r')
			le--;
		k = read_line(&d, p, le, !nl, line, &l, &ev);
		p = nl ? nl + 1 : end;
		switch (k) {
		case FT_EVENT:
			pend_line(&d, l.cpu);
			ret = pend_hold(&d, sink, &ev);
			if (ret < 0)
				goto out;
			if (!st->events++)
				st->first_seq = line;
			st->last_seq = line;
			if (l.cpu > maxcpu)
				maxcpu = l.cpu;
			break;
		case FT_OTHER:
			if (l.cpu > maxcpu)
				maxcpu = l.cpu;
			ret = pend_other(&d, &l, sink);
			if (ret < 0)
				goto out;
			st->unknown++;
			break;
		case FT_STACK:
			pend_frame(&d, p0, le);
			st->unknown++;
			break;
		case FT_LOST:
			/* a count-less marker lost at least one event */
			st->lost_events += l.lost ? l.lost : 1;
			break;
		case FT_HEADER:
			if (l.ncpus > hdr_cpus)
				hdr_cpus = l.ncpus;
			break;
		case FT_NONE:
		case FT_BLANK:
			break;
		case FT_BAD:
			ret = bad_line(&d, &l, line, st, sink, e);
			if (ret < 0)
				goto out;
			break;
		}
		if (o->done && (size_t)(p - start) >= done_next) {
			o->done(o->done_ctx, (size_t)(p - start));
			done_next = (size_t)(p - start) + o->done_step;
		}
	}
	ret = pend_emit(&d, sink, 1);
	if (ret < 0)
		goto out;
	st->records = (uint64_t)line;
	st->ncpus = maxcpu + 1 > hdr_cpus ? maxcpu + 1 : hdr_cpus;
	if (d.unresolved)
		warn(&d, -1, "%" PRIu64 " events have call sites the kallsyms "
		     "does not know, kept as text (first '%s' at line %"
		     PRId64 ")", d.unresolved, d.unresolved_text,
		     d.unresolved_line);
	if (d.size_mismatch)
		warn(&d, -1, "%" PRIu64 " events have call sites whose "
		     "function size differs from the kallsyms: is it of "
		     "another kernel build?", d.size_mismatch);
out:
	syms_release(&d);
	free(d.pend.q);
	return ret;
}

/* ---- sniffing --------------------------------------------------------- */

void mdb_ft_sniff(const void *buf, size_t len, struct mdb_ft_sniff *s)
{
	const char *p = buf, *end;
	uint64_t w16 = 0, w8 = 0, high16 = 0, low8 = 0, n16 = 0, n8 = 0;
	uint64_t trace_lines = 0, other_lines = 0;
	int tracer_header = 0;

	memset(s, 0, sizeof(*s));
	if (!len || memchr(p, '\0', len < 4096 ? len : 4096))
		return;
	end = p + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct ft_line l;
		enum ft_kind k;

		if (!nl && s->lines)
			break; /* a cut last line says nothing */
		s->lines++;
		k = ft_line(p, le, &l);
		if (k == FT_HEADER) {
			const char *q = p;

			while (q < le && is_space((unsigned char)*q))
				q++;
			if (le - q >= 9 && !memcmp(q, "# tracer:", 9))
				tracer_header = 1;
			if (l.ncpus > s->ncpus)
				s->ncpus = l.ncpus;
		} else if (k == FT_EVENT || k == FT_OTHER || k == FT_LOST) {
			trace_lines++;
		} else if (k == FT_BAD) {
			other_lines++;
		}
		p = nl ? nl + 1 : end;
		if (k != FT_EVENT)
			continue;
		s->events++;
		split_fields(l.f, l.fe, &l);
		for (int i = 0; i < 2; i++) {
			int f = i ? F_PAGE : F_PTR;
			const struct mdb_str *v = &l.v[f];
			uint64_t x;

			if (!(l.have & B(f)) || is_null_form(v) ||
			    has_0x(v->p, v->len) || parse_hex(v->p, v->len, &x))
				continue;
			s->pointers++;
			if (v->len == 16) {
				w16++;
				/* NULL and error pointers print unhashed */
				if (x && x < (uint64_t)-4095) {
					n16++;
					high16 += x >> 32 != 0;
				}
			} else if (v->len == 8) {
				w8++;
				if (x && x < (uint32_t)-4095) {
					n8++;
					low8 += x < 0x40000000;
				}
			}
		}
		if (s->pointers >= SNIFF_POINTERS)
			break;
	}
	/* a tracer header, or trace lines outnumbering anything else */
	s->is_trace = tracer_header || (trace_lines && trace_lines >= other_lines);
	if (w16 > w8 && w16 * 2 > s->pointers)
		s->ptr_digits = 16;
	else if (w8 > w16 && w8 * 2 > s->pointers)
		s->ptr_digits = 8;
	/*
	 * The kernel's hashed %p is a 32-bit siphash: on 64-bit kernels it
	 * prints with the upper half zero, where every real kernel pointer
	 * has it set; on 32-bit kernels it falls below PAGE_OFFSET (at
	 * least 0x40000000) where no slab object lives.
	 */
	if (s->ptr_digits == 16)
		s->hashed = n16 && !high16;
	else if (s->ptr_digits == 8)
		s->hashed = low8 > 0;
}
