#!/usr/bin/env bash
# Boots the OpenBSD-protocol test kernel (test/obsd) under OVMF and
# SeaBIOS, relinked from its kit and through the fallback path (the kit
# removed; the config says protocol = openbsd). The kernel checks its
# arguments itself and exits QEMU with 0x10 only when all checks pass.
# The boot disks carry an OpenBSD partition whose disklabel has a fresh
# random DUID (GPT with d_type SCSI for OVMF: sd0a; MBR with ESDI for
# SeaBIOS: wd0a); the kernel prints the BOOTDUID it got, which must be
# that DUID. Without a label (OVMF) or with a corrupt one (SeaBIOS) there
# must be no BOOTDUID and bootdev wd0a.
set -uo pipefail

B=${B:-build}
image=$B/obsd/disk.img
boot=test/qemu/boot.sh
mkimage=tools/mkimage.sh
limit=${BOOT_TIMEOUT:-90}
names=(uefi-relinked bios-relinked uefi-fallback bios-fallback
       uefi-nolabel bios-badlabel bios-fallback-mb2 uefi-fallback-nosyms
       uefi-fallback-unusable)
. "$(dirname "$0")/../qemu/lib.sh"

[ -e "$image" ] || skip_all "$image missing" "${names[@]/#/obsd-}"
work=$(new_run_dir "$B/obsd/run") || exit 1
setup_fail() { echo "not ok obsd-setup: $*"; exit 0; }

duid_gpt=$(new_duid)
duid_mbr=$(new_duid)
labelled() { # out table duid dtype
	"$mkimage" create -o "$1" --efi "$B/efi/BOOTX64.EFI" \
		--kit "$B/obsd/kernel.kit" --fallback "$B/obsd/fallback.elf" \
		--cfg test/obsd/relink.cfg --mbr "$B/stand/mbr.bin" \
		--stage "$B/stand/stage.bin" --table "$2" --openbsd-duid "$3" \
		--openbsd-dtype "$4" >/dev/null || setup_fail "cannot make $1"
}
labelled "$work/gpt.img" gpt "$duid_gpt" 4
labelled "$work/mbr.img" mbr "$duid_mbr" 5
for t in gpt mbr; do
	cp --sparse=always "$work/$t.img" "$work/$t-nokit.img"
	"$mkimage" remove "$work/$t-nokit.img" '\RELINK\KERNEL.KIT' >/dev/null ||
		setup_fail "cannot remove the kit"
done
cp --sparse=always "$image" "$work/nolabel.img"
# One bit of the DUID flipped: the label's checksum no longer matches.
cp --sparse=always "$work/gpt.img" "$work/badlabel.img"
first=$(sgdisk -i 2 "$work/badlabel.img" | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
[ -n "$first" ] || setup_fail "no OpenBSD partition in gpt.img"
off=$(((first + 1) * 512 + 64))
byte=$(od -An -tu1 -j "$off" -N1 "$work/badlabel.img" | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 1)))" |
	dd of="$work/badlabel.img" bs=1 seek="$off" conv=notrunc status=none
# The same fallback handed over as Multiboot2: the kernel must notice.
cp --sparse=always "$image" "$work/mb2.img"
"$mkimage" remove "$work/mb2.img" '\RELINK\KERNEL.KIT' >/dev/null ||
	setup_fail "cannot remove the kit"
sed 's/^protocol = .*/protocol = multiboot2/' test/obsd/relink.cfg >"$work/mb2.cfg"
"$mkimage" put "$work/mb2.img" '\EFI\BOOT\RELINK.CFG' "$work/mb2.cfg" >/dev/null ||
	setup_fail "cannot replace the config"

# A fallback without .symtab: one warning line, and the kernel, finding
# no symbol table after its image, must fail (proves check_symbols bites).
cp --sparse=always "$work/gpt-nokit.img" "$work/nosyms.img"
objcopy --strip-all "$B/obsd/fallback.elf" "$work/nosyms.elf" &&
	"$mkimage" put "$work/nosyms.img" '\RELINK\FALLBACK.ELF' "$work/nosyms.elf" \
		>/dev/null || setup_fail "cannot replace the fallback"

