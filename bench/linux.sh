#!/usr/bin/env bash
# Builds corpus 1 for `make bench`: Debian's linux-source-6.1 as an x86-64
# tinyconfig kernel with a serial console, cached under cache/ (git-ignored),
# niced so it does not starve others on a shared machine.
# Usage: bench/linux.sh [CACHE_DIR]; prints the build directory.
set -eu
C=${1:-cache}
TAR=/usr/src/linux-source-6.1.tar.xz
SRC=$C/linux-source-6.1
if [ ! -r "$TAR" ]; then
	echo "bench/linux.sh: $TAR missing: apt-get install linux-source-6.1 (bench/deps.sh)" >&2
	exit 1
fi
mkdir -p "$C"
if [ ! -e "$SRC/Makefile" ]; then
	nice -n 10 tar -C "$C" -xJf "$TAR"
fi
cd "$SRC"
if [ ! -e .config ]; then
	make -s ARCH=x86_64 tinyconfig >/dev/null
	scripts/config -e 64BIT -e TTY -e PRINTK -e SERIAL_8250 -e SERIAL_8250_CONSOLE \
		-e HYPERVISOR_GUEST -e PVH -e BINFMT_ELF
	make -s ARCH=x86_64 olddefconfig >/dev/null
fi
if [ ! -e vmlinux ]; then
	nice -n 10 make -s ARCH=x86_64 -j2 vmlinux >build.log 2>&1 || { tail -20 build.log >&2; exit 1; }
fi
pwd
