// SPDX-License-Identifier: MIT
/*
 * A copy of tracefs: the raw ring-buffer pages of each CPU
 * (per_cpu/cpuN/trace_pipe_raw) with the page layout (header_page, at
 * the top as `memdb record` writes it, or events/header_page as `cp -r`
 * of tracefs or of an instance gives it) and the formats of the kmem
 * events (events/kmem/EVENT/format) (docs/formats.md §6.3).
 *
 * Pages are walked with libtraceevent's kbuffer, events decoded by field
 * name with the capture's own formats (tep_kmem.c).  Each page is checked
 * before kbuffer sees it (its commit size inside the sub-buffer, every
 * event inside the commit) and copied into a padded buffer, so a corrupt
 * page is an error at its file offset, never a read past the input.
 * The CPUs are merged by timestamp, ties to the lower CPU.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "../../common/u64map.h"
#include "../hash.h"
#include "../input.h"
#include "tep_kmem.h"
#include "tracefs.h"

#define TFS_FORMAT "tracefs"
#define MAX_CPUS 4096
#define PAD 64                 /* zero bytes after a page copy */
#define MAX_SUBBUF (1u << 20)  /* the kernel allows up to 1 MiB */
/* commit: the data size in the low 30 bits, the kernel's missed-events
 * flags (1 << 31, 1 << 30, sign-extended into a 64-bit long) above */
#define COMMIT_MASK ((1ULL << 30) - 1)

struct tfs_cpu {
	int cpu;
	char *path;
	struct mdb_map map;
	size_t next;          /* offset of the next page */
	size_t page_off;      /* offset of the page loaded */
	struct kbuffer *kb;
	uint8_t *page;        /* a copy of the page loaded, padded */
	void *data;           /* the current event, NULL at the end */
	unsigned long long ts;
};

struct tfs {
	char *dir;
	struct tep_handle *tep;
	struct tep_kmem km;
	struct tfs_cpu *cpus;
	int ncpus;
	size_t subbuf;        /* bytes per page in trace_pipe_raw */
	size_t hdr;           /* timestamp + commit */
	int long_size;
	enum mdb_order order;
	uint64_t lost;
	char *cmdlines;       /* saved_cmdlines, NULL when absent */
	struct u64map comm;   /* pid -> offset << 8 | length in cmdlines */
};

/* ---- the layout: header_page, buffer_subbuf_size_kb ------------------ */

/* "size:N" of the header_page line holding @field. */
static int header_field(const char *hp, const char *field, long *offset,
			long *size)
{
	const char *p = strstr(hp, field), *q;

	if (!p || !(q = strstr(p, "offset:")))
		return -1;
	*offset = strtol(q + 7, NULL, 10);
	if (!(q = strstr(p, "size:")))
		return -1;
	*size = strtol(q + 5, NULL, 10);
	return 0;
}

/*
 * The header_page of copy @dir, malloc'd: memdb record's at the top, else
 * where tracefs itself keeps it (events/header_page: a `cp -r` of tracefs
 * or of an instance).  NULL when neither is a regular file.
 */
static char *header_page_path(const char *dir)
{
	static const char *const where[] = { "header_page",
					     "events/header_page" };
	struct stat st;

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char *p = mdb_path_join(dir, where[i]);

		if (!p || (stat(p, &st) == 0 && S_ISREG(st.st_mode)))
			return p;
		free(p);
	}
	return NULL;
}

