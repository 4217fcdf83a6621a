#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-valgrind: a representative subset of the test suite under
# valgrind memcheck, sized to finish in minutes on 2 cores (the whole suite
# with every memdb it runs under memcheck took well over 15 minutes: its
# CLI tests ingest generated traces of up to a million events).  A leak or
# an invalid access fails it.
#
#   smoke:   memdb itself under memcheck on one committed fixture of each
#            input format and layout (capture directories included), then
#            every report, check, sources and sql
#   full:    the program and every memdb it runs under memcheck (MEMDB
#            points at a wrapper): the hostile inputs
#   library: the program under memcheck, any memdb it runs native: the
#            decoders, pairing, kallsyms, modules, fuzz regressions
#   the rest (test_cli, test_snapshot_cli, test_reports, test_cli_ftrace,
#   test_symbolize, test_concurrency, ...: large generated traces, real
#   captures, hundreds of memdb runs; test_snapshot_cli alone took 8
#   minutes) is covered by the ASan + UBSan pass of make check.
#
# Origins of uninitialised values are not tracked (it doubles the time):
# VALGRIND_OPTS=--track-origins=yes make check-valgrind when one shows.
#
#   sh tools/valgrind.sh BUILD_DIR TEST...
set -u
build=$(cd "$1" && pwd)
shift
full="test_inputs"
library="test_u64map test_pair test_kallsyms test_ftrace test_kmemtrace
test_kt_ftrace test_snapshot test_modules test_fuzz_regress test_spool
test_tracefs"
vg="valgrind -q --error-exitcode=99 --leak-check=full \
--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"
wrap=$build/vg-memdb
cat > "$wrap" <<WRAP
#!/bin/sh
exec $vg $build/memdb "\$@"
WRAP
chmod +x "$wrap"

# in_list NAME LIST
in_list() {
	case " $(echo $2) " in *" $1 "*) return 0 ;; esac
	return 1
}

start=$(date +%s)
fail=0

# smoke: a fixture of each format into one database (traces, then
# snapshots), the reports over the latest trace and the latest snapshot
smoke=$build/tmp-vg/smoke
rm -rf "$smoke"
mkdir -p "$smoke"
t0=$(date +%s)
n=0
s=testdata/succeed
for f in $s/ftrace-2.6.30 $s/ftrace-6.18 $s/ftrace-perf-script \
	 $s/ftrace-trace-cmd $s/ftrace-malformed $s/kt-small-be $s/kt-wrap \
	 $s/ktf-small-lp64-le.bin $s/ktf-small-ilp32-be-prefix.bin \
	 $s/snapshots/allocinfo-v2.txt $s/snapshots/allocinfo-humanized.txt \
	 $s/snapshots/slabinfo-noheader.txt $s/snapshots/vmstat-m-excerpt.txt \
	 $s/memstat/vmstat-z.txt $s/memstat/vmstat-z-v2.json \
	 $s/memstat/vmstat-m.json $s/memstat/zone_stats-be-4.bin \
	 $s/memstat/malloc_stats-le-4.bin testdata/real-tracefs; do
	n=$((n + 1))
	"$wrap" ingest -q -d "$smoke/all.db" "$f" ||
		{ echo "== smoke: ingest $f"; fail=1; }
done
"$wrap" ingest -q -d "$smoke/trace.db" testdata/succeed/ftrace-6.18 ||
	fail=1
# a series of two snapshots, for growth
for f in allocinfo-t0 allocinfo-t1; do
	"$wrap" ingest -q --label m -d "$smoke/series.db" \
		"$s/snapshots/$f.txt" || fail=1
done
for db in trace all series; do
	for r in $("$build/memdb" report list | cut -d' ' -f1); do
		"$wrap" report "$r" -d "$smoke/$db.db" -f csv > /dev/null 2>&1
		[ $? -ge 99 ] && { echo "== smoke: report $r ($db)"; fail=1; }
	done
done
for f in testdata/succeed/ftrace-6.18 testdata/succeed/kt-small-le \
	 testdata/succeed/memstat/vmstat-z.txt testdata/fail/abi-version-2; do
	"$wrap" check "$f" > /dev/null 2>&1
	[ $? -ge 99 ] && { echo "== smoke: check $f"; fail=1; }
done
"$wrap" sources -d "$smoke/all.db" > /dev/null || fail=1
"$wrap" sql -d "$smoke/all.db" "SELECT count(*) FROM alloc" > /dev/null ||
	fail=1
echo "== valgrind smoke: $n fixtures, $(( $(date +%s) - t0 )) s"
for t in "$@"; do
	name=$(basename "$t")
	if in_list "$name" "$full"; then
		memdb=$wrap
	elif in_list "$name" "$library"; then
		memdb=$build/memdb
	else
		echo "== $name: not under valgrind (ASan covers it)"
		continue
	fi
	t0=$(date +%s)
	# shellcheck disable=SC2086
	MEMDB=$memdb KTGEN=$build/ktgen MKMEMSTAT=$build/mkmemstat \
	TESTDATA=$(pwd)/testdata TESTS_DIR=$(pwd)/tests \
	TEST_TMP=$build/tmp-vg \
		$vg "$t" || fail=1
	echo "== valgrind $name: $(( $(date +%s) - t0 )) s"
done
echo "check-valgrind: $(( $(date +%s) - start )) s, $( [ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
