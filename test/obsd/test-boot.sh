#!/usr/bin/env bash
# Boots the OpenBSD-protocol test kernel (test/obsd) under OVMF and
# SeaBIOS, relinked from its kit and through the fallback path (the kit
# removed; the config says protocol = openbsd). The kernel checks its
# arguments itself and exits QEMU with 0x10 only when all checks pass.
set -uo pipefail

B=${B:-build}
image=$B/obsd/disk.img
boot=test/qemu/boot.sh
mkimage=tools/mkimage.sh
limit=${BOOT_TIMEOUT:-90}
names=(uefi-relinked bios-relinked uefi-fallback bios-fallback
       bios-fallback-mb2)

if [ ! -e "$image" ]; then
	for n in "${names[@]}"; do echo "skip obsd-$n: $image missing"; done
	exit 0
fi
mkdir -p "$B/obsd"
work=$(mktemp -d "$B/obsd/run.XXXXXX") || exit 1
cp --sparse=always "$image" "$work/disk.img"
cp --sparse=always "$image" "$work/nokit.img"
"$mkimage" remove "$work/nokit.img" '\RELINK\KERNEL.KIT' >/dev/null ||
	{ echo "not ok obsd-setup: cannot remove the kit"; exit 0; }
# The same fallback handed over as Multiboot2: the kernel must notice.
cp --sparse=always "$work/nokit.img" "$work/mb2.img"
sed 's/^protocol = .*/protocol = multiboot2/' test/obsd/relink.cfg >"$work/mb2.cfg"
"$mkimage" put "$work/mb2.img" '\EFI\BOOT\RELINK.CFG' "$work/mb2.cfg" >/dev/null ||
	{ echo "not ok obsd-setup: cannot replace the config"; exit 0; }

run() { # name firmware image
	"$boot" -f "$2" --rng --copy -t "$limit" -l "$work/$1.log" "$3" \
		>"$work/$1.result" 2>&1
}
run uefi-relinked uefi "$work/disk.img" &
run bios-relinked bios "$work/disk.img" &
wait
run uefi-fallback uefi "$work/nokit.img" &
run bios-fallback bios "$work/nokit.img" &
wait
run bios-fallback-mb2 bios "$work/mb2.img"

clean() { sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g' "$1"; }

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
		if ! clean "$log" | grep -qxF -- "$line"; then
			echo "not ok obsd-$name: no line '$line'"
			return
		fi
	done
	if clean "$log" | grep -qE -- "$deny"; then
		echo "not ok obsd-$name: $(clean "$log" | grep -m1 -E -- "$deny")"
		return
	fi
	echo "ok obsd-$name"
}

common=('obsd: check args ok' 'obsd: check consdev ok' 'obsd: check random ok'
	'obsd: check sections ok' 'obsd: version relinkboot test kernel'
	'obsd: bootdev wd0a' 'obsd: PASS')
# OVMF publishes an SMBIOS 2 entry point: EFIINFO must carry it.
want=("${common[@]}" 'obsd: check smbios ok')
deny='relinkboot: fallback|obsd: efiinfo none'
clean "$work/uefi-relinked.log" | grep -q 'obsd: check efiinfo ok' ||
	deny='relinkboot: fallback|obsd: efiinfo none|obsd: PASS'
check uefi-relinked
deny='relinkboot: fallback|obsd: check efiinfo'
want=("${common[@]}" 'obsd: efiinfo none')
check bios-relinked
want=("${common[@]}" 'obsd: check smbios ok')
deny='obsd: efiinfo none'
clean "$work/uefi-fallback.log" | grep -q '^relinkboot: fallback: .*KERNEL\.KIT' ||
	deny='obsd: efiinfo none|obsd: PASS'
check uefi-fallback
want=("${common[@]}" 'obsd: efiinfo none')
deny='obsd: check efiinfo'
clean "$work/bios-fallback.log" | grep -q '^relinkboot: fallback: .*KERNEL\.KIT' ||
	deny='obsd: PASS'
check bios-fallback
# Wrong protocol: the kernel's own checks must fail it (proves they bite).
res=$(cat "$work/bios-fallback-mb2.result")
if grep -q 'exit=0x11' <<<"$res" &&
	clean "$work/bios-fallback-mb2.log" | grep -q '^obsd: FAIL args'; then
	echo "ok obsd-bios-fallback-mb2"
else
	echo "not ok obsd-bios-fallback-mb2: kernel did not reject a Multiboot2 hand-over: $res"
fi
find "$B/obsd" -maxdepth 1 -name 'run.*' -mmin +60 -exec rm -rf {} + 2>/dev/null
exit 0
