#!/usr/bin/env bash
# TSC cycles per boot phase of the UEFI and BIOS stages inside QEMU (TCG):
# the demo image, then (when their corpora are there) the real OpenBSD
# kernel and the Linux 6.1 defconfig kernel.
# boots a copy of the demo image with verbose = 1 under each firmware and
# prints the stages' `relinkboot: phase NAME N cycles` lines as a table.
# TCG's TSC is virtual: compare runs with each other, not with hardware.
# Usage: bench/qemu-phases.sh [BUILD_DIR]
set -u
B=${1:-build}
W=$B/bench/work/qemu
mkdir -p "$W"
# phases NAME LOG: the stage's `phase NAME N cycles` lines as a table.
phases() {
	echo
	echo "| $1 phase | cycles |"
	echo "|---|---:|"
	tr -d '\r' <"$2" | sed -n 's/.*relinkboot: phase \([a-z0-9_-]*\) \([0-9]*\) cycles.*/| \1 | \2 |/p'
	echo
}
# image NAME KIT FALLBACK CFG: a disk with both stages at $W/NAME.img.
image() {
	tools/mkimage.sh create -o "$W/$1.img" --efi "$B/efi/BOOTX64.EFI" \
		--kit "$2" --fallback "$3" --cfg "$4" \
		--mbr "$B/stand/mbr.bin" --stage "$B/stand/stage.bin" >/dev/null
}
# splits LOG: how the stage shared inflate and write among processors.
splits() { tr -d '\r' <"$1" | sed -n 's/.*relinkboot: \(\(inflate\|write\): .*\)/\1/p'; }
demo() {
if [ ! -e "$B/image/disk.img" ]; then
	echo "qemu phases: skipped: $B/image/disk.img not built"
	return
fi
sed 's/^verbose = .*/verbose = 1/' test/qemu/relink.cfg >"$W/relink.cfg"
cp "$B/image/disk.img" "$W/disk.img"
tools/mkimage.sh put "$W/disk.img" '\EFI\BOOT\RELINK.CFG' "$W/relink.cfg" >/dev/null || return
echo
echo "### Boot stages, demo kit, TSC cycles per phase (QEMU TCG, verbose = 1)"
echo
for fw in uefi bios; do
	test/qemu/boot.sh -f $fw --rng -l "$W/$fw.log" -t 120 "$W/disk.img" >"$W/$fw.result" 2>&1
	echo "$fw: $(head -1 "$W/$fw.result")"
	phases "$fw" "$W/$fw.log"
done
}
demo

# The real OpenBSD GENERIC kernel (issue 16), when its corpus is unpacked:
# its kit and ld.lld's link as fallback, as test/obsd/test-real.sh boots
# them, up to the kernel's `root device:` prompt (no root disk).
obsd() {
R=$B/obsd-real
if [ "$(cat "$R/kit.done" 2>/dev/null)" != ok ]; then
	echo "qemu phases, real OpenBSD kernel: skipped: no corpus ($R/kit.done)"
	return
fi
sed 's/^verbose = .*/verbose = 1/' test/obsd/relink.cfg >"$W/obsd.cfg"
if ! image obsd "$R/bsd.kit" "$R/bsd.lld" "$W/obsd.cfg"; then
	echo "qemu phases, real OpenBSD kernel: image failed"
	return
fi
echo "### Boot stages, real OpenBSD 7.3 GENERIC kit, TSC cycles per phase (QEMU TCG, -cpu max, 1 GiB, verbose = 1)"
echo
# uefi-smp2: the same boot with a second CPU, which inflates kit segments
# alongside the first (EFI MP Services, efi/mp.c); the BIOS stage has one.
for run in uefi bios uefi-smp2; do
	fw=${run%%-*} smp=1
	[ "$run" = uefi-smp2 ] && smp=2
	test/qemu/boot.sh -f $fw --rng --copy --cpu max --mem 1024 --smp $smp -t 300 \
		--until 'root device:|panic:|uvm_fault|relinkboot: fallback' \
		-l "$W/obsd-$run.log" "$W/obsd.img" >"$W/obsd-$run.result" 2>&1
	echo "$run: $(head -1 "$W/obsd-$run.result"); kernel reached 'root device:':" \
		"$(tr -d '\r' <"$W/obsd-$run.log" | grep -q 'root device:' && echo yes || echo no)"
	splits "$W/obsd-$run.log"
	phases "$run" "$W/obsd-$run.log"
done
}
obsd

# The Linux 6.1 defconfig corpus relinked (issue 27): its kit and bzImage,
# up to the kernel's panic for want of a root (no initrd), 2 GiB, 2 CPUs.
linux() {
	local k=$B/linux-real/linux.kit bz=$B/corpora/linux-6.1-x86_64-defconfig/arch/x86/boot/bzImage
	if [ "$(cat "$B/linux-real/kit.done" 2>/dev/null)" != ok ]; then
		echo "qemu phases, Linux 6.1: skipped: no corpus ($B/linux-real/kit.done)"
		return
	fi
	printf 'verbose = 1\ncmdline = console=ttyS0 panic=-1\n' >"$W/linux.cfg"
	if ! image linux "$k" "$bz" "$W/linux.cfg"; then
		echo "qemu phases, Linux 6.1: image failed"
		return
	fi
	echo "### Boot stages, Linux 6.1 defconfig kit, TSC cycles per phase (QEMU TCG, -cpu max, 2 GiB, 2 CPUs, verbose = 1)"
	echo
	for fw in uefi bios; do
		QEMU_MEM=2048 test/qemu/boot.sh -f $fw --rng --copy --cpu max --smp 2 -t 300 \
			--until 'Kernel panic|relinkboot: fallback' \
			-l "$W/linux-$fw.log" "$W/linux.img" >"$W/linux-$fw.result" 2>&1
		echo "$fw: $(head -1 "$W/linux-$fw.result"); relinked kernel ran:" \
			"$(tr -d '\r' <"$W/linux-$fw.log" | grep -q 'relinkboot: fallback' && echo no ||
				{ tr -d '\r' <"$W/linux-$fw.log" | grep -q 'Linux version' && echo yes || echo no; })"
		splits "$W/linux-$fw.log"
		phases "$fw" "$W/linux-$fw.log"
	done
}
linux
