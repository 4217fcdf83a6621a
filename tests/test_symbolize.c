// SPDX-License-Identifier: MIT
/*
 * memdb symbolize, through the binary, against independent sources:
 *
 * - a small kernel-like ELF built here with gcc (testdata/symbolize/):
 *   for every instruction address objdump lists, function and offset
 *   equal a lookup in readelf's symbol table done here, and file, line
 *   and inline chain equal what eu-addr2line -f -i prints for address - 1;
 * - the same addresses moved by a KASLR offset, given or derived from a
 *   kallsyms file;
 * - kallsyms and System.map files: function+offset equal a plain scan of
 *   the file done here, gaps and the end are '??';
 * - a module (.ko, relocatable) placed by a sections snapshot: each
 *   address as eu-addr2line -e MOD -j SECTION OFFSET prints it;
 * - bad inputs: clear messages, the database unchanged;
 * - the real 6.18 capture with its kallsyms: every event's symbol equals
 *   the kernel's own %pS in the ftrace text of the same events.
 *
 * Call sites get into a database through a kmemtrace capture written
 * here: one 48-byte ALLOC record (docs/formats.md §2.2) per address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "../common/bytes.h"
#include "testlib.h"

#define KASLR 0x1e00000ULL
#define MOD_TEXT 0xffffffffc0002000ULL
#define MOD_COLD 0xffffffffc0005000ULL

static char *tmp, *bin;
static int eu_quirks, llvm_checked;

static int have_llvm_symbolizer(void)
{
	struct run r;
	int ok = run(&r, "command -v llvm-symbolizer") == 0;

	run_free(&r);
	return ok;
}

static void memdb_ok(const char *db, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void memdb_ok(const char *db, const char *fmt, ...)
{
	struct run r;
	va_list ap;
	char *args;

	va_start(ap, fmt);
	args = vstrf(fmt, ap);
	va_end(ap);
	run_memdb(&r, db, "%s", args);
	if (r.status)
		fail_run(&r, "memdb %s: stdout:\n%s", args, r.out);
	run_free(&r);
	free(args);
}

/* A kmemtrace capture in @dir: one kmalloc ALLOC per address. */
static void write_capture(const char *dir, const uint64_t *addrs, size_t n)
{
	char *p;
	FILE *f;

	run_ok("rm -rf '%s' && mkdir -p '%s' && echo 1 > '%s/abi_version'", dir,
	   dir, dir);
	p = path_in(dir, "cpu0");
	f = fopen(p, "wb");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		uint8_t b[48] = { 0 };

		b[0] = 0;                            /* ALLOC */
		b[1] = 0;                            /* kmalloc */
		put_le16(b + 2, 48);                 /* event_size */
		put_le32(b + 4, (uint32_t)i + 1);    /* seq_num */
		put_le64(b + 8, addrs[i]);           /* call_site */
		put_le64(b + 16, 0xffff888100000000ULL + i * 64); /* ptr */
		put_le64(b + 24, 40);                /* bytes_req */
		put_le64(b + 32, 64);                /* bytes_alloc */
		put_le32(b + 40, 0xcc0);             /* gfp */
		put_le32(b + 44, 0xffffffffu);       /* node -1 */
		assert_int_equal(fwrite(b, 1, sizeof(b), f), sizeof(b));
	}
	assert_int_equal(fclose(f), 0);
	free(p);
}

/* ---- independent sources -------------------------------------------- */

/* Instruction addresses objdump -d lists in @section of @file. */
static uint64_t *insns(const char *file, const char *section, size_t *n)
{
	struct run r;
	uint64_t *v = NULL;
	size_t cap = 0;

	*n = 0;
	run(&r, "objdump -d --no-show-raw-insn -j '%s' '%s' | "
		"awk '/^ *[0-9a-f]+:\\t/ { sub(\":\", \"\", $1); print $1 }'",
	    section, file);
	assert_run_ok(&r);
	for (char *p = r.out; *p;) {
		char *nl = strchr(p, '\n');

		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[(*n)++] = strtoull(p, NULL, 16);
		p = nl ? nl + 1 : p + strlen(p);
	}
	run_free(&r);
	assert_true(*n > 20);
	return v;
}

struct fsym {
	uint64_t addr, size;
	int weak, lds, unders, idx, shndx;
	char name[128];
};

/* Executable sections of @file from readelf -SW: index, address, size. */
struct xsec {
	int idx;
	uint64_t addr, size;
};

static struct xsec *exec_sections(const char *file, size_t *n)
{
	struct xsec *v = calloc(64, sizeof(*v));
	struct run r;

	*n = 0;
	assert_non_null(v);
	run(&r, "readelf -SW '%s' | sed 's/\\[ */[/' | awk '$8 ~ /X/ { "
		"gsub(/[][]/, \"\", $1); print $1, $4, $6 }'", file);
	assert_run_ok(&r);
	for (char *p = r.out; *p && *n < 64;) {
		unsigned long long a, sz;
		int idx;

		if (sscanf(p, "%d %llx %llx", &idx, &a, &sz) == 3) {
			v[*n].idx = idx;
			v[*n].addr = a;
			v[*n].size = sz;
			(*n)++;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	run_free(&r);
	assert_true(*n >= 1);
	return v;
}

/*
 * A code symbol without a size (assembly) covers up to the next code
 * symbol of its section, or the section's end, and no further than the
 * end of a sized symbol holding it: computed here by plain scans.
 */
static void sizeless_extents(struct fsym *v, size_t n, const struct xsec *x,
			     size_t nx)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t end = 0;

		if (v[i].size)
			continue;
		for (size_t k = 0; k < nx; k++)
			if (x[k].idx == v[i].shndx)
				end = (v[i].addr >= x[k].addr ? x[k].addr : 0) +
				      x[k].size;
		for (size_t k = 0; k < n; k++) {
			uint64_t kend = v[k].addr + v[k].size;

			if (v[k].shndx != v[i].shndx)
				continue;
			if (v[k].addr > v[i].addr && v[k].addr < end)
				end = v[k].addr;
			if (v[k].size && v[k].addr <= v[i].addr &&
			    kend > v[i].addr && kend < end)
				end = kend;
		}
		if (end > v[i].addr)
			v[i].size = end - v[i].addr;
	}
}

/*
 * Code symbols of @file from readelf -Ws: FUNC, and NOTYPE in an
 * executable section (assembly labels), sizes as sizeless_extents().
 */
static struct fsym *func_syms(const char *file, size_t *n, size_t min)
{
	struct run r;
	struct fsym *v = NULL;
	size_t cap = 0, nx;
	struct xsec *x = exec_sections(file, &nx);

	*n = 0;
	run(&r, "readelf -Ws '%s' | awk '($4 == \"FUNC\" || $4 == \"NOTYPE\") "
		"&& $7 != \"UND\" && $8 != \"\" { print $2, $3, $4, $5, $7, "
		"$8 }'", file);
	assert_run_ok(&r);
	for (char *p = r.out; *p;) {
		char *nl = strchr(p, '\n'), type[16], bind[16], ndx[16];
		struct fsym s;
		unsigned long long a, sz;
		int code = 0;

		memset(&s, 0, sizeof(s));
		if (nl)
			*nl = '\0';
		if (sscanf(p, "%llx %llu %15s %15s %15s %127s", &a, &sz, type,
			   bind, ndx, s.name) == 6) {
			s.addr = a;
			s.size = sz;
			s.weak = !strcmp(bind, "WEAK");
			s.unders = (int)strspn(s.name, "_");
			s.lds = !strcmp(s.name, "__sched_text_start") ||
				!strcmp(s.name, "__sched_text_end");
			s.shndx = atoi(ndx);
			s.idx = (int)*n;
			for (size_t k = 0; k < nx; k++)
				code |= x[k].idx == s.shndx;
			if (!strcmp(type, "FUNC"))
				code = 1;
		}
		if (code) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				v = realloc(v, cap * sizeof(*v));
				assert_non_null(v);
			}
			v[(*n)++] = s;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	run_free(&r);
	sizeless_extents(v, *n, x, nx);
	free(x);
	assert_true(*n >= min);
	return v;
}

