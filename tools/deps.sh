#!/bin/sh
# SPDX-License-Identifier: MIT
# Make sure the Debian packages memdb builds and tests with are installed.
# As root, missing ones are installed with apt-get; otherwise the missing
# list is printed and the script fails.
#
#   tools/deps.sh          build + test dependencies
#   tools/deps.sh fuzz     also clang and its fuzzer runtime
set -eu

pkgs="gcc make pkg-config libsqlite3-dev libelf-dev libdw-dev libxxhash-dev
libcmocka-dev libjansson-dev libzstd-dev zlib1g-dev liblzma-dev
libtraceevent-dev libtracecmd-dev libtracefs-dev libkdumpfile-dev
libbpf-dev libcurl4-openssl-dev sqlite3 zstd
elfutils gawk gzip python3 clickhouse-server curl
xz-utils binutils llvm chromium groff-base man-db bsdutils bash"
if [ "${1:-}" = fuzz ]; then
	pkgs="$pkgs clang libclang-rt-dev"
fi
if [ "${1:-}" = valgrind ]; then
	pkgs="$pkgs valgrind"
fi

missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || true
	# shellcheck disable=SC2086
	apt-get install -y -qq $missing
else
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run 'sudo apt-get install$missing' (or make as root)" >&2
	exit 1
fi