static int read_layout(struct tfs *t, struct mdb_error *e)
{
	char *path = header_page_path(t->dir), *hp = NULL;
	long coff, csize, doff, dsize;
	int ret;

	if (!path) /* gone since the probe: the read below says so */
		path = mdb_path_join(t->dir, "header_page");
	if (!path)
		return mdb_error_nomem(e);
	ret = mdb_read_small(path, 4096, &hp, NULL, e);
	if (ret == 0 && (header_field(hp, "commit;", &coff, &csize) ||
			 header_field(hp, "data;", &doff, &dsize) ||
			 (csize != 4 && csize != 8) || coff != 8 ||
			 doff != 8 + csize || dsize <= 0 ||
			 doff + dsize > (long)MAX_SUBBUF)) {
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
		mdb_error_msg(e, "not a ring-buffer header_page");
		ret = -MDB_E_FORMAT;
	}
	if (ret == 0) {
		t->long_size = (int)csize;
		t->hdr = (size_t)doff;
		t->subbuf = (size_t)(doff + dsize);
	}
	free(hp);
	free(path);
	if (ret)
		return ret;
	/* since 6.8 the sub-buffer may be larger than a page */
	path = mdb_path_join(t->dir, "buffer_subbuf_size_kb");
	if (path && mdb_read_small(path, 32, &hp, NULL, e) == 0) {
		long kb = strtol(hp, NULL, 10);

		if (kb > 0 && (size_t)kb * 1024 <= MAX_SUBBUF)
			t->subbuf = (size_t)kb * 1024;
		free(hp);
	}
	free(path);
	return 0;
}

/* ---- the event formats ------------------------------------------------ */

static int parse_format(struct tfs *t, const char *path, struct mdb_error *e)
{
	char *buf = NULL;
	size_t len;
	int ret = mdb_read_small(path, 1u << 20, &buf, &len, e);

	if (ret < 0)
		return ret;
	ret = mdb_tep_kmem_parse_format(t->tep, buf, len, "kmem");
	if (ret) {
		mdb_error_set(e, MDB_E_FORMAT, path, -1, -1, NULL);
		mdb_error_msg(e, ret > 0 ? "malformed event format" :
					   "event format libtraceevent cannot "
					   "parse");
		ret = -MDB_E_FORMAT;
	}
	free(buf);
	return ret;
}

static int read_formats(struct tfs *t, uint64_t page_size,
			struct mdb_error *e)
{
	t->tep = tep_alloc();
	if (!t->tep)
		return mdb_error_nomem(e);
	tep_set_long_size(t->tep, t->long_size);
	tep_set_file_bigendian(t->tep, t->order == MDB_ORDER_BIG ?
				       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (size_t i = 0; mdb_tep_kmem_name(i); i++) {
		char *path;
		struct stat st;
		int ret = 0;

		if (asprintf(&path, "%s/events/kmem/%s/format", t->dir,
			     mdb_tep_kmem_name(i)) < 0)
			return mdb_error_nomem(e);
		if (stat(path, &st) == 0)
			ret = parse_format(t, path, e);
		free(path);
		if (ret < 0)
			return ret;
	}
	return mdb_tep_kmem_init(&t->km, t->tep, page_size, t->dir, e);
}

/* ---- the per-CPU page files ------------------------------------------- */

static int add_cpu(struct tfs *t, int cpu, const char *path,
		   struct mdb_error *e)
{
	struct tfs_cpu *c = &t->cpus[t->ncpus];
	int ret;

	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->path = strdup(path);
	if (!c->path)
		return mdb_error_nomem(e);
	t->ncpus++;
	ret = mdb_map_file(path, &c->map, e);
	if (ret < 0)
		return ret;
	if (c->map.len % t->subbuf) {
		mdb_error_set(e, MDB_E_TRUNCATED, path,
			      (int64_t)(c->map.len - c->map.len % t->subbuf),
			      -1, "subbuf=%zu have=%zu", t->subbuf,
			      c->map.len % t->subbuf);
		mdb_error_msg(e, "last ring-buffer page cut short");
		return -MDB_E_TRUNCATED;
	}
	return 0;
}

static int scan_cpus(struct tfs *t, struct mdb_error *e)
{
	t->cpus = calloc(MAX_CPUS, sizeof(*t->cpus));
	if (!t->cpus)
		return mdb_error_nomem(e);
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		char *path;
		struct stat st;
		int ret;

		if (asprintf(&path, "%s/per_cpu/cpu%d/trace_pipe_raw", t->dir,
			     cpu) < 0)
			return mdb_error_nomem(e);
		if (stat(path, &st) < 0) {
			free(path);
			continue;
		}
		ret = add_cpu(t, cpu, path, e);
		free(path);
		if (ret < 0)
			return ret;
	}
	if (!t->ncpus) {
		mdb_error_set(e, MDB_E_FORMAT, t->dir, -1, -1, NULL);
		mdb_error_msg(e, "no per_cpu/cpuN/trace_pipe_raw files");
		return -MDB_E_FORMAT;
	}
	return 0;
}

