#!/usr/bin/env bash
# Tests tools/mkimage.sh with scratch inputs (no other products needed):
# layout, MBR fields, refusals, install-kit and the editing subcommands.
# Environment: B (build directory, default build).
set -uo pipefail
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mk=$here/../../tools/mkimage.sh
# A private directory per run, kept only when something failed.
mkdir -p "$B/test/qemu"
w=$(mktemp -d "$B/test/qemu/mkimage.XXXXXX") || exit 1
failed=0
trap '[ "$failed" = 1 ] && echo "# logs kept in $w" || rm -rf "$w"' EXIT

t() { # t NAME REASON-IF-FAILED COMMAND...
	local name=$1 why=$2
	shift 2
	if "$@" >>"$w/log" 2>&1; then
		echo "ok mkimage-$name"
	else
		echo "not ok mkimage-$name: $why"
		failed=1
	fi
}
not() { ! "$@"; }

mkkit() { printf 'LINKKIT\x1a' >"$1"; head -c "$2" /dev/urandom >>"$1"; }
mkkit "$w/a.kit" 5000
mkkit "$w/b.kit" 7000
head -c 4000 /dev/urandom >"$w/efi"
head -c 3000 /dev/urandom >"$w/fallback"
head -c 3000 /dev/urandom >"$w/stage"
head -c $((1985 * 512)) /dev/zero >"$w/big-stage"
# An MBR code blob that leaves 0x1B0..0x1B7 free, as the contract asks.
{ head -c 432 /dev/urandom; head -c 80 /dev/zero; } >"$w/mbr"
img=$w/disk.img
base=(--efi "$w/efi" --kit "$w/a.kit" --fallback "$w/fallback")

t create 'create failed' "$mk" create -o "$img" "${base[@]}" --mbr "$w/mbr" --stage "$w/stage"
t check 'check rejects a fresh image' "$mk" check "$img"
esp_ok() {
	sgdisk -i 1 "$img" | grep -q 'First sector: 2048 ' &&
		sgdisk -i 1 "$img" | grep -q 'EFI system partition' &&
		dd if="$img" bs=512 skip=2048 count=1 status=none | file - | grep -q 'FAT (32 bit)'
}
t esp-layout 'ESP is not a FAT32 EF00 partition at LBA 2048' esp_ok
mbr_ok() {
	cmp -n 432 "$w/mbr" "$img" &&
		[ "$(od -An -tx1 -j $((0x1B0)) -N6 "$img" | tr -d ' \n')" = 400000000600 ] &&
		[ "$(od -An -tx1 -j 510 -N2 "$img" | tr -d ' \n')" = 55aa ] &&
		[ "$(od -An -tx1 -j $((0x1C2)) -N1 "$img" | tr -d ' \n')" = ee ]
}
t mbr-fields 'MBR code, stage LBA/count or protective entry wrong' mbr_ok
stage_ok() { cmp -n 3000 "$w/stage" <(dd if="$img" bs=512 skip=64 count=6 status=none); }
t stage-at-lba64 'stage bytes not at LBA 64' stage_ok
files_ok() {
	local p
	for p in EFI/BOOT/BOOTX64.EFI:efi RELINK/KERNEL.KIT:a.kit RELINK/FALLBACK.ELF:fallback; do
		"$mk" get "$img" "/${p%%:*}" "$w/out" && cmp "$w/out" "$w/${p##*:}" || return 1
		rm -f "$w/out"
	done
	"$mk" get "$img" '\EFI\BOOT\RELINK.CFG' - | grep -q '^kit = \\RELINK\\KERNEL.KIT'
}
t esp-files 'ESP files missing or different' files_ok
t refuse-overlap 'a stage reaching the ESP was accepted' \
	not "$mk" create -o "$w/x.img" "${base[@]}" --stage "$w/big-stage"
t refuse-non-kit 'create accepted a kit with a bad magic' \
	not "$mk" create -o "$w/x.img" --efi "$w/efi" --kit "$w/fallback" --fallback "$w/fallback"
t no-partial-output 'a refused create left an image behind' not test -e "$w/x.img"

sum=$(sha256sum <"$img")
installed() { "$mk" get "$img" /RELINK/KERNEL.KIT - | cmp -s - "$1"; }
t install-kit 'install-kit did not replace the kit' \
	bash -c "'$mk' install-kit '$img' '$w/b.kit' && '$mk' get '$img' /RELINK/KERNEL.KIT - | cmp -s - '$w/b.kit'"
no_new() { ! "$mk" ls "$img" | grep -q KERNEL.NEW; }
t install-no-leftover 'KERNEL.NEW left behind' no_new
t install-refuses-non-kit 'install-kit accepted a non-kit' not "$mk" install-kit "$img" "$w/fallback"
t install-refused-keeps-kit 'a refused install changed the kit' installed "$w/b.kit"
cp --sparse=always "$img" "$w/nofb.img"
"$mk" remove "$w/nofb.img" /RELINK/FALLBACK.ELF >>"$w/log" 2>&1
t install-needs-fallback 'install-kit went ahead without a fallback' \
	not "$mk" install-kit "$w/nofb.img" "$w/a.kit"
