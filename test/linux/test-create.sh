#!/usr/bin/env bash
# `linkkit create --linux BUILD_DIR` on small synthetic build trees (no
# corpus needed): a tree in the shape make leaves (thin vmlinux.a made by
# `ar cDPrST`, head_64.o first, .vmlinux.export.o, version-timestamp.o,
# a kallsyms object, include/config/auto.conf, vmlinux.lds) makes a kit
# that links, with objects named by their paths and head_64.o first; and
# every build it cannot relink, and every malformed thin archive, is
# refused with exactly one line naming the file.
# Usage: test-create.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../qemu/lib.sh"
B=$(cd "$1" && pwd)
LK=$B/tools/linkkit
names=(linux-create-tree linux-create-names linux-refuse-lto linux-refuse-ibt
       linux-refuse-nomodules linux-refuse-btf linux-refuse-vmlinux-o
       linux-refuse-not-thin linux-refuse-dotdot linux-refuse-absolute
       linux-refuse-truncated linux-refuse-twice linux-refuse-head
       linux-refuse-kallsyms-notall linux-refuse-kallsyms-nomap
       linux-refuse-kallsyms-nomatch linux-refuse-kallsyms-noobj)
command -v gcc >/dev/null && command -v ar >/dev/null || skip_all "no gcc/ar" "${names[@]}"
T=$(new_run_dir "$B/test/linux/create") || fail_all "cannot make a run directory" "${names[@]}"

# tree DIR: a minimal build tree that links.
tree() {
	local d=$1 f
	mkdir -p "$d/arch/x86/kernel" "$d/init" "$d/kernel" "$d/include/config"
	cat >"$d/arch/x86/kernel/head_64.S" <<'EOF'
	.section .head.text,"ax"
	.globl startup_64
startup_64:
	call start_kernel
	hlt
EOF
	cat >"$d/init/main.c" <<'EOF'
extern int other(void);
static int (*const initcall)(void) __attribute__((used, section(".initcall6.init"))) = other;
void start_kernel(void) { other(); }
EOF
	echo 'int other(void) { return 1; }' >"$d/kernel/core.c"
	echo 'int export_stub;' >"$d/vmlinux.export.c"
	echo 'const char version_ts[] = "ts";' >"$d/init/version-timestamp.c"
	echo 'const unsigned long kallsyms_stub[2] = { 1, 2 };' >"$d/kallsyms2.c"
	for f in arch/x86/kernel/head_64.S init/main.c kernel/core.c; do
		gcc -O2 -fno-pie -mcmodel=kernel -ffreestanding -fno-asynchronous-unwind-tables \
			-c "$d/$f" -o "$d/${f%.*}.o" || return 1
	done
	gcc -O2 -fno-pie -c "$d/vmlinux.export.c" -o "$d/.vmlinux.export.o" &&
		gcc -O2 -fno-pie -c "$d/init/version-timestamp.c" -o "$d/init/version-timestamp.o" &&
		gcc -O2 -fno-pie -c "$d/kallsyms2.c" -o "$d/.tmp_vmlinux.kallsyms2.o" || return 1
	(cd "$d" && ar cDPrST vmlinux.a arch/x86/kernel/head_64.o init/main.o kernel/core.o) || return 1
	printf 'CONFIG_X86_64=y\nCONFIG_MODULES=y\nCONFIG_BUILDTIME_TABLE_SORT=n\n' >"$d/include/config/auto.conf"
	cat >"$d/arch/x86/kernel/vmlinux.lds" <<'EOF'
ENTRY(startup_64)
SECTIONS {
  . = 0xffffffff81000000;
  .text : AT(ADDR(.text) - 0xffffffff80000000) { _text = .; KEEP(*(.head.text)) *(.text .text.*) }
  .rodata : AT(ADDR(.rodata) - 0xffffffff80000000) { *(.rodata .rodata.*) }
  .init.data : AT(ADDR(.init.data) - 0xffffffff80000000) { __initcall6_start = .; KEEP(*(.initcall6.init)) }
  .data : AT(ADDR(.data) - 0xffffffff80000000) { *(.data .data.*) }
  .notes : AT(ADDR(.notes) - 0xffffffff80000000) { KEEP(*(.note.*)) }
  .bss : AT(ADDR(.bss) - 0xffffffff80000000) { *(.bss .bss.*) *(COMMON) }
  /DISCARD/ : { *(.note.GNU-stack) *(.comment) *(.eh_frame) }
}
EOF
}