# The fallback linked for 1 GiB (every program header's physical address
# moved up by 0x3f000000), above the guest's 256 MB: not RAM in the
# firmware's map. The UEFI stage must refuse it with one line naming the
# range, say the fallback failed and give control back to the firmware,
# whose boot manager then ends in its shell: never jump, never hang.
cp --sparse=always "$work/gpt-nokit.img" "$work/unusable.img"
python3 - "$B/obsd/fallback.elf" "$work/unusable.elf" <<'PY' &&
import struct, sys
elf = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", elf, 32)
phentsize, phnum = struct.unpack_from("<HH", elf, 54)
for i in range(phnum):
    at = phoff + i * phentsize + 24  # p_paddr
    struct.pack_into("<Q", elf, at, struct.unpack_from("<Q", elf, at)[0] + 0x3F000000)
open(sys.argv[2], "wb").write(elf)
PY
	"$mkimage" put "$work/unusable.img" '\RELINK\FALLBACK.ELF' "$work/unusable.elf" \
		>/dev/null || setup_fail "cannot make the unusable fallback"
unusable_lo=$(readelf -lW "$work/unusable.elf" | awk '$1 == "LOAD" { print $4; exit }')
[ "$unusable_lo" = 0x0000000040000000 ] || setup_fail "unusable.elf loads at '$unusable_lo'"

run() { # name firmware image
	"$boot" -f "$2" --rng --copy -t "$limit" -l "$work/$1.log" "$3" \
		>"$work/$1.result" 2>&1
}
run uefi-relinked uefi "$work/gpt.img" &
run bios-relinked bios "$work/mbr.img" &
wait
run uefi-fallback uefi "$work/gpt-nokit.img" &
run bios-fallback bios "$work/mbr-nokit.img" &
wait
run uefi-nolabel uefi "$work/nolabel.img" &
run bios-badlabel bios "$work/badlabel.img" &
wait
run bios-fallback-mb2 bios "$work/mb2.img" &
run uefi-fallback-nosyms uefi "$work/nosyms.img" &
wait
run uefi-fallback-unusable uefi "$work/unusable.img"

# check NAME: the boot passed and the log has every line in $want and none
# matching $deny.
check() {
	local name=$1 log=$work/$1.log res line
	res=$(cat "$work/$name.result")
	if ! grep -q 'exit=0x10' <<<"$res"; then
		line=$(clean "$log" | grep -m1 -E 'obsd: FAIL|relinkboot: fallback' || true)
		echo "not ok obsd-$name: $res ${line}"
		return
	fi
	for line in "${want[@]}"; do
		if ! grep -qxF -- "$line" <(clean "$log"); then
			echo "not ok obsd-$name: no line '$line'"
			return
		fi
	done
	if grep -qE -- "$deny" <(clean "$log"); then
		echo "not ok obsd-$name: $(clean "$log" | grep -m1 -E -- "$deny")"
		return
	fi
	echo "ok obsd-$name"
}

common=('obsd: check args ok' 'obsd: check consdev ok' 'obsd: check random ok'
	'obsd: check sections ok' 'obsd: check symbols ok' 'obsd: version relinkboot test kernel'
	'obsd: PASS')
gpt=('obsd: bootdev sd0a' "obsd: bootduid $duid_gpt")
mbr=('obsd: bootdev wd0a' "obsd: bootduid $duid_mbr")
none=('obsd: bootdev wd0a' 'obsd: bootduid none')
# OVMF publishes an SMBIOS 2 entry point: EFIINFO must carry it.
want=("${common[@]}" "${gpt[@]}" 'obsd: check smbios ok')
deny='relinkboot: fallback|obsd: efiinfo none|BOOTDUID'
grep -q 'obsd: check efiinfo ok' <(clean "$work/uefi-relinked.log") ||
	deny='relinkboot: fallback|obsd: efiinfo none|obsd: PASS'
