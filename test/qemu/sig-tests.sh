#!/usr/bin/env bash
# Signed boots under one firmware (issue 7): with `pubkey =` in RELINK.CFG
# the stage must check the kit's signature before it reads the payload and
# the fallback's detached \RELINK\FALLBACK.SIG before it loads it.
#
#   sig-tests.sh uefi|bios
#
# Keys come from signify-openbsd; the kit is signed by `linkkit create
# --sign` and the fallback by `mkimage create --fallback-key` (which runs
# `linkkit sign`, our Ed25519). The builtin image carries a FALLBACK.SIG
# written by signify itself, so a signify signature is checked at boot too
# (tools/test-sign.sh checks the bytes both ways). Six boots, two at a time:
#   signed       signed kit, signed fallback      -> relinked kernel
#   unsigned     unsigned kit                     -> fallback, "not signed"
#   badsig       signed kit, one header byte off  -> fallback, "bad signature"
#   badfallback  unsigned kit, FALLBACK.SIG of another file -> nothing boots,
#                one line naming FALLBACK.ELF and the bad signature
#   nosig        unsigned kit, no FALLBACK.SIG -> nothing boots, "not signed"
#   builtin      the stage rebuilt (in the run's directory) with
#                RELINK_PUBKEY=k1.pub, the config naming k2, a kit signed by
#                k1 -> relinked: the built-in key is used and wins
set -uo pipefail

fw=${1:?usage: sig-tests.sh uefi|bios}
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkimage=$here/../../tools/mkimage.sh
boot=$here/boot.sh
linkkit=$B/tools/linkkit
limit=${BOOT_TIMEOUT:-120}
names=(sig-signed sig-unsigned sig-badsig sig-badfallback sig-nosig sig-builtin)

skip_all() {
	local n
	for n in "${names[@]}"; do echo "skip $fw-$n: $1"; done
	exit 0
}

command -v signify-openbsd >/dev/null || skip_all "signify-openbsd not installed"
need=("$B/image/disk.img" "$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf"
      "$B/demo/objects.txt" "$linkkit")
[ "$fw" = uefi ] || need+=("$B/stand/stage.bin" "$B/stand/mbr.bin")
for f in "${need[@]}"; do
	[ -e "$f" ] || skip_all "$f does not exist yet"
done

mkdir -p "$B/test/qemu"
find "$B/test/qemu" -maxdepth 1 -name "sig-$fw.run.*" -mmin +60 -exec rm -rf {} + 2>/dev/null
work=$(mktemp -d "$B/test/qemu/sig-$fw.run.XXXXXX") || exit 1
ln -sfn "$(basename "$work")" "$B/test/qemu/sig-$fw.new" && mv -Tf "$B/test/qemu/sig-$fw.new" "$B/test/qemu/sig-$fw"

clean() { sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g' "$1"; }

setup() {
	local objs=() o
	signify-openbsd -G -n -p "$work/k1.pub" -s "$work/k1.sec" -c k1 &&
		signify-openbsd -G -n -p "$work/k2.pub" -s "$work/k2.sec" -c k2 || return 1
	while read -r o; do [ -n "$o" ] && objs+=("$o"); done <"$B/demo/objects.txt"
	"$linkkit" create --sign "$work/k1.sec" -o "$work/signed.kit" -T "$here/../demo/kernel.ld" \
		-P "$here/../demo/policy" "${objs[@]}" >"$work/create.log" 2>&1 || return 1
	signify-openbsd -S -s "$work/k1.sec" -m "$B/demo/fallback.elf" -x "$work/fallback.sig" || return 1
	# A signature by the right key, but of another file.
	"$linkkit" sign -s "$work/k1.sec" -o "$work/wrong.sig" "$B/demo/kernel.kit" || return 1
	cp "$here/relink.cfg" "$work/relink.cfg" &&
		echo "pubkey = $(sed -n 2p "$work/k1.pub")" >>"$work/relink.cfg" || return 1
	# One byte of the signed header (inside payload_sha256) changed.
	cp "$work/signed.kit" "$work/badsig.kit" &&
		printf '\x5a' | dd of="$work/badsig.kit" bs=1 seek=40 conv=notrunc status=none &&
		! cmp -s "$work/signed.kit" "$work/badsig.kit" || return 1
	local stage=()
	[ "$fw" = uefi ] || stage=(--mbr "$B/stand/mbr.bin" --stage "$B/stand/stage.bin")
	LINKKIT=$linkkit "$mkimage" create -o "$work/signed.img" --efi "$B/efi/BOOTX64.EFI" \
		--kit "$work/signed.kit" --fallback "$B/demo/fallback.elf" --fallback-key "$work/k1.sec" \
		--cfg "$work/relink.cfg" "${stage[@]}" || return 1
	# The stage with k1 built in (a private build tree: ~10 s of compiling).
	local root=$here/../.. bk=$work/bk want=("$work/bk/efi/BOOTX64.EFI")
	[ "$fw" = uefi ] || want+=("$bk/stand/mbr.bin" "$bk/stand/stage.bin")
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$root" B="$bk" \
		RELINK_PUBKEY="$work/k1.pub" "${want[@]}" >"$work/bk.log" 2>&1 || return 1
	sed "s|^pubkey = .*|pubkey = $(sed -n 2p "$work/k2.pub")|" "$work/relink.cfg" >"$work/k2.cfg"
	[ "$fw" = uefi ] || stage=(--mbr "$bk/stand/mbr.bin" --stage "$bk/stand/stage.bin")
	"$mkimage" create -o "$work/builtin.img" --efi "$bk/efi/BOOTX64.EFI" --kit "$work/signed.kit" \
		--fallback "$B/demo/fallback.elf" --fallback-sig "$work/fallback.sig" \
		--cfg "$work/k2.cfg" "${stage[@]}" || return 1
	cp --sparse=always "$work/signed.img" "$work/unsigned.img" &&
		"$mkimage" put "$work/unsigned.img" '\RELINK\KERNEL.KIT' "$B/demo/kernel.kit" &&
		cp --sparse=always "$work/signed.img" "$work/badsig.img" &&
		"$mkimage" put "$work/badsig.img" '\RELINK\KERNEL.KIT' "$work/badsig.kit" &&
		cp --sparse=always "$work/unsigned.img" "$work/badfallback.img" &&
		"$mkimage" put "$work/badfallback.img" '\RELINK\FALLBACK.SIG' "$work/wrong.sig" &&
		cp --sparse=always "$work/unsigned.img" "$work/nosig.img" &&
		"$mkimage" remove "$work/nosig.img" '\RELINK\FALLBACK.SIG'
}
setup >"$work/setup.log" 2>&1 || {
	echo "not ok $fw-sig-setup: cannot make the test images: $(tail -n1 "$work/setup.log")"
	exit 1
}

# A refused fallback leaves nothing to boot: the BIOS stage halts, so that
# boot only gets long enough to print its line.
for n in signed unsigned badsig badfallback nosig builtin; do
	t=$limit
	case $n in badfallback | nosig) [ "$fw" = bios ] && t=8 ;; esac
	"$boot" -f "$fw" -t "$t" -l "$work/$n.log" "$work/$n.img" >"$work/$n.result" 2>&1 &
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
done
wait

