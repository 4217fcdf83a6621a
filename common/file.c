// SPDX-License-Identifier: MIT
/* File access wrappers; see file.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"

/*
 * ---- mapped files that shrink -------------------------------------------
 *
 * Reading a page of a mapping past the end of a file that was truncated
 * after mmap(2) raises SIGBUS.  Every mapping mdb_map_file() makes is
 * watched: the SIGBUS handler replaces the rest of such a mapping by zero
 * pages (so the reader runs on, reading zeros, and nothing is unwound) and
 * records the fault; mdb_map_check() then turns it into an error naming
 * the file.  The table is read by the handler without a lock: a slot is
 * published by storing its start last and retired by clearing it first;
 * chunks are never freed.
 */
#define WATCH_SLOTS 64

struct watch_slot {
	_Atomic uintptr_t start, end; /* start 0: a free slot */
	_Atomic uintptr_t fault;      /* first faulting address, 0: none */
	char *path;                   /* under watch_mu only */
};

struct watch_chunk {
	struct watch_slot slot[WATCH_SLOTS];
	struct watch_chunk *_Atomic next;
};

static struct watch_chunk watch_first;
static pthread_mutex_t watch_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction watch_old;
static int watch_installed;  /* once: watch_old is what was there */
static uintptr_t watch_page;
static atomic_int watch_faults;
static char *fault_path;   /* a faulted mapping already unmapped */
static uintptr_t fault_off;
/* this thread is guarded (mdb_map_guard()), and it faulted meanwhile */
static _Thread_local volatile sig_atomic_t guard_on, guard_hit;

