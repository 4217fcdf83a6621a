#!/bin/sh
# SPDX-License-Identifier: MIT
# make test / make check: run the cmocka test programs and count their
# tests from cmocka's own summary lines ("[  PASSED  ] N test(s)." and
# "[  FAILED  ] N test(s), listed below:").  A program that fails without
# such a line (a crash, a failed group setup) counts as one failed test.
#
#   sh tools/runtests.sh SUMMARY_FILE LABEL TEST...
#       runs the tests, MEMDB_TEST_JOBS at a time, prints each program's
#       wall and CPU seconds after its output, the slowest programs, then
#       "LABEL: N passed, N failed"; writes "N N" to SUMMARY_FILE's first
#       line and "WALL CPU PROGRAM" per program (seconds) to the lines
#       after it; exit status 1 when any failed
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
# Each program has its own $TEST_TMP/PROGRAM, removed when it passes
# (kept when it fails, or when MEMDB_KEEP_TMP is set): the whole run's
# files would take gigabytes.
# Its wall time is taken around it (nanoseconds from date), its CPU time
# is what the shell's times builtin reports for its children.
i=0
for t in "$@"; do
	i=$((i + 1))
	printf '%s' "$t" > "$logs/$i.path"
	echo "$i"
done | xargs -P "$jobs" -I{} sh -c \
	't=$(cat "$0/$1.path"); d=; s=$(date +%s%N);
	if [ -n "${TEST_TMP:-}" ]; then
		d=$TEST_TMP/${t##*/}; rm -rf "$d"; mkdir -p "$d"
	fi
	TEST_TMP=${d:-${TEST_TMP:-}} "$t" > "$0/$1.log" 2>&1; rc=$?;
	echo $rc > "$0/$1.rc"; e=$(date +%s%N); times > "$0/$1.cpu";
	echo "$s $e $(tail -n 1 "$0/$1.cpu")" > "$0/$1.time";
	if [ $rc = 0 ] && [ -n "$d" ] && [ -z "${MEMDB_KEEP_TMP:-}" ]; then
		rm -rf "$d"
	fi' "$logs" {}
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
	# "START END 0mUs 0mSs" -> "WALL CPU PROGRAM", seconds
	tm=$(awk -v t="$t" '{ u = $3; s = $4; sub(/m/, " ", u); sub(/m/, " ", s);
		split(u, a, " "); split(s, b, " ");
		printf "%.1f %.1f %s\n", ($2 - $1) / 1e9,
			a[1] * 60 + a[2] + b[1] * 60 + b[2], t }' \
		"$logs/$i.time" 2>/dev/null)
	if [ -n "$tm" ]; then
		echo "$tm" >> "$logs/times"
		w=${tm%% *}
		c=${tm#* }
		echo "== $t: $w s, CPU ${c%% *} s"
	fi
done
touch "$logs/times"
{ echo "$pass $fail"; cat "$logs/times"; } > "$summary"
sort -rn "$logs/times" | awk -v l="$label" '
	{ w += $1; c += $2; p = $0; sub(/^[^ ]* [^ ]* /, "", p)
	  if (NR <= 10) top = top sprintf("  %6.1f s  CPU %6.1f s  %s\n", $1, $2, p) }
	END { printf "%s: the programs took %.0f s wall, %.0f s CPU in all; the slowest:\n%s",
		l, w, c, top }'
echo "$label: $pass passed, $fail failed"
[ "$fail" = 0 ]
exit
