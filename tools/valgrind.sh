#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-valgrind: a representative subset of the test suite under
# valgrind memcheck, sized to finish in minutes on 2 cores (the whole suite
# with every memdb it runs under memcheck took over 15 minutes).  A leak
# or an invalid access fails it.
#
#   full:    the program and every memdb it runs under memcheck (MEMDB
#            points at a wrapper): the CLI, every ingest format, reports,
#            snapshots, the hostile inputs
#   library: the program under memcheck, any memdb it runs native: the
#            decoders, pairing, kallsyms, modules, fuzz regressions
#   the rest (test_reports, test_cli_ftrace, test_symbolize,
#   test_concurrency: long generated traces, real captures, many memdb
#   runs) is covered by the ASan + UBSan pass of make check.
#
#   sh tools/valgrind.sh BUILD_DIR TEST...
set -u
build=$(cd "$1" && pwd)
shift
full="test_cli test_snapshot_cli test_inputs"
library="test_u64map test_pair test_kallsyms test_ftrace test_kmemtrace
test_kt_ftrace test_snapshot test_modules test_fuzz_regress"
vg="valgrind -q --error-exitcode=99 --leak-check=full \
--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
--track-origins=yes"
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
