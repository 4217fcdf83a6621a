# SPDX-License-Identifier: MIT
# memdb: build, test, demo, benchmark.
#
#   make            build memdb (in build/)
#   make check      install missing Debian packages (as root), build, run
#                   the cmocka tests, then again under ASan + UBSan
#   make demo       ingest the bundled real capture and print a report
#   make bench      large generated inputs, throughput figures
#   make install    PREFIX=/usr/local DESTDIR=: memdb, memdb(1), the bash
#                   completion, the queries and docs; make uninstall
#
# SAN=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer (the
# check target does this in build-san/ itself).

PREFIX  ?= /usr/local
FUZZ_SECONDS ?= 60
DESTDIR ?=
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
CC      ?= gcc
PKG_CONFIG ?= pkg-config

# libkdumpfile and libcurl are not linked: memdb loads them when it first
# opens a core dump (ingest/vmcore/dump.c) or talks to ClickHouse
# (db/clickhouse.c), by the soname of the one built against.
PKGS := sqlite3 libelf libdw libxxhash jansson libzstd zlib liblzma \
	libtraceevent libtracecmd libbpf
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) libkdumpfile libcurl \
	2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -pthread -ldl
soname_of = $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir \
	$(1) 2>/dev/null)/$(1).so" 2>/dev/null | sed -n 's/^ *SONAME *//p')
KDUMP_SONAME := $(or $(call soname_of,libkdumpfile),libkdumpfile.so.10)
CURL_SONAME := $(or $(call soname_of,libcurl),libcurl.so.4)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN   := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	  -Wmissing-prototypes -Wformat=2
CFLAGS ?= -O2 -g
ifeq ($(SAN),fuzz)
CFLAGS += -O1 -fsanitize=fuzzer-no-link,address,undefined \
	  -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ifeq ($(SAN),1)
CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(PKG_CFLAGS) \
	      -DMDB_KDUMP_SONAME='"$(KDUMP_SONAME)"' \
	      -DMDB_CURL_SONAME='"$(CURL_SONAME)"' -I$(BUILD)/gen -I.

