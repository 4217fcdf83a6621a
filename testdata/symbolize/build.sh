#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the symbolize test inputs from the sources beside this script:
#   OUTDIR/vmlinux-test   a freestanding "kernel" linked at
#                         0xffffffff81000000 with DWARF (head.S, mm.c, fs.c,
#                         entry.S)
#   OUTDIR/testmod.ko     a relocatable object with DWARF (testmod.c)
# Used by tests/test_symbolize.c and bench/bench-symbolize.sh.
#
#   sh testdata/symbolize/build.sh OUTDIR
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=$1
cc=${CC:-gcc}
cflags="-g -O2 -ffreestanding -fno-pic -fno-pie -fno-stack-protector
-fcf-protection=none -fno-asynchronous-unwind-tables -I$src"
mkdir -p "$out"
# head.S and entry.S without -g: assembly with no line information
$cc -c -o "$out/head.o" "$src/head.S"
$cc -c -o "$out/entry.o" "$src/entry.S"
# shellcheck disable=SC2086
$cc $cflags -c -o "$out/mm.o" "$src/mm.c"
# shellcheck disable=SC2086
$cc $cflags -c -o "$out/fs.o" "$src/fs.c"
$cc -nostdlib -no-pie -Wl,-Ttext=0xffffffff81000000 -Wl,--build-id=none \
	-Wl,-e,startup_64 -o "$out/vmlinux-test" \
	"$out/head.o" "$out/mm.o" "$out/fs.o" "$out/entry.o"
# shellcheck disable=SC2086
$cc $cflags -c -o "$out/testmod.ko" "$src/testmod.c"