/* Zero pages over [@addr's page, @end) of a watched mapping. */
static int watch_patch(uintptr_t addr, uintptr_t end)
{
	uintptr_t page = addr & ~(watch_page - 1);
	uintptr_t stop = (end + watch_page - 1) & ~(watch_page - 1);

	return mmap((void *)page, stop - page, PROT_READ,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	       MAP_FAILED ? -1 : 0;
}

/* The slot whose mapping holds @addr, or NULL. */
static struct watch_slot *watch_find(uintptr_t addr)
{
	for (struct watch_chunk *c = &watch_first; c; c = atomic_load(&c->next))
		for (int i = 0; i < WATCH_SLOTS; i++) {
			struct watch_slot *s = &c->slot[i];
			uintptr_t start = atomic_load(&s->start);

			if (start && addr >= start &&
			    addr < atomic_load(&s->end) &&
			    atomic_load(&s->start) == start)
				return s;
		}
	return NULL;
}

/* One zero page of a guarded library's mapping, writable: the library
 * may have mapped its file private and writable. */
static int lib_patch(uintptr_t addr)
{
	return mmap((void *)(addr & ~(watch_page - 1)), watch_page,
		    PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	       MAP_FAILED ? -1 : 0;
}

static void watch_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t addr = (uintptr_t)si->si_addr, none = 0;
	struct watch_slot *s = watch_find(addr);

	if (s && watch_patch(addr, atomic_load(&s->end)) == 0) {
		atomic_compare_exchange_strong(&s->fault, &none, addr);
		atomic_fetch_add(&watch_faults, 1);
		return;
	}
	/* a page of a guarded library's own mapping past its file's end:
	 * that page alone, the rest of the mapping being unknown here */
	if (!s && guard_on && si->si_code == BUS_ADRERR &&
	    lib_patch(addr) == 0) {
		guard_hit = 1;
		return;
	}
	/* not ours: what was there before decides */
	if ((watch_old.sa_flags & SA_SIGINFO) && watch_old.sa_sigaction) {
		watch_old.sa_sigaction(sig, si, uc);
	} else if (watch_old.sa_handler != SIG_DFL &&
		   watch_old.sa_handler != SIG_IGN) {
		watch_old.sa_handler(sig);
	} else {
		/* the fault repeats on return, under the default action */
		signal(SIGBUS, SIG_DFL);
	}
}

/* Install the handler, again when someone replaced it since. */
static int watch_install(void)
{
	struct sigaction sa, cur;

	if (watch_installed && sigaction(SIGBUS, NULL, &cur) == 0 &&
	    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == watch_handler)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = watch_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	watch_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (sigaction(SIGBUS, &sa, watch_installed ? NULL : &watch_old) < 0)
		return -1;
	watch_installed = 1;
	return 0;
}

/* A free slot, a new chunk's when all are taken; NULL on ENOMEM. */
static struct watch_slot *watch_free_slot(void)
{
	struct watch_chunk *c = &watch_first, *n;

	for (;;) {
		for (int i = 0; i < WATCH_SLOTS; i++)
			if (!atomic_load(&c->slot[i].start) &&
			    !c->slot[i].path)
				return &c->slot[i];
		n = atomic_load(&c->next);
		if (!n)
			break;
		c = n;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	atomic_store(&c->next, n);
	return &n->slot[0];
}

static int map_watch(const void *p, size_t len, const char *path)
{
	struct watch_slot *s;
	int ret = -1;

	pthread_mutex_lock(&watch_mu);
	if (watch_install() == 0 && (s = watch_free_slot()) &&
	    (s->path = strdup(path))) {
		atomic_store(&s->fault, 0);
		atomic_store(&s->end, (uintptr_t)p + len);
		atomic_store(&s->start, (uintptr_t)p);
		ret = 0;
	}
	pthread_mutex_unlock(&watch_mu);
	return ret;
}

static void map_unwatch(const void *p)
{
	struct watch_slot *s;

	pthread_mutex_lock(&watch_mu);
	s = watch_find((uintptr_t)p);
	if (s && atomic_load(&s->start) == (uintptr_t)p) {
		uintptr_t fault = atomic_load(&s->fault);

		atomic_store(&s->start, 0);
		atomic_store(&s->end, 0);
		if (fault && !fault_path) {
			fault_path = s->path;
			fault_off = (fault - (uintptr_t)p) & ~(watch_page - 1);
		} else {
			free(s->path);
		}
		s->path = NULL;
	}
	pthread_mutex_unlock(&watch_mu);
}

/* The first recorded fault: its file (malloc'ed) and page offset. */
static char *watch_take_fault(uintptr_t *off)
{
	char *path = NULL;

	for (struct watch_chunk *c = &watch_first; c && !path;
	     c = atomic_load(&c->next))
		for (int i = 0; i < WATCH_SLOTS && !path; i++) {
			struct watch_slot *s = &c->slot[i];
			uintptr_t f = atomic_exchange(&s->fault, 0);

			if (f && s->path) {
				path = strdup(s->path);
				*off = (f - atomic_load(&s->start)) &
				       ~(watch_page - 1);
			}
		}
	if (!path && fault_path) {
		path = fault_path;
		*off = fault_off;
		fault_path = NULL;
	}
	return path;
}

/*
 * The refusal of @path, which @what ("shrank", "changed") while read: cut
 * short at @off (-1: not known); its sizes @now and @was when known.
 */
static int file_moved(struct mdb_error *e, const char *path,
		      const char *what, int64_t off,
		      const struct mdb_stamp *now, const struct mdb_stamp *was)
{
	if (now)
		mdb_error_set(e, MDB_E_IO, path, off, -1, "size=%lld was=%lld",
			      (long long)now->size, (long long)was->size);
	else
		mdb_error_set(e, MDB_E_IO, path, off, -1, NULL);
	mdb_error_msg(e, "the file %s while memdb read it", what);
	mdb_error_hint(e, "another program truncated or rewrote it: ingest "
			  "a copy nothing writes to; the database is "
			  "unchanged");
	return -MDB_E_IO;
}

int mdb_file_shrank(struct mdb_error *e, const char *path, int64_t off)
{
	return file_moved(e, path, "shrank", off, NULL, NULL);
}

int mdb_map_check(int ret, struct mdb_error *e)
{
	uintptr_t off = 0;
	char *path;

	if (!atomic_load(&watch_faults))
		return ret;
	pthread_mutex_lock(&watch_mu);
	atomic_store(&watch_faults, 0);
	path = watch_take_fault(&off);
	free(fault_path);
	fault_path = NULL;
	pthread_mutex_unlock(&watch_mu);
	ret = mdb_file_shrank(e, path ? path : "", (int64_t)off);
	free(path);
	return ret;
}

void mdb_map_guard(void)
{
	pthread_mutex_lock(&watch_mu);
	watch_install();   /* failing, a SIGBUS kills as it did */
	pthread_mutex_unlock(&watch_mu);
	guard_hit = 0;
	guard_on = 1;
}

int mdb_map_guard_hit(void)
{
	return guard_hit != 0;
}

int mdb_map_unguard(void)
{
	int hit = guard_hit != 0;

	guard_on = 0;
	guard_hit = 0;
	return hit;
}

int mdb_stamp_fd(int fd, const char *path, struct mdb_stamp *s,
		 struct mdb_error *e)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "fstat: %s",
				     strerror(errno));
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtim = st.st_mtim;
	return 0;
}

int mdb_stamp_check(int fd, const struct mdb_stamp *was, const char *path,
		    struct mdb_error *e)
{
	struct mdb_stamp now;
	int ret = mdb_stamp_fd(fd, path, &now, e);

