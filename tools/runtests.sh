#!/bin/sh
# SPDX-License-Identifier: MIT
# make test / make check: run the cmocka test programs and count their
# tests from cmocka's own summary lines ("[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s), listed below:").  A program that fails without
# such a line (a crash, a failed group setup) counts as one failed test.
#
#   sh tools/runtests.sh SUMMARY_FILE LABEL TEST...
#       runs the tests, MEMDB_TEST_JOBS at a time, prints "LABEL: N
#       passed, N failed", writes "N N" to SUMMARY_FILE; exit status 1
#       when any failed
#   sh tools/runtests.sh --total SUMMARY_FILE...
#       prints the sum as "N passed, N failed" (a missing file: the pass
#       did not run, one failure); exit status 1 when any failed
set -u

if [ "$1" = --total ]; then
	shift
	pass=0
	fail=0
	for f in "$@"; do
		if [ -r "$f" ] && read -r p n < "$f"; then
			pass=$((pass + p))
			fail=$((fail + n))
		else
			fail=$((fail + 1))
		fi
	done
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
fi

summary=$1
label=$2
shift 2
rm -f "$summary"
# The programs run side by side, MEMDB_TEST_JOBS at a time (default: the
# number of CPUs); each one's output is printed whole, in the order given.
jobs=${MEMDB_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
logs=$(mktemp -d "${TMPDIR:-/tmp}/memdb-tests.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
# Each program's path goes through a file, so that xargs splits nothing.
i=0
for t in "$@"; do
	i=$((i + 1))
	printf '%s' "$t" > "$logs/$i.path"
	echo "$i"
done | xargs -P "$jobs" -I{} sh -c \
	't=$(cat "$0/$1.path"); "$t" > "$0/$1.log" 2>&1; echo $? > "$0/$1.rc"' \
	"$logs" {}
pass=0
fail=0
i=0
for t in "$@"; do
	i=$((i + 1))
	log=$logs/$i.log
	echo "== $t"
	cat "$log" 2>/dev/null
	rc=$(cat "$logs/$i.rc" 2>/dev/null || echo 127)
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\.$/\1/p' "$log" |
		tail -n 1)
	n=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:$/\1/p' \
		"$log" | tail -n 1)
	p=${p:-0}
	n=${n:-0}
	if [ "$rc" != 0 ] && [ "$n" = 0 ]; then
		echo "== $t: exit status $rc without a cmocka failure: 1 failed"
		n=1
	fi
	pass=$((pass + p))
	fail=$((fail + n))
done
echo "$pass $fail" > "$summary"
echo "$label: $pass passed, $fail failed"
[ "$fail" = 0 ]
exit
