#!/bin/sh
# SPDX-License-Identifier: MIT
# memdb symbolize benchmark (run by bench/bench.sh with BUILD_DIR WORK_DIR).
# Not a test: it prints figures.
#
# 1. A generated kernel-like ELF (testdata/symbolize/ plus BENCH_SYM_FUNCS
#    generated functions in 16 compile units, DWARF, inlines) and a
#    generated trace whose call sites are its instruction addresses:
#    addresses/s of 'memdb symbolize --vmlinux' over the distinct sites.
# 2. With VMLINUX=path (a real vmlinux with DWARF): 2000 random text
#    addresses of it (fixed seed) resolved by memdb, and by
#    llvm-symbolizer --inlines and eu-addr2line -f -i when installed.
set -eu
. bench/lib.sh

build=$1
work=${2:-$build/bench}
memdb=$build/memdb
ktgen=$build/ktgen
stat=$build/runstat
dir=$work/symbolize
nfuncs=${BENCH_SYM_FUNCS:-6000}
rm -rf "$dir"
mkdir -p "$dir"

looked() { sed -n 's/.*, \([0-9,]*\) looked at.*/\1/p' "$1" | tr -d ,; }

echo
echo "symbolize: generating a test ELF with $nfuncs functions"
src=testdata/symbolize
sh "$src/build.sh" "$dir/obj" > /dev/null
cflags="-g -O2 -ffreestanding -fno-pic -fno-pie -fno-stack-protector
-fcf-protection=none -fno-asynchronous-unwind-tables -I$src"
objs=
for u in $(seq 0 15); do
	awk -v u="$u" -v n="$nfuncs" 'BEGIN {
		print "#include \"kernel.h\""
		print "void *kmalloc_node(size_t size, int flags, int node);"
		for (i = u; i < n; i += 16) {
			printf "static inline __attribute__((always_inline)) "
			printf "unsigned long h%d(unsigned long x)\n", i
			printf "{ return mix(x, %d) ^ (x >> %d); }\n", i, i % 13
			printf "void *gen_%d(size_t n, int fl)\n{\n", i
			printf "\tvoid *p = alloc_hooked(n + %d, fl);\n", i % 61
			printf "\tif (h%d(n) & 2)\n\t\tout_of_line(%d);\n", i, i
			printf "\treturn p ? p : kmalloc_node(n, fl, %d);\n}\n", i
		}
	}' > "$dir/gen$u.c"
	# shellcheck disable=SC2086
	${CC:-gcc} $cflags -c -o "$dir/gen$u.o" "$dir/gen$u.c"
	objs="$objs $dir/gen$u.o"
done
# shellcheck disable=SC2086
${CC:-gcc} -nostdlib -no-pie -Wl,-Ttext=0xffffffff81000000 \
	-Wl,--build-id=none -Wl,-e,startup_64 -o "$dir/vmlinux-gen" \
	"$dir/obj/head.o" "$dir/obj/mm.o" "$dir/obj/fs.o" $objs
objdump -d --no-show-raw-insn -j .text "$dir/vmlinux-gen" |
	awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print $1 }' > "$dir/sites"
nsites=$(wc -l < "$dir/sites")
textsize=$(size -A "$dir/vmlinux-gen" | awk '$1 == ".text" { print $2 }')
echo "  ELF: $(wc -c < "$dir/vmlinux-gen") bytes, .text $textsize bytes, $nsites instructions"

events=$((nsites * 6))
"$ktgen" --seed 5 --events "$events" --cpus 2 --live 20000 \
	--sites-file "$dir/sites" "$dir/cap" > /dev/null
"$memdb" ingest -q -d "$dir/sym.db" "$dir/cap"
"$stat" "$memdb" symbolize -d "$dir/sym.db" --vmlinux "$dir/vmlinux-gen" \
	> "$dir/sym.out" 2> "$dir/sym.stat"