LIB_SRCS := $(wildcard common/*.c ingest/*.c ingest/*/*.c analysis/*.c db/*.c report/*.c symbolize/*.c record/*.c)
CLI_SRCS := $(wildcard cli/*.c)
TEST_SRCS := $(wildcard tests/test_*.c)
TESTLIB  := $(BUILD)/obj/tests/testlib.o
QUERIES := $(sort $(wildcard queries/*.sql))
# the fleet forms of reports, for ClickHouse (report/fleet.c)
FLEET_QUERIES := $(sort $(wildcard queries/fleet/*.sql))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
# the longest programs first, so that the short ones fill the CPUs at the
# end (the order of their times in both passes, tools/runtests.sh's
# summary)
SLOW_TESTS := $(addprefix $(BUILD)/tests/,test_slicing test_arch \
	test_html_page test_cli test_free_rule test_vmcore_edges \
	test_clickhouse test_pictures test_perf_figures test_perfdata \
	test_cli_ftrace test_tracedat test_merge test_symbolize test_reports \
	test_concurrency test_nomem test_spool)
TESTS    := $(SLOW_TESTS) $(filter-out $(SLOW_TESTS), \
	    $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%))
TOOLS    := $(BUILD)/ktgen $(BUILD)/mkfixtures $(BUILD)/mkmemstat \
	    $(BUILD)/bare_insert $(BUILD)/runstat

MEMDB := $(BUILD)/memdb
EXT := $(BUILD)/memdb.so   # the SQLite extension: see db/ext/memdb.c
LIBMEMDB := $(BUILD)/libmemdb.a
# memdb(1) and the bash completion, generated from memdb's --help texts
MANPAGE := $(BUILD)/memdb.1
COMPLETION := $(BUILD)/memdb.bash-completion
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

.PHONY: all check test test-programs demo bench install uninstall clean deps fixtures \
	print-libs \
	arch-fixtures \
	stress fuzz check-valgrind
.DEFAULT_GOAL := all

all: $(MEMDB) $(EXT) $(TOOLS) $(MANPAGE) $(COMPLETION)

$(MANPAGE): $(MEMDB) tools/mkman.sh tools/help2roff.awk
	sh tools/mkman.sh $(MEMDB) $$($(MEMDB) --version | cut -d' ' -f2) \
		$(MAN_DATE) > $@.tmp && mv $@.tmp $@

$(COMPLETION): $(MEMDB) tools/mkcompletion.sh
	sh tools/mkcompletion.sh $(MEMDB) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/schema.inc: db/schema.sql tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh schema_sql $< > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/queries.inc: $(QUERIES) tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh --queries $(QUERIES) > $@.tmp && mv $@.tmp $@

# Each migration db/schema-N.sql as schemaN_sql[] (db/migrations.h).
$(BUILD)/gen/schema%.inc: db/schema-%.sql tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh schema$*_sql $< > $@.tmp && mv $@.tmp $@

SCHEMA_INCS := $(BUILD)/gen/schema.inc \
	$(patsubst db/schema-%.sql,$(BUILD)/gen/schema%.inc,$(wildcard db/schema-*.sql))
$(BUILD)/obj/db/db.o: $(SCHEMA_INCS) $(BUILD)/gen/fresh.inc \
	$(BUILD)/gen/fresh_db.inc
$(BUILD)/obj/tests/test_cli_db.o $(TESTLIB): $(SCHEMA_INCS)

# A new database's schema: the migrations' result (db/migrations.h).  A
# build step: compiled without the sanitizer and fuzzer flags of SAN=.
# Both run the migrations, which need the alloc module (db/allocvt.c).
VT_SRCS := db/allocvt.c db/packcol.c
VT_DEPS := $(VT_SRCS) db/allocvt.h db/packcol.h
$(BUILD)/mkschema: tools/mkschema.c db/migrations.h $(SCHEMA_INCS) $(VT_DEPS)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 $(PKG_CFLAGS) -I$(BUILD)/gen \
		-I. -o $@ $< $(VT_SRCS) $(PKG_LIBS)

$(BUILD)/gen/fresh.sql: $(BUILD)/mkschema
	$(BUILD)/mkschema > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/fresh.inc: $(BUILD)/gen/fresh.sql tools/embed.sh
	sh tools/embed.sh fresh_sql $< > $@.tmp && mv $@.tmp $@

# ... and as the file SQLite makes of it, which a new database starts as
# (db/db.c, tools/mkfresh.c).
$(BUILD)/mkfresh: tools/mkfresh.c db/db.h $(VT_DEPS)
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 $(PKG_CFLAGS) -I. -o $@ $< \
		$(VT_SRCS) $(PKG_LIBS)

# The loadable SQLite extension (db/ext/memdb.c): the alloc module and
# slab_scan for sqlite3 and Python.  Built without the sanitizer flags of SAN=, so that
# any SQLite program can load it.
EXT_COMMON := common/hugemem.c common/queue.c common/u64map.c
$(EXT): db/ext/memdb.c $(VT_DEPS) report/scan.c report/scan.h $(EXT_COMMON) \
		common/grow.h common/heap.h common/prefetch.h
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -fPIC -shared $(PKG_CFLAGS) \
		-I. -o $@ $< db/packcol.c $(EXT_COMMON) -lzstd -pthread

$(BUILD)/gen/fresh_db.inc: $(BUILD)/mkfresh $(BUILD)/gen/fresh.sql
	$(BUILD)/mkfresh $(BUILD)/gen/fresh.sql $@.db > $@.tmp && \
		mv $@.tmp $@
$(BUILD)/obj/report/queries.o: $(BUILD)/gen/queries.inc $(BUILD)/gen/fleet.inc

$(BUILD)/gen/fleet.inc: $(FLEET_QUERIES) tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh --queries $(FLEET_QUERIES) > $@.tmp && mv $@.tmp $@

# What each report shows, for memdb report NAME --help (cli/cmd_report.c).
$(BUILD)/obj/cli/cmd_report.o: $(BUILD)/gen/reports_md.inc
$(BUILD)/gen/reports_md.inc: docs/reports.md tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh reports_md $< > $@.tmp && mv $@.tmp $@

# The flame graph's script, written into each flame graph (cli/picture.c).
$(BUILD)/gen/flame_js.inc: cli/flame.js tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh flame_js $< > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/cli/picture.o: $(BUILD)/gen/flame_js.inc

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIBMEMDB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(MEMDB): $(CLI_OBJS) $(LIBMEMDB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIBMEMDB) $(PKG_LIBS)

$(BUILD)/ktgen: $(BUILD)/obj/tests/ktgen.o
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/mkfixtures: $(BUILD)/obj/tests/mkfixtures.o
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/mkmemstat: $(BUILD)/obj/tests/mkmemstat.o
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/runstat: $(BUILD)/obj/bench/runstat.o
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bare_insert: $(BUILD)/obj/bench/bare_insert.o
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# Rewrite the small committed fixtures of testdata/ (then commit them).
fixtures: $(BUILD)/mkfixtures $(BUILD)/mkmemstat
	$(BUILD)/mkfixtures testdata
	$(BUILD)/mkmemstat --fixtures testdata

# Real captures of Debian 12's 6.1 kernel on s390x, i386 and arm64, each
# booted under QEMU TCG (testdata/arch/ARCH/README.md): about 3 minutes
# and one QEMU at a time each; as root, with the ARCH's packages
# (dpkg --add-architecture ARCH; apt-get update).  Not run by make check.
ARCH_FIXTURES ?= s390x i386 arm64
arch-fixtures:
	for a in $(ARCH_FIXTURES); do \
		python3 tests/fixtures/mk-arch.py $$a testdata/arch/$$a || exit 1; \
	done

# The fuzz harnesses, renamed, replay their regressions in make check.
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRCS:fuzz/fuzz_%.c=$(BUILD)/obj/fuzz/replay_%.o)

$(BUILD)/obj/fuzz/replay_%.o: fuzz/fuzz_%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -DLLVMFuzzerTestOneInput=replay_$* -c $< -o $@

$(BUILD)/tests/test_fuzz_regress: $(BUILD)/obj/tests/test_fuzz_regress.o \
		$(FUZZ_REPLAY) $(TESTLIB) $(LIBMEMDB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(FUZZ_REPLAY) $(TESTLIB) $(LIBMEMDB) \
		$(CMOCKA_LIBS) $(JANSSON_LIBS) $(PKG_LIBS)

# test_pictures also unit-tests cli/'s SVG writer.
$(BUILD)/tests/test_pictures: $(BUILD)/obj/tests/test_pictures.o \
		$(BUILD)/obj/cli/svg.o $(TESTLIB) $(LIBMEMDB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/obj/cli/svg.o $(TESTLIB) \
		$(LIBMEMDB) $(CMOCKA_LIBS) $(PKG_LIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TESTLIB) $(LIBMEMDB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(TESTLIB) $(LIBMEMDB) $(CMOCKA_LIBS) \
		$(PKG_LIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

deps:
	@sh tools/deps.sh

# The test suite: every tests/test_*.c is a cmocka program.  They find the
# binaries and data through the environment.
# The counts go to $(BUILD)/test-summary; the last line is
# "BUILD: N passed, N failed".
test-programs: all $(TESTS)

test: test-programs
	@MEMDB=$(abspath $(MEMDB)) KTGEN=$(abspath $(BUILD)/ktgen) \
	MKMEMSTAT=$(abspath $(BUILD)/mkmemstat) \
	MEMDB_MAN=$(abspath $(MANPAGE)) \
	MEMDB_COMPLETION=$(abspath $(COMPLETION)) \
	MEMDB_BUILD=$(BUILD) MEMDB_SAN=$(SAN) \
	TESTDATA=$(abspath testdata) TESTS_DIR=$(abspath tests) \
	TEST_TMP=$(abspath $(BUILD)/tmp) \
	sh tools/runtests.sh $(BUILD)/test-summary "$(BUILD)" $(TESTS)

# Both passes run whatever the first gives, each built JOBS at a time
# (default: the number of CPUs; the tests run as many at a time, see
# tools/runtests.sh); the last line is the whole run's "N passed, N
# failed".  The sanitizer build is made while the plain tests run, at a
# lower priority (nice), so that it takes the CPU time they leave (their
# waits, the last program's tail); its output is printed after them.
check: deps
	@rm -f $(BUILD)/test-summary build-san/test-summary \
		build-san/build.log; mkdir -p build-san; st=0; \
	$(MAKE) -j$(JOBS) test-programs || st=1; \
	{ nice $(MAKE) -j$(JOBS) BUILD=build-san SAN=1 test-programs \
		> build-san/build.log 2>&1; echo $$? > build-san/build.rc; } & \
	$(MAKE) test || st=1; \
	wait; cat build-san/build.log; \
	[ "$$(cat build-san/build.rc)" = 0 ] || st=1; \
	$(MAKE) -j$(JOBS) BUILD=build-san SAN=1 test || st=1; \
	sh tools/runtests.sh --total $(BUILD)/test-summary \
		build-san/test-summary || st=1; \
	exit $$st

demo: deps
	$(MAKE) all
	sh tools/demo.sh $(MEMDB)

bench: deps
	$(MAKE) all
	sh bench/bench.sh $(BUILD)

# A representative subset of the test suite under valgrind memcheck (memdb
# too), the rest left to check's ASan pass (see tools/valgrind.sh); fails
# on any leak or invalid access.  Not part of check: it takes minutes.
check-valgrind:
	@sh tools/deps.sh valgrind
	$(MAKE) all $(TESTS)
	sh tools/valgrind.sh $(BUILD) $(TESTS)

# The libraries memdb links, one list for this Makefile and tools/fuzz.sh.
print-libs:
	@echo $(PKG_LIBS)

# Not part of check: every fuzz/fuzz_*.c for FUZZ_SECONDS (default 60).
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tools/fuzz.sh

# Not part of check: SIGKILL ingests at random moments (STRESS_KILLS=200).
stress: all
	bash tools/stress.sh $(BUILD)

# Installed uncompressed (man-db reads it as it is); uninstall removes
# exactly what install put there, and the directories of memdb's own.
DOCS := README.md docs/usage.md docs/formats.md docs/design.md
install: $(MEMDB) $(EXT) $(MANPAGE) $(COMPLETION)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/memdb \
		$(DESTDIR)$(PREFIX)/share/memdb/queries \
		$(DESTDIR)$(PREFIX)/share/memdb/queries/fleet \
		$(DESTDIR)$(PREFIX)/share/doc/memdb \
		$(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(MEMDB) $(DESTDIR)$(PREFIX)/bin/memdb
	install -m 644 $(EXT) $(DESTDIR)$(PREFIX)/lib/memdb/memdb.so
	install -m 644 $(QUERIES) $(DESTDIR)$(PREFIX)/share/memdb/queries/
	install -m 644 $(FLEET_QUERIES) $(DESTDIR)$(PREFIX)/share/memdb/queries/fleet/
	install -m 644 $(DOCS) $(DESTDIR)$(PREFIX)/share/doc/memdb/
	install -m 644 $(MANPAGE) $(DESTDIR)$(PREFIX)/share/man/man1/memdb.1
	install -m 644 $(COMPLETION) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/memdb

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/memdb $(DESTDIR)$(PREFIX)/lib/memdb/memdb.so \
		$(DESTDIR)$(PREFIX)/share/man/man1/memdb.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/memdb \
		$(addprefix $(DESTDIR)$(PREFIX)/share/memdb/queries/,$(notdir $(QUERIES))) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/memdb/queries/fleet/,$(notdir $(FLEET_QUERIES))) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/doc/memdb/,$(notdir $(DOCS)))
	-rmdir $(DESTDIR)$(PREFIX)/lib/memdb $(DESTDIR)$(PREFIX)/share/memdb/queries/fleet \
		$(DESTDIR)$(PREFIX)/share/memdb/queries \
		$(DESTDIR)$(PREFIX)/share/memdb $(DESTDIR)$(PREFIX)/share/doc/memdb \
		2>/dev/null

clean:
	rm -rf build build-san build-fuzz build-clang
.SECONDARY:
