#!/usr/bin/env bash
# Proof that the layout does not leak past the handoff (issue 7).
#
#   leak-tests.sh uefi|bios [MODE]
# MODE: negative midlink entropy fallback fallback-negative obsd early
#       early-negative obsd-fallback obsd-fallback-negative linux-fallback
#       linux-fallback-negative (empty: the relinked demo kernel)
#
# Boots the leak-test stage (efi/leaktest.c, stand/leaktest.c: production
# code plus canaries in every allocation, the stack and static buffers)
# with a fixed debug_seed, stops the guest at the kernel's first
# instruction and dumps guest RAM and the registers there (QEMU's gdbstub),
# then lets the demo kernel run to its verdict (it must pass, relinked).
# test/qemu/leak-scan.c repeats the link with that seed and searches the
# dump, outside the kernel's own load range, for every secret (kit,
# compressed stream, payload, plan, permutation, layout arrays, ChaCha key
# and keystream, seed, a copy of the image) and every canary; the XMM
# registers must be zero. One result line per buffer kind.
# Controls, which must find what they expect (so the scan can fail):
# `negative` boots the -neg variant (frees dropped, secret pages not marked
# for wiping); `midlink` (BIOS) dumps RAM at lk_link_close through QEMU's
# gdbstub, while every secret of the link is still alive (the kit and its
# stream are already wiped then: the stage frees the kit right after the
# inflate), proving the needles match the bytes as the i386 stage stores
# them.
# `entropy` boots without debug_seed (the real entropy path, with a known
# SEED.BIN): the layout is unknown then, so it looks for the kit, stream,
# payload, plan, SEED.BIN and the canaries only.
# `fallback` boots a kit that fails late (test/qemu/kit-overflow.py: a
# relocation out of range, found by lk_link_write after the layout and the
# whole image were made) with stand/testkern.elf as the fallback, loaded
# elsewhere, so nothing of the failed link is overwritten by it: the dump
# is taken at the fallback's entry, its range must hold exactly its image
# and the rest of RAM must hold none of the failed link's secrets (its
# image included). `fallback-negative` is the same on the -neg build,
# which also skips the wipe of what the failed link left (BIOS: its
# image; UEFI: its pages are neither wiped nor freed).
# `obsd` boots the OpenBSD-protocol test kernel (test/obsd) relinked: the
# same scan through that hand-over (boot arguments on the stack, no
# Multiboot2 information, so no ELF view for the kernel either).
# `early` boots a demo kit that fails early, in the layout: the kit was
# read and inflated, the objects ordered and placed, but no image written
# (test/qemu/kit-early.py: the entry symbol undefined), with testkern as
# the fallback: the kit, payload, plan, permutation and layout must all be
# gone. `obsd-fallback` boots the OpenBSD kit broken like `fallback`'s and
# its own prelinked kernel as the fallback, booted through the OpenBSD
# hand-over and loaded over the failed image's range: that range must hold
# exactly the fallback, the rest none of the failed link. Each
# `-negative` is the same on the -neg build.
# `linux-fallback` (issue 26) is `fallback` with the Linux corpus'
# bzImage as the fallback (skipped without the corpus): the stage loads
# it at its pref_address and enters its 32-bit entry with ESI =
# boot_params; the range must hold exactly its protected-mode code and
# zeros up to init_size, the rest none of the failed link's secrets.
# Under OVMF the stage enters the 64-bit entry (RSI = boot_params) and
# leaves boot-services memory alone (Linux keeps it until
# SetVirtualAddressMap): windows of the kit and RELINK.CFG found there are
# the firmware's disk caches, listed in a comment and not counted;
# everything the stage made is a failure anywhere (leak-scan.c).
# `linux-fallback-negative` is the same on the -neg build.
# Environment: B (build directory), LEAK_KEEP=1 keeps the dumps.
set -uo pipefail

fw=${1:?usage: leak-tests.sh uefi|bios [MODE]}
mode=${2:-}
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
mkimage=$here/../../tools/mkimage.sh
scan=$B/test/qemu/leak-scan
limit=${LEAK_TIMEOUT:-120}
# Any fixed value: the test only needs the host to know it.
seed=6c65616b2d74657374206b6e6f776e207365656420666f72207468652073636e
name=leak-$fw
suffix=leaktest
kit=$B/demo/kernel.kit fallback=$B/demo/fallback.elf cfg=$here/relink.cfg
# A fallback boot: how the kit is broken (overflow: kit-overflow.py,
# place: kit-early.py) and the line the stage must print for it.
breaks='' fails=''
case $fw-$mode in
*-obsd | *-obsd-fallback*)
	kit=$B/obsd/kernel.kit fallback=$B/obsd/fallback.elf
	cfg=$here/../obsd/relink.cfg ;;