/* The commit size of page @p read in byte order @o. */
static uint64_t page_commit(const struct tfs *t, const uint8_t *p,
			    enum mdb_order o)
{
	uint64_t v = t->long_size == 8 ? get_u64(p + 8, o) : get_u32(p + 8, o);

	return v & COMMIT_MASK;
}

/* The byte order the first non-empty page's commit size makes sense in. */
static int detect_order(struct tfs *t, enum mdb_order forced,
			struct mdb_error *e)
{
	size_t limit = t->subbuf - t->hdr;

	t->order = forced;
	if (forced != MDB_ORDER_UNKNOWN)
		return 0;
	for (int i = 0; i < t->ncpus; i++) {
		struct tfs_cpu *c = &t->cpus[i];

		for (size_t off = 0; off < c->map.len; off += t->subbuf) {
			uint64_t le = page_commit(t, c->map.data + off,
						  MDB_ORDER_LITTLE);
			uint64_t be = page_commit(t, c->map.data + off,
						  MDB_ORDER_BIG);

			/* in the wrong order the size lands in the high
			 * bytes: its low 30 bits are 0 or out of range */
			if (!le && !be)
				continue;
			int le_ok = le && le <= limit;

			if (le_ok != (be && be <= limit)) {
				t->order = le_ok ? MDB_ORDER_LITTLE :
						   MDB_ORDER_BIG;
				return 0;
			}
			break;
		}
	}
	t->order = MDB_ORDER_LITTLE; /* nothing to tell: no events at all */
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].map.len) {
			mdb_error_set(e, MDB_E_ENDIAN, t->cpus[i].path, 0, -1,
				      NULL);
			mdb_error_msg(e, "byte order cannot be told from the "
					 "ring-buffer pages");
			mdb_error_hint(e, "give --endian little or big");
			return -MDB_E_ENDIAN;
		}
	return 0;
}

/* ---- walking the pages ------------------------------------------------ */

static int page_error(const struct tfs_cpu *c, size_t off, const char *what,
		      uint64_t v, struct mdb_error *e)
{
	mdb_error_set(e, MDB_E_CORRUPT, c->path, (int64_t)off, -1,
		      "value=%" PRIu64, v);
	mdb_error_msg(e, "%s", what);
	return -MDB_E_CORRUPT;
}

/* Load the next page with events into c->kb; 0 at the end of the file. */
static int load_page(struct tfs *t, struct tfs_cpu *c, struct mdb_error *e)
{
	while (c->next < c->map.len) {
		const uint8_t *p = c->map.data + c->next;
		uint64_t commit = page_commit(t, p, t->order);
		int missed;

		c->page_off = c->next;
		c->next += t->subbuf;
		mdb_map_done(&c->map, c->page_off);
		if (commit > t->subbuf - t->hdr)
			return page_error(c, c->page_off + 8,
					  "page commit size past the page end",
					  commit, e);
		if (!commit)
			continue;
		memcpy(c->page, p, t->hdr + commit);
		memset(c->page + t->hdr + commit, 0,
		       t->subbuf + PAD - t->hdr - commit);
		if (kbuffer_load_subbuffer(c->kb, c->page) < 0)
			return page_error(c, c->page_off,
					  "ring-buffer page kbuffer refuses",
					  commit, e);
		missed = kbuffer_missed_events(c->kb);
		if (missed)
			t->lost += missed > 0 ? (uint64_t)missed : 1;
		c->data = kbuffer_read_event(c->kb, &c->ts);
		if (c->data)
			return 1;
	}
	c->data = NULL;
	return 0;
}

