#!/bin/sh
# the workload traced: a file system walk, pipes, forks, files, gzip
find / -xdev > /dev/null 2>&1
ls -lR /usr/bin /lib > /dev/null 2>&1
i=0
while [ $i -lt 20 ]; do
	echo x | cat | wc -c > /dev/null
	i=$((i + 1))
done
i=0
while [ $i -lt 200 ]; do
	echo "file $i" > /tmp/w$i
	i=$((i + 1))
done
rm -f /tmp/w*
gzip -c /bin/busybox | wc -c > /dev/null
