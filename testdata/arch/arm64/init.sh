#!/bin/sh
# memdb arch fixture guest (tests/fixtures/mk-arch.py): kmem traffic
# traced four ways, /proc printed, then idle for the host's dump.
export PATH=/bin:/usr/bin
export LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu
export HOME=/tmp
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
for m in virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci 9pnet netfs fscache 9p 9pnet_virtio qemu_fw_cfg; do
	insmod /modules/$m.ko || echo "memdb-arch: insmod $m failed"
done
mkdir -p /out
mount -t 9p -o trans=virtio,version=9p2000.L out /out
O=/out
step() {
	echo "memdb-arch: $*"
	echo "$*" >> $O/steps
}
step "init running on $(uname -r) $(uname -m)"
echo 0 > /proc/sys/kernel/kptr_restrict
uname -r > $O/kernel-release
cat /proc/kallsyms > $O/kallsyms
T=/sys/kernel/tracing
EV=""
for e in kmalloc kmalloc_node kmem_cache_alloc kmem_cache_alloc_node kfree kmem_cache_free mm_page_alloc mm_page_free; do
	[ -d $T/events/kmem/$e ] && EV="$EV $e"
done
step "kmem events:$EV"

# (a, b) a tracefs instance: the trace text, then the raw pages
step "tracefs"
F=$O/tracefs
mkdir -p $F/events $F/per_cpu
I=$T/instances/memdb
mkdir $I
echo 4096 > $I/buffer_size_kb
echo 0 > $I/options/hash-ptr 2>/dev/null
for e in $EV; do echo 1 > $I/events/kmem/$e/enable; done
sh /work.sh
for e in $EV; do echo 0 > $I/events/kmem/$e/enable; done
cat $I/trace > $F/trace.txt
for f in header_page header_event; do
	cat $T/events/$f > $F/$f
	cat $T/events/$f > $F/events/$f
done
for e in $EV; do
	mkdir -p $F/events/kmem/$e
	cat $I/events/kmem/$e/format > $F/events/kmem/$e/format
done
cat $T/saved_cmdlines > $F/saved_cmdlines
for c in $I/per_cpu/cpu*; do
	n=${c##*/}
	mkdir -p $F/per_cpu/$n
	cat $c/stats > $F/per_cpu/$n/stats
	# trace_pipe_raw blocks when empty: cat is stopped after 10 s
	timeout 10 cat $c/trace_pipe_raw > /tmp/raw
	cat /tmp/raw > $F/per_cpu/$n/trace_pipe_raw
	rm /tmp/raw
done
rmdir $I
uname -r > $F/kernel-release
# the kallsyms lines of the functions the call sites name, and of the
# symbol after each (where it ends)
grep -o 'call_site=[A-Za-z0-9_.]*' $F/trace.txt | cut -d= -f2 | sort -u > /tmp/sites
awk 'NR == FNR { want[$1] = 1; next }
     NF == 3 && keep { print; keep = 0 }
     NF == 3 && ($3 in want) { print; keep = 1 }' \
	/tmp/sites /proc/kallsyms | sort -u > /tmp/ks
cat /tmp/ks > $F/kallsyms

# (c) trace-cmd, with /proc/kallsyms those lines only (as
# tests/fixtures/mk-tracedat.sh does: the file holds all of it else)
step "trace-cmd"
D=$O/tracedat
mkdir -p $D
cat /tmp/ks > $D/kallsyms
mount --bind /tmp/ks /proc/kallsyms
TE=""
for e in $EV; do TE="$TE -e kmem:$e"; done
cd /tmp
trace-cmd record -q $TE -b 4096 --file-version 6 -o /tmp/v6.dat \
	-F -c sh /work.sh > /tmp/rec.log 2>&1 || step "trace-cmd v6 failed"
cat /tmp/rec.log > $D/v6.record.log
trace-cmd record -q $TE -b 4096 --file-version 7 --compression zstd \
	-o /tmp/v7-zstd.dat -F -c sh /work.sh > /tmp/rec.log 2>&1 ||
	step "trace-cmd v7 failed"
cat /tmp/rec.log > $D/v7-zstd.record.log
umount /proc/kallsyms
for f in v6 v7-zstd; do
	trace-cmd report -i /tmp/$f.dat > /tmp/$f.txt 2> /tmp/$f.err
	cat /tmp/$f.dat > $D/$f.dat
	cat /tmp/$f.txt > $D/$f.txt
	cat /tmp/$f.err > $D/$f.report-stderr
	rm /tmp/$f.dat /tmp/$f.txt /tmp/$f.err
done
echo 1 > $T/buffer_size_kb

# (d) perf kmem
step "perf"
P=$O/perf
mkdir -p $P
perf --version > $P/perf-version 2>&1
perf kmem record -o /tmp/slab.data -a -- sh /work.sh > /tmp/rec.log 2>&1 ||
	step "perf kmem record failed"
cat /tmp/rec.log > $P/slab.record.log
perf kmem -i /tmp/slab.data stat > $P/slab.kmem-stat.txt 2> $P/slab.kmem-stat.err ||
	step "perf kmem stat failed"
perf kmem -i /tmp/slab.data --caller stat > $P/slab.kmem-caller.txt 2> $P/slab.kmem-caller.err ||
	step "perf kmem --caller stat failed"
perf script -i /tmp/slab.data > /tmp/slab.script 2> $P/slab.script.err
cat /tmp/slab.script > $P/slab.script
cat /tmp/slab.data > $P/slab.data
rm -f /tmp/slab.data /tmp/slab.script
perf kmem --page record -o /tmp/page.data -a -- sh /work.sh > /tmp/rec.log 2>&1 ||
	step "perf kmem --page record failed"
cat /tmp/rec.log > $P/page.record.log
if [ -s /tmp/page.data ]; then
	perf kmem -i /tmp/page.data --page stat > $P/page.kmem-page.txt 2> $P/page.kmem-page.err ||
		step "perf kmem --page stat failed"
	perf script -i /tmp/page.data > /tmp/page.script 2> $P/page.script.err
	cat /tmp/page.script > $P/page.script
	cat /tmp/page.data > $P/page.data
fi
rm -rf /tmp/page.data /tmp/page.script /tmp/.debug /tmp/*

# (e) free what the tools used, then /proc with builtins only
step "idle"
rm -rf /usr /modules
echo 3 > /proc/sys/vm/drop_caches
i=0
while [ $i -lt 8 ]; do
	sleep 100000 | sleep 100000 &
	i=$((i + 1))
done
mkfifo /tmp/wait
exec 3<>/tmp/wait
sleep 5
step "proc"
exec 4>$O/vmcore.proc
show() {
	printf '@@MEMDB-VMCORE BEGIN %s\n' "$1" >&4
	while IFS= read -r l; do
		printf '%s\n' "$l" >&4
	done < "$1"
	printf '@@MEMDB-VMCORE END %s\n' "$1" >&4
}
printf '@@MEMDB-VMCORE BEGIN uname-r\n%s\n@@MEMDB-VMCORE END uname-r\n' \
	"$(uname -r)" >&4
show /proc/uptime
show /proc/meminfo
show /proc/vmstat
show /proc/zoneinfo
show /proc/pagetypeinfo
show /proc/buddyinfo
show /proc/slabinfo
printf '@@MEMDB-VMCORE READY\n' >&4
echo "memdb-arch: ready"
read -r x <&3
