#!/usr/bin/env bash
# TSC cycles per boot phase of the UEFI and BIOS stages inside QEMU (TCG):
# boots a copy of the demo image with verbose = 1 under each firmware and
# prints the stages' `relinkboot: phase NAME N cycles` lines as a table.
# TCG's TSC is virtual: compare runs with each other, not with hardware.
# Usage: bench/qemu-phases.sh [BUILD_DIR]
set -u
B=${1:-build}
W=$B/bench/work/qemu
mkdir -p "$W"
if [ ! -e "$B/image/disk.img" ]; then
	echo "qemu phases: skipped: $B/image/disk.img not built"
	exit 0
fi
sed 's/^verbose = .*/verbose = 1/' test/qemu/relink.cfg >"$W/relink.cfg"
cp "$B/image/disk.img" "$W/disk.img"
tools/mkimage.sh put "$W/disk.img" '\EFI\BOOT\RELINK.CFG' "$W/relink.cfg" >/dev/null || exit 1
echo
echo "### Boot stages, demo kit, TSC cycles per phase (QEMU TCG, verbose = 1)"
echo
for fw in uefi bios; do
	test/qemu/boot.sh -f $fw --rng -l "$W/$fw.log" -t 120 "$W/disk.img" >"$W/$fw.result" 2>&1
	echo "$fw: $(head -1 "$W/$fw.result")"
	echo
	echo "| $fw phase | cycles |"
	echo "|---|---:|"
	tr -d '\r' <"$W/$fw.log" | sed -n 's/.*relinkboot: phase \([a-z0-9_-]*\) \([0-9]*\) cycles.*/| \1 | \2 |/p'
	echo
done
