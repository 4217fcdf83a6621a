// SPDX-License-Identifier: MIT
/* memdb record: the kmem tracepoints as a tracefs copy; see record.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/file.h"
#include "record.h"

/* Where tracefs is mounted, or NULL. */
static const char *mdb_tracefs_dir(void);

#define MAX_CPUS 4096
#define POLL_NS 50000000L /* between looks at the ring buffers */
#define DEFAULT_BUFFER_KB 16384

/*
 * The kmem events memdb reads, by every name they have had: the _node
 * variants before 6.1, the page-free names before 3.3.  The page events
 * come last: they are recorded with --page only (as perf kmem record).
 */
static const char *const kmem_events[] = {
	"kmalloc", "kmalloc_node", "kfree", "kmem_cache_alloc",
	"kmem_cache_alloc_node", "kmem_cache_free",
	"mm_page_alloc", "mm_page_free", "mm_page_free_direct",
	"mm_pagevec_free", "mm_page_free_batched",
};

#define NEVENTS (sizeof(kmem_events) / sizeof(kmem_events[0]))
#define NSLAB_EVENTS 6

struct rec_cpu {
	int in, out;
};

struct rec {
	const struct mdb_record_opts *o;
	const char *tracefs;
	char *inst;           /* the instance directory */
	struct rec_cpu *cpus;
	int ncpus;
	size_t subbuf;        /* bytes per read of trace_pipe_raw */
	char *page;
	uint64_t bytes;
	struct mdb_error *e;
};

static const char *mdb_tracefs_dir(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	struct stat st;

	for (size_t i = 0; i < 2; i++) {
		char *ev = mdb_path_join(dirs[i], "events/kmem");
		int ok = ev && stat(ev, &st) == 0 && S_ISDIR(st.st_mode);

		free(ev);
		if (ok)
			return dirs[i];
	}
	return NULL;
}

static char *pathf(const char *a, const char *b, const char *c)
{
	char *p;

	if (asprintf(&p, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "") < 0)
		return NULL;
	return p;
}

static int io_error(struct rec *r, const char *path, const char *what)
{
	return mdb_error_set(r->e, MDB_E_IO, path, -1, -1, "%s%s%s", what,
			     *what ? ": " : "", strerror(errno));
}

/* Write the string @s to an existing tracefs file. */
static int put(struct rec *r, const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return io_error(r, path, "");
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = io_error(r, path, "write");
	close(fd);
	return ret;
}

/* Copy @src (a proc or tracefs file: read to EOF) to @dst.  Missing
 * sources are skipped when @optional. */
static int copy(struct rec *r, const char *src, const char *dst,
		int optional)
{
	int in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK), out, ret = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return optional ? 0 : io_error(r, src, "");
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return io_error(r, dst, "");
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			ret = io_error(r, dst, "write");
			break;
		}
	if (n < 0 && !ret && !(optional && errno == EACCES))
		ret = io_error(r, src, "read");
	close(in);
	if (close(out) < 0 && !ret)
		ret = io_error(r, dst, "close");
	return ret;
}