# refused NAME DIR WANT: create fails with exactly one line containing WANT.
refused() {
	local n=$1 d=$2 want=$3 out rc
	out=$("$LK" create -o "$T/$n.kit" --linux "$d" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then not_ok "$n" "accepted"
	elif [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then not_ok "$n" "$(printf '%s\n' "$out" | wc -l) lines: $out"
	elif [[ $out != *"$want"* ]]; then not_ok "$n" "said '$out', not '$want'"
	elif [ -e "$T/$n.kit" ]; then not_ok "$n" "a kit was written"
	else ok "$n"; fi
}

tree "$T/good" >"$T/tree.log" 2>&1 || fail_all "cannot build the tree: $(tail -1 "$T/tree.log")" "${names[@]}"
if "$LK" create -o "$T/good.kit" --linux "$T/good" >"$T/good.log" 2>&1 &&
	"$LK" link --seed 7 --print-layout -o "$T/good.elf" "$T/good.kit" >"$T/good.layout" 2>&1; then
	ok linux-create-tree
else
	not_ok linux-create-tree "$(head -1 "$T/good.log") $(grep -v '^object' "$T/good.layout" | head -1)"
fi
want="arch/x86/kernel/head_64.o init/main.o kernel/core.o .vmlinux.export.o init/version-timestamp.o .tmp_vmlinux.kallsyms2.o"
got=$(sed -n 's/^object //p' "$T/good.layout" 2>/dev/null | head -1)
all=$(sed -n 's/^object //p' "$T/good.layout" 2>/dev/null | sort | tr '\n' ' ')
if [ "$got" = arch/x86/kernel/head_64.o ] &&
	[ "$all" = "$(printf '%s\n' $want | sort | tr '\n' ' ')" ]; then
	ok linux-create-names
else
	not_ok linux-create-names "first '$got', all '$all'"
fi

variant() { # NAME: a copy of the good tree to break
	rm -rf "$T/$1" && cp -a "$T/good" "$T/$1"
}
for v in LTO_CLANG:lto X86_KERNEL_IBT:ibt DEBUG_INFO_BTF:btf; do
	variant "${v#*:}"
	echo "CONFIG_${v%%:*}=y" >>"$T/${v#*:}/include/config/auto.conf"
	refused "linux-refuse-${v#*:}" "$T/${v#*:}" "CONFIG_${v%%:*}=y"
done
variant nomod
sed -i '/CONFIG_MODULES/d' "$T/nomod/include/config/auto.conf"
refused linux-refuse-nomodules "$T/nomod" "CONFIG_MODULES is not set"
variant vmo
mv "$T/vmo/vmlinux.a" "$T/vmo/vmlinux.o"
refused linux-refuse-vmlinux-o "$T/vmo" "a single vmlinux.o cannot be relinked"
variant notthin
(cd "$T/notthin" && rm vmlinux.a && ar cr vmlinux.a init/main.o)
refused linux-refuse-not-thin "$T/notthin" "vmlinux.a: not a thin archive"
variant dotdot
(cd "$T/dotdot/init" && rm ../vmlinux.a && ar cDPrST ../vmlinux.a ../arch/x86/kernel/head_64.o)
# ar stores the member relative to the archive: make it climb out.
python3 - "$T/dotdot/vmlinux.a" <<'EOF'
import sys
p = sys.argv[1]
d = open(p, 'rb').read().replace(b'arch/x86/kernel/head_64.o', b'../x86/kernel/head_64.o..')
open(p, 'wb').write(d)
EOF
refused linux-refuse-dotdot "$T/dotdot" "a path with an empty, \`.\` or \`..\` component"
variant abs
python3 - "$T/abs/vmlinux.a" <<'EOF'
import sys
p = sys.argv[1]
d = open(p, 'rb').read().replace(b'arch/x86/kernel/head_64.o', b'/rch/x86/kernel/head_64.o')
open(p, 'wb').write(d)
EOF
refused linux-refuse-absolute "$T/abs" "an absolute path"
variant trunc
head -c 100 "$T/good/vmlinux.a" >"$T/trunc/vmlinux.a"
refused linux-refuse-truncated "$T/trunc" "vmlinux.a: "
variant twice
# ar itself never lists a path twice: rename kernel/core.o in the
# long-name table to init/main.o (same offsets: the entry keeps its length).
python3 - "$T/twice/vmlinux.a" <<'EOF'
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
assert b'kernel/core.o/\n' in d
open(p, 'wb').write(d.replace(b'kernel/core.o/\n', b'init/main.o/\n\n\n'))
EOF
refused linux-refuse-twice "$T/twice" "member 'init/main.o' is listed twice"
variant head
(cd "$T/head" && rm vmlinux.a && ar cDPrST vmlinux.a init/main.o arch/x86/kernel/head_64.o kernel/core.o)
refused linux-refuse-head "$T/head" "the first member is init/main.o, not arch/x86/kernel/head_64.o"
# kallsyms (kbksyms.c): only the configuration the boot side rewrites,
# the build's System.map, every listed symbol found in the objects' link.
ksyms_cfg='CONFIG_KALLSYMS=y\nCONFIG_KALLSYMS_ALL=y\nCONFIG_KALLSYMS_BASE_RELATIVE=y\nCONFIG_KALLSYMS_ABSOLUTE_PERCPU=y\n'
variant notall
printf 'CONFIG_KALLSYMS=y\n' >>"$T/notall/include/config/auto.conf"
refused linux-refuse-kallsyms-notall "$T/notall" "CONFIG_KALLSYMS without CONFIG_KALLSYMS_ALL"
variant nomap
printf "$ksyms_cfg" >>"$T/nomap/include/config/auto.conf"
refused linux-refuse-kallsyms-nomap "$T/nomap" "System.map: cannot read"
variant nomatch
printf "$ksyms_cfg" >>"$T/nomatch/include/config/auto.conf"
printf 'ffffffff81000000 T _text\nffffffff81000000 T startup_64\nffffffff81000123 T other\n' >"$T/nomatch/System.map"
refused linux-refuse-kallsyms-nomatch "$T/nomatch" "System.map:3: other at 0xffffffff81000123: no symbol"
variant noobj
printf "$ksyms_cfg" >>"$T/noobj/include/config/auto.conf"
rm "$T/noobj/.tmp_vmlinux.kallsyms2.o"
refused linux-refuse-kallsyms-noobj "$T/noobj" "no .tmp_vmlinux.kallsyms[123].o although CONFIG_KALLSYMS is set"
