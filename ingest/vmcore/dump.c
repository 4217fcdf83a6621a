// SPDX-License-Identifier: MIT
/*
 * A kernel core dump opened through libkdumpfile: ELF (kdump's
 * /proc/vmcore, QEMU dump-guest-memory), kdump-compressed (makedumpfile)
 * and, reassembled first, makedumpfile's flattened format.  The library
 * translates kernel virtual addresses (page tables, KASLR) from the
 * dump's VMCOREINFO.  A page the dump does not hold (filtered out by
 * makedumpfile -d) is a failed read, never zeros.
 *
 * Symbols come from the boot's kallsyms or System.map, checked against
 * the SYMBOL() lines of VMCOREINFO: equal (a kallsyms of that boot) or
 * off by KERNELOFFSET (a System.map of a KASLR boot), else refused.
 * Types come from the kernel's BTF, read out of the dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#include <xxhash.h>

#include "../../common/dl.h"
#include "../../common/file.h"
#include "../kallsyms.h"
#include "vmdump.h"

#define BTF_MAX (256u << 20)

/*
 * libkdumpfile is loaded when a core dump is first opened, not when
 * memdb starts: through libsnappy it brings libstdc++ and four more
 * libraries, whose loading every start of every memdb command would pay,
 * and only a core dump needs it.  The soname is the one built
 * against (MDB_KDUMP_SONAME, from the Makefile), the prototypes its
 * header's; kd_open_fd() and the attribute calls are the header's own
 * inline functions over the entry points it names.
 */
static struct {
	__typeof__(kdump_new) *new_ctx;
	__typeof__(kdump_free) *free_ctx;
	__typeof__(kdump_open_fdset) *open_fdset;
	__typeof__(kdump_read) *read;
	__typeof__(kdump_get_err) *get_err;
	__typeof__(kdump_strerror) *strerror;
	__typeof__(kdump_set_attr) *set_attr;
	__typeof__(kdump_get_typed_attr) *get_typed_attr;
	__typeof__(kdump_vmcoreinfo_raw) *vmcoreinfo_raw;
} kd;
static char *kd_fail;  /* why it could not be loaded (dlerror()) */
static pthread_mutex_t kd_lock = PTHREAD_MUTEX_INITIALIZER;

/* Load it, or fill kd_fail; tried again at the next dump if it failed. */
static void kd_load(void)
{
	static const struct mdb_dl_sym sym[] = {
		{ "kdump_new", (void **)&kd.new_ctx },
		{ "kdump_free", (void **)&kd.free_ctx },
		{ "kdump_open_fdset", (void **)&kd.open_fdset },
		{ "kdump_read", (void **)&kd.read },
		{ "kdump_get_err", (void **)&kd.get_err },
		{ "kdump_strerror", (void **)&kd.strerror },
		{ "kdump_set_attr", (void **)&kd.set_attr },
		{ "kdump_get_typed_attr", (void **)&kd.get_typed_attr },
		{ "kdump_vmcoreinfo_raw", (void **)&kd.vmcoreinfo_raw },
	};
	/* the tests name a library that is not there */
	const char *so = secure_getenv("MEMDB_TEST_KDUMP_SONAME");

	free(kd_fail);
	mdb_dl_load(so && *so ? so : MDB_KDUMP_SONAME, sym,
		    sizeof(sym) / sizeof(sym[0]), &kd_fail);
}

/*
 * Load libkdumpfile (once it worked); when it cannot be, -MDB_E_DEPEND
 * (@e filled), or -MDB_E_NOMEM when dlerror() says an allocation failed.
 * dlerror() is all the loader tells: where the library is not there the
 * hint says what to install; where it could not be mapped (no room in
 * the address space, or a mount or a security policy that forbids it:
 * glibc says which only sometimes) the hint says both.
 */