esac
case $fw:$mode in
*: | *:negative | *:entropy | *:fallback | *:fallback-negative | *:obsd | bios:midlink) ;;
*:linux-fallback | *:linux-fallback-negative) ;;
*:early | *:early-negative | *:obsd-fallback | *:obsd-fallback-negative) ;;
*) echo "leak-tests.sh: unknown mode $fw $mode" >&2; exit 2 ;;
esac
[ -z "$mode" ] || name=leak-$fw-$mode
case $mode in negative | *-negative) suffix=leaktest-neg ;; esac
case $mode in
fallback*) breaks=overflow fallback=$B/stand/testkern.elf
	fails='R_X86_64_8 out of range' ;;
early*) breaks=place fallback=$B/stand/testkern.elf
	fails="entry symbol '[^']*' is undefined" ;;
obsd-fallback*) breaks=overflow fails='R_X86_64_8 out of range' ;;
linux-fallback*) breaks=overflow fails='R_X86_64_8 out of range'
	fallback=$B/corpora/linux-6.1-x86_64-defconfig/arch/x86/boot/bzImage
	[ "$(cat "$B/corpora/linux-6.1-x86_64-defconfig.stamp" 2>/dev/null)" = ok ] ||
		skip_all "no Linux corpus (../shared/corpora)" "$name-boot" ;;
esac

efi=$B/efi/BOOTX64-$suffix.EFI
stage=$B/stand/stage-$suffix.bin
need=("$efi" "$stage" "$B/stand/mbr.bin" "$kit" "$fallback" "$scan")
for f in "${need[@]}"; do
	[ -e "$f" ] || skip_all "$f does not exist yet" "$name"
done

work=$(new_run_dir "$B/test/qemu/$name.run") || exit 1
[ "${LEAK_KEEP:-0}" = 1 ] || trap 'rm -f "$work"/*.dump "$work"/disk.img' EXIT

seedopt=() fbopt=()
case $breaks in
overflow)
	python3 "$here/kit-overflow.py" "$kit" "$work/bad.kit" >"$work/kit.out" 2>&1 ||
		{ echo "not ok $name-boot: kit-overflow.py: $(tail -n 1 "$work/kit.out")"; exit 0; }
	kit=$work/bad.kit fbopt=(--fallback "$fallback")
	case $fw-$mode in uefi-linux-fallback*) fbopt+=(--linux-entry64) ;; esac
	;;
place)
	python3 "$here/kit-early.py" "$kit" "$work/bad.kit" >"$work/kit.out" 2>&1 ||
		{ echo "not ok $name-boot: kit-early.py: $(tail -n 1 "$work/kit.out")"; exit 0; }
	kit=$work/bad.kit fbopt=(--fallback "$fallback" --fails "$breaks")
	;;
esac
if [ "$mode" = entropy ]; then
	# 256 known bytes, varied enough to be recognised anywhere.
	python3 -c 'import hashlib, sys
sys.stdout.buffer.write(b"".join(hashlib.sha256(b"leak seed file %d" % i).digest() for i in range(8)))' >"$work/seed.bin"
	{ grep -v '^debug_seed' "$cfg"; echo 'seed_file = \RELINK\SEED.BIN'; } >"$work/relink.cfg"
	seedopt=(--seed "$work/seed.bin")
else
	{ grep -v '^debug_seed' "$cfg"; echo "debug_seed = $seed"
	  case $mode in linux-fallback*) echo 'cmdline = console=ttyS0' ;; esac
	  case $fw-$mode in uefi-linux-fallback*) echo 'verbose = 1' ;; esac; } >"$work/relink.cfg"
fi
"$mkimage" create -o "$work/disk.img" --efi "$efi" --kit "$kit" \
	--fallback "$fallback" --cfg "$work/relink.cfg" "${seedopt[@]}" \
	--mbr "$B/stand/mbr.bin" --stage "$stage" >"$work/mkimage.out" 2>&1 ||
	{ echo "not ok $name-boot: mkimage failed: $(tail -n 1 "$work/mkimage.out")"; exit 0; }
disk_before=$(sha256sum <"$work/disk.img")