/*
 * The function holding @a by a plain scan: the innermost (highest start)
 * symbol whose [addr, addr + size) holds it; of aliases the non-weak,
 * then not a linker-script marker (the two of entry.S), then fewer
 * leading underscores, then symbol table order.
 */
static const struct fsym *scan_syms(const struct fsym *s, size_t n,
				    uint64_t a, uint64_t base, int shndx)
{
	const struct fsym *best = NULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t start = base + s[i].addr;

		if (shndx >= 0 && s[i].shndx != shndx)
			continue;
		if (a < start || a - start >= s[i].size)
			continue;
		if (!best || start > base + best->addr ||
		    (start == base + best->addr &&
		     (s[i].weak < best->weak ||
		      (s[i].weak == best->weak && s[i].lds < best->lds) ||
		      (s[i].weak == best->weak && s[i].lds == best->lds &&
		       s[i].unders < best->unders))))
			best = &s[i];
	}
	return best;
}

struct expect {
	uint64_t addr;
	char func[128];
	uint64_t off;
	char *file;           /* eu-addr2line's line table answer */
	long line;
	char *inlines;        /* eu-addr2line's chain */
	int eu_consistent;    /* its chain agrees with its first line */
	char *llvm;           /* llvm-symbolizer's chain (NULL: none) */
	int have_llvm;
};

/* "file:line[:col]" -> *@file (malloc'ed), line; "??:0" -> "", -1 */
static void split_loc(const char *loc, char **file, long *line)
{
	const char *c1 = strrchr(loc, ':');
	char *tmpl = strdup(loc), *c2;

	assert_non_null(tmpl);
	if (!strcmp(loc, "??:0") || !c1) {
		tmpl[0] = '\0';
		*file = tmpl;
		*line = -1;
		return;
	}
	/* file:line:col -- drop the column when there are two numbers */
	tmpl[c1 - loc] = '\0';
	c2 = strrchr(tmpl, ':');
	if (c2 && strspn(c2 + 1, "0123456789") == strlen(c2 + 1) &&
	    strspn(c1 + 1, "0123456789") == strlen(c1 + 1)) {
		*line = strtol(c2 + 1, NULL, 10);
		*c2 = '\0';
	} else {
		*line = strtol(c1 + 1, NULL, 10);
	}
	*file = tmpl;
}

/* *@acc with @add appended (both malloc'ed; @add is freed). */
static void append(char **acc, char *add)
{
	char *s2 = strf("%s%s", *acc ? *acc : "", add);

	free(*acc);
	free(add);
	*acc = s2;
}

static void expect_free(struct expect *ex, size_t n)
{
	for (size_t i = 0; ex && i < n; i++) {
		free(ex[i].file);
		free(ex[i].inlines);
		free(ex[i].llvm);
	}
	free(ex);
}

/* @s, or "" for NULL */
static const char *S(const char *s)
{
	return s ? s : "";
}

/*
 * eu-addr2line -a -f -i of each @a[i] - 1 (@cmd adds -e FILE, -j ...),
 * turned into memdb's file, line and "f (file:line) <- caller (file:line)"
 * chain: the first line names the innermost function ("f inlined at ...
 * in g"), the second is its place, then come caller and call site pairs.
 * @sec_base, when not 0, is subtracted to give section offsets.
 */
static void addr2line(const char *args, const uint64_t *a, size_t n,
		      uint64_t sec_base, struct expect *ex)
{
	char *in = path_in(tmp, "a2l.in"), *save;
	FILE *f = fopen(in, "w");
	struct run r;
	size_t k = (size_t)-1;
	char *lines[64];
	int nl = 0;

	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n",
			(unsigned long long)(a[i] - 1 - sec_base));
	fclose(f);
	/* exit status 1 when some address has no module: not an error */
	run(&r, "eu-addr2line -a -f -i %s < '%s'", args, in);
	if (r.status > 1)
		fail_run(&r, "eu-addr2line");
	/* one record per "0x..." line */
	for (char *p = strtok_r(r.out, "\n", &save);; p = strtok_r(NULL, "\n",
								   &save)) {
		if (!p || !strncmp(p, "0x", 2)) {
			if (k != (size_t)-1) {
				struct expect *e = &ex[k];
				char *f0, *file, *at;
				long line;

				assert_true(nl >= 2 && nl % 2 == 0);
				free(e->file);
				split_loc(lines[1], &e->file, &e->line);
				free(e->inlines);
				e->inlines = strf("%s", "");
				e->eu_consistent = 1;
				if (nl > 2) {
					char *in2 = strstr(lines[0],
							   " inlined at ");

					/*
					 * eu-addr2line 0.188 finds the chain
					 * at the start of the line-table row
					 * (dwfl_lineinfo overwrites the
					 * address), its first line at the
					 * address: where they disagree its
					 * chain is not the address's.
					 */
					at = strf(" inlined at %s in ",
						  lines[3]);
					e->eu_consistent = in2 &&
						!strncmp(in2, at, strlen(at));
					free(at);

					f0 = strf("%.*s",
						  in2 ? (int)(in2 - lines[0]) :
							(int)strlen(lines[0]),
						  lines[0]);
					append(&e->inlines,
					       strf("%s (%s:%ld)", f0,
						    e->file[0] ? e->file : "??",
						    e->file[0] ? e->line : 0));
					free(f0);
					for (int j = 2; j < nl; j += 2) {
						split_loc(lines[j + 1], &file,
							  &line);
						append(&e->inlines,
						       strf(" <- %s (%s:%ld)",
							    lines[j],
							    file[0] ? file :
								      "??",
							    file[0] ? line :
								      0));
						free(file);
					}
				}
			}
			if (!p)
				break;
			k = k == (size_t)-1 ? 0 : k + 1;
			assert_true(k < n);
			/* with -j it prints libdwfl's address */
			if (!sec_base)
				assert_int_equal(strtoull(p, NULL, 16) + 1,
						 a[k]);
			nl = 0;
			continue;
		}
		assert_true(nl < 64);
		lines[nl++] = p;
	}
	assert_int_equal(k + 1, n);
	run_free(&r);
	unlink(in);
	free(in);
}

/*
 * llvm-symbolizer --inlines of each @a[i] - 1 in @file: frames (name,
 * file:line:col), innermost first, as memdb's chain when there are two
 * or more.  An implementation of its own, sharing nothing with libdw.
 */