static int kd_ready(const char *name, struct mdb_error *e)
{
	const char *why;
	int code = 0;

	/* under the lock: another thread's retry frees kd_fail */
	pthread_mutex_lock(&kd_lock);
	if (!kd.new_ctx)
		kd_load();
	if (!kd.new_ctx) {
		why = kd_fail ? kd_fail : "out of memory";
		code = !kd_fail || strstr(why, "Cannot allocate memory") ?
		       MDB_E_NOMEM : MDB_E_DEPEND;
		mdb_error_set(e, code, name, -1, -1, "dlopen=\"%s\"", why);
		mdb_error_msg(e, "%scannot load libkdumpfile (%s), which memdb "
				 "reads core dumps with", code == MDB_E_NOMEM ?
				 "out of memory: " : "", MDB_KDUMP_SONAME);
		if (strstr(why, "No such file or directory"))
			mdb_error_hint(e, "install it: apt-get install "
					  "libkdumpfile10");
		else if (strstr(why, "failed to map"))
			mdb_error_hint(e, "the loader could not map it: out of "
					  "memory (ulimit -v), or a noexec "
					  "mount or a security policy");
	}
	pthread_mutex_unlock(&kd_lock);
	return -code;
}

/*
 * libkdumpfile maps the file itself by default, outside the guard memdb
 * keeps on its own mappings (common/file.h): a dump cut short, or one
 * that shrinks while it is read, would kill memdb with SIGBUS.  With
 * read(2) the same dump is a read error libkdumpfile reports.
 */
static kdump_status kd_open_fd(kdump_ctx_t *ctx, int fd)
{
	kdump_attr_t attr;
	kdump_status st;

	attr.type = KDUMP_NUMBER;
	attr.val.number = KDUMP_MMAP_NEVER;
	st = kd.set_attr(ctx, KDUMP_ATTR_FILE_MMAP_POLICY, &attr);
	if (st != KDUMP_OK)
		return st;
	return kd.open_fdset(ctx, 1, &fd);
}

static kdump_status kd_set_string_attr(kdump_ctx_t *ctx, const char *key,
				       const char *str)
{
	kdump_attr_t attr;

	attr.type = KDUMP_STRING;
	attr.val.string = str;
	return kd.set_attr(ctx, key, &attr);
}

/* Attribute @key of @type: KDUMP_OK and its value in *@val, or why not. */
static kdump_status kd_get_typed(kdump_ctx_t *ctx, const char *key,
				 kdump_attr_type_t type,
				 kdump_attr_value_t *val)
{
	kdump_attr_t attr;
	kdump_status ret;

	attr.type = type;
	ret = kd.get_typed_attr(ctx, key, &attr);
	if (ret == KDUMP_OK)
		*val = attr.val;
	return ret;
}

static int dump_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct vm_dump *d = ctx;
	size_t n = len;
	kdump_status st = kd.read(d->k, KDUMP_KVADDR, addr, buf, &n);

	if (st == KDUMP_OK && n == len)
		return 0;
	d->last = st;
	d->last_addr = addr;
	if (st == KDUMP_ERR_NODATA) {
		d->filtered++;
	} else if (st != KDUMP_ERR_ADDRXLAT && !d->bad_reads++) {
		/* the file itself: cut short, corrupt, unreadable */
		d->bad_status = st;
		d->bad_addr = addr;
		snprintf(d->bad_msg, sizeof(d->bad_msg), "%s",
			 kd.get_err(d->k));
	}
	return -1;
}

/* @name's value in the kallsyms, System.map or vmlinux given. */
static int raw_sym(struct vm_dump *d, const char *name, uint64_t *addr)
{
	uint64_t *v;

	if (!d->have_vsyms)
		return mdb_kallsyms_any_addr(&d->ks, name, addr);
	v = mdb_u64map_get(&d->vsyms, XXH64(name, strlen(name), 0));
	if (!v)
		return -1;
	*addr = *v;
	return 0;
}

static int dump_sym(void *ctx, const char *name, uint64_t *addr)
{
	struct vm_dump *d = ctx;
	uint64_t a;

	if (raw_sym(d, name, &a))
		return -1;
	/* KASLR moves the image; per-CPU symbols (vm_event_states) of
	 * x86-64 are offsets into each CPU's area, the same in every boot */
	*addr = mdb_vm_arch_image_addr(d->c.arch, a) ? a + d->delta : a;
	return 0;
}

