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
# The names as printed: FIRMWARE-NAME.
names=("${names[@]/#/$fw-}")
. "$here/lib.sh"

command -v signify-openbsd >/dev/null || skip_all "signify-openbsd not installed" "${names[@]}"
need=("$B/image/disk.img" "$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf"
      "$B/demo/objects.txt" "$linkkit")
[ "$fw" = uefi ] || need+=("$B/stand/stage.bin" "$B/stand/mbr.bin")
for f in "${need[@]}"; do
	[ -e "$f" ] || skip_all "$f does not exist yet" "${names[@]}"
done

work=$(new_run_dir "$B/test/qemu/sig-$fw.run" "$B/test/qemu/sig-$fw") || exit 1

setup() {
	signify_keys "$work" k1 k2 || return 1
	demo_kit "$work/signed.kit" --sign "$work/k1.sec" >"$work/create.log" 2>&1 || return 1
	signify-openbsd -S -s "$work/k1.sec" -m "$B/demo/fallback.elf" -x "$work/fallback.sig" || return 1
	# A signature by the right key, but of another file.
	"$linkkit" sign -s "$work/k1.sec" -o "$work/wrong.sig" "$B/demo/kernel.kit" || return 1
	cp "$here/relink.cfg" "$work/relink.cfg" &&
		echo "pubkey = $(sed -n 2p "$work/k1.pub")" >>"$work/relink.cfg" || return 1
	bad_signature_kit "$work/signed.kit" "$work/badsig.kit" || return 1
	local stage=()
	[ "$fw" = uefi ] || stage=(--mbr "$B/stand/mbr.bin" --stage "$B/stand/stage.bin")
	LINKKIT=$linkkit "$mkimage" create -o "$work/signed.img" --efi "$B/efi/BOOTX64.EFI" \
		--kit "$work/signed.kit" --fallback "$B/demo/fallback.elf" --fallback-key "$work/k1.sec" \
		--cfg "$work/relink.cfg" "${stage[@]}" || return 1
	# The stage with k1 built in (a private build tree: ~10 s of compiling).
	local bk=$work/bk want=("$work/bk/efi/BOOTX64.EFI")
	[ "$fw" = uefi ] || want+=("$bk/stand/mbr.bin" "$bk/stand/stage.bin")
	sub_make "$bk" RELINK_PUBKEY="$work/k1.pub" "${want[@]}" >"$work/bk.log" 2>&1 || return 1
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
	wait_for_slot 2
done
wait

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
report "$fw-sig-signed" "$why"

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
	report "$fw-sig-$1" "$why"
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
	report "$fw-sig-$1" "$why"
}
refused badfallback 'FALLBACK\.ELF: bad signature'
refused nosig 'FALLBACK\.ELF: not signed'

why=$(booted builtin relinked)
[ -n "$why" ] || ! grep -q 'relinkboot: fallback' <(clean "$work/builtin.log") ||
	why="unexpected $(clean "$work/builtin.log" | grep -m1 'relinkboot: fallback')"
report "$fw-sig-builtin" "$why"
print_results "$work"