static void llvm_chains(const char *file, const uint64_t *a, size_t n,
			struct expect *ex)
{
	char *in = path_in(tmp, "llvm.in"), *save = NULL, *p;
	FILE *f = fopen(in, "w");
	struct run r;
	size_t k = 0;
	int nf = 0;

	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)(a[i] - 1));
	fclose(f);
	run(&r, "llvm-symbolizer --inlines --obj='%s' < '%s'", file, in);
	assert_run_ok(&r);
	/* blocks of "name\nfile:line:col\n" frames, a blank line after */
	p = r.out;
	while (*p && k < n) {
		char *nl = strchr(p, '\n'), *name, *loc;

		if (!nl)
			break;
		if (nl == p) { /* end of one address */
			ex[k].have_llvm = 1;
			if (nf < 2) {
				free(ex[k].llvm);
				ex[k].llvm = strf("%s", "");
			}
			k++;
			nf = 0;
			p = nl + 1;
			continue;
		}
		*nl = '\0';
		name = p;
		loc = nl + 1;
		nl = strchr(loc, '\n');
		assert_non_null(nl);
		*nl = '\0';
		p = nl + 1;
		{
			char *file2;
			long line;

			if (!nf) {
				free(ex[k].llvm);
				ex[k].llvm = NULL;
			}
			split_loc(loc, &file2, &line);
			if (!strcmp(loc, "??:0:0"))
				file2[0] = '\0';
			append(&ex[k].llvm, strf("%s%s (%s:%ld)",
						 nf ? " <- " : "", name,
						 file2[0] ? file2 : "??",
						 file2[0] ? line : 0));
			free(file2);
		}
		nf++;
	}
	(void)save;
	assert_int_equal(k, n);
	run_free(&r);
	unlink(in);
	free(in);
}

/* ---- memdb's answer ------------------------------------------------- */

/* file and inlines stay valid until the next got_of() */
struct got {
	int found;
	char func[128], *file, *inlines, module[64], resolver[16];
	uint64_t off;
	long line;
	int quality;
};

static void got_of(const char *db, int64_t src, uint64_t addr,
		   struct got *g)
{
	static char *file, *inlines; /* the last answer's */
	sqlite3 *h;
	sqlite3_stmt *st;

	free(file);
	free(inlines);
	file = strf("%s", "");
	inlines = strf("%s", "");
	memset(g, 0, sizeof(*g));
	g->file = file;
	g->inlines = inlines;
	g->line = -1;
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
			 0);
	assert_int_equal(sqlite3_prepare_v2(h,
		"SELECT func, off, file, line, inlines, module, resolver, "
		"quality FROM symbol WHERE source_id = ?1 AND addr = ?2", -1,
		&st, NULL), 0);
	sqlite3_bind_int64(st, 1, src);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)addr);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *t;

		g->found = 1;
		t = (const char *)sqlite3_column_text(st, 0);
		snprintf(g->func, sizeof(g->func), "%s", t ? t : "");
		g->off = (uint64_t)sqlite3_column_int64(st, 1);
		t = (const char *)sqlite3_column_text(st, 2);
		free(file);
		g->file = file = strf("%s", t ? t : "");
		g->line = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 :
			  (long)sqlite3_column_int64(st, 3);
		t = (const char *)sqlite3_column_text(st, 4);
		free(inlines);
		g->inlines = inlines = strf("%s", t ? t : "");
		t = (const char *)sqlite3_column_text(st, 5);
		snprintf(g->module, sizeof(g->module), "%s", t ? t : "");
		t = (const char *)sqlite3_column_text(st, 6);
		snprintf(g->resolver, sizeof(g->resolver), "%s", t);
		g->quality = sqlite3_column_int(st, 7);
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static char *vmlinux, *module_ko;
static uint64_t *vaddrs;
static size_t nvaddrs;
static struct fsym *vsyms;
static size_t nvsyms;
static struct expect *vexp;

static int setup_all(void **state)
{
	(void)state;
	tmp = tmpdir("symbolize");
	bin = path_in(tmp, "bin");
	run_ok("sh '%s/symbolize/build.sh' '%s'", env("TESTDATA"), bin);
	vmlinux = path_in(bin, "vmlinux-test");
	module_ko = path_in(bin, "testmod.ko");
	vaddrs = insns(vmlinux, ".text", &nvaddrs);
	/* past the end of .text, and far past the last function */
	vaddrs = realloc(vaddrs, (nvaddrs + 2) * sizeof(*vaddrs));
	vaddrs[nvaddrs] = vaddrs[nvaddrs - 1] + 0x10;
	vaddrs[nvaddrs + 1] = vaddrs[nvaddrs - 1] + 0x1000;
	nvaddrs += 2;
	vsyms = func_syms(vmlinux, &nvsyms, 5);
	vexp = calloc(nvaddrs, sizeof(*vexp));
	{
		char *args = strf("-e '%s'", vmlinux);

		addr2line(args, vaddrs, nvaddrs, 0, vexp);
		free(args);
	}
	if (have_llvm_symbolizer())
		llvm_chains(vmlinux, vaddrs, nvaddrs, vexp);
	for (size_t i = 0; i < nvaddrs; i++) {
		const struct fsym *s = scan_syms(vsyms, nvsyms, vaddrs[i], 0,
						 -1);

		vexp[i].addr = vaddrs[i];
		if (s) {
			snprintf(vexp[i].func, sizeof(vexp[i].func), "%s",
				 s->name);
			vexp[i].off = vaddrs[i] - s->addr;
		}
	}
	return 0;
}

static int teardown_all(void **state)
{
	(void)state;
	print_message("inline chains compared with llvm-symbolizer: %d; "
		      "eu-addr2line chains not the address's own (its 0.188 "
		      "quirk, compared with llvm-symbolizer only): %d\n",
		      llvm_checked, eu_quirks);
	expect_free(vexp, nvaddrs);
	free(vsyms);
	free(vaddrs);
	free(vmlinux);
	free(module_ko);
	free(bin);
	free(tmp);
	return 0;
}

/*
 * file:line as eu-addr2line; the inline chain as eu-addr2line where its
 * chain is the address's own, and as llvm-symbolizer everywhere.
 */
static void check_one(const struct expect *x, const struct got *g)
{
	if (strcmp(g->file, x->file) || g->line != x->line ||
	    (x->eu_consistent && strcmp(g->inlines, x->inlines)) ||
	    (x->have_llvm && strcmp(g->inlines, S(x->llvm))))
		fail_msg("0x%llx %s+0x%llx:\n  eu-addr2line:    %s:%ld [%s]%s"
			 "\n  llvm-symbolizer: [%s]\n  memdb:           "
			 "%s:%ld [%s]", (unsigned long long)x->addr, x->func,
			 (unsigned long long)x->off, x->file, x->line,
			 x->inlines, x->eu_consistent ? "" :
			 " (not the address's chain)", S(x->llvm), g->file,
			 g->line, g->inlines);
	eu_quirks += !x->eu_consistent;
	llvm_checked += x->have_llvm;
}

/*
 * Every address of the capture: function+offset as expected; with
 * @dwarf, file, line and inlines as eu-addr2line; @shift is added to the
 * expected addresses (KASLR).
 */
static void check_all(const char *db, int64_t src, uint64_t shift,
		      int dwarf, int *inlined, int *unknown)
{
	*inlined = *unknown = 0;
	for (size_t i = 0; i < nvaddrs; i++) {
		const struct expect *x = &vexp[i];
		struct got g;

		got_of(db, src, x->addr + shift, &g);
		if (!x->func[0]) {
			/* '??' rows of the vmlinux still say where a - 1 is */
			if (g.func[0])
				fail_msg("0x%llx: expected ??, got %s+0x%llx",
					 (unsigned long long)x->addr,
					 g.func, (unsigned long long)g.off);
			if (g.found && dwarf)
				check_one(x, &g);
			(*unknown)++;
			continue;
		}
		if (!g.found || strcmp(g.func, x->func) || g.off != x->off)
			fail_msg("0x%llx: expected %s+0x%llx, got %s+0x%llx",
				 (unsigned long long)x->addr, x->func,
				 (unsigned long long)x->off,
				 g.found ? g.func : "??",
				 (unsigned long long)g.off);
		assert_int_equal(g.quality, dwarf ? 3 : 2);
		if (!dwarf) {
			assert_string_equal(g.file, "");
			continue;
		}
		check_one(x, &g);
		*inlined += g.inlines[0] != '\0';
	}
}

