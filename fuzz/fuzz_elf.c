// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the symbolizer's reading of an ELF file (a vmlinux
 * or a .ko) and its DWARF.  The input is written to a memory file and
 * opened by path as memdb symbolize opens it (mdb_dw_open: libdwfl offline);
 * its function table is built (a relocatable file's sections placed
 * where libdwfl placed them) and the function and source of addresses in
 * and around each function are looked up, the compile unit checks of
 * dwarfsyms.c included.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../symbolize/dwarfsyms.h"
#include "../symbolize/elfsyms.h"

#define MAX_LOOKUPS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int mem_fd = -1;
static char *mem_path;

/* The memory file holding @data; its path in mem_path.  0 or -1. */
static int put_input(const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (mem_fd < 0) {
		mem_fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
		if (mem_fd < 0 ||
		    asprintf(&mem_path, "/proc/self/fd/%d", mem_fd) < 0)
			return -1;
	}
	if (ftruncate(mem_fd, 0) < 0)
		return -1;
	while (done < size) {
		ssize_t n = pwrite(mem_fd, data + done, size - done,
				   (off_t)done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static void lookup(struct dw_image *im, uint64_t a)
{
	struct dw_loc loc;

	if (mdb_dw_lookup(im, a, &loc) == 0)
		mdb_dw_loc_release(&loc);
}

/* Sections of a relocatable file where libdwfl placed them. */
static uint64_t *placement(struct dw_image *im, size_t *n)
{
	uint64_t *place;

	*n = 0;
	if (im->e_type != ET_REL || elf_getshdrnum(im->elf, n) < 0 || !*n)
		return NULL;
	place = malloc(*n * sizeof(*place));
	if (!place)
		return NULL;
	for (size_t s = 0; s < *n; s++)
		if (!s || mdb_dw_section_addr(im, s, &place[s]) < 0)
			place[s] = UINT64_MAX;
	return place;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dw_image im;
	struct elfsyms t;
	struct mdb_error e;
	uint64_t *place, bias;
	size_t nplace, step;

	if (put_input(data, size) < 0 || mdb_dw_open(&im, mem_path, &e) < 0)
		return 0;
	place = placement(&im, &nplace);
	bias = im.e_type == ET_REL ? 0 : im.bias;
	if (mdb_elfsyms_build(&t, im.elf, mem_path, place, nplace, &e) == 0) {
		step = t.n / MAX_LOOKUPS + 1;
		for (size_t i = 0; i < t.n; i += step) {
			const struct elfsym *s = &t.syms[i];

			mdb_elfsyms_find(&t, s->addr + s->size / 2);
			mdb_elfsyms_find(&t, s->addr - 1);
			lookup(&im, s->addr + bias);
			lookup(&im, s->addr + s->size / 2 + bias);
		}
		mdb_elfsyms_find(&t, 0);
		mdb_elfsyms_find(&t, UINT64_MAX);
		mdb_elfsyms_release(&t);
	}
	lookup(&im, bias);
	free(place);
	mdb_dw_close(&im);
	return 0;
}