struct symcheck {
	struct vm_dump *d;
	int have;
	uint64_t delta;
	const char *bad;
	size_t bad_len;
	uint64_t bad_vmci, bad_file;
	uint64_t matched;
};

static int symcheck_one(void *ctx, const char *name, size_t len, uint64_t v)
{
	struct symcheck *s = ctx;
	char *n = strndup(name, len);
	uint64_t a;
	int found;

	if (!n)
		return -1;
	/* SYMBOL(mem_section) is the array's address, not the variable's
	 * (SPARSEMEM_EXTREME: the pointer's value) */
	found = strcmp(n, "mem_section") &&
		mdb_vm_arch_image_addr(s->d->c.arch, v) && !raw_sym(s->d, n, &a);
	free(n);
	if (!found)
		return 0;
	if (!s->have && (v - a == 0 || v - a == s->d->info.kernel_offset)) {
		s->have = 1;
		s->delta = v - a;
	}
	if (!s->have || v - a != s->delta) {
		s->bad = name;
		s->bad_len = len;
		s->bad_vmci = v;
		s->bad_file = a;
		return 1;
	}
	s->matched++;
	return 0;
}

/* The kallsyms or System.map matches the dump: set d->delta. */
static int check_symbols(struct vm_dump *d, const char *kpath,
			 struct mdb_error *e)
{
	struct symcheck s = { .d = d };
	int ret = mdb_vm_info_each_symbol(&d->info, symcheck_one, &s);

	if (ret < 0)
		return mdb_error_set(e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	if (s.bad) {
		mdb_error_set(e, MDB_E_INVAL, kpath, -1, -1,
			      "symbol=%.*s vmcoreinfo=0x%" PRIx64
			      " file=0x%" PRIx64 " kerneloffset=0x%" PRIx64,
			      (int)s.bad_len, s.bad, s.bad_vmci, s.bad_file,
			      d->info.kernel_offset);
		mdb_error_msg(e, "kallsyms or System.map is not of the "
				 "dumped boot");
		return -MDB_E_INVAL;
	}
	if (!s.matched)
		return mdb_error_fail(e, MDB_E_INVAL, kpath, -1, -1,
				      "no symbol of VMCOREINFO is in the "
				      "kallsyms or System.map: not of this "
				      "kernel", NULL);
	d->delta = s.delta;
	return 0;
}

/*
 * VMCOREINFO names only a few symbols, which another build of the same
 * kernel may have at the same addresses.  The symbols file's
 * linux_banner must also hold, in the dump, the banner of the release
 * VMCOREINFO names: else the file is of another kernel, and reading the
 * BTF or a walk at its addresses would fail for reasons that hide this.
 */
static int check_banner(struct vm_dump *d, const char *kpath,
			struct mdb_error *e)
{
	char want[128], got[sizeof(want)];
	size_t n;
	uint64_t a;
	int ok;