static void shifted(uint64_t shift, uint64_t *out)
{
	for (size_t i = 0; i < nvaddrs; i++)
		out[i] = vaddrs[i] + shift;
}

/* A kallsyms of the test vmlinux moved by @shift (all symbols, nm-like). */
static void write_kallsyms(const char *path, uint64_t shift)
{
	FILE *f = fopen(path, "w");
	struct run r;

	assert_non_null(f);
	/* linker-script markers after the other names of their address,
	 * as scripts/kallsyms orders them */
	run(&r, "readelf -Ws '%s' | awk '$8 != \"\" && $7 != \"UND\" && "
		"$7 != \"ABS\" && $2 ~ /^ffff/ { print $2, "
		"($8 ~ /^__sched_text_(start|end)$/), $7, $8 }' | sort",
	    vmlinux);
	assert_run_ok(&r);
	for (char *p = r.out; *p;) {
		char name[128];
		unsigned long long a;
		int ndx;

		/* section 1 is .text */
		if (sscanf(p, "%llx %*d %d %127s", &a, &ndx, name) == 3)
			fprintf(f, "%016llx %c %s\n",
				(unsigned long long)(a + shift),
				ndx == 1 ? 'T' : 'D', name);
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	run_free(&r);
	assert_int_equal(fclose(f), 0);
}

/* Acceptance 1: every instruction of the test vmlinux. */
static void test_vmlinux(void **state)
{
	char *db = fresh_db(tmp, "vmlinux.db"), *cap = path_in(tmp, "cap-v");
	char *before, *after;
	int inl, unk;
	struct run r;

	(void)state;
	write_capture(cap, vaddrs, nvaddrs);
	memdb_ok(db, "ingest -q '%s'", cap);
	run_memdb(&r, db, "symbolize --vmlinux '%s'", vmlinux);
	assert_run_ok(&r);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "rows written"));
	run_free(&r);
	check_all(db, 1, 0, 1, &inl, &unk);
	assert_true(inl > 20); /* the inline chains were exercised */
	assert_true(unk >= 3); /* padding and past the end */
	/* the weak alias loses to the strong name */
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol WHERE "
				    "func = 'kmem_cache_alloc'"), 0);
	/* v_sites: 'func+0xoff', '??' where unknown */
	assert_int_equal(db_int(db, "SELECT count(*) FROM v_sites WHERE "
				    "symbol = 'kmem_cache_alloc_lru+0x10'"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM v_sites WHERE "
				    "symbol = '?\?'"), unk);
	/* a second run changes nothing */
	before = db_counts(db);
	run_memdb(&r, db, "symbolize --vmlinux '%s'", vmlinux);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, " 0 rows written"));
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(cap);
	free(db);
}

/* The code symbol @name of the test vmlinux, NULL when none. */
static const struct fsym *vsym(const char *name)
{
	for (size_t i = 0; i < nvsyms; i++)
		if (!strcmp(vsyms[i].name, name))
			return &vsyms[i];
	return NULL;
}

static uint64_t vsym_addr(const char *name)
{
	const struct fsym *f = vsym(name);

	if (!f)
		fail_msg("no symbol %s", name);
	return f->addr;
}

/* Is the symbol @name (up to @end) at the address of @other? */
static int alias_of(const char *name, const char *end, const char *other)
{
	char n[128];
	const struct fsym *f;

	snprintf(n, sizeof(n), "%.*s", (int)(end - name), name);
	f = vsym(n);
	if (!other)
		return f != NULL;
	return f && f->addr == vsym_addr(other);
}

/*
 * Issue 11: assembly labels without a size (asm_exc_nmi_noist,
 * srso_return_thunk, the local identity_mapped) name their code up to
 * the next symbol, as eu-addr2line -S names it; an inner label in a
 * sized symbol names the code after it, as the kernel's kallsyms does
 * (where eu-addr2line says the enclosing symbol); a kallsyms file of the
 * same kernel names every address of that code alike.
 */
static void test_asm_labels(void **state)
{
	char *db = fresh_db(tmp, "asm.db"), *cap = path_in(tmp, "cap-asm");
	char *in = path_in(tmp, "asm.in"), *ks = path_in(tmp, "kallsyms-asm");
	char *dbk = fresh_db(tmp, "asm-ks.db"), *save;
	uint64_t lo = vsym_addr("asm_exc_nmi_noist");
	uint64_t inner = vsym_addr("entry_after_hwframe");
	uint64_t hwend = inner, hwlo = vsym_addr("entry_code");
	int named = 0, inner_n = 0, local_n = 0, eu_sizeless = 0;
	size_t k = 0;
	struct run r;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < nvsyms; i++)
		if (!strcmp(vsyms[i].name, "entry_code"))
			hwend = vsyms[i].addr + vsyms[i].size;
	write_capture(cap, vaddrs, nvaddrs);
	memdb_ok(db, "ingest -q '%s'", cap);
	memdb_ok(db, "symbolize --vmlinux '%s'", vmlinux);
	f = fopen(in, "w");
	assert_non_null(f);
	for (size_t i = 0; i < nvaddrs; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)vaddrs[i]);
	fclose(f);
	run(&r, "eu-addr2line -S -e '%s' < '%s' | paste - - | "
		"awk '{ print $1 }'", vmlinux, in);
	assert_run_ok(&r);
	for (char *p = strtok_r(r.out, "\n", &save); p;
	     p = strtok_r(NULL, "\n", &save), k++) {
		char eu[160], *plus = strchr(p, '+');
		struct got g;
		uint64_t a = vaddrs[k];

		assert_true(k < nvaddrs);
		if (!strcmp(p, "??"))
			eu[0] = '\0';
		else if (!vsym(p) && !(plus && alias_of(p, plus, NULL)))
			continue; /* a data symbol (past .text) */
		else
			snprintf(eu, sizeof(eu), "%.*s+0x%llx",
				 plus ? (int)(plus - p) : (int)strlen(p), p,
				 plus ? strtoull(plus + 1, NULL, 16) : 0ULL);
		got_of(db, 1, a, &g);
		eu_sizeless += !strncmp(eu, "asm_exc_nmi_noist+", 18) ||
			       !strncmp(eu, "srso_return_thunk+", 18);
		if (a >= inner && a < hwend) {
			/* eu-addr2line: the enclosing sized symbol */
			assert_true(!strncmp(eu, "entry_code+", 11));
			assert_string_equal(g.func, "entry_after_hwframe");
			assert_int_equal(g.off, a - inner);
			inner_n++;
		} else {
			char mine[160] = "";

			if (g.func[0])
				snprintf(mine, sizeof(mine), "%s+0x%llx",
					 g.func, (unsigned long long)g.off);
			/* of aliases, eu-addr2line may name another */
			if (strcmp(mine, eu) && (!plus || !g.func[0] ||
			    strtoull(plus + 1, NULL, 16) != g.off ||
			    !alias_of(p, plus, g.func)))
				fail_msg("0x%llx: eu-addr2line %s, memdb %s",
					 (unsigned long long)a, eu, mine);
		}
		if (a >= lo && g.func[0]) {
			assert_int_equal(g.quality, 3);
			named++;
			local_n += !strcmp(g.func, "identity_mapped");
		}
	}
	assert_int_equal(k, nvaddrs);
	run_free(&r);
	assert_true(named >= 15 && inner_n >= 3 && local_n >= 3);
	assert_true(hwlo < inner);
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol WHERE func "
				    "IN ('asm_exc_nmi_noist', "
				    "'srso_return_thunk')"), eu_sizeless);
	/* kallsyms of the same kernel: the same names in that code */
	write_kallsyms(ks, 0);
	memdb_ok(dbk, "ingest -q '%s'", cap);
	memdb_ok(dbk, "symbolize --kallsyms '%s'", ks);
	for (size_t i = 0; i < nvaddrs; i++) {
		struct got g, gk;

		if (vaddrs[i] < lo)
			continue;
		got_of(db, 1, vaddrs[i], &g);
		got_of(dbk, 1, vaddrs[i], &gk);
		if (!g.func[0])
			continue;
		assert_string_equal(gk.func, g.func);
		assert_int_equal(gk.off, g.off);
		assert_int_equal(gk.quality, 1);
	}
	free(dbk);
	free(ks);
	free(in);
	free(cap);
	free(db);
}

