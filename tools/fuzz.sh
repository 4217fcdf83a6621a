#!/bin/bash
# SPDX-License-Identifier: MIT
# make fuzz: build every fuzz/fuzz_*.c harness with clang and libFuzzer
# (-fsanitize=fuzzer,address,undefined), seed it from testdata/ (see
# fuzz/seeds.txt), run each for FUZZ_SECONDS (FUZZ_JOBS at a time,
# default 2), and print executions and coverage per harness.  Crashes,
# leaks, timeouts and allocations over 256 MB land in build-fuzz/findings/.
# -max_len is the largest seed's size (libFuzzer would cut seeds to 1 MB).
# fuzz/NAME.lsan, when present, holds LeakSanitizer suppressions for
# harness NAME (leaks inside a Debian library, each explained there).
set -u
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
out=build-fuzz
only=${FUZZ_ONLY:-}

sh tools/deps.sh fuzz || exit 1
make -s BUILD=$out CC=clang SAN=fuzz $out/libmemdb.a || exit 1
# the Makefile's libraries, and libkdumpfile, which the harnesses link
# (memdb itself loads it when it first opens a core dump)
libs="$(make -s print-libs) $(pkg-config --libs libkdumpfile 2>/dev/null)"
mkdir -p $out/findings

# A directory as fuzz/fuzz_capture.c unpacks it: "=== NAME SIZE\n" and
# the bytes of each regular file, NAME relative to the directory.
pack_dir() {
	local f
	(cd "$1" && find . -type f | sed 's|^\./||' | sort) | while read -r f; do
		printf '=== %s %d\n' "$f" "$(wc -c < "$1/$f")"
		cat "$1/$f"
	done
}

# The bytes of seed file $1: a fixture kept as .zst decompressed.
seed_bytes() {
	if [ "${1%.zst}" != "$1" ]; then
		zstd -dcq "$1"
	else
		cat "$1"
	fi
}

# Cut size $1 (bytes, NK, NM or half) of a file of $2 bytes; nothing when
# the cut would keep the whole file or nothing.
cut_len() {
	local n
	case $1 in
	half) n=$(($2 / 2)) ;;
	*K) n=$((${1%K} * 1024)) ;;
	*M) n=$((${1%M} * 1048576)) ;;
	*) n=$1 ;;
	esac
	[ "$n" -gt 0 ] && [ "$n" -lt "$2" ] && echo "$n"
}

# the elf harness's seeds: the symbolize test inputs, built here
if [ -z "$only" ] || [ "$only" = elf ]; then
	sh testdata/symbolize/build.sh $out/gen-seeds/elf || exit 1
fi
names=
for src in fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	[ -n "$only" ] && [ "$only" != "$name" ] && continue
	# shellcheck disable=SC2086
	clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -I$out/gen \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		"$src" $out/libmemdb.a $libs -o "$out/fuzz_$name" || exit 1
	corpus=$out/corpus/$name
	mkdir -p "$corpus"
	while read -r h prefix globs; do
		[ "$h" = "$name" ] || continue
		# PREFIX:CUTS: each file whole and cut to each size too
		cuts=
		case $prefix in
		*:*) cuts=${prefix#*:}; prefix=${prefix%%:*} ;;
		esac
		for f in $globs; do
			seed=$corpus/seed-$(echo "$prefix$f" | md5sum | cut -c1-12)
			if [ "$prefix" = dir ]; then
				[ -d "$f" ] && pack_dir "$f" > "$seed"
				continue
			fi
			[ -f "$f" ] || continue
			size=$(seed_bytes "$f" | wc -c)
			for c in whole ${cuts//,/ }; do
				if [ "$c" = whole ]; then
					n=$size
				else
					n=$(cut_len "$c" "$size") || continue
					seed=$corpus/seed-$(echo "$prefix$f:$c" |
						md5sum | cut -c1-12)
				fi
				{
					[ "$prefix" = - ] || printf "\\x$prefix"
					seed_bytes "$f" | head -c "$n"
				} > "$seed"
			done
		done
	done < <(grep -v '^#' fuzz/seeds.txt)
	names="$names $name"
done

run_one() {
	local name=$1 log=$out/fuzz_$1.log
	# known leaks inside a Debian library, documented there
	if [ -f "fuzz/$name.lsan" ]; then
		export LSAN_OPTIONS="suppressions=fuzz/$name.lsan"
	fi
	# whole files as seeds: no shorter than the largest (16 MB dumps)
	local max
	max=$(find "$out/corpus/$name" -type f -printf '%s\n' | sort -n |
		tail -n 1)
	[ "${max:-0}" -lt 4096 ] && max=4096
	"$out/fuzz_$name" -max_total_time="$secs" -print_final_stats=1 \
		-max_len="$max" \
		-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
		-artifact_prefix="$out/findings/$name-" "$out/corpus/$name" \
		> "$log" 2>&1
	echo $? > "$log.rc"
}
export -f run_one
export out secs
# shellcheck disable=SC2086
printf '%s\n' $names | xargs -P "$jobs" -I{} bash -c 'run_one {}'

status=0
printf '%-14s %12s %10s %10s %s\n' harness executions exec/s coverage result
for name in $names; do
	log=$out/fuzz_$name.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	result=ok
	if [ "$(cat "$log.rc")" != 0 ]; then
		result="FINDING (see $log)"
		status=1
	fi
	printf '%-14s %12s %10s %10s %s\n' "$name" "${execs:-?}" \
		"${rate:-?}" "${cov:-?}" "$result"
done
exit $status
