#!/usr/bin/env bash
# The Linux corpus's inputs, as scripts/link-vmlinux.sh links them: every
# object of vmlinux.a, the members of lib/lib.a and arch/x86/lib/lib.a that
# the link pulls in (asked of ld.bfd with --trace) and
# init/version-timestamp.o, in link-vmlinux.sh's (canonical) order. The kit
# names objects by basename, and Linux
# reuses basenames (core.o, ...), so each object gets a symlink named after
# its path. Also copies the preprocessed vmlinux.lds.
# Usage: bench/linux-objs.sh LINUX_BUILD_DIR OUTDIR
set -eu
src=$1
out=$2
libs="lib/lib.a arch/x86/lib/lib.a"
rm -rf "$out" && mkdir -p "$out"
# The same command line as link-vmlinux.sh; --trace lists every input
# object, archive members included, in link order.
(cd "$src" && ld.bfd -m elf_x86_64 -r -o /dev/null -t --whole-archive vmlinux.a \
	init/version-timestamp.o --no-whole-archive --start-group $libs --end-group 2>/dev/null) |
	grep '\.o$' >"$out/paths.txt"
: >"$out/objects.txt"
while read -r o; do
	n=$(echo "$o" | tr / _)
	ln -s "$(cd "$src" && pwd)/$o" "$out/$n"
	echo "$out/$n" >>"$out/objects.txt"
done <"$out/paths.txt"
cp "$src/arch/x86/kernel/vmlinux.lds" "$out/vmlinux.lds"