/* Acceptance 2: KASLR given, and derived from kallsyms (kept or given). */
static void test_kaslr(void **state)
{
	uint64_t *moved = calloc(nvaddrs, sizeof(*moved));
	char *db = fresh_db(tmp, "kaslr-given.db"), *cap = path_in(tmp, "cap-k");
	char *ks = path_in(tmp, "kallsyms-k");
	int inl, unk, inl2, unk2;
	struct run r;

	(void)state;
	shifted(KASLR, moved);
	write_capture(cap, moved, nvaddrs);
	write_kallsyms(ks, KASLR);
	/* the offset given */
	memdb_ok(db, "ingest -q '%s'", cap);
	run_memdb(&r, db, "symbolize --vmlinux '%s' --kaslr-offset 0x%llx",
		  vmlinux, (unsigned long long)KASLR);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "KASLR offset 0x1e00000 (given)"));
	run_free(&r);
	check_all(db, 1, KASLR, 1, &inl, &unk);
	/* derived from a kallsyms file */
	free(db);
	db = fresh_db(tmp, "kaslr-ks.db");
	memdb_ok(db, "ingest -q '%s'", cap);
	run_memdb(&r, db, "symbolize --vmlinux '%s' --kallsyms '%s'", vmlinux,
		  ks);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "KASLR offset 0x1e00000 (from the "
				      "kallsyms snapshot's _stext)"));
	run_free(&r);
	check_all(db, 1, KASLR, 1, &inl2, &unk2);
	assert_int_equal(inl, inl2);
	assert_int_equal(unk, unk2);
	/* without the offset nothing resolves: the addresses moved */
	memdb_ok(db, "ingest -q '%s'", cap); /* the same bytes: a no-op */
	run_memdb(&r, db, "symbolize --force --vmlinux '%s' --kaslr-offset 0",
		  vmlinux);
	assert_run_ok(&r);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol"), 0);
	/* the capture directory holds kallsyms: kept with the source, and
	 * used when no option names one */
	free(db);
	db = fresh_db(tmp, "kaslr-kept.db");
	run_ok("cp '%s' '%s/kallsyms'", ks, cap);
	memdb_ok(db, "ingest -q '%s'", cap);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source_file WHERE "
				    "source_id = 1 AND name = 'kallsyms'"), 1);
	run_memdb(&r, db, "symbolize --vmlinux '%s'", vmlinux);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "(from the kallsyms snapshot's"));
	assert_non_null(strstr(r.out, "kept with the source"));
	run_free(&r);
	check_all(db, 1, KASLR, 1, &inl2, &unk2);
	assert_int_equal(inl, inl2);
	/* deleting the source deletes its symbols and kept files */
	memdb_ok(db, "sources --delete 1");
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM source_file"), 0);
	free(ks);
	free(cap);
	free(db);
	free(moved);
}

struct ksline {
	uint64_t addr;
	char type;
	char name[64];
};

/*
 * Acceptance 3: kallsyms and System.map.  The expected function+offset
 * comes from a plain scan: the last symbol at or below the address, if
 * it is text and not the last line of the file; else '??'.
 */
static void check_kallsyms(const char *db, int64_t src,
			   const struct ksline *ks, size_t nks,
			   const uint64_t *a, size_t n, uint64_t shift)
{
	int unk = 0, res = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ksline *best = NULL;
		struct got g;
		size_t bi = 0;

		for (size_t j = 0; j < nks; j++)
			if (ks[j].addr <= a[i] - shift &&
			    (!best || ks[j].addr > best->addr)) {
				best = &ks[j];
				bi = j;
			}
		if (best && (best->type != 'T' && best->type != 't'))
			best = NULL;
		if (best && bi == nks - 1 && a[i] - shift != best->addr)
			best = NULL;
		got_of(db, src, a[i], &g);
		if (!best) {
			if (g.func[0])
				fail_msg("0x%llx: expected ??, got %s",
					 (unsigned long long)a[i], g.func);
			unk++;
			continue;
		}
		if (!g.found || strcmp(g.func, best->name) ||
		    g.off != a[i] - shift - best->addr)
			fail_msg("0x%llx: expected %s+0x%llx, got %s+0x%llx",
				 (unsigned long long)a[i], best->name,
				 (unsigned long long)(a[i] - shift -
						      best->addr),
				 g.found ? g.func : "??",
				 (unsigned long long)g.off);
		assert_int_equal(g.quality, 1);
		assert_string_equal(g.resolver, "kallsyms");
		res++;
	}
	assert_true(unk >= 3 && res > 100);
}

