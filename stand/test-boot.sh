#!/usr/bin/env bash
# Boot test of the BIOS stage under SeaBIOS (QEMU, TCG): a scratch
# Multiboot2 kernel as a kit (relinked path) and as the fallback ELF;
# broken kits must give exactly one `fallback:` line and still boot; a
# missing fallback must print why and halt; a bad MBR field must print
# the MBR's error. Boots the demo kit too when test/demo has built one.
set -u
B=${1:?usage: test-boot.sh BUILD_DIR}
T=$(mktemp -d /tmp/stand-boot.XXXXXX)
trap 'rm -rf "$T"' EXIT
MKIMAGE=tools/mkimage.sh
LINKKIT=$B/tools/linkkit
. "$(dirname "$0")/../test/qemu/lib.sh"

for f in "$B/stand/mbr.bin" "$B/stand/stage.bin" "$B/stand/testkern.elf" "$LINKKIT" "$MKIMAGE"; do
	[ -e "$f" ] || skip_all "$f missing" stand-boot
done

# boot IMG MEM SECONDS [QEMU ARGS]: serial log in $T/log, QEMU status in $rc.
boot() {
	local img=$1 mem=$2 secs=$3
	shift 3
	timeout "$secs" qemu-system-x86_64 -accel tcg -machine q35 -m "$mem" \
		-display none -serial "file:$T/log" -monitor none \
		-drive format=raw,file="$img" -net none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 "$@" </dev/null >/dev/null 2>&1
	rc=$?
	tr -d '\r' <"$T/log" >"$T/log.txt"
}

# image OUT KIT FALLBACK [CFG [STAGE]]
image() {
	local cfg=${4:-$T/cfg} stage=${5:-$B/stand/stage.bin}
	rm -f "$1"
	"$MKIMAGE" create -o "$1" --efi "$T/efi" --kit "$2" --fallback "$3" \
		--cfg "$cfg" --mbr "$B/stand/mbr.bin" --stage "$stage" \
		>"$T/mkimage.log" 2>&1
}

has() { grep -q -- "$1" "$T/log.txt"; }
count() { grep -c -- "$1" "$T/log.txt"; }
why() { tail -n 3 "$T/log.txt" | tr '\n' '|'; }

echo fake >"$T/efi"
printf 'cmdline = hello bios\nverbose = 0\n' >"$T/cfg"
objcopy -O elf64-x86-64 "$B/stand/testkern.o" "$T/k.o"
printf 'protocol multiboot2\n' >"$T/policy"
"$LINKKIT" create -o "$T/k.kit" -T stand/testkern.ld -P "$T/policy" "$T/k.o" >"$T/kit.log" 2>&1 ||
	skip_all "linkkit create failed: $(head -n 1 "$T/kit.log")" stand-boot
FB=$B/stand/testkern.elf

# 1. The relinked path, small and large memory.
if image "$T/ok.img" "$T/k.kit" "$FB"; then
	for mem in 64M 3G; do
		boot "$T/ok.img" $mem 30
		if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' &&
			has '^testkern: cmdline hello bios$' && ! has 'fallback:' &&
			has '^testkern: low memory clean$'; then
			ok "relinked-$mem"
		else
			not_ok "relinked-$mem" "status $rc: $(why)"
		fi
		# verbose = 0: the stage says nothing but warnings (no layout).
		quiet=$(grep '^relinkboot: ' "$T/log.txt" | grep -v '^relinkboot: warning: ')
		[ -z "$quiet" ] && ok "relinked-quiet-$mem" ||
			not_ok "relinked-quiet-$mem" "printed: $(echo "$quiet" | head -n 1)"
	done
else
	not_ok relinked "mkimage: $(tail -n 1 "$T/mkimage.log")"
fi

# 1b. Long mode: the kit's hash and inflate run as x86-64 code (verbose
# says so) and give the same relinked boot; a CPU without long mode runs
# the i386 code instead (QEMU's qemu64 with lm off).
printf 'cmdline = hello bios\nverbose = 1\n' >"$T/cfg-v"
if image "$T/v.img" "$T/k.kit" "$FB" "$T/cfg-v"; then
	boot "$T/v.img" 256 30
	if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' &&
		has "^relinkboot: long mode: the kit's hash and inflate run as x86-64 code$" &&
		has '^relinkboot: phase verify ' && has '^relinkboot: phase inflate '; then
		ok relinked-long-mode
	else
		not_ok relinked-long-mode "status $rc: $(why)"
	fi
	# -cpu max: XSAVE and AVX2, so lm64_call sets XCR0 and the hash
	# takes the AVX2 lanes.
	boot "$T/v.img" 256 30 -cpu max
	if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' &&
		has "^relinkboot: long mode: the kit's hash and inflate run as x86-64 code$"; then
		ok relinked-long-mode-avx
	else
		not_ok relinked-long-mode-avx "status $rc: $(why)"
	fi
	boot "$T/v.img" 256 30 -cpu qemu64,lm=off
	if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' &&
		! has '^relinkboot: long mode' && has '^relinkboot: phase verify '; then
		ok relinked-no-long-mode
	else
		not_ok relinked-no-long-mode "status $rc: $(why)"
	fi