# The guest starts stopped; leak-gdb.py breaks at the kernel's entry (or,
# for the mid-link control, at lk_link_close in the BIOS stage), dumps RAM
# and registers there through the gdbstub and lets the guest run on (the
# control kills it). No isa-debug-exit: the demo kernel halts after its
# verdict. -cpu max: RDRAND/RDSEED and SHA-NI, as on real machines.
# A Linux fallback owns 40 MB from its load address, beside the
# stage's buffers: OVMF needs more than 128 MB for that.
mem=128
case $mode in linux-fallback*) mem=256 ;; esac
args=(-accel tcg -machine q35 -m $mem -cpu max -no-reboot -net none
      -display none -monitor none -serial "file:$work/serial.log"
      -drive "format=raw,file=$work/disk.img" -S
      -chardev "socket,id=gdb0,path=$work/gdb.sock,server=on,wait=off" -gdb chardev:gdb0)
if [ "$fw" = uefi ]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/vars.fd"
	args+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd"
	       -drive "if=pflash,format=raw,unit=1,file=$work/vars.fd")
fi
# OVMF puts the bzImage where its map has room, not always at
# pref_address: one boot of the same disk (fresh variables) shows where,
# and the same boot again goes to the same place.
if [[ $fw-$mode == uefi-linux-fallback* ]]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/calib-vars.fd"
	calib=() skip=0
	for a in "${args[@]}"; do
		[ $skip = 0 ] || { skip=0; continue; }
		case $a in
		-S) ;;
		-chardev | -gdb) skip=1 ;;
		file:$work/serial.log) calib+=("file:$work/calib.log") ;;
		*file=$work/vars.fd) calib+=("${a%file=*}file=$work/calib-vars.fd") ;;
		*) calib+=("$a") ;;
		esac
	done
	timeout -k 5 90 qemu-system-x86_64 "${calib[@]}" </dev/null >/dev/null 2>&1 &
	cpid=$!
	la=''
	for _ in $(seq 170); do
		la=$(grep -aoE 'Linux kernel at 0x[0-9a-f]+' "$work/calib.log" 2>/dev/null | head -n 1 | sed 's/.* 0x//')
		[ -n "$la" ] && break
		sleep 0.5
	done
	kill "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
	[ -n "$la" ] || { echo "not ok $name-boot: the calibration boot named no load address"; exit 0; }
	fbopt+=(--linux-load "$la")
fi
if [ "$mode" = midlink ]; then
	addr=$(nm "$B/stand/stage-$suffix.elf" | awk '$3 == "lk_link_close" { print $1 }')
	where=lk_link_close gdbmode=''
else
	addr=$("$scan" --kit "$kit" --seed "$seed" "${fbopt[@]}" --print-entry)
	where="the kernel's entry" gdbmode=--detach
fi
[ -n "$addr" ] || { echo "not ok $name-boot: no address for $where"; exit 0; }

stop_qemu() {
	local _
	for _ in 1 2 3 4 5 6; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.5; done
	kill "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
}
timeout -k 5 "$limit" qemu-system-x86_64 "${args[@]}" </dev/null >"$work/qemu.out" 2>&1 &
qpid=$!
start=$(date +%s)
for _ in $(seq 40); do [ -S "$work/gdb.sock" ] && break; sleep 0.25; done
python3 "$here/leak-gdb.py" $gdbmode "$work/gdb.sock" "$addr" $((limit - 15)) \
	'info registers' "dump-guest-memory $work/ram.dump" >"$work/gdb.out" 2>&1 ||
	echo "# $name: $(tail -n 1 "$work/gdb.out")"
dumped=$(($(date +%s) - start))
if [ "$mode" = midlink ]; then
	stop_qemu
	[ -s "$work/ram.dump" ] || { echo "not ok $name-boot: no RAM dump at $where ($work/gdb.out)"; exit 0; }
	echo "ok $name-boot: stopped at lk_link_close (0x$addr) after ${dumped}s"
	"$scan" --kit "$kit" --seed "$seed" --dump "$work/ram.dump" \
		--name "$name" --expect payload,plan,permutation,layout,rng,seed,alloc-canary,stack-canary,static-canary
	exit 0
fi
# The demo kernel's verdict; the fallback test kernel's: its loader line.
want='demo: (PASS|FAIL)'
case $mode in
linux-fallback*) want='Linux version [0-9.]+' ;;
fallback* | early*) want='testkern: loader relinkboot [a-z]+' ;;
obsd*) want='obsd: (PASS|FAIL)' ;;
esac
verdict=''
while kill -0 "$qpid" 2>/dev/null; do
	verdict=$(grep -aoE "$want" "$work/serial.log" 2>/dev/null | head -n 1)
	[ -n "$verdict" ] && break
	[ $(($(date +%s) - start)) -lt $((limit - 10)) ] || break
	sleep 0.5
done
kill "$qpid" 2>/dev/null
wait "$qpid" 2>/dev/null
secs=$(($(date +%s) - start))
tr -d '\r' <"$work/serial.log" >"$work/serial.txt"