check uefi-relinked
deny='relinkboot: fallback|obsd: check efiinfo|BOOTDUID'
want=("${common[@]}" "${mbr[@]}" 'obsd: efiinfo none')
check bios-relinked
want=("${common[@]}" "${gpt[@]}" 'obsd: check smbios ok')
deny='obsd: efiinfo none|BOOTDUID'
grep -q '^relinkboot: fallback: .*KERNEL\.KIT' <(clean "$work/uefi-fallback.log") ||
	deny='obsd: efiinfo none|obsd: PASS'
check uefi-fallback
want=("${common[@]}" "${mbr[@]}" 'obsd: efiinfo none')
deny='obsd: check efiinfo|BOOTDUID'
grep -q '^relinkboot: fallback: .*KERNEL\.KIT' <(clean "$work/bios-fallback.log") ||
	deny='obsd: PASS'
check bios-fallback
# No label: the kernel is told to ask for its root (RB_ASKNAME), not to
# guess wd0a (issue 29); the EFI RNG served (RB_GOODRANDOM).
want=("${common[@]}" "${none[@]}" 'obsd: howto 0x0000000000010001'
	'relinkboot: boot disk: no BOOTDUID: no OpenBSD partition in the GPT')
deny='relinkboot: fallback|obsd: efiinfo none'
check uefi-nolabel
want=("${common[@]}" "${none[@]}" 'obsd: howto 0x0000000000000001'
	'relinkboot: boot disk: no BOOTDUID: disklabel checksum mismatch')
deny='relinkboot: fallback|obsd: check efiinfo'
check bios-badlabel
# Wrong protocol: the kernel's own checks must fail it (proves they bite).
res=$(cat "$work/bios-fallback-mb2.result")
if grep -q 'exit=0x11' <<<"$res" &&
	grep -q '^obsd: FAIL args' <(clean "$work/bios-fallback-mb2.log"); then
	echo "ok obsd-bios-fallback-mb2"
else
	echo "not ok obsd-bios-fallback-mb2: kernel did not reject a Multiboot2 hand-over: $res"
fi
res=$(cat "$work/uefi-fallback-nosyms.result")
if grep -q 'exit=0x11' <<<"$res" &&
	grep -q '^relinkboot: warning: .*FALLBACK.ELF: no symbol table for the kernel: no .symtab$' <(clean "$work/uefi-fallback-nosyms.log") &&
	grep -q '^obsd: FAIL symbols no table: end' <(clean "$work/uefi-fallback-nosyms.log"); then
	echo "ok obsd-uefi-fallback-nosyms"
else
	echo "not ok obsd-uefi-fallback-nosyms: no warning, or the kernel did not notice: $res"
fi
res=$(cat "$work/uefi-fallback-unusable.result")
refused='^relinkboot: fallback failed: .*cannot allocate the kernel at \[0x40000000, 0x4[0-9a-f]{7}\): .*\(not all of it is RAM\)$'
if ! grep -q 'exit=firmware-gave-up' <<<"$res" || ! grep -q 'disk=unchanged' <<<"$res"; then
	echo "not ok obsd-uefi-fallback-unusable: the firmware did not get control back: $res"
elif ! grep -qE -- "$refused" <(clean "$work/uefi-fallback-unusable.log"); then
	echo "not ok obsd-uefi-fallback-unusable: no line matching '$refused': $(clean "$work/uefi-fallback-unusable.log" | grep -m1 'relinkboot: fallback failed')"
elif grep -q '^obsd: ' <(clean "$work/uefi-fallback-unusable.log"); then
	echo "not ok obsd-uefi-fallback-unusable: the kernel ran"
else
	echo "ok obsd-uefi-fallback-unusable"
fi
exit 0