/* Check the current event lies inside the page's commit. */
static int check_event(struct tfs *t, struct tfs_cpu *c, size_t *size,
		       struct mdb_error *e)
{
	size_t start = (size_t)((uint8_t *)c->data - c->page);
	int n = kbuffer_event_size(c->kb);
	uint64_t commit = page_commit(t, c->page, t->order);

	if (n < 0 || start < t->hdr || start > t->hdr + commit ||
	    (size_t)n > t->hdr + commit - start)
		return page_error(c, c->page_off + start,
				  "event runs past the page's data", (uint64_t)n,
				  e);
	*size = (size_t)n;
	return 0;
}

/* The next event of CPU @c (reloading pages); 0 at its end. */
static int cpu_next(struct tfs *t, struct tfs_cpu *c, struct mdb_error *e)
{
	if (c->data) {
		c->data = kbuffer_next_event(c->kb, &c->ts);
		if (c->data)
			return 1;
	}
	return load_page(t, c, e);
}

/* The CPU whose current event comes first (ties: the lower CPU). */
static struct tfs_cpu *first_cpu(struct tfs *t)
{
	struct tfs_cpu *best = NULL;

	for (int i = 0; i < t->ncpus; i++) {
		struct tfs_cpu *c = &t->cpus[i];

		if (c->data && (!best || c->ts < best->ts))
			best = c;
	}
	return best;
}

/*
 * saved_cmdlines, when the copy has it: "<pid> <comm>" lines, the names
 * the kernel kept for the tasks of the events.  Lines of another shape
 * are skipped: the names are an addition, never needed.
 */
static int read_cmdlines(struct tfs *t, struct mdb_error *e)
{
	char *path = mdb_path_join(t->dir, "saved_cmdlines");
	size_t len = 0;
	struct stat st;
	int ret = 0;

	mdb_u64map_init(&t->comm);
	if (!path)
		return mdb_error_set(e, MDB_E_NOMEM, t->dir, -1, -1, NULL);
	if (stat(path, &st) == 0)
		ret = mdb_read_small(path, 16u << 20, &t->cmdlines, &len, e);
	free(path);
	for (char *p = t->cmdlines; ret == 0 && p && *p;) {
		char *nl = strchr(p, '\n'), *q;
		unsigned long pid = strtoul(p, &q, 10);
		size_t n;
		int added;
		uint64_t *v;

		if (!nl)
			nl = p + strlen(p);
		n = (size_t)(nl - q - 1);
		if (q > p && *q == ' ' && q + 1 < nl && n < 256 &&
		    pid <= INT32_MAX) {
			v = mdb_u64map_put(&t->comm, pid, 0, &added);
			if (!v)
				return mdb_error_set(e, MDB_E_NOMEM, t->dir,
						     -1, -1, NULL);
			*v = (uint64_t)(q + 1 - t->cmdlines) << 8 | n;
		}
		p = *nl ? nl + 1 : nl;
	}
	return ret;
}

/*
 * The name of the event's task, as the kernel's trace text gives it:
 * "<idle>" for pid 0 (which saved_cmdlines never lists), the name
 * saved_cmdlines has for the pid, none when it has no name or "<...>"
 * (docs/usage.md, Tasks and stacks).
 */
static void tfs_comm(struct tfs *t, struct mdb_event *ev)
{
	static const size_t unk_len = sizeof(MDB_COMM_UNKNOWN) - 1;
	uint64_t *v;
	const char *p;
	size_t n;

	if (ev->pid == 0) {
		ev->comm.p = MDB_COMM_IDLE;
		ev->comm.len = sizeof(MDB_COMM_IDLE) - 1;
	}
	if (ev->pid <= 0 || !t->cmdlines)
		return;
	v = mdb_u64map_get(&t->comm, (uint64_t)ev->pid);
	if (!v)
		return;
	p = t->cmdlines + (*v >> 8);
	n = (size_t)(*v & 255);
	if (n == unk_len && !memcmp(p, MDB_COMM_UNKNOWN, n))
		return;
	ev->comm.p = p;
	ev->comm.len = n;
}