if ! grep -q 'LEAKTEST build' "$work/serial.txt"; then
	echo "not ok $name-boot: the stage is not the leak-test build"
	exit 0
fi
case $mode in
fallback* | early* | obsd-fallback* | linux-fallback*)
	# The failure must be the one the kit was broken for (overflow: late,
	# in the write; place: before any image was written).
	if ! grep -qE "relinkboot: fallback: .*$fails" "$work/serial.txt"; then
		echo "not ok $name-boot: not the $breaks failure: $(grep -a 'relinkboot: fallback' "$work/serial.txt" | head -n 1)"
		exit 0
	fi
	# The OpenBSD protocol names no loader: leak-scan finds the
	# fallback's image in its range, and the kernel must give a verdict.
	case $mode in
	obsd* | linux*) ok=$verdict ;;
	*) ok='testkern: loader relinkboot fallback' ;;
	esac
	[ -n "$verdict" ] && [ "$verdict" = "$ok" ] ||
		{ echo "not ok $name-boot: the fallback kernel did not run (${verdict:-no loader line})"; exit 0; }
	;;
obsd)
	if grep -q 'relinkboot: fallback' "$work/serial.txt"; then
		echo "not ok $name-boot: the kit was not relinked: $(grep -a 'relinkboot: fallback' "$work/serial.txt" | head -n 1)"
		exit 0
	fi
	;;
*)
	if ! grep -q 'demo: loader relinked' "$work/serial.txt"; then
		echo "not ok $name-boot: the kit was not relinked: $(grep -a 'relinkboot: fallback' "$work/serial.txt" | head -n 1)"
		exit 0
	fi
	;;
esac
[ -s "$work/ram.dump" ] || { echo "not ok $name-boot: no RAM dump at the kernel's entry ($work/gdb.out)"; exit 0; }
[ -n "$verdict" ] || { echo "not ok $name-boot: no verdict from the kernel in ${limit}s"; exit 0; }
case $mode in
fallback* | early* | obsd* | linux*) ;;
*) grep -q 'demo: ramscan clean' "$work/serial.txt" ||
	echo "# $name: the demo kernel's own scan: $(grep -a 'ramscan' "$work/serial.txt" | head -n 1)" ;;
esac
echo "ok $name-boot: dumped at the kernel's entry (0x$addr) after ${dumped}s, $verdict after ${secs}s"
# Nothing is written to disk (SEED.BIN included).
if [ "$(sha256sum <"$work/disk.img")" = "$disk_before" ]; then
	echo "ok $name-disk-unchanged"
else
	echo "not ok $name-disk-unchanged: the image's SHA-256 changed"
fi

opts=(--kit "$kit" --seed "$seed" --dump "$work/ram.dump" --name "$name"
      "${fbopt[@]}")
# What each negative variant leaves behind: UEFI secret pages unwiped and
# pool tags unfreed; BIOS heap tags unfreed (the core still wipes the
# contents before its frees). After a failed link: on BIOS everything it
# held (kit, payload, the link state's permutation and layout, its image
# with the random-fill section's keystream), on UEFI every page it held
# (the kit, payload, staged image; the config's copy with the debug seed;
# the core's pool buffers are wiped by lk_link_close).
case $fw-$mode in
bios-fallback-negative)
	"$scan" "${opts[@]}" --expect kit,zstream,payload,plan,permutation,layout,rng,image-copy,alloc-canary ;;
uefi-fallback-negative | uefi-obsd-fallback-negative)
	"$scan" "${opts[@]}" --expect kit,zstream,payload,plan,rng,seed,image-copy,alloc-canary ;;
uefi-linux-fallback-negative) # --regs: RSI, for the EFI memory map
	"$scan" "${opts[@]}" --regs "$work/gdb.out" \
		--expect kit,zstream,payload,plan,rng,seed,image-copy,alloc-canary ;;
bios-early-negative | bios-obsd-fallback-negative)
	"$scan" "${opts[@]}" --expect kit,zstream,payload,plan,permutation,layout,alloc-canary ;;
uefi-early-negative)
	"$scan" "${opts[@]}" --expect kit,zstream,payload,plan,seed,alloc-canary ;;
uefi-negative) "$scan" "${opts[@]}" --expect kit,zstream,payload,plan,alloc-canary ;;
bios-negative) "$scan" "${opts[@]}" --expect alloc-canary ;;
*-entropy) "$scan" "${opts[@]}" --no-layout --seed-file "$work/seed.bin" --regs "$work/gdb.out" ;;
*) "$scan" "${opts[@]}" --regs "$work/gdb.out" ;;
esac
exit 0