static void test_kallsyms(void **state)
{
	/* functions, a data symbol making a gap, an end marker */
	static const struct ksline ks[] = {
		{ 0xffffffff81000000ULL, 'T', "_stext" },
		{ 0xffffffff81000010ULL, 'T', "slab_alloc" },
		{ 0xffffffff81000070ULL, 't', "kmalloc_node" },
		{ 0xffffffff81000140ULL, 'T', "kmem_cache_alloc_lru" },
		{ 0xffffffff81000200ULL, 'd', "some_table" },
		{ 0xffffffff81000240ULL, 'T', "alloc_inode" },
		{ 0xffffffff810002e0ULL, 'T', "out_of_line" },
		{ 0xffffffff81000300ULL, 'T', "ext_create" },
		{ 0xffffffff81000380ULL, 'T', "_etext" },
	};
	size_t nks = sizeof(ks) / sizeof(ks[0]);
	uint64_t *moved = calloc(nvaddrs + 4, sizeof(*moved));
	char *db = fresh_db(tmp, "ks.db"), *cap = path_in(tmp, "cap-ks");
	char *ksf = path_in(tmp, "kallsyms-t"), *map = path_in(tmp, "map-t");
	char *before, *after;
	FILE *f, *g;
	struct run r;

	(void)state;
	shifted(KASLR, moved);
	moved[nvaddrs] = 0xffffffff81000380ULL + KASLR;     /* _etext */
	moved[nvaddrs + 1] = 0xffffffff81000381ULL + KASLR; /* past it */
	moved[nvaddrs + 2] = 0xffffffff80000000ULL;         /* before all */
	moved[nvaddrs + 3] = 0xffffffff81000210ULL + KASLR; /* in the gap */
	write_capture(cap, moved, nvaddrs + 4);
	f = fopen(ksf, "w");
	g = fopen(map, "w");
	assert_true(f && g);
	for (size_t i = 0; i < nks; i++) {
		fprintf(f, "%016llx %c %s\n",
			(unsigned long long)(ks[i].addr + KASLR), ks[i].type,
			ks[i].name);
		fprintf(g, "%016llx %c %s\n", (unsigned long long)ks[i].addr,
			ks[i].type, ks[i].name);
	}
	fclose(f);
	fclose(g);
	/* System.map (link-time addresses) and the offset */
	memdb_ok(db, "ingest -q '%s'", cap);
	memdb_ok(db, "symbolize --kallsyms '%s' --kaslr-offset %llx", map,
		 (unsigned long long)KASLR);
	check_kallsyms(db, 1, ks, nks, moved, nvaddrs + 4, KASLR);
	/* kallsyms of the boot (run-time addresses) */
	free(db);
	db = fresh_db(tmp, "ks2.db");
	memdb_ok(db, "ingest -q '%s'", cap);
	memdb_ok(db, "symbolize --source 1 --kallsyms '%s'", ksf);
	check_kallsyms(db, 1, ks, nks, moved, nvaddrs + 4, KASLR);
	/* vmlinux after kallsyms upgrades; kallsyms after it does not
	 * downgrade */
	run_memdb(&r, db, "symbolize --source 1 --vmlinux '%s' --kallsyms "
			  "'%s'", vmlinux, ksf);
	assert_run_ok(&r);
	run_free(&r);
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol WHERE "
				    "source_id = 1 AND quality < 3"), 0);
	{
		int inl, unk;

		check_all(db, 1, KASLR, 1, &inl, &unk);
	}
	before = db_counts(db);
	run_memdb(&r, db, "symbolize --source 1 --kallsyms '%s'", ksf);
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, " 0 rows written"));
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	assert_int_equal(db_int(db, "SELECT count(*) FROM symbol WHERE "
				    "source_id = 1 AND quality < 3"), 0);
	free(before);
	free(after);
	free(ksf);
	free(map);
	free(cap);
	free(db);
	free(moved);
}

/* Acceptance 4: a module placed by a sections snapshot. */
static void test_module(void **state)
{
	char *db = fresh_db(tmp, "mod.db"), *cap = path_in(tmp, "cap-m");
	char *mods = path_in(tmp, "mods"), *secs = path_in(tmp, "sections");
	char *procm = path_in(tmp, "proc-modules"), *args = NULL;
	size_t nt, nc, nsym;
	uint64_t *t = insns(module_ko, ".text", &nt);
	uint64_t *cold = insns(module_ko, ".text.unlikely", &nc);
	uint64_t *a = calloc(nt + nc, sizeof(*a));
	struct expect *xt = calloc(nt, sizeof(*xt)), *xc = calloc(nc,
								   sizeof(*xc));
	struct fsym *ms = func_syms(module_ko, &nsym, 3);
	int shndx_text = -1, shndx_cold = -1, inl = 0;
	struct run r;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < nt; i++)
		a[i] = MOD_TEXT + t[i];
	for (size_t i = 0; i < nc; i++)
		a[nt + i] = MOD_COLD + cold[i];
	write_capture(cap, a, nt + nc);
	/* the module is test_mod, its file test-mod.ko.xz ('-' = '_') */
	run_ok("rm -rf '%s' && mkdir -p '%s/kernel/x' && xz -c '%s' > "
	   "'%s/kernel/x/test-mod.ko.xz'", mods, mods, module_ko, mods);
	f = fopen(secs, "w");
	assert_non_null(f);
	fprintf(f, "test_mod .text 0x%llx\ntest_mod .text.unlikely 0x%llx\n"
		   "other .text 0xffffffffc0100000\n",
		(unsigned long long)MOD_TEXT, (unsigned long long)MOD_COLD);
	fclose(f);
	f = fopen(procm, "w");
	assert_non_null(f);
	fprintf(f, "test_mod 16384 0 - Live 0x%llx\n"
		   "other 8192 1 test_mod, Live 0xffffffffc0100000 (OE)\n",
		(unsigned long long)MOD_TEXT);
	fclose(f);
	memdb_ok(db, "ingest -q '%s'", cap);
	run_memdb(&r, db, "symbolize --modules '%s' --sections '%s' "
			  "--proc-modules '%s'", mods, secs, procm);
	/* no vmlinux and no kallsyms: nothing to resolve with */
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "nothing to resolve"));
	run_free(&r);
	/* an empty kallsyms would be refused: give a kernel-only one */
	{
		char *ks = path_in(tmp, "kallsyms-m");

		write_kallsyms(ks, 0);
		memdb_ok(db, "symbolize --vmlinux '%s' --kallsyms '%s' "
			     "--modules '%s' --sections '%s' "
			     "--proc-modules '%s'", vmlinux, ks, mods, secs,
			 procm);
		free(ks);
	}
	args = restrf(args, "-e '%s' -j .text", module_ko);
	addr2line(args, a, nt, MOD_TEXT, xt);
	args = restrf(args, "-e '%s' -j .text.unlikely", module_ko);
	addr2line(args, a + nt, nc, MOD_COLD, xc);
	{
		struct run rs;

		run(&rs, "readelf -SW '%s' | sed -n 's/^ *\\[ *\\([0-9]*\\)\\] "
			 "\\(\\.text[.a-z]*\\) .*/\\1 \\2/p'", module_ko);
		for (char *p = rs.out; *p;) {
			char name[64];
			int idx;

			if (sscanf(p, "%d %63s", &idx, name) == 2) {
				if (!strcmp(name, ".text"))
					shndx_text = idx;
				else
					shndx_cold = idx;
			}
			p = strchr(p, '\n');
			if (!p)
				break;
			p++;
		}
		run_free(&rs);
	}
	assert_true(shndx_text > 0 && shndx_cold > 0);
	for (size_t i = 0; i < nt + nc; i++) {
		int in_text = i < nt;
		uint64_t base = in_text ? MOD_TEXT : MOD_COLD;
		const struct expect *x = in_text ? &xt[i] : &xc[i - nt];
		const struct fsym *s = scan_syms(ms, nsym, a[i], base,
						 in_text ? shndx_text :
							   shndx_cold);
		struct got g;

		got_of(db, 1, a[i], &g);
		if (!s) {
			assert_string_equal(g.func, "");
			continue;
		}
		if (!g.found || strcmp(g.func, s->name) ||
		    g.off != a[i] - base - s->addr)
			fail_msg("0x%llx: expected %s+0x%llx, got %s+0x%llx",
				 (unsigned long long)a[i], s->name,
				 (unsigned long long)(a[i] - base - s->addr),
				 g.found ? g.func : "??",
				 (unsigned long long)g.off);
		assert_string_equal(g.module, "test_mod");
		assert_int_equal(g.quality, 3);
		if (a[i] == base) {
			/* a - 1 is outside the section: no line */
			assert_string_equal(g.file, "");
			continue;
		}
		check_one(x, &g);
		inl += g.inlines[0] != '\0';
	}
	assert_true(inl > 5);
	assert_int_equal(db_int(db, "SELECT count(*) FROM v_sites WHERE "
				    "symbol LIKE 'testmod_init+0x%% [test_mod]'"),
			 (int64_t)db_int(db, "SELECT count(*) FROM symbol "
					     "WHERE func = 'testmod_init'"));
	free(ms);
	expect_free(xt, nt);
	expect_free(xc, nc);
	free(a);
	free(t);
	free(cold);
	free(procm);
	free(args);
	free(secs);
	free(mods);
	free(cap);
	free(db);
}

