#!/usr/bin/env bash
# Tests the QEMU runner itself (test/qemu/boot.sh) with tiny SeaBIOS boot
# sectors built here: pass/fail decoding, a hung guest ends as a timeout,
# a guest writing its disk is caught by --copy, an unbootable disk ends
# early. Environment: B (build directory, default build).
set -uo pipefail
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
boot=$here/boot.sh
mkdir -p "$B/test/qemu"
w=$(mktemp -d "$B/test/qemu/runner.XXXXXX") || exit 1
failed=0
trap '[ "$failed" = 1 ] && echo "# logs kept in $w" || rm -rf "$w"' EXIT

. "$here/lib.sh"
# outcome NAME [WHY]: the test line; a failure keeps the logs.
outcome() {
	report "runner-$1" "${2:-}"
	[ -z "${2:-}" ] || failed=1
}

# sector NAME BODY: a boot sector that prints "runner NAME" on COM1, then
# runs BODY (16-bit GNU as), in a 1 MiB raw disk image NAME.img.
sector() {
	local name=$1 body=$2
	cat >"$w/$name.S" <<EOF
.code16
.globl _start
_start:
	cli
	xor %ax, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov \$0x7c00, %sp
	mov \$msg, %si
1:	lodsb
	test %al, %al
	jz 2f
	mov %al, %bl
3:	mov \$0x3fd, %dx
	in %dx, %al
	test \$0x20, %al
	jz 3b
	mov \$0x3f8, %dx
	mov %bl, %al
	out %al, %dx
	jmp 1b
2:
$body
msg:	.asciz "runner $name\r\n"
	.org 510
	.byte 0x55, 0xaa
EOF
	gcc -m32 -c "$w/$name.S" -o "$w/$name.o" &&
		ld -m elf_i386 -Ttext 0x7c00 --oformat binary -e _start "$w/$name.o" -o "$w/$name.bin" &&
		truncate -s 1M "$w/$name.bin" && mv "$w/$name.bin" "$w/$name.img"
}

EXIT10='	mov $0x10, %al
	out %al, $0xf4
	hlt'
EXIT11='	mov $0x11, %al
	out %al, $0xf4
	hlt'
HANG='4:	hlt
	jmp 4b'
# INT 13h AH=03: write our own sector over LBA 1, then pass.
WRITE='	mov $0x0301, %ax
	mov $0x7c00, %bx
	mov $0x0002, %cx
	mov $0x0080, %dx
	int $0x13
'$EXIT10

sector pass "$EXIT10" && sector fail "$EXIT11" && sector hang "$HANG" &&
	sector write "$WRITE" || { outcome build "cannot assemble the boot sectors"; exit 1; }
truncate -s 1M "$w/blank.img"

# run NAME IMG [opts]: sets rc, out, secs (wall seconds).
run() {
	local name=$1 img=$2 t0
	shift 2
	t0=$(date +%s)
	out=$("$boot" -f bios -l "$w/$name.log" "$@" "$img" 2>"$w/$name.err")
	rc=$?
	secs=$(($(date +%s) - t0))
}

run pass "$w/pass.img" -t 60
why=
[ "$rc" = 0 ] || why="rc $rc: $out"
[ -z "$why" ] && [[ $out != *exit=0x10* ]] && why="no exit=0x10 in: $out"
[ -z "$why" ] && ! grep -q 'runner pass' "$w/pass.log" && why="serial log lacks the guest's line"
outcome pass-decoded "$why"

run fail "$w/fail.img" -t 60
why=
[ "$rc" = 1 ] && [[ $out == *exit=0x11* ]] || why="rc $rc: $out"
outcome fail-decoded "$why"

run hang "$w/hang.img" -t 4
why=
[ "$rc" = 124 ] && [[ $out == *exit=timeout* ]] || why="rc $rc: $out"
[ -z "$why" ] && [ "$secs" -gt 15 ] && why="took ${secs}s with -t 4"
outcome hang-times-out "$why"

sum=$(sha256sum <"$w/write.img")
run write "$w/write.img" -t 60 --copy
why=
[ "$rc" = 0 ] && [[ $out == *disk=CHANGED* ]] || why="a disk write went unnoticed: rc $rc: $out"
[ -z "$why" ] && [ "$(sha256sum <"$w/write.img")" != "$sum" ] && why="--copy let the guest write the original"
outcome copy-detects-writes "$why"

run pass-copy "$w/pass.img" -t 60 --copy
why=
[[ $out == *disk=unchanged* ]] || why="rc $rc: $out"
outcome copy-unchanged "$why"

run blank "$w/blank.img" -t 90
why=
[ "$rc" = 2 ] && [[ $out == *exit=firmware-gave-up* ]] || why="rc $rc: $out"
[ -z "$why" ] && [ "$secs" -gt 30 ] && why="took ${secs}s to notice"
outcome unbootable-ends-early "$why"