static int mkdirs(struct rec *r, const char *path)
{
	char *p = strdup(path);
	int ret = 0;

	if (!p)
		return mdb_error_nomem(r->e);
	for (char *s = p + 1; ; s++) {
		char c = *s;

		if (c != '/' && c)
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			ret = io_error(r, p, "mkdir");
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

/* The output directory: new, or an empty existing one. */
static int make_outdir(struct rec *r, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return mkdirs(r, dir);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			mdb_error_set(r->e, MDB_E_INVAL, dir, -1, -1, NULL);
			mdb_error_msg(r->e, "output directory is not empty");
			return -MDB_E_INVAL;
		}
	closedir(d);
	return 0;
}

/* One kmem event: copy its format (when enabling) and switch it. */
static int switch_event(struct rec *r, const char *name, const char *on,
			int *found)
{
	char *en = pathf(r->inst, "events/kmem", name);
	char *fmt = en ? pathf(en, "format", NULL) : NULL;
	char *enable = en ? pathf(en, "enable", NULL) : NULL;
	char *dir = pathf(r->o->outdir, "events/kmem", name);
	char *dst = dir ? pathf(dir, "format", NULL) : NULL;
	struct stat st;
	int ret = 0;

	*found = 0;
	if (!fmt || !enable || !dst)
		ret = -1;
	else if (stat(fmt, &st) == 0) {
		*found = 1;
		if (*on == '1')
			ret = mkdirs(r, dir);
		if (!ret && *on == '1')
			ret = copy(r, fmt, dst, 0);
		if (!ret)
			ret = put(r, enable, on);
	}
	free(en);
	free(fmt);
	free(enable);
	free(dir);
	free(dst);
	return ret;
}

/* Enable ("1") or disable ("0") every kmem event this kernel has. */
static int enable_events(struct rec *r, struct mdb_record_result *res,
			 const char *on)
{
	size_t n = 0, len = 0;

	res->events[0] = '\0';
	for (size_t i = 0; i < (r->o->pages ? NEVENTS : NSLAB_EVENTS); i++) {
		int found, ret = switch_event(r, kmem_events[i], on, &found);

		if (ret)
			return ret;
		if (found && len + strlen(kmem_events[i]) + 2 <
				     sizeof(res->events))
			len += (size_t)snprintf(res->events + len,
						sizeof(res->events) - len,
						"%s%s", n ? " " : "",
						kmem_events[i]);
		n += (size_t)found;
	}
	if (!n) {
		mdb_error_set(r->e, MDB_E_FORMAT, r->inst, -1, -1, NULL);
		mdb_error_msg(r->e, "no kmem tracepoints in this kernel");
		return -MDB_E_FORMAT;
	}
	return 0;
}

/* Open CPU @c's trace_pipe_raw and its copy; 1 when there is no CPU @c. */
static int open_cpu(struct rec *r, int c)
{
	char name[32], *src, *raw, *dir, *dst;
	struct stat st;
	int ret = 0;

	snprintf(name, sizeof(name), "cpu%d", c);
	src = pathf(r->inst, "per_cpu", name);
	raw = src ? pathf(src, "trace_pipe_raw", NULL) : NULL;
	dir = pathf(r->o->outdir, "per_cpu", name);
	dst = dir ? pathf(dir, "trace_pipe_raw", NULL) : NULL;
	if (!raw || !dst)
		ret = -1;
	else if (stat(raw, &st) < 0)
		ret = 1;
	else if (!(ret = mkdirs(r, dir))) {
		r->cpus[c].in = open(raw, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->cpus[c].in < 0)
			ret = io_error(r, raw, "");
		else if ((r->cpus[c].out = open(dst, O_WRONLY | O_CREAT |
						     O_TRUNC | O_CLOEXEC,
						0644)) < 0)
			ret = io_error(r, dst, "");
	}
	free(src);
	free(raw);
	free(dir);
	free(dst);
	return ret;
}

/* Open every CPU's trace_pipe_raw and its copy. */
static int open_cpus(struct rec *r)
{
	r->cpus = malloc(MAX_CPUS * sizeof(*r->cpus));
	if (!r->cpus)
		return -1;
	for (int c = 0; c < MAX_CPUS; c++) {
		int ret;

		r->cpus[c].in = r->cpus[c].out = -1;
		ret = open_cpu(r, c);
		if (ret == 1)
			break;
		r->ncpus = c + 1;
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Move what CPU @c's ring buffer holds to its copy, at most @pages pages
 * (0: all).  While tracing runs, the bound matters: each write allocates
 * memory, which is traced on this CPU, and reading on until the buffer is
 * empty would copy page after page holding little but the recorder's own
 * events.
 */
static int drain_cpu(struct rec *r, int c, uint64_t pages)
{
	ssize_t n = 0;

	for (uint64_t i = 0; !pages || i < pages; i++) {
		n = read(r->cpus[c].in, r->page, r->subbuf);
		if (n <= 0)
			break;
		if (write(r->cpus[c].out, r->page, (size_t)n) != n)
			return io_error(r, r->o->outdir, "write");
		r->bytes += (uint64_t)n;
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return io_error(r, r->inst, "trace_pipe_raw");
	return 0;
}

static int drain(struct rec *r)
{
	int ret = 0;

	for (int c = 0; c < r->ncpus && !ret; c++)
		ret = drain_cpu(r, c, 0);
	return ret;
}

/* Bytes CPU @c's ring buffer holds unread (per_cpu/cpuN/stats). */
static uint64_t unread_bytes(struct rec *r, int c)
{
	char name[40], buf[512], *p;
	char *path;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "per_cpu/cpu%d", c);
	path = pathf(r->inst, name, "stats");
	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0)
		return UINT64_MAX;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	p = strstr(buf, "\nbytes: ");
	return p ? strtoull(p + 8, NULL, 10) : UINT64_MAX;
}

/*
 * Drain the ring buffers that are half full.  Reading a buffer that holds
 * little returns its pages half empty, and writing them allocates memory,
 * which is traced: draining everything on a timer would trace mostly the
 * recorder.
 */
static int drain_ready(struct rec *r)
{
	uint64_t half = (uint64_t)(r->o->buffer_kb ? r->o->buffer_kb :
						      DEFAULT_BUFFER_KB) * 512;
	int ret = 0;

	for (int c = 0; c < r->ncpus && !ret; c++) {
		uint64_t unread = unread_bytes(r, c);

		/* the pages that were full when looked at, and the one the
		 * writer was on */
		if (unread != UINT64_MAX && unread >= half)
			ret = drain_cpu(r, c, unread / r->subbuf + 1);
	}
	return ret;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pid_t start_command(struct rec *r)
{
	pid_t pid;

	if (!r->o->command)
		return 0;
	pid = fork();
	if (pid == 0) {
		execvp(r->o->command[0], r->o->command);
		_exit(127);
	}
	if (pid < 0)
		io_error(r, r->o->command[0], "fork");
	return pid;
}

/* Trace until the duration, the command's end or *stop. */
static int trace_loop(struct rec *r, struct mdb_record_result *res)
{
	double end = r->o->duration > 0 ? now() + r->o->duration : 0;
	struct timespec pause = { 0, POLL_NS };
	pid_t pid = start_command(r);
	int ret = 0, status;

	if (pid < 0)
		return -MDB_E_IO;
	res->command_status = -1;
	while (!ret) {
		ret = drain_ready(r);
		if (r->o->stop && *r->o->stop)
			break;
		if (end && now() >= end)
			break;
		if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
			res->command_status = WIFEXITED(status) ?
				WEXITSTATUS(status) : 128 + WTERMSIG(status);
			pid = 0;
			break;
		}
		if (!r->o->command && !end && !r->o->stop)
			break;
		nanosleep(&pause, NULL);
	}
	if (pid > 0) {
		/* interrupted: the command gets the same signal */
		kill(pid, SIGINT);
		if (waitpid(pid, &status, 0) == pid)
			res->command_status = WIFEXITED(status) ?
				WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	return ret;
}

static uint64_t read_overruns(const char *stats)
{
	FILE *f = fopen(stats, "r");
	char line[256];
	unsigned long long v = 0, sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "overrun: %llu", &v) == 1)
			sum += v;
	fclose(f);
	return sum;
}

/* Per-CPU stats, the boot's symbols and the snapshots after the trace. */
static int save_after(struct rec *r, struct mdb_record_result *res)
{
	struct utsname u;
	int ret = 0;

	for (int c = 0; c < r->ncpus && !ret; c++) {
		char name[32], *src, *dst;

		snprintf(name, sizeof(name), "per_cpu/cpu%d", c);
		src = pathf(r->inst, name, "stats");
		dst = pathf(r->o->outdir, name, "stats");
		ret = src && dst ? copy(r, src, dst, 1) :
			mdb_error_nomem(r->e);
		if (!ret)
			res->overruns += read_overruns(dst);
		free(src);
		free(dst);
	}
	if (!ret && uname(&u) == 0) {
		char *p = pathf(r->o->outdir, "kernel-release", NULL);
		FILE *f = p ? fopen(p, "w") : NULL;

		if (f) {
			fprintf(f, "%s\n", u.release);
			fclose(f);
		}
		free(p);
	}
	{
		static const char *const files[][2] = {
			{ "/proc/kallsyms", "kallsyms" },
			{ "/proc/slabinfo", "slabinfo.after" },
			{ "/proc/allocinfo", "allocinfo" },
		};

		for (size_t i = 0; i < 3 && !ret; i++) {
			char *dst = pathf(r->o->outdir, files[i][1], NULL);

			ret = dst ? copy(r, files[i][0], dst, 1) : -1;
			free(dst);
		}
	}
	if (!ret) {
		/* the names of the tasks the events name (common_pid) */
		char *src = pathf(r->tracefs, "saved_cmdlines", NULL);
		char *dst = pathf(r->o->outdir, "saved_cmdlines", NULL);

		ret = src && dst ? copy(r, src, dst, 1) : -1;
		free(src);
		free(dst);
	}
	return ret;
}

/* Ring-buffer layout files and the sub-buffer size. */
static int save_layout(struct rec *r)
{
	static const char *const names[] = { "header_page", "header_event" };
	char *sub = pathf(r->inst, "buffer_subbuf_size_kb", NULL);
	int ret = 0;

	for (size_t i = 0; i < 2 && !ret; i++) {
		char *src = pathf(r->tracefs, "events", names[i]);
		char *dst = pathf(r->o->outdir, names[i], NULL);

		ret = src && dst ? copy(r, src, dst, 0) : -1;
		free(src);
		free(dst);
	}
	r->subbuf = (size_t)sysconf(_SC_PAGESIZE);
	if (!ret && sub) {
		char *dst = pathf(r->o->outdir, "buffer_subbuf_size_kb", NULL);
		FILE *f = fopen(sub, "r");
		unsigned kb = 0;

		if (f && fscanf(f, "%u", &kb) == 1 && kb)
			r->subbuf = (size_t)kb * 1024;
		if (f)
			fclose(f);
		ret = dst ? copy(r, sub, dst, 1) : -1;
		free(dst);
	}
	free(sub);
	r->page = malloc(r->subbuf);
	return ret ? ret : r->page ? 0 : -1;
}

static int setup(struct rec *r, struct mdb_record_result *res)
{
	char kb[32];
	char *sz = pathf(r->inst, "buffer_size_kb", NULL), *slab;
	int ret;

	if (mkdir(r->inst, 0755) < 0) {
		free(sz);
		return io_error(r, r->inst, "creating the tracefs instance");
	}
	snprintf(kb, sizeof(kb), "%u", r->o->buffer_kb ? r->o->buffer_kb :
							 DEFAULT_BUFFER_KB);
	ret = sz ? put(r, sz, kb) : -1;
	free(sz);
	if (!ret)
		ret = save_layout(r);
	slab = pathf(r->o->outdir, "slabinfo.before", NULL);
	if (!ret)
		ret = slab ? copy(r, "/proc/slabinfo", slab, 1) : -1;
	free(slab);
	if (!ret)
		ret = open_cpus(r);
	if (!ret)
		ret = enable_events(r, res, "1");
	return ret;
}

static void teardown(struct rec *r)
{
	struct mdb_record_result ign;

	for (int c = 0; r->cpus && c < r->ncpus; c++) {
		if (r->cpus[c].in >= 0)
			close(r->cpus[c].in);
		if (r->cpus[c].out >= 0)
			close(r->cpus[c].out);
	}
	free(r->cpus);
	free(r->page);
	if (r->inst) {
		struct mdb_error e2, *saved = r->e;

		r->e = &e2;
		(void)enable_events(r, &ign, "0");
		r->e = saved;
		rmdir(r->inst);
		free(r->inst);
	}
}

int mdb_record(const struct mdb_record_opts *o, struct mdb_record_result *res,
	       struct mdb_error *e)
{
	struct rec r = { .o = o, .e = e };
	int ret;

	memset(res, 0, sizeof(*res));
	res->command_status = -1;
	r.tracefs = o->tracefs ? o->tracefs : mdb_tracefs_dir();
	if (!r.tracefs) {
		mdb_error_set(e, MDB_E_IO, "/sys/kernel/tracing", -1, -1, NULL);
		mdb_error_msg(e, "tracefs is not mounted");
		mdb_error_hint(e, "mount -t tracefs nodev /sys/kernel/tracing");
		return -MDB_E_IO;
	}
	ret = make_outdir(&r, o->outdir);
	if (ret)
		return ret;
	if (asprintf(&r.inst, "%s/instances/memdb-%ld", r.tracefs,
		     (long)getpid()) < 0) {
		r.inst = NULL;
		return mdb_error_nomem(e);
	}
	ret = setup(&r, res);
	if (ret == -1)
		ret = mdb_error_nomem(e);
	if (!ret)
		ret = trace_loop(&r, res);
	if (!ret) {
		/* stop the events, then take what is left in the buffers */
		struct mdb_record_result ign;

		ret = enable_events(&r, &ign, "0");
		if (!ret)
			ret = drain(&r);
	}
	if (!ret)
		ret = save_after(&r, res);
	res->ncpus = r.ncpus;
	res->bytes = r.bytes;
	teardown(&r);
	return ret == -1 ? mdb_error_nomem(e) :
			   ret;
}