report() { if [ -z "$2" ]; then echo "ok $fw-$1"; else echo "not ok $fw-$1: $2"; fi; }

# booted NAME LOADER: "" when the demo kernel passed, loaded by LOADER.
booted() {
	local log=$work/$1.log c
	grep -q 'exit=0x10' "$work/$1.result" ||
		{ echo "$(head -n1 "$work/$1.result"); last: $(clean "$log" | grep -a 'relinkboot: ' | tail -n1)"; return; }
	c=$(clean "$log")
	grep -q "demo: loader $2" <<<"$c" || { echo "no 'demo: loader $2' in $log"; return; }
	grep -q 'demo: PASS' <<<"$c" || echo "no 'demo: PASS' in $log"
}

why=$(booted signed relinked)
[ -n "$why" ] || ! grep -q 'relinkboot: fallback' <(clean "$work/signed.log") ||
	why="unexpected $(clean "$work/signed.log" | grep -m1 'relinkboot: fallback')"
report sig-signed "$why"

# fallback NAME REGEX: one fallback line whose reason matches REGEX.
fallback() {
	local why lines
	why=$(booted "$1" fallback)
	if [ -z "$why" ]; then
		lines=$(clean "$work/$1.log" | grep -o 'relinkboot: fallback: .*')
		if [ "$(grep -c . <<<"$lines")" -ne 1 ]; then
			why="want exactly one 'relinkboot: fallback:' line, got: $lines"
		elif ! grep -Eq "$2" <<<"$lines"; then
			why="wrong reason: $lines"
		fi
	fi
	report "sig-$1" "$why"
}
fallback unsigned 'KERNEL\.KIT: not signed'
fallback badsig 'KERNEL\.KIT: bad signature'

# refused NAME REGEX: no kernel ran, and one line matching REGEX says why.
refused() {
	local c why=""
	c=$(clean "$work/$1.log")
	if grep -q 'exit=0x10' "$work/$1.result" || grep -q 'demo: ' <<<"$c"; then
		why="a kernel ran: $(head -n1 "$work/$1.result")"
	elif ! grep -q 'relinkboot: fallback: .*KERNEL\.KIT: not signed' <<<"$c"; then
		why="no fallback line for the unsigned kit"
	elif ! grep -Eq "relinkboot: .*$2" <<<"$c"; then
		why="no line matching '$2': $(grep -a 'relinkboot: ' <<<"$c" | tail -n1)"
	fi
	report "sig-$1" "$why"
}
refused badfallback 'FALLBACK\.ELF: bad signature'
refused nosig 'FALLBACK\.ELF: not signed'

why=$(booted builtin relinked)
[ -n "$why" ] || ! grep -q 'relinkboot: fallback' <(clean "$work/builtin.log") ||
	why="unexpected $(clean "$work/builtin.log" | grep -m1 'relinkboot: fallback')"
report sig-builtin "$why"
for f in "$work"/*.result; do sed "s|^|# $(basename "$f" .result): |" "$f"; done