n=$(looked "$dir/sym.out")
t=$(secs "$dir/sym.stat")
echo "  trace: $events events, $n distinct call sites"
echo "  memdb symbolize: $t s = $(rate "$n" "$t") addresses/s (DWARF: function, file:line, inline chain)"
"$stat" "$memdb" symbolize -d "$dir/sym.db" --vmlinux "$dir/vmlinux-gen" \
	> "$dir/sym2.out" 2> "$dir/sym2.stat"
echo "  second run (nothing to do): $(secs "$dir/sym2.stat") s"

if [ -z "${VMLINUX:-}" ]; then
	echo "  (VMLINUX=path/to/vmlinux adds a comparison with llvm-symbolizer)"
	rm -rf "$dir"
	exit 0
fi

echo
echo "symbolize: 2000 random text addresses of $VMLINUX"
echo "  ($(wc -c < "$VMLINUX") bytes; function+offset, file:line and inline chain each)"
# FUNC symbols with a size; a random offset inside each; the high 32 bits
# are kept as text so awk's doubles stay exact
readelf -Ws "$VMLINUX" |
	awk '$4 == "FUNC" && $3 > 1 && length($2) == 16 { print $2, $3 }' |
	awk 'BEGIN { srand(42) } { a[NR] = $0 }
	     END { for (k = 0; k < 2000; k++) {
		split(a[1 + int(rand() * NR)], f, " ")
		hi = substr(f[1], 1, 8); lo = substr(f[1], 9, 8)
		v = 0
		for (i = 1; i <= 8; i++)
			v = v * 16 + index("0123456789abcdef",
					   substr(lo, i, 1)) - 1
		v += 1 + int(rand() * (f[2] - 1))
		if (v >= 4294967296) { k--; continue }
		# the address, and address - 1 (the call: its file:line)
		printf "%s%08x 0x%s%08x\n", hi, v, hi, v - 1
	     } }' | sort -u > "$dir/vpairs"
cut -d' ' -f1 "$dir/vpairs" > "$dir/vsites"
cut -d' ' -f2 "$dir/vpairs" > "$dir/vaddrs-1"
nv=$(wc -l < "$dir/vsites")
"$ktgen" --seed 9 --events $((nv * 60)) --cpus 2 --live 1000 \
	--sites-file "$dir/vsites" "$dir/vcap" > /dev/null
"$memdb" ingest -q -d "$dir/v.db" "$dir/vcap"
# every tool then reads the vmlinux from the page cache
cat "$VMLINUX" > /dev/null
"$stat" "$memdb" symbolize -d "$dir/v.db" --vmlinux "$VMLINUX" \
	> "$dir/v.out" 2> "$dir/v.stat"
t_memdb=$(secs "$dir/v.stat")
n=$(looked "$dir/v.out")
echo "  memdb symbolize:           $t_memdb s for $n addresses, opening the vmlinux and the database included"
if command -v llvm-symbolizer > /dev/null; then
	"$stat" llvm-symbolizer --inlines --obj="$VMLINUX" < "$dir/vaddrs-1" \
		> "$dir/llvm.out" 2> "$dir/llvm.stat"
	t_llvm=$(secs "$dir/llvm.stat")
	echo "  llvm-symbolizer --inlines: $t_llvm s for $nv addresses   (memdb $(ratio "$t_llvm" "$t_memdb")x faster)"
fi
if command -v eu-addr2line > /dev/null; then
	# exit status 1 when some address has no line: not a failure here
	"$stat" eu-addr2line -f -i -e "$VMLINUX" < "$dir/vaddrs-1" \
		> "$dir/eu.out" 2> "$dir/eu.stat" || true
	t_eu=$(secs "$dir/eu.stat")
	echo "  eu-addr2line -f -i:        $t_eu s for $nv addresses   (memdb $(ratio "$t_eu" "$t_memdb")x faster)"
fi
rm -rf "$dir"