	if (dump_sym(d, "linux_banner", &a))
		return 0; /* a kallsyms without data symbols */
	n = (size_t)snprintf(want, sizeof(want), "Linux version %s ",
			     d->info.release);
	if (n >= sizeof(want))
		return 0;
	ok = !dump_read(d, a, got, n) && !memcmp(got, want, n);
	if (!ok && d->bad_reads)
		return 0; /* the dump's own damage: reported when read */
	if (ok)
		return 0;
	mdb_error_set(e, MDB_E_INVAL, kpath, -1, -1,
		      "linux_banner=0x%" PRIx64 " release=%s", a - d->delta,
		      d->info.release);
	mdb_error_msg(e, "kallsyms or System.map is not of the dumped kernel: "
			 "its linux_banner does not hold the dump's banner "
			 "(another build of the kernel)");
	mdb_error_hint(e, "give the System.map or /proc/kallsyms of the "
			  "kernel that was dumped (uname -v of that boot "
			  "names its build)");
	return -MDB_E_INVAL;
}

static int load_btf(struct vm_dump *d, struct mdb_error *e)
{
	uint64_t start, stop;
	void *raw;
	int ret;

	if (dump_sym(d, "__start_BTF", &start) ||
	    dump_sym(d, "__stop_BTF", &stop))
		return mdb_error_fail(e, MDB_E_FORMAT, d->name, -1, -1,
				      "no __start_BTF/__stop_BTF in the "
				      "kallsyms", "a kernel without "
				      "CONFIG_DEBUG_INFO_BTF: give --vmlinux, "
				      "or --btf FILE (pahole "
				      "--btf_encode_detached=FILE vmlinux)");
	if (stop <= start || stop - start > BTF_MAX)
		return mdb_error_set(e, MDB_E_CORRUPT, d->name, -1, -1,
				     "__start_BTF=0x%" PRIx64
				     " __stop_BTF=0x%" PRIx64, start, stop);
	raw = malloc((size_t)(stop - start));
	if (!raw)
		return mdb_error_set(e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	if (dump_read(d, start, raw, (size_t)(stop - start))) {
		free(raw);
		mdb_error_set(e, MDB_E_CORRUPT, d->name, -1, -1,
			      "addr=0x%" PRIx64 " status=%s", d->last_addr,
			      kd.strerror(d->last));
		mdb_error_msg(e, "the kernel's BTF is not readable in the "
				 "dump");
		return -MDB_E_CORRUPT;
	}
	ret = mdb_vm_types_btf(&d->types, raw, (size_t)(stop - start), d->name, e);
	free(raw);
	return ret;
}

/*
 * A libkdumpfile call failed with @st.  Its system errors keep errno: a
 * failed allocation (ENOMEM; the callers clear errno before the call) is
 * said to be one, not a fault of the file (tests/test_nomem.c).
 */
static int kdump_fail(struct vm_dump *d, kdump_status st, const char *what,
		      struct mdb_error *e)
{
	int code = st != KDUMP_ERR_SYSTEM ? MDB_E_CORRUPT :
		   errno == ENOMEM ? MDB_E_NOMEM : MDB_E_IO;

	mdb_error_set(e, code, d->name, -1, -1, "libkdumpfile=\"%s\"",
		      kd.get_err(d->k));
	if (code == MDB_E_NOMEM)
		mdb_error_msg(e, "out of memory in libkdumpfile");
	else
		mdb_error_msg(e, "%s", what);
	return -code;
}

/*
 * A kdump-compressed file whose header names no machine and whose notes
 * do not tell one: refused with what the notes hold.
 */
static int arch_untold(const struct vm_dump *d, struct mdb_error *e)
{
	const struct vm_dd_arch *a = &d->dd;

	mdb_error_set(e, MDB_E_FORMAT, d->name, -1, -1,
		      "byte_order=%s word=%u block_size=%" PRIu32
		      " notes=%" PRIu64 " prstatus=%" PRIu64
		      " prstatus_size=%" PRIu32 " qemu_notes=%" PRIu64
		      " s390_notes=%" PRIu64,
		      a->order == MDB_ORDER_BIG ? "big" : "little", a->word,
		      a->block_size, a->notes, a->prstatus, a->prstatus_size,
		      a->qemu, a->s390);
	mdb_error_msg(e, "kdump-compressed dump of an unknown architecture: "
			 "its header names no machine libkdumpfile reads, and "
			 "its ELF notes do not tell one");
	mdb_error_hint(e, "the notes QEMU's dump-guest-memory writes tell it: "
			  "NT_PRSTATUS of 392 bytes (arm64), of 144 or 336 "
			  "bytes with a QEMU note (i386, x86-64), NT_S390_* "
			  "notes (s390x); makedumpfile names the machine in "
			  "the header");
	return -MDB_E_FORMAT;
}

/*
 * The dump's architecture, word size and byte order, as libkdumpfile
 * read them from the file.  QEMU's kdump-* files leave the sysname of
 * their header's utsname empty, and libkdumpfile then takes none of it:
 * the architecture is the one their ELF notes tell (mdb_vm_dd_arch_name()),
 * refused when they tell none.  A header's machine the notes contradict
 * is refused, and so is an architecture memdb has no reader for
 * (arch.c).
 */
static int check_arch(struct vm_dump *d, struct mdb_error *e)
{
	const char *arch = NULL, *told = mdb_vm_dd_arch_name(&d->dd);
	kdump_attr_value_t v, order, ptr;
	kdump_status st;

	if (kd_get_typed(d->k, KDUMP_ATTR_ARCH_NAME, KDUMP_STRING, &v) ==
	    KDUMP_OK)
		arch = v.string;
	if (arch) {
		if (told && strcmp(told, arch)) {
			mdb_error_set(e, MDB_E_FORMAT, d->name, -1, -1,
				      "arch=%s notes=%s", arch, told);
			mdb_error_msg(e, "kdump-compressed dump whose header "
					 "names another machine than its ELF "
					 "notes are of");
			return -MDB_E_FORMAT;
		}
		d->c.arch = mdb_vm_arch_find(arch);
		if (!d->c.arch) {
			mdb_error_set(e, MDB_E_FORMAT, d->name, -1, -1,
				      "arch=%s", arch);
			mdb_error_msg(e, "a core dump of an architecture memdb "
					 "does not read (only %s)",
				      mdb_vm_arch_names());
			return -MDB_E_FORMAT;
		}
	} else {
		if (!told)
			return arch_untold(d, e);
		d->c.arch = mdb_vm_arch_find(told);
		errno = 0;
		st = kd_set_string_attr(d->k, KDUMP_ATTR_ARCH_NAME, told);
		if (st != KDUMP_OK)
			return kdump_fail(d, st, "cannot set the architecture",
					  e);
	}
	if (kd_get_typed(d->k, KDUMP_ATTR_BYTE_ORDER, KDUMP_NUMBER, &order) !=
	    KDUMP_OK ||
	    kd_get_typed(d->k, KDUMP_ATTR_PTR_SIZE, KDUMP_NUMBER, &ptr) !=
	    KDUMP_OK || (ptr.number != 4 && ptr.number != 8)) {
		mdb_error_set(e, MDB_E_FORMAT, d->name, -1, -1, "arch=%s",
			      mdb_vm_arch_name(d->c.arch));
		mdb_error_msg(e, "libkdumpfile tells no byte order or word "
				 "size of the dump");
		return -MDB_E_FORMAT;
	}
	d->c.order = order.number == KDUMP_BIG_ENDIAN ? MDB_ORDER_BIG :
							MDB_ORDER_LITTLE;
	d->c.ptr_size = (unsigned)ptr.number;
	return 0;
}

static kdump_status kd_set_typed(kdump_ctx_t *ctx, const char *key,
				  kdump_attr_type_t type, uint64_t v)
{
	kdump_attr_t attr;

	attr.type = type;
	if (type == KDUMP_NUMBER)
		attr.val.number = v;
	else
		attr.val.address = v;
	return kd.set_attr(ctx, key, &attr);
}

/*
 * libkdumpfile 0.5.1 cannot read an i386 kernel's page tables: it finds
 * them at swapper_pg_dir's virtual address, which it can translate only
 * through those very tables ("Infinite read recursion").  Given their
 * physical address it walks them.  swapper_pg_dir lies in the kernel's
 * direct map at 0xc0000000, which libkdumpfile's ia32 translation itself
 * assumes (the 3G/1G split); arch.c checks the kernel's own direct map
 * against it.  The option is read when the OS type is set: it is set
 * again after.
 */
static int ia32_rootpgt(struct vm_dump *d, struct mdb_error *e)
{
	kdump_attr_t nil;
	kdump_status st;
	uint64_t pgd;

	if (strcmp(mdb_vm_arch_name(d->c.arch), "ia32"))
		return 0;
	if (mdb_vm_info_symbol(&d->info, "swapper_pg_dir", &pgd) ||
	    pgd < VM_IA32_PAGE_OFFSET)
		return mdb_error_fail(e, MDB_E_FORMAT, d->name, -1, -1,
				      "no SYMBOL(swapper_pg_dir) in the "
				      "dump's VMCOREINFO above 0xc0000000: "
				      "its page tables cannot be found",
				      NULL);
	nil.type = KDUMP_NIL;
	errno = 0;
	if ((st = kd.set_attr(d->k, KDUMP_ATTR_OSTYPE, &nil)) != KDUMP_OK ||
	    (st = kd_set_typed(d->k, "addrxlat.default.rootpgt.as",
			       KDUMP_NUMBER, ADDRXLAT_KPHYSADDR)) !=
		    KDUMP_OK ||
	    (st = kd_set_typed(d->k, "addrxlat.default.rootpgt.addr",
			       KDUMP_ADDRESS, pgd - VM_IA32_PAGE_OFFSET)) !=
		    KDUMP_OK ||
	    (st = kd_set_string_attr(d->k, KDUMP_ATTR_OSTYPE, "linux")) !=
		    KDUMP_OK)
		return kdump_fail(d, st, "address translation setup failed",
				  e);
	return 0;
}

/*
 * QEMU's kdump-* files of arm64 guests are made of 64 KiB blocks (the
 * largest page the target may use; target/arm/arch_dump.c), the page
 * bitmaps and descriptors counting such blocks, whatever page size the
 * kernel uses.  libkdumpfile 0.5.1 takes one page size for both: the
 * block size from the header, then VMCOREINFO's PAGESIZE, with which it
 * finds the wrong block for every address.  The block size is set back
 * for the file, and the kernel's page size given to the page-table walk
 * alone (addrxlat.force.page_shift).
 */
static int block_pages(struct vm_dump *d, struct mdb_error *e)
{
	kdump_status st;
	uint64_t ps = d->info.page_size;
	unsigned shift = 0;

	if (!d->dd.checked || !ps || d->dd.block_size == ps)
		return 0;
	if (ps & (ps - 1))
		return mdb_error_fail(e, MDB_E_FORMAT, d->name, -1, -1,
				      "VMCOREINFO's PAGESIZE is not a power "
				      "of two", NULL);
	while ((1ull << shift) < ps)
		shift++;
	errno = 0;
	if ((st = kd_set_typed(d->k, "arch.page_size", KDUMP_NUMBER,
			       d->dd.block_size)) != KDUMP_OK ||
	    (st = kd_set_typed(d->k, "addrxlat.force.page_shift",
			       KDUMP_NUMBER, shift)) != KDUMP_OK)
		return kdump_fail(d, st, "address translation setup failed",
				  e);
	return 0;
}

static int open_kdump(struct vm_dump *d, int fd, struct mdb_error *e)
{
	kdump_status st;
	char *raw = NULL;
	int ret;

	if ((ret = kd_ready(d->name, e)))
		return ret;
	d->k = kd.new_ctx();
	if (!d->k)
		return mdb_error_set(e, MDB_E_NOMEM, d->name, -1, -1, NULL);
	errno = 0;
	st = kd_open_fd(d->k, fd);
	if (st != KDUMP_OK) {
		ret = kdump_fail(d, st, "not a core dump libkdumpfile reads",
				 e);
		/*
		 * libkdumpfile 0.5.1 crashes in kdump_free() after it
		 * refused a kdump-compressed header ("Invalid diskdump
		 * header content"): the handle is left behind, a few KB
		 * once per rejected input (LeakSanitizer is told, in
		 * ingest/trace/tracedat.c).
		 */
		d->k = NULL;
		return ret;
	}
	if ((ret = check_arch(d, e)))
		return ret;
	/* the OS type first: libkdumpfile looks for VMCOREINFO then */
	errno = 0;
	st = kd_set_string_attr(d->k, KDUMP_ATTR_OSTYPE, "linux");
	if (st != KDUMP_OK)
		return kdump_fail(d, st, "address translation setup failed",
				  e);
	st = kd.vmcoreinfo_raw(d->k, &raw);
	if (st != KDUMP_OK || !raw) {
		free(raw);
		return mdb_error_fail(e, MDB_E_FORMAT, d->name, -1, -1,
				      "the dump has no VMCOREINFO",
				      "QEMU writes it only when started with "
				      "-device vmcoreinfo");
	}
	ret = mdb_vm_info_parse(&d->info, raw, strlen(raw), d->name, e);
	free(raw);
	if (ret < 0)
		return ret;
	if ((ret = ia32_rootpgt(d, e)))
		return ret;
	return block_pages(d, e);
}

/*
 * A BTF file (--btf: `pahole --btf_encode_detached` of the -dbg
 * package's vmlinux, or the dumped kernel's /sys/kernel/btf/vmlinux) for
 * a kernel whose image holds none.
 */
static int load_btf_file(struct vm_dump *d, const char *path,
			 struct mdb_error *e)
{
	char *raw = NULL;
	size_t len = 0;
	int ret = mdb_read_small(path, BTF_MAX, &raw, &len, e);

	if (ret)
		return ret;
	ret = mdb_vm_types_btf(&d->types, raw, len, path, e);
	free(raw);
	return ret;
}

struct typecheck {
	struct vm_dump *d;
	const char *path;
	struct mdb_error *e;
	uint64_t checked;
};

/* @type as the types name it: "struct NAME", else the typedef NAME. */
static int tc_size(const struct vm_types *t, const char *name, uint64_t *v)
{
	char buf[160]; /* "struct " and a key of under 128 bytes */

	snprintf(buf, sizeof(buf), "struct %s", name);
	return t->size(t->priv, buf, v) && t->size(t->priv, name, v) ? -1 : 0;
}

static int tc_member(const struct vm_types *t, const char *name,
		     const char *member, struct vm_member *m)
{
	char buf[160]; /* "struct " and a key of under 128 bytes */

	snprintf(buf, sizeof(buf), "struct %s", name);
	return t->member(t->priv, buf, member, m) &&
	       t->member(t->priv, name, member, m) ? -1 : 0;
}

/* One "SIZE(x)=N" or "OFFSET(x.y)=N" line: the types must agree. */
static int tc_line(struct typecheck *tc, const char *line, size_t n)
{
	const struct vm_types *t = &tc->d->types;
	char key[128], *dot, *end;
	int is_size = n > 5 && !memcmp(line, "SIZE(", 5);
	const char *open = line + (is_size ? 5 : 7), *close, *eq;
	uint64_t want, got;
	struct vm_member m;

	if (!is_size && !(n > 7 && !memcmp(line, "OFFSET(", 7)))
		return 0;
	close = memchr(open, ')', n - (size_t)(open - line));
	eq = close ? close + 1 : NULL;
	if (!close || eq >= line + n || *eq != '=' ||
	    (size_t)(close - open) >= sizeof(key))
		return 0;
	memcpy(key, open, (size_t)(close - open));
	key[close - open] = '\0';
	want = strtoull(eq + 1, &end, 10);
	if (end != line + n)
		return 0;
	dot = strchr(key, '.');
	if (is_size) {
		if (tc_size(t, key, &got))
			return 0; /* not in these types: nothing to say */
	} else {
		if (!dot)
			return 0;
		*dot = '\0';
		if (tc_member(t, key, dot + 1, &m) || m.bit_off % 8)
			return 0;
		got = m.bit_off / 8;
		*dot = '.';
	}
	tc->checked++;
	if (got == want)
		return 0;
	mdb_error_set(tc->e, MDB_E_INVAL, tc->path, -1, -1,
		      "%s(%s) vmcoreinfo=%llu btf=%llu",
		      is_size ? "SIZE" : "OFFSET", key,
		      (unsigned long long)want, (unsigned long long)got);
	mdb_error_msg(tc->e, "the BTF is not of the dumped kernel: its "
			     "types differ from VMCOREINFO's");
	mdb_error_hint(tc->e, "make it from the dumped build's vmlinux: "
			      "pahole --btf_encode_detached=FILE vmlinux");
	return -MDB_E_INVAL;
}

/*
 * A BTF file has no build id: its types must give every SIZE() and
 * OFFSET() of VMCOREINFO that they describe, and at least one.
 */
static int check_btf_file(struct vm_dump *d, const char *path,
			  struct mdb_error *e)
{
	struct typecheck tc = { .d = d, .path = path, .e = e };
	const char *p = d->info.text;
	int ret;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if ((ret = tc_line(&tc, p, n)))
			return ret;
		p = nl ? nl + 1 : NULL;
	}
	if (!tc.checked)
		return mdb_error_fail(e, MDB_E_INVAL, path, -1, -1,
				      "the BTF describes none of the types "
				      "VMCOREINFO sizes: not of the dumped "
				      "kernel", NULL);
	return 0;
}

/*
 * Symbols and types: a vmlinux's, else a kallsyms or System.map and the
 * dump's BTF, or a BTF file (@btf).
 */
static int symbols_and_types(struct vm_dump *d, const char *kallsyms,
			     const char *vmlinux, const char *btf,
			     struct mdb_error *e)
{
	uint64_t a;
	int ret;