static int tfs_emit(struct tfs *t, struct tfs_cpu *c,
		    const struct mdb_sink *sink, struct mdb_decode_stats *st,
		    struct mdb_error *e)
{
	struct mdb_event ev;
	size_t size = 0;
	int ret = check_event(t, c, &size, e);

	if (ret < 0)
		return ret;
	st->records++;
	mdb_event_init(&ev);
	ret = mdb_tep_kmem_event(&t->km, c->data, size, &ev);
	if (ret < 0)
		return page_error(c, c->page_off + (size_t)((uint8_t *)c->data -
							    c->page),
				  "kmem event shorter than its format", size,
				  e);
	if (!ret) {
		st->unknown++;
		return 0;
	}
	ev.seq = (int64_t)st->records;
	ev.ts = (int64_t)c->ts;
	ev.cpu = c->cpu;
	tfs_comm(t, &ev);
	if (!st->events++)
		st->first_seq = ev.seq;
	st->last_seq = ev.seq;
	return sink->event(sink->ctx, &ev);
}

static int tfs_decode(struct mdb_input *in, const struct mdb_sink *sink,
		      struct mdb_decode_stats *st, struct mdb_error *e)
{
	struct tfs *t = in->priv;
	struct tfs_cpu *c;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	/* progress: the pages read of every CPU's file */
	in->size = 0;
	atomic_store_explicit(&in->done, 0, memory_order_relaxed);
	for (int i = 0; i < t->ncpus; i++)
		in->size += t->cpus[i].map.len;
	for (int i = 0; i < t->ncpus && ret >= 0; i++)
		ret = load_page(t, &t->cpus[i], e);
	while (ret >= 0 && (c = first_cpu(t))) {
		size_t at = c->page_off;

		ret = tfs_emit(t, c, sink, st, e);
		if (ret >= 0)
			ret = cpu_next(t, c, e);
		if (c->page_off > at)
			mdb_input_advance(in, c->page_off - at);
	}
	if (ret < 0)
		return ret;
	st->lost_events = t->lost;
	if (!st->events) {
		mdb_error_set(e, MDB_E_EMPTY, t->dir, -1, -1,
			      "records=%" PRIu64, st->records);
		mdb_error_msg(e, "no kmem events");
		return -MDB_E_EMPTY;
	}
	return 0;
}

static void tfs_free(struct tfs *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ncpus; i++) {
		mdb_unmap(&t->cpus[i].map);
		if (t->cpus[i].kb)
			kbuffer_free(t->cpus[i].kb);
		free(t->cpus[i].page);
		free(t->cpus[i].path);
	}
	free(t->cpus);
	free(t->cmdlines);
	mdb_u64map_release(&t->comm);
	mdb_tep_kmem_release(&t->km);
	if (t->tep)
		tep_free(t->tep);
	free(t->dir);
	free(t);
}

static void tfs_close(struct mdb_input *in)
{
	tfs_free(in->priv);
	free(in);
}

static const struct mdb_input_ops tfs_ops = {
	.decode = tfs_decode,
	.close = tfs_close,
};

/* kbuffers and page copies, once the byte order is known. */
static int tfs_buffers(struct tfs *t, struct mdb_error *e)
{
	for (int i = 0; i < t->ncpus; i++) {
		struct tfs_cpu *c = &t->cpus[i];

		c->kb = kbuffer_alloc(t->long_size == 8 ? KBUFFER_LSIZE_8 :
							  KBUFFER_LSIZE_4,
				      t->order == MDB_ORDER_BIG ?
					      KBUFFER_ENDIAN_BIG :
					      KBUFFER_ENDIAN_LITTLE);
		c->page = malloc(t->subbuf + PAD);
		if (!c->kb || !c->page)
			return mdb_error_nomem(e);
	}
	return 0;
}

