// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: ftrace kmem text.  The first byte sets the options
 * (strict, a small kallsyms for symbolic call sites, the pointer width
 * the sniffer would have found or what it finds); the rest is the trace,
 * sniffed and decoded through the pairing and the derived figures.
 */
#include <stdint.h>
#include <string.h>

#include "../ingest/trace/ftrace.h"
#include "fuzz_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char ksyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81200000 T kmalloc_trace\n"
	"ffffffff81200100 t copy_process\n"
	"ffffffff81200200 t copy_process\n"
	"ffffffff81200400 T __kmalloc\n"
	"ffffffffc0001000 t ext4_alloc_inode\t[ext4]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kallsyms ksyms;
	static int have_ksyms;
	struct mdb_ft_sniff sn;
	struct mdb_decode_opts o;
	struct ft_params fp;
	struct fuzz_events c;
	struct mdb_decode_stats st;
	struct mdb_error e;
	int flags;

	if (!have_ksyms) {
		if (mdb_kallsyms_parse(&ksyms, ksyms_text, sizeof(ksyms_text) - 1,
				       "kallsyms", &e) < 0)
			return 0;
		have_ksyms = 1;
	}
	if (!size)
		return 0;
	flags = data[0];
	data++;
	size--;
	mdb_ft_sniff(data, size, &sn);
	memset(&o, 0, sizeof(o));
	o.priv = &fp;
	o.name = "trace";
	o.strict = flags & 1;
	o.ksyms = flags & 2 ? &ksyms : NULL;
	o.page_size = flags & 4 ? 65536 : 0;
	fp.hashed = flags & 8 ? !sn.hashed : sn.hashed;
	fp.ptr_digits = flags & 16 ? 0 : sn.ptr_digits;
	if (fuzz_events_init(&c))
		return 0;
	fuzz_events_done(&c, mdb_ft_decode(data, size, &o, &c.sink, &st, &e) ==
				     0);
	return 0;
}