else
	not_ok relinked-long-mode "mkimage: $(tail -n 1 "$T/mkimage.log")"
fi

# 1c. A kit in segments with two processors: the application processor
# comes up to share its items (the hash, the segments, in long mode) and
# the image's parts (this kit's are so small that the boot processor may
# take them all first: test/linux and test/obsd-real boot the real
# kernels' kits with -smp 2);
# with one processor the boot processor takes them all; an application
# processor at APIC ID 3 is started by its MADT entry. Damaged, it falls
# back after the hash. The kernel checks that low memory is clean, so an
# AP still running the stage's code would show.
if LINKKIT_SEGMENTS=4 "$LINKKIT" create -o "$T/seg.kit" -T stand/testkern.ld -P "$T/policy" \
	"$T/k.o" >"$T/kit.log" 2>&1 && image "$T/seg.img" "$T/seg.kit" "$FB" "$T/cfg-v"; then
	ap='^relinkboot: inflate: 5 items (the kit.s hash, segments), [0-5] of them by 1 application processor$'
	wp='^relinkboot: write: [0-9]+ parts, [0-9]+ of them by 1 application processor$'
	boot "$T/seg.img" 256 30 -smp 2
	if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' && has "$ap" &&
		grep -qE -- "$wp" "$T/log.txt" && has '^testkern: low memory clean$'; then
		ok relinked-smp2-segments
	else
		not_ok relinked-smp2-segments "status $rc: $(why)"
	fi
	boot "$T/seg.img" 256 30 -smp 1
	if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' &&
		! has 'application processor'; then
		ok relinked-smp1-segments
	else
		not_ok relinked-smp1-segments "status $rc: $(why)"
	fi
	# The IPIs go to the MADT's APIC IDs: here the one application
	# processor is APIC ID 3 (socket 1, core 1), IDs 1 and 2 absent.
	boot "$T/seg.img" 256 30 -smp 1,maxcpus=4,sockets=2,cores=2 \
		-device qemu64-x86_64-cpu,socket-id=1,core-id=1,thread-id=0
	if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' && has "$ap" &&
		grep -qE -- "$wp" "$T/log.txt" && has '^testkern: low memory clean$'; then
		ok relinked-smp-apic-id3
	else
		not_ok relinked-smp-apic-id3 "status $rc: $(why)"
	fi
	# An application processor that takes an item and never finishes it
	# (the fault-injection stages, stand/mp.c) must not hang the boot: the
	# boot processor stops them and does the rest, saying so once.
	for f in inflate:1:inflate write:2:image; do
		job=${f%%:*} n=${f#*:} n=${n%:*} what=${f##*:}
		if image "$T/stall.img" "$T/seg.kit" "$FB" "$T/cfg-v" "$B/stand/stage-stall$n.bin"; then
			boot "$T/stall.img" 256 60 -smp 2
			if [ $rc -eq 33 ] && has '^testkern: loader relinkboot relinked$' &&
				has "^relinkboot: warning: .*application processor did not finish its share of the $what: stopped them" &&
				[ "$(count 'did not finish')" = 1 ] && has '^testkern: low memory clean$'; then
				ok "ap-stall-$job"
			else
				not_ok "ap-stall-$job" "status $rc: $(why)"
			fi
		else
			not_ok "ap-stall-$job" "mkimage: $(tail -n 1 "$T/mkimage.log")"
		fi
	done
	cp "$T/seg.kit" "$T/segbad.kit"
	n=$(stat -c %s "$T/seg.kit")
	printf '\xff\xff\xff\xff' | dd of="$T/segbad.kit" bs=1 seek=$((n / 2)) conv=notrunc status=none
	if image "$T/segbad.img" "$T/segbad.kit" "$FB" "$T/cfg-v"; then
		boot "$T/segbad.img" 256 30 -smp 2
		if [ $rc -eq 33 ] && has '^relinkboot: fallback: .*KERNEL.KIT: BLAKE3 of the payload does not match the header' &&
			has '^testkern: loader relinkboot fallback$'; then
			ok fallback-smp2-segments
		else
			not_ok fallback-smp2-segments "status $rc: $(why)"
		fi
	else
		not_ok fallback-smp2-segments "mkimage: $(tail -n 1 "$T/mkimage.log")"
	fi
else
	not_ok relinked-smp2-segments "kit or image: $(tail -n 1 "$T/kit.log" "$T/mkimage.log" | tr '\n' ' ')"
fi

# 2. A kit whose zlib stream is damaged: hash mismatch -> fallback.
cp "$T/k.kit" "$T/bad.kit"
printf '\xff\xff\xff\xff' | dd of="$T/bad.kit" bs=1 seek=80 conv=notrunc status=none
if image "$T/bad.img" "$T/bad.kit" "$FB"; then
	boot "$T/bad.img" 256 30
	n=$(count '^relinkboot: fallback: ')
	if [ $rc -eq 33 ] && [ "$n" -eq 1 ] && has '^relinkboot: fallback: .*KERNEL.KIT' &&
		has '^testkern: loader relinkboot fallback$' &&
		has '^testkern: low memory clean$'; then
		ok fallback-bad-kit
	else
		not_ok fallback-bad-kit "status $rc, $n fallback lines: $(why)"
	fi
else
	not_ok fallback-bad-kit "mkimage: $(tail -n 1 "$T/mkimage.log")"
fi

# 3. The config names a kit that is not there.
printf 'kit = \\RELINK\\NONE.KIT\n' >"$T/cfg2"
if image "$T/nokit.img" "$T/k.kit" "$FB" "$T/cfg2"; then
	boot "$T/nokit.img" 256 30
	if [ $rc -eq 33 ] && [ "$(count '^relinkboot: fallback: ')" -eq 1 ] &&
		has '^relinkboot: fallback: .*NONE.KIT: file not found'; then
		ok fallback-missing-kit
	else
		not_ok fallback-missing-kit "status $rc: $(why)"
	fi
	# 4. ... and a fallback that is not there either: print, then halt.
	"$MKIMAGE" remove "$T/nokit.img" '\RELINK\FALLBACK.ELF' >/dev/null 2>&1
	boot "$T/nokit.img" 256 5
	if [ $rc -eq 124 ] && has '^relinkboot: fallback failed: \\RELINK\\FALLBACK\.ELF: file not found$' &&
		has '^relinkboot: nothing to boot; halting$'; then
		ok halt-without-fallback
	else
		not_ok halt-without-fallback "status $rc: $(why)"
	fi
else
	not_ok fallback-missing-kit "mkimage: $(tail -n 1 "$T/mkimage.log")"
fi

# 5. The MBR refuses a stage size of zero sectors (u16 at 0x1B4).
if [ -f "$T/ok.img" ]; then
	cp "$T/ok.img" "$T/mbr.img"
	printf '\0\0' | dd of="$T/mbr.img" bs=1 seek=$((0x1b4)) conv=notrunc status=none
	boot "$T/mbr.img" 256 5
	has '^relinkboot: mbr: bad stage' && ok mbr-bad-stage-size ||
		not_ok mbr-bad-stage-size "status $rc: $(why)"
	# ... and a stage LBA holding something else than the stage.
	cp "$T/ok.img" "$T/mbr.img"
	dd if=/dev/zero of="$T/mbr.img" bs=512 seek=64 count=1 conv=notrunc status=none
	boot "$T/mbr.img" 256 5
	has '^relinkboot: mbr: bad stage' && ok mbr-bad-stage-magic ||
		not_ok mbr-bad-stage-magic "status $rc: $(why)"
fi

# 6. The demo kernel, relinked twice: both pass, layouts differ.
if [ -f "$B/demo/kernel.kit" ] && [ -f "$B/demo/fallback.elf" ]; then
	if image "$T/demo.img" "$B/demo/kernel.kit" "$B/demo/fallback.elf"; then
		fp=()
		for i in 1 2; do
			boot "$T/demo.img" 256 60
			fp+=("$(sed -n 's/^demo: fingerprint //p' "$T/log.txt")")
			if [ $rc -eq 33 ] && has '^demo: loader relinked$' && ! has 'fallback:'; then
				ok "demo-relinked-$i"
			else
				not_ok "demo-relinked-$i" "status $rc: $(why)"
			fi
		done
		[ -n "${fp[0]}" ] && [ "${fp[0]}" != "${fp[1]}" ] && ok demo-layouts-differ ||
			not_ok demo-layouts-differ "fingerprints '${fp[0]}' '${fp[1]}'"
		# A fixed debug seed gives the same layout twice, and says so.
		printf 'debug_seed = 00112233445566778899aabbccddeeff\n' >"$T/cfg3"
		"$MKIMAGE" put "$T/demo.img" '\EFI\BOOT\RELINK.CFG' "$T/cfg3" >/dev/null 2>&1
		fp=()
		for i in 1 2; do
			boot "$T/demo.img" 256 60
			[ $rc -eq 33 ] && has '^relinkboot: INSECURE: debug_seed is set' &&
				fp+=("$(sed -n 's/^demo: fingerprint //p' "$T/log.txt")")
		done
		[ ${#fp[@]} -eq 2 ] && [ -n "${fp[0]}" ] && [ "${fp[0]}" = "${fp[1]}" ] &&
			ok demo-debug-seed-repeatable ||
			not_ok demo-debug-seed-repeatable "fingerprints '${fp[*]}': $(why)"
	else
		not_ok demo-relinked "mkimage: $(tail -n 1 "$T/mkimage.log")"
	fi
else
	echo "skip demo-relinked: no demo kit built"
fi
exit 0