	if (ret)
		return ret;
	if (now.size < was->size)
		return file_moved(e, path, "shrank", (int64_t)now.size, &now,
				  was);
	if (now.dev == was->dev && now.ino == was->ino &&
	    now.size == was->size && now.mtim.tv_sec == was->mtim.tv_sec &&
	    now.mtim.tv_nsec == was->mtim.tv_nsec)
		return 0;
	/* grown or rewritten: what was read may mix old and new bytes */
	return file_moved(e, path, "changed", -1, &now, was);
}

/* What @st is when it is not a regular file, for a message. */
static const char *file_kind(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO (named pipe)";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "a device";
	return NULL;
}

int mdb_path_error(const char *path, int err, struct mdb_error *e)
{
	if (err == ENOENT || err == ENOTDIR)
		return mdb_error_fail(e, MDB_E_NOTFOUND, path, -1, -1,
				      "no such file", NULL);
	return mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s", strerror(err));
}

int mdb_file_kind_error(const char *path, const struct stat *st,
			struct mdb_error *e)
{
	const char *kind = file_kind(st);

	mdb_error_set(e, MDB_E_IO, path, -1, -1, NULL);
	if (kind)
		mdb_error_msg(e, "%s, not a regular file", kind);
	else
		mdb_error_msg(e, "not a regular file");
	if (S_ISFIFO(st->st_mode))
		mdb_error_hint(e, "memdb reads files, not pipes: give - to "
				  "read a stream on standard input");
	return -MDB_E_IO;
}

/*
 * Open @path for reading only when it is a regular file: the type is
 * checked before open(2) (a FIFO without a writer blocks the opener
 * forever) and again on the descriptor, which O_NONBLOCK keeps from
 * blocking should the path change in between.
 */
int mdb_open_regular(const char *path, struct stat *st, struct mdb_error *e)
{
	int fd;

	if (stat(path, st) < 0)
		return mdb_path_error(path, errno, e);
	if (!S_ISREG(st->st_mode))
		return mdb_file_kind_error(path, st, e);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return mdb_path_error(path, errno, e);
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		int err = errno;

		if (S_ISREG(st->st_mode))
			mdb_error_set(e, MDB_E_IO, path, -1, -1, "%s",
				      strerror(err));
		else
			mdb_file_kind_error(path, st, e);
		close(fd);
		return -MDB_E_IO;
	}
	return fd;
}

int mdb_map_file(const char *path, struct mdb_map *m, struct mdb_error *e)
{
	struct stat st;
	void *p;
	int fd;

	memset(m, 0, sizeof(*m));
	fd = mdb_open_regular(path, &st, e);
	if (fd < 0)
		return fd;
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return mdb_error_set(e, MDB_E_LIMIT, path, -1, -1,
				     "size=%lld", (long long)st.st_size);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		int err = errno;

		close(fd);
		/* no room for the mapping is no fault of the file's */
		return mdb_error_set(e, err == ENOMEM ? MDB_E_NOMEM : MDB_E_IO,
				     path, -1, -1, "mmap: %s", strerror(err));
	}
	close(fd);
	if (map_watch(p, (size_t)st.st_size, path) < 0) {
		munmap(p, (size_t)st.st_size);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	m->data = p;
	m->len = (size_t)st.st_size;
	m->mapped = 1;
	return 0;
}

void mdb_map_done(struct mdb_map *m, size_t upto)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!m->mapped || !m->data)
		return;
	if (upto > m->len)
		upto = m->len;
	upto &= ~(page - 1);
	if (upto)
		madvise((void *)m->data, upto, MADV_DONTNEED);
}

void mdb_unmap(struct mdb_map *m)
{
	if (m->mapped && m->data) {
		map_unwatch(m->data);
		munmap((void *)m->data, m->len);
	}
	else
		free((void *)m->data);
	memset(m, 0, sizeof(*m));
}

int mdb_read_small(const char *path, size_t max, char **out, size_t *len,
		   struct mdb_error *e)
{
	struct stat st;
	FILE *f;
	char *buf;
	size_t n;
	int fd;

	*out = NULL;
	fd = mdb_open_regular(path, &st, e);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return mdb_error_set(e, MDB_E_NOMEM, path, -1, -1, NULL);
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return mdb_error_set(e, MDB_E_IO, path, -1, -1, "read error");
	}
	fclose(f);
	if (n > max) {
		free(buf);
		mdb_error_set(e, MDB_E_LIMIT, path, -1, -1, "max=%zu", max);
		mdb_error_msg(e, "file too large for its role");
		return -MDB_E_LIMIT;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

char *mdb_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *s = malloc(dl + nl + 2);

	if (!s)
		return NULL;
	memcpy(s, dir, dl);
	if (dl && dir[dl - 1] != '/')
		s[dl++] = '/';
	memcpy(s + dl, name, nl + 1);
	return s;
}