t remove 'remove did not delete the kit' \
	bash -c "'$mk' remove '$img' '\\RELINK\\KERNEL.KIT' && ! '$mk' ls '$img' | grep -q KERNEL.KIT"
t put 'put did not write the file' \
	bash -c "'$mk' put '$img' /RELINK/KERNEL.KIT '$w/fallback' && '$mk' get '$img' /RELINK/KERNEL.KIT - | cmp -s - '$w/fallback'"
t edits-change-image 'editing left the image bytes identical' test "$(sha256sum <"$img")" != "$sum"
t check-detects-missing 'check accepted an image without a fallback' not "$mk" check "$w/nofb.img"
printf '\177ELF\002' >"$w/fb2.elf"
head -c 2000 /dev/urandom >>"$w/fb2.elf"
t install-fallback 'install-fallback did not replace the fallback' \
	bash -c "'$mk' install-fallback '$w/nofb.img' '$w/fb2.elf' && '$mk' get '$w/nofb.img' /RELINK/FALLBACK.ELF - | cmp -s - '$w/fb2.elf'"
t install-fallback-refuses-non-elf 'install-fallback accepted a non-ELF file' \
	not "$mk" install-fallback "$w/nofb.img" "$w/a.kit"
cp --sparse=always "$w/nofb.img" "$w/nokit.img"
"$mk" remove "$w/nokit.img" /RELINK/KERNEL.KIT >>"$w/log" 2>&1
t install-fallback-needs-kit 'install-fallback went ahead without a kit' \
	not "$mk" install-fallback "$w/nokit.img" "$w/fb2.elf"

# --openbsd-duid: an OpenBSD partition after the ESP whose sector 1 is a
# disklabel (magic, DUID, d_type, zero XOR checksum over 16 partitions),
# in a GPT (type A600) or, with --table mbr, an MBR (0xa6, no GPT left).
label_ok() { # IMG LBA DUID DTYPE
	python3 - "$@" <<'PY'
import struct, sys
img, lba, duid, dtype = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
f = open(img, "rb"); f.seek(lba * 512); s = f.read(512)
magic, typ = struct.unpack_from("<IH", s, 0)
magic2, _, npart = struct.unpack_from("<IHH", s, 132)
x = 0
for i in range(0, 148 + 16 * npart, 2):
    x ^= struct.unpack_from("<H", s, i)[0]
sys.exit(0 if magic == magic2 == 0x82564557 and typ == dtype and npart == 16
         and x == 0 and s[64:72].hex() == duid else 1)
PY
}
obsd_lba=$((2048 + 64 * 2048))
gpt_obsd_ok() {
	sgdisk -i 2 "$w/obsd.img" | grep -q '824CC7A0-36A8-11E3-890A-952519AD3F61' &&
		sgdisk -i 2 "$w/obsd.img" | grep -q "^First sector: $obsd_lba " &&
		label_ok "$w/obsd.img" $((obsd_lba + 1)) 0123456789abcdef 4
}
byte() { od -An -tx1 -j "$2" -N1 "$1" | tr -d ' '; }
mbr_obsd_ok() {
	local i=$w/obsd-mbr.img
	[ "$(byte "$i" $((0x1BE)))" = 80 ] && [ "$(byte "$i" $((0x1BE + 4)))" = 0c ] &&
		[ "$(get32 "$i" $((0x1BE + 8)))" = 2048 ] &&
		[ "$(byte "$i" $((0x1CE + 4)))" = a6 ] &&
		[ "$(get32 "$i" $((0x1CE + 8)))" = $obsd_lba ] &&
		[ "$(od -An -c -j512 -N8 "$i" | tr -d ' ')" != EFIPART ] &&
		label_ok "$i" $((obsd_lba + 1)) fedcba9876543210 5 &&
		"$mk" check "$i" &&
		"$mk" get "$i" /RELINK/KERNEL.KIT - | cmp -s - "$w/a.kit"
}
get32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
t openbsd-gpt 'no OpenBSD GPT partition with a valid label' \
	bash -c "'$mk' create -o '$w/obsd.img' ${base[*]} --openbsd-duid 0123456789ABCDEF"
t openbsd-gpt-layout 'OpenBSD partition or label wrong' gpt_obsd_ok
t openbsd-gpt-check 'check rejects an image with an OpenBSD partition' "$mk" check "$w/obsd.img"
t openbsd-mbr 'create --table mbr failed' "$mk" create -o "$w/obsd-mbr.img" "${base[@]}" \
	--table mbr --openbsd-duid fedcba9876543210 --openbsd-dtype 5
t openbsd-mbr-layout 'MBR entries, leftover GPT or label wrong' mbr_obsd_ok
t openbsd-refuse-zero-duid 'a zero DUID was accepted' \
	not "$mk" create -o "$w/x.img" "${base[@]}" --openbsd-duid 0000000000000000
t openbsd-refuse-short-duid 'a 15-digit DUID was accepted' \
	not "$mk" create -o "$w/x.img" "${base[@]}" --openbsd-duid 0123456789abcde
t openbsd-refuse-table 'an unknown --table was accepted' \
	not "$mk" create -o "$w/x.img" "${base[@]}" --table apm
