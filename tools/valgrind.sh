#!/bin/sh
# SPDX-License-Identifier: MIT
# make check-valgrind: every test program under valgrind memcheck, and
# every memdb it runs under valgrind too (MEMDB points at a wrapper), so a
# leak or an invalid access anywhere fails the suite.
#
#   sh tools/valgrind.sh BUILD_DIR TEST...
set -u
build=$1
shift
vg="valgrind -q --error-exitcode=99 --leak-check=full \
--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
--track-origins=yes"
wrap=$build/vg-memdb
cat > "$wrap" <<WRAP
#!/bin/sh
exec $vg $(cd "$build" && pwd)/memdb "\$@"
WRAP
chmod +x "$wrap"

start=$(date +%s)
fail=0
for t in "$@"; do
	echo "== valgrind $t"
	# shellcheck disable=SC2086
	MEMDB=$(cd "$build" && pwd)/vg-memdb KTGEN=$(cd "$build" && pwd)/ktgen \
	MKMEMSTAT=$(cd "$build" && pwd)/mkmemstat \
	TESTDATA=$(pwd)/testdata TESTS_DIR=$(pwd)/tests \
	TEST_TMP=$(cd "$build" && pwd)/tmp-vg \
		$vg "$t" || fail=1
done
echo "check-valgrind: $(( $(date +%s) - start )) s, $( [ $fail = 0 ] && echo passed || echo FAILED)"
exit $fail