/* The overrun counts of per_cpu/cpuN/stats, when they were kept. */
static int64_t tfs_overruns(const struct tfs *t)
{
	int64_t sum = -1;

	for (int i = 0; i < t->ncpus; i++) {
		char *path, *buf = NULL, *p;
		struct mdb_error ign;

		if (asprintf(&path, "%s/per_cpu/cpu%d/stats", t->dir,
			     t->cpus[i].cpu) < 0)
			continue;
		if (mdb_read_small(path, 4096, &buf, NULL, &ign) == 0 &&
		    (p = strstr(buf, "overrun: ")))
			sum = (sum < 0 ? 0 : sum) + strtoll(p + 9, NULL, 10);
		free(buf);
		free(path);
	}
	return sum;
}

static int tfs_hash(struct tfs *t, struct mdb_source_meta *m,
		    struct mdb_error *e)
{
	struct mdb_hasher *h = mdb_hash_begin(TFS_FORMAT, e);

	if (!h)
		return -MDB_E_NOMEM;
	m->data_bytes = 0;
	for (int i = 0; i < t->ncpus; i++) {
		uint8_t tag[12];

		put_le32(tag, (uint32_t)t->cpus[i].cpu);
		put_le64(tag + 4, t->cpus[i].map.len);
		mdb_hash_update(h, tag, sizeof(tag));
		mdb_hash_map(h, &t->cpus[i].map, MDB_RELEASE_STEP);
		m->data_bytes += t->cpus[i].map.len;
	}
	mdb_hash_end(h, m);
	return 0;
}

static int tfs_open(struct tfs *t, const struct mdb_ingest_opts *o,
		    struct mdb_source_meta *m, struct mdb_error *e)
{
	int ret = read_layout(t, e);

	if (!ret)
		ret = scan_cpus(t, e);
	if (!ret)
		ret = detect_order(t, o->order, e);
	if (!ret)
		ret = read_formats(t, o->page_size, e);
	if (!ret)
		ret = tfs_buffers(t, e);
	if (!ret)
		ret = tfs_hash(t, m, e);
	if (!ret)
		ret = read_cmdlines(t, e);
	if (ret)
		return ret;
	m->format = TFS_FORMAT;
	m->abi_version = -1;
	m->order = t->order;
	m->word_size = t->long_size;
	m->ncpus = t->ncpus;
	m->whole_capture = 1;
	m->overruns = tfs_overruns(t);
	ret = mdb_read_release(t->dir, m, e);
	if (ret < 0)
		return ret;
	return mdb_attach_scan(m, t->dir, e);
}

int mdb_tfs_is_capture(const char *dir)
{
	char *hp = header_page_path(dir);
	char *pc = mdb_path_join(dir, "per_cpu");
	struct stat st;
	int yes = hp && pc && stat(pc, &st) == 0 && S_ISDIR(st.st_mode);

	free(hp);
	free(pc);
	return yes;
}

int mdb_tfs_input_open(const char *dir, const struct mdb_ingest_opts *o,
		       struct mdb_input **out, struct mdb_error *e)
{
	struct mdb_input *in = calloc(1, sizeof(*in));
	struct tfs *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!mdb_tfs_is_capture(dir)) {
		free(in);
		free(t);
		return 1;
	}
	if (!in || !t || !(t->dir = strdup(dir))) {
		ret = mdb_error_set(e, MDB_E_NOMEM, dir, -1, -1, NULL);
		goto fail;
	}
	ret = tfs_open(t, o, &in->meta, e);
	if (ret)
		goto fail;
	in->ops = &tfs_ops;
	in->priv = t;
	*out = in;
	return 0;
fail:
	tfs_free(t);
	free(in);
	return ret;
}