	if (vmlinux && btf)
		return mdb_error_fail(e, MDB_E_INVAL, btf, -1, -1,
				      "--btf and --vmlinux both give the "
				      "kernel's types", "give one of them");
	if (vmlinux) {
		if ((ret = mdb_vm_vmlinux_symbols(d, vmlinux, e)) ||
		    (ret = check_symbols(d, vmlinux, e)))
			return ret;
		return mdb_vm_types_dwarf(&d->types, vmlinux, e);
	}
	if (!kallsyms)
		return mdb_error_fail(e, MDB_E_INVAL, d->name, -1, -1,
				      "a core dump needs the kernel's symbols",
				      "give --kallsyms FILE (the System.map "
				      "or /proc/kallsyms of the dumped boot) "
				      "or --vmlinux FILE");
	if ((ret = mdb_kallsyms_load(&d->ks, kallsyms, e)))
		return ret;
	d->have_ks = 1;
	if ((ret = check_symbols(d, kallsyms, e)) ||
	    (ret = check_banner(d, kallsyms, e)))
		return ret;
	if (raw_sym(d, "slab_caches", &a)) {
		/* /proc/kallsyms without CONFIG_KALLSYMS_ALL: functions only
		 * (Debian's arm64, i386 and s390x kernels) */
		mdb_error_set(e, MDB_E_INVAL, kallsyms, -1, -1,
			      "symbol=slab_caches");
		mdb_error_msg(e, "the kallsyms or System.map names none of "
				 "the kernel's variables (a /proc/kallsyms "
				 "of a kernel without CONFIG_KALLSYMS_ALL "
				 "lists its functions only)");
		mdb_error_hint(e, "give the System.map of the dumped build "
				  "(Debian: usr/lib/debug/boot/System.map-"
				  "RELEASE in its -dbg package)");
		return -MDB_E_INVAL;
	}
	if (btf)
		return (ret = load_btf_file(d, btf, e)) ? ret :
		       check_btf_file(d, btf, e);
	return load_btf(d, e);
}

int mdb_vm_dump_open(struct vm_dump *d, const char *name, int fd,
		     const char *kallsyms, const char *vmlinux, const char *btf,
		     struct mdb_error *e)
{
	int ret;

	d->name = name;
	d->c.info = &d->info;
	if ((ret = open_kdump(d, fd, e)) ||
	    (ret = symbols_and_types(d, kallsyms, vmlinux, btf, e)))
		return ret;
	d->c.read = dump_read;
	d->c.read_ctx = d;
	d->c.types = &d->types;
	d->c.sym = dump_sym;
	d->c.sym_ctx = d;
	d->c.name = name;
	d->c.page_size = d->info.page_size;
	d->c.max_steps = 1u << 26;
	return mdb_vm_arch_init(&d->c, e);
}

void mdb_vm_dump_close(struct vm_dump *d)
{
	mdb_vm_arch_release(&d->c);
	mdb_vm_types_release(&d->types);
	if (d->have_ks)
		mdb_kallsyms_release(&d->ks);
	if (d->have_vsyms)
		mdb_u64map_release(&d->vsyms);
	mdb_vm_info_release(&d->info);
	if (d->k)
		kd.free_ctx(d->k);
	memset(d, 0, sizeof(*d));
}