/* Acceptance 5: bad inputs leave the database as it was. */
static void refused(const char *db, const char *args, const char *msg)
{
	char *before = db_counts(db), *after;
	struct run r;

	run_memdb(&r, db, "symbolize %s", args);
	if (r.status != 1 || !strstr(r.err, msg))
		fail_run(&r, "symbolize %s: expected exit status 1 and '%s'",
			 args, msg);
	assert_non_null(strstr(r.err, "memdb: "));
	assert_string_equal(r.out, "");
	run_free(&r);
	after = db_counts(db);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_bad_inputs(void **state)
{
	char *db = fresh_db(tmp, "bad.db"), *cap = path_in(tmp, "cap-b");
	char *text = path_in(tmp, "not-elf"), *stripped = path_in(tmp,
								  "stripped");
	char *nodw = path_in(tmp, "nodwarf"), *ks = path_in(tmp, "ks-bad");
	char *zero = path_in(tmp, "ks-zero"), *other = path_in(tmp,
							       "ks-other");
	char *args = NULL;
	int inl, unk;
	struct run r;

	(void)state;
	write_capture(cap, vaddrs, nvaddrs);
	memdb_ok(db, "ingest -q '%s'", cap);
	run_ok("echo 'hello' > '%s' && strip --strip-all -o '%s' '%s' && "
	   "strip --strip-debug -o '%s' '%s'", text, stripped, vmlinux, nodw,
	   vmlinux);
	/* kallsyms with a garbage line, all-zero, another kernel's */
	write_kallsyms(ks, 0);
	run_ok("sed -i '3i this is not a symbol' '%s'", ks);
	run_ok("printf '0000000000000000 T _stext\\n0000000000000000 t f\\n' > "
	   "'%s'", zero);
	run_ok("printf 'ffffffff81000000 T _stext\\n' > '%s' && for i in "
	   "$(seq 1 40); do printf 'ffffffff81%%06x T other_%%d\\n' "
	   "$((i * 0x40 + 7)) $i; done >> '%s'", other, other);

	args = restrf(args, "--vmlinux '%s'", text);
	refused(db, args, "not an ELF file");
	args = restrf(args, "--vmlinux '%s'", stripped);
	refused(db, args, "no symbol table");
	args = restrf(args, "--vmlinux '%s/nonexistent'", tmp);
	refused(db, args, "no such file in '");
	args = restrf(args, "--kallsyms '%s'", ks);
	refused(db, args, "malformed kallsyms line in");
	assert_non_null(strstr(args, ks));
	{
		run_memdb(&r, db, "symbolize --kallsyms '%s'", ks);
		assert_non_null(strstr(r.err, "line=3"));
		run_free(&r);
	}
	args = restrf(args, "--kallsyms '%s'", zero);
	refused(db, args, "kptr_restrict");
	args = restrf(args, "--kallsyms '%s'", text);
	refused(db, args, "no symbols");
	args = restrf(args, "--vmlinux '%s' --kallsyms '%s'",
		 vmlinux, other);
	refused(db, args, "vmlinux does not match the kallsyms snapshot");
	refused(db, "--source 9 --kallsyms /dev/null", "no such source");
	refused(db, "", "nothing to resolve");
	run_ok("touch '%s/empty'", tmp);
	args = restrf(args, "--vmlinux '%s' --modules '%s/nope' "
		 "--proc-modules '%s/empty'", vmlinux, tmp, tmp);
	refused(db, args, "cannot read module directory");
	run(&r, "'%s' symbolize --kaslr-offset xyz", env("MEMDB"));
	assert_run_status(&r, 2);
	run_free(&r);

	/* no DWARF: the symbol table, with a warning */
	run_memdb(&r, db, "symbolize --vmlinux '%s'", nodw);
	assert_run_ok(&r);
	assert_non_null(strstr(r.err, "memdb: warning: "));
	assert_non_null(strstr(r.err, "has no DWARF"));
	run_free(&r);
	check_all(db, 1, 0, 0, &inl, &unk);
	assert_int_equal(db_int(db, "SELECT count(DISTINCT resolver) FROM "
				    "symbol"), 1);
	/* and DWARF later upgrades every row */
	memdb_ok(db, "symbolize --vmlinux '%s'", vmlinux);
	check_all(db, 1, 0, 1, &inl, &unk);
	free(other);
	free(args);
	free(zero);
	free(ks);
	free(nodw);
	free(stripped);
	free(text);
	free(cap);
	free(db);
}

/*
 * A copy of the test vmlinux at @out with its first .debug_line unit
 * damaged: @what 'v' sets its version to 0x77 (libdw refuses the unit),
 * 'f' overwrites 40 bytes of its line program with 0xff (rows run past
 * the unit's code).  The unit header is read here (DWARF 4 or 5, 32-bit).
 */
static void damaged_copy(const char *out, char what)
{
	struct run r;
	unsigned long long off = 0;
	size_t len;
	unsigned char *b;
	FILE *f;

	/* "[ N] NAME TYPE ADDRESS OFFSET ...": the offset */
	run(&r, "readelf -SW '%s' | awk '{ for (i = 1; i < NF; i++) "
		"if ($i == \".debug_line\") print $(i + 3) }'", vmlinux);
	assert_run_ok(&r);
	off = strtoull(r.out, NULL, 16);
	run_free(&r);
	b = (unsigned char *)slurp(vmlinux, &len);
	assert_non_null(b);
	assert_true(off > 0 && off + 64 < len);
	if (what == 'v') {
		b[off + 4] = 0x77;
		b[off + 5] = 0;
	} else {
		unsigned ver = b[off + 4] | b[off + 5] << 8;
		size_t hl_at = off + 6 + (ver >= 5 ? 2 : 0);
		size_t prog = hl_at + 4 + (b[hl_at] | b[hl_at + 1] << 8);

		assert_true(ver >= 2 && ver <= 5 && prog + 140 < len);
		memset(b + prog + 40, 0xff, 40);
	}
	f = fopen(out, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(b);
}

/*
 * Rows of a run on damaged DWARF: function and offset as expected
 * everywhere; with DWARF (quality 3) file, line and inlines as
 * eu-addr2line says for the intact file, else (quality 2) none.
 * Returns how many rows are of quality 2.
 */
static int check_damaged(const char *db)
{
	int q2 = 0;

	for (size_t i = 0; i < nvaddrs; i++) {
		const struct expect *x = &vexp[i];
		struct got g;

		got_of(db, 1, x->addr, &g);
		if (strcmp(g.func, x->func) || (x->func[0] && g.off != x->off))
			fail_msg("0x%llx: expected %s+0x%llx, got %s+0x%llx",
				 (unsigned long long)x->addr, x->func,
				 (unsigned long long)x->off, g.func,
				 (unsigned long long)g.off);
		if (!g.found || g.quality == 3) {
			if (g.found)
				check_one(x, &g);
			continue;
		}
		assert_int_equal(g.quality, 2);
		assert_string_equal(g.resolver, "elf");
		assert_string_equal(g.file, "");
		assert_string_equal(g.inlines, "");
		q2++;
	}
	return q2;
}

/*
 * Issue 11: a vmlinux whose .debug_line is damaged is no longer trusted
 * silently: a warning names the file and the damage, the addresses of
 * the damaged unit keep only the symbol table's answer (quality 2), no
 * row of quality 3 differs from the intact file's, and the intact file
 * later upgrades every row.
 */
static void test_damaged_dwarf(void **state)
{
	static const char kinds[] = { 'v', 'f' };
	char *cap = path_in(tmp, "cap-dmg");

	(void)state;
	write_capture(cap, vaddrs, nvaddrs);
	for (size_t k = 0; k < sizeof(kinds); k++) {
		char name[32], *bad, *db;
		struct run r;
		int q2, inl, unk;

		snprintf(name, sizeof(name), "vmlinux-dmg-%c", kinds[k]);
		bad = path_in(tmp, name);
		snprintf(name, sizeof(name), "dmg-%c.db", kinds[k]);
		db = fresh_db(tmp, name);
		damaged_copy(bad, kinds[k]);
		memdb_ok(db, "ingest -q '%s'", cap);
		run_memdb(&r, db, "symbolize --vmlinux '%s'", bad);
		assert_run_ok(&r);
		if (!strstr(r.err, "has damaged DWARF") ||
		    !strstr(r.err, bad) || !strstr(r.err, ".debug_line") ||
		    !strstr(r.out, "damaged DWARF: "))
			fail_msg("no damage reported for %s:\n%s%s", bad,
				 r.out, r.err);
		print_message("%c: %s", kinds[k], r.err);
		run_free(&r);
		q2 = check_damaged(db);
		assert_true(q2 >= 20);
		assert_int_equal(db_int(db, "SELECT count(*) FROM symbol WHERE "
					    "quality = 2"), q2);
		/* the same damaged file again changes nothing */
		run_memdb(&r, db, "symbolize --vmlinux '%s'", bad);
		assert_run_ok(&r);
		assert_non_null(strstr(r.out, " 0 rows written"));
		run_free(&r);
		/* the intact file upgrades every row */
		memdb_ok(db, "symbolize --vmlinux '%s'", vmlinux);
		check_all(db, 1, 0, 1, &inl, &unk);
		assert_int_equal(db_int(db, "SELECT count(*) FROM symbol WHERE "
					    "quality < 3 AND func IS NOT NULL"),
				 0);
		free(db);
		free(bad);
	}
	free(cap);
}

/*
 * Issue 11: a FIFO given for a file (no writer: open(2) would wait
 * forever) is refused at once, naming it; one among the .ko files is
 * passed over.  Each run is bounded by timeout(1): a hang fails.
 */
static void test_fifo(void **state)
{
	static const char *const opts[] = {
		"--vmlinux", "--kallsyms", "--proc-modules", "--sections",
	};
	char *db = fresh_db(tmp, "fifo.db"), *cap = path_in(tmp, "cap-f");
	char *fifo = path_in(tmp, "fifo"), *ks = path_in(tmp, "kallsyms-f");
	char *mods = path_in(tmp, "mods-f"), *pm = path_in(tmp, "pm-f");
	char *before, *after;
	struct run r;
	FILE *f;

	(void)state;
	write_capture(cap, vaddrs, nvaddrs);
	memdb_ok(db, "ingest -q '%s'", cap);
	write_kallsyms(ks, 0);
	run_ok("rm -f '%s' && mkfifo '%s' && rm -rf '%s' && mkdir -p '%s' && "
	   "mkfifo '%s/test_mod.ko'", fifo, fifo, mods, mods, mods);
	before = db_counts(db);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		run(&r, "timeout 20 '%s' symbolize -d '%s' --kallsyms '%s' "
			"%s '%s'", env("MEMDB"), db, ks, opts[i], fifo);
		if (r.status != 1 || !strstr(r.err, fifo) ||
		    !strstr(r.err, "a FIFO (named pipe), not a regular file"))
			fail_run(&r, "%s FIFO: expected a refusal (124: it "
				 "hung)", opts[i]);
		run_free(&r);
		after = db_counts(db);
		assert_string_equal(before, after);
		free(after);
	}
	/* a directory is no file either */
	run(&r, "timeout 20 '%s' symbolize -d '%s' --vmlinux '%s'",
	    env("MEMDB"), db, mods);
	assert_run_status(&r, 1);
	assert_non_null(strstr(r.err, "a directory, not a regular file"));
	run_free(&r);
	/* a FIFO named like the module's .ko is no module file */
	f = fopen(pm, "w");
	assert_non_null(f);
	fprintf(f, "test_mod 16384 0 - Live 0x%llx\n",
		(unsigned long long)MOD_TEXT);
	assert_int_equal(fclose(f), 0);
	run(&r, "timeout 20 '%s' symbolize -d '%s' --kallsyms '%s' "
		"--vmlinux '%s' --modules '%s' --proc-modules '%s'",
	    env("MEMDB"), db, ks, vmlinux, mods, pm);
	assert_run_ok(&r);
	run_free(&r);
	free(before);
	free(pm);
	free(mods);
	free(ks);
	free(fifo);
	free(cap);
	free(db);
}

/*
 * The real 6.18 capture and the kallsyms of its boot: every call site
 * but the page events' 0 resolves, and each slab event's symbol is the
 * one the kernel printed itself (%pS) for the same event in the ftrace
 * text of the capture.
 */
static void test_real_capture(void **state)
{
	char *db = fresh_db(tmp, "real.db"), *cap = path_in(tmp, "real-kt");
	const char *td = env("TESTDATA");
	struct run r;

	(void)state;
	run_ok("rm -rf '%s' && mkdir -p '%s' && cd '%s' && "
	   "cp '%s/real-6.18-small/kmemtrace-v1-le/abi_version' . && "
	   "zstd -dq '%s/real-6.18-small/kmemtrace-v1-le/cpu0.out.zst' "
	   "-o cpu0.out && "
	   "zstd -dq '%s/real-6.18-small/kmemtrace-v1-le/cpu1.out.zst' "
	   "-o cpu1.out && zstd -dq '%s/real-6.18-small/kallsyms.zst' "
	   "-o kallsyms", cap, cap, cap, td, td, td, td);
	memdb_ok(db, "ingest -q '%s'", cap);
	run_memdb(&r, db, "symbolize");
	assert_run_ok(&r);
	assert_non_null(strstr(r.out, "174 call sites"));
	assert_non_null(strstr(r.out, "173 from kallsyms; 1 unknown (?\?), "
				      "of which 1 the address 0"));
	run_free(&r);
	run(&r, "zstd -dc '%s/real-6.18-small/ftrace.txt.zst' | "
		"grep -oE ' (kmalloc|kmem_cache_alloc|kfree|kmem_cache_free): "
		"call_site=[^ ]+' | sed -E 's/.*call_site=//; s#/0x[0-9a-f]+##' "
		"| sort | uniq -c > '%s/ftrace.counts' && "
		"'%s' sql -d '%s' -f csv \"SELECT symbol FROM v_events WHERE "
		"type <> 'page'\" | tail -n +2 | sort | uniq -c > "
		"'%s/memdb.counts' && diff '%s/ftrace.counts' "
		"'%s/memdb.counts' && wc -l < '%s/memdb.counts'",
	    td, tmp, env("MEMDB"), db, tmp, tmp, tmp, tmp);
	if (r.status)
		fail_run(&r, "symbols differ from the kernel's own:\n%s",
			 r.out);
	assert_int_equal(atoi(r.out), 173);
	run_free(&r);
	free(cap);
	free(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmlinux),
		cmocka_unit_test(test_asm_labels),
		cmocka_unit_test(test_kaslr),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_damaged_dwarf),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_real_capture),
	};

	return cmocka_run_group_tests_name("memdb symbolize", tests,
					   setup_all, teardown_all);
}
