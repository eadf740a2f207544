#!/usr/bin/env bash
# Boots BOOTX64.EFI under OVMF twice (in parallel) and checks what only the
# UEFI stage decides:
#  A: debug_seed relink with verbose=1 and an unknown config key
#     -> INSECURE line, config warning, phase timings, relinked demo passes;
#  B: the kit removed, FALLBACK.ELF = `linkkit link --seed SEED` of the kit,
#     verbose=0, seed_file -> exactly one fallback line naming the kit,
#     nothing else (no seed_file warning, nothing about the layout), the
#     fallback demo passes;
#  and the boot-side link equals the host link: A's fingerprint == B's;
#  C: BOOTX64-hangtest.EFI (efi/hangtest.c: the stage's watchdog given 5 s,
#     an inflate that never returns) -> the firmware resets the machine
#     (QEMU -no-reboot ends) well before the time limit.
set -uo pipefail
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mkimage=$root/tools/mkimage.sh
efi=$B/efi/BOOTX64.EFI kit=$B/demo/kernel.kit fb=$B/demo/fallback.elf
linkkit=$B/tools/linkkit
work=$B/efi/uefi-boot.d
seed=5eed0123456789abcdef0123456789ab
limit=${EFI_BOOT_TIMEOUT:-150}
. "$root/test/qemu/lib.sh"

for f in "$efi" "$kit" "$fb" "$linkkit" /usr/share/OVMF/OVMF_CODE_4M.fd; do
	[ -r "$f" ] || skip_all "$f missing" efi-boot
done
rm -rf "$work" && mkdir -p "$work"

cat >"$work/a.cfg" <<CFG
kit = \\RELINK\\KERNEL.KIT
fallback = /RELINK/FALLBACK.ELF
cmdline = console=com0
verbose = 1
no_such_key = 1
debug_seed = $seed
CFG
cat >"$work/b.cfg" <<CFG
kit = \\RELINK\\KERNEL.KIT
fallback = \\RELINK\\FALLBACK.ELF
cmdline = console=com0
seed_file = \\RELINK\\SEED.BIN
CFG
head -c 64 /dev/urandom >"$work/seed.bin"
"$linkkit" link --seed "$seed" -o "$work/host.elf" "$kit" >"$work/link.log" 2>&1 ||
	{ echo "not ok efi-boot-setup: linkkit link failed: $(head -n1 "$work/link.log")"; exit 1; }
"$mkimage" create -o "$work/a.img" --efi "$efi" --kit "$kit" --fallback "$fb" \
	--cfg "$work/a.cfg" >"$work/mk.log" 2>&1 &&
"$mkimage" create -o "$work/b.img" --efi "$efi" --kit "$kit" --fallback "$work/host.elf" \
	--cfg "$work/b.cfg" --seed "$work/seed.bin" >>"$work/mk.log" 2>&1 &&
"$mkimage" remove "$work/b.img" '\RELINK\KERNEL.KIT' >>"$work/mk.log" 2>&1 &&
"$mkimage" create -o "$work/c.img" --efi "$B/efi/BOOTX64-hangtest.EFI" --kit "$kit" \
	--fallback "$fb" --cfg "$work/b.cfg" >>"$work/mk.log" 2>&1 ||
	{ echo "not ok efi-boot-setup: mkimage: $(tail -n1 "$work/mk.log")"; exit 1; }

boot() { # boot NAME: serial log in $work/NAME.log, QEMU status in NAME.rc
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/$1.vars"
	timeout -k 5 "$limit" qemu-system-x86_64 -accel tcg -machine q35 -m 256 \
		-nographic -serial "file:$work/$1.log" -monitor none -no-reboot -net none \
		-drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive "if=pflash,format=raw,file=$work/$1.vars" \
		-drive "format=raw,file=$work/$1.img" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null >/dev/null 2>&1
	echo $? >"$work/$1.rc"
}
boot a & boot b & wait
t0=$SECONDS
boot c
c_secs=$((SECONDS - t0))

# demo_ok NAME LOADER: "" if the demo kernel passed with that loader name.
demo_ok() {
	local c rc
	c=$(clean "$work/$1.log")
	rc=$(cat "$work/$1.rc")
	[ "$rc" = 33 ] || { echo "QEMU status $rc, last: $(grep -a 'relinkboot\|demo:' <<<"$c" | tail -n1)"; return; }
	grep -q "demo: loader $2" <<<"$c" || { echo "no 'demo: loader $2'"; return; }
	grep -q 'demo: ramscan clean' <<<"$c" || { echo "$(grep -m1 'ramscan' <<<"$c")"; return; }
	grep -q 'demo: PASS' <<<"$c" || echo "no demo: PASS"
}
fingerprint() { clean "$work/$1.log" | grep -Eo 'demo: fingerprint [0-9a-f]{16}' | tail -n1 | cut -d' ' -f3; }

a=$(clean "$work/a.log") b=$(clean "$work/b.log")
report efi-seeded-relink-boots "$(demo_ok a relinked)"
why=""
grep -q 'relinkboot: INSECURE: debug_seed' <<<"$a" || why="no INSECURE debug_seed line"
grep -Eq 'relinkboot: warning: .*RELINK\.CFG:5: .*no_such_key' <<<"$a" || why="$why; no warning naming RELINK.CFG:5 no_such_key"
grep -q 'relinkboot: fallback' <<<"$a" && why="$why; unexpected $(grep -m1 'relinkboot: fallback' <<<"$a")"
report efi-config-warnings "${why#; }"
why=""
for p in read verify inflate layout write; do
	grep -Eq "relinkboot: phase $p [0-9]+ cycles" <<<"$a" || why="$why no '$p' phase line;"
done
report efi-verbose-phase-timings "$why"

report efi-fallback-boots "$(demo_ok b fallback)"
lines=$(grep -c 'relinkboot: fallback:' <<<"$b")
why=""
[ "$lines" = 1 ] || why="$lines fallback lines, want 1"
grep -Eq 'relinkboot: fallback: \\RELINK\\KERNEL\.KIT: file not found$' <<<"$b" ||
	why="$why; reason: $(grep -m1 'relinkboot: fallback' <<<"$b")"
report efi-fallback-one-line "${why#; }"
# Default verbosity: only the fallback line and entropy warnings.
extra=$(grep 'relinkboot:' <<<"$b" | grep -v 'relinkboot: fallback: ' |
	grep -Ev 'relinkboot: warning: no (EFI_RNG_PROTOCOL|RDSEED|RDRAND) entropy$')
report efi-quiet-by-default "${extra:+unexpected: $(head -n1 <<<"$extra")}"

fa=$(fingerprint a) fb=$(fingerprint b)
if [ -z "$fa" ] || [ -z "$fb" ]; then
	report efi-seeded-link-equals-host-link "missing fingerprint (a='$fa' b='$fb')"
elif [ "$fa" != "$fb" ]; then
	report efi-seeded-link-equals-host-link "boot-side $fa, host $fb"
else
	report efi-seeded-link-equals-host-link ""
fi

# C: reset by the watchdog: QEMU ended on its own (status 0 under
# -no-reboot, not the timeout's 124), the spin was reached, nothing booted.
c=$(clean "$work/c.log")
why=""
[ "$(cat "$work/c.rc")" = 0 ] || why="QEMU status $(cat "$work/c.rc") after ${c_secs}s"
grep -q 'relinkboot: hang test: .*KERNEL.KIT: the inflate never returns' <<<"$c" ||
	why="$why; the hang was not reached"
grep -q 'demo:' <<<"$c" && why="$why; a kernel ran"
report efi-watchdog-resets-a-hang "${why#; }"
