#!/usr/bin/env bash
# The OpenBSD root file system at boot, with the OpenBSD-protocol test
# kernel (test/obsd): its kit records the link directory it was made from
# (`compile`), and the disk's OpenBSD partition carries an FFS root with
# that directory as /usr/share/relink/kernel/compile and a /bsd.
#   fresh-*       the directory matches: relinked, no fallback line
#   stale-*       one object changed, same size (the syspatch case): the one
#                 stale line, /bsd from the root boots first (the ESP's
#                 broken FALLBACK.ELF is never tried), never the kit
#   nofallback    no kit, no FALLBACK.ELF on the ESP: /bsd from the root
#   ffs1          the same fresh boot on an FFS1 root
#   confws        a world-writable /etc/boot.conf: ignored with its line
#   confsingle    boot.conf `set howto -s`: RB_SINGLE reaches the kernel
#   seed          /etc/random.seed, no RDRAND: RB_GOODRANDOM set; noseed:
#                 not set (TSC jitter alone)
#   dseed-a/-a2/-b  a fixed debug_seed with random.seed file A, A again,
#                 then B: the kernel's random data follows the file (A = A2,
#                 A != B) and RB_GOODRANDOM is set
#   ucode-*       CPU microcode by OpenBSD's names: the ESP's
#                 \RELINK\UCODE\INTEL\0f-6b-01 (an Intel signature 0xf6b1,
#                 QEMU's qemu64 as GenuineIntel), the root's
#                 /etc/firmware/intel/0f-6b-01, the ESP's AMD\FAM17H.BIN
#                 (family 0x17): the kernel gets those bytes below 16 MiB
#                 (BOOTARG_UCODE); none: no record, no line; ucode-big: a
#                 1.5 MiB file is one warning line, the boot goes on
#                 without it
#   tty-com1      boot.conf `set tty com1`, `stty com1 9600`: BOOTARG_CONSDEV
#                 says com1 at 9600 (the test kernel's check), and the
#                 stage's own lines after it move to the second port
#   upgrade       an executable /bsd.upgrade (gzip'd; /bsd, the kit and the
#                 ESP's fallback all unbootable): `upgrade detected`, it
#                 boots; upgrade-nox: mode 0644: one line, the kit relinks
#   bsdrd         boot.conf `boot /bsd.rd`, a gzip'd kernel: it boots (no
#                 kit on the ESP, and no fallback line)
# Every disk image is unchanged afterwards. Env: B.
set -uo pipefail

B=${B:-build}
boot=test/qemu/boot.sh
mkimage=tools/mkimage.sh
mkroot=test/obsd/mkroot.sh
limit=${BOOT_TIMEOUT:-90}
names=(fresh-uefi fresh-bios stale-uefi stale-bios nofallback ffs1 confws
       confsingle seed noseed dseed-a dseed-a2 dseed-b dseed-follows-file ucode-esp ucode-root ucode-amd
       ucode-big tty-com1 tty-com1-stage upgrade upgrade-nox bsdrd)
. "$(dirname "$0")/../qemu/lib.sh"

C=$B/obsd/compile
for f in "$B/obsd/kernel.kit" "$B/obsd/fallback.elf" "$C/Makefile" \
	"$B/efi/BOOTX64.EFI" "$B/stand/stage.bin"; do
	[ -e "$f" ] || skip_all "$f missing" "${names[@]/#/stale-root-}"
done
command -v makefs >/dev/null || command -v /usr/sbin/makefs >/dev/null ||
	skip_all "makefs missing (Debian package makefs)" "${names[@]/#/stale-root-}"
work=$(new_run_dir "$B/obsd/stale-run") || exit 1
setup_fail() { echo "not ok stale-root-setup: $*"; exit 0; }

# The root's link directory, fresh or with main.o changed in one byte.
cp -r "$C" "$work/fresh" && cp -r "$C" "$work/stale" || setup_fail "cannot copy $C"
off=$(($(stat -c %s "$work/stale/main.o") / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$work/stale/main.o" | tr -d ' ')
printf "\\x$(printf %02x $((byte ^ 0x20)))" |
	dd of="$work/stale/main.o" bs=1 seek="$off" conv=notrunc status=none
cmp -s "$C/main.o" "$work/stale/main.o" && setup_fail "main.o unchanged"
gzip -9c "$B/obsd/fallback.elf" >"$work/bsd.rd"
head -c 256 /dev/urandom >"$work/random.seed"
head -c 256 /dev/urandom >"$work/random.seed.b"
{ cat test/obsd/relink.cfg; echo 'debug_seed = 00112233445566778899aabbccddeeff'; } >"$work/debug.cfg"
echo 'not a kernel' >"$work/junk"
printf 'set howto -s\n' >"$work/single.conf"
printf 'set tty com1\nstty com1 9600\nset image /nonexistent\n' >"$work/com1.conf"
head -c 3000 /dev/urandom >"$work/ucode.intel"
head -c 2000 /dev/urandom >"$work/ucode.amd"
head -c 1572864 /dev/zero >"$work/ucode.big"
printf 'boot /bsd.rd\n' >"$work/bsdrd.conf"

# root NAME VERSION DIR [mkroot options]: an FFS root image (BSD: /bsd).
root() {
	local name=$1 v=$2 dir=$3
	shift 3
	"$mkroot" "$work/$name.ffs" "$v" --bsd "${BSD:-$B/obsd/fallback.elf}" \
		--relink-dir "$dir" compile "$@" >"$work/$name.mkroot" 2>&1 ||
		setup_fail "mkroot $name: $(tail -n1 "$work/$name.mkroot")"
}
# disk NAME ROOT TABLE [--no-kit] [--no-fallback] (CFG: RELINK.CFG)
disk() {
	local name=$1 r=$2 table=$3 opts=(--kit "$B/obsd/kernel.kit" --fallback "$B/obsd/fallback.elf")
	"$mkimage" create -o "$work/$name.img" --efi "$B/efi/BOOTX64.EFI" \
		"${opts[@]}" --cfg "${CFG:-test/obsd/relink.cfg}" --mbr "$B/stand/mbr.bin" \
		--stage "$B/stand/stage.bin" --table "$table" \
		--openbsd-duid "$(new_duid)" --openbsd-dtype 4 \
		--openbsd-root "$work/$r.ffs" >"$work/$name.mkimage" 2>&1 ||
		setup_fail "mkimage $name: $(tail -n1 "$work/$name.mkimage")"
	shift 3
	for o in "$@"; do
		case $o in
		--no-kit) "$mkimage" remove "$work/$name.img" '\RELINK\KERNEL.KIT' ;;
		--no-fallback) "$mkimage" remove "$work/$name.img" '\RELINK\FALLBACK.ELF' ;;
		--bad-fallback) "$mkimage" put "$work/$name.img" '\RELINK\FALLBACK.ELF' "$work/junk" ;;
		--ucode-intel) "$mkimage" put "$work/$name.img" '\RELINK\UCODE\INTEL\0f-6b-01' "$work/ucode.intel" ;;
		--ucode-big) "$mkimage" put "$work/$name.img" '\RELINK\UCODE\INTEL\0f-6b-01' "$work/ucode.big" ;;
		--ucode-amd) "$mkimage" put "$work/$name.img" '\RELINK\UCODE\AMD\FAM17H.BIN' "$work/ucode.amd" ;;
		esac >/dev/null || setup_fail "cannot edit $name"
	done
}
root fresh 2 "$work/fresh"
root stale 2 "$work/stale"
root ffs1 1 "$work/fresh"
root confws 2 "$work/fresh" --file "$work/single.conf" /etc/boot.conf 0666
root single 2 "$work/fresh" --file "$work/single.conf" /etc/boot.conf 0644
root seed 2 "$work/fresh" --file "$work/random.seed" /etc/random.seed 0600
root seedb 2 "$work/fresh" --file "$work/random.seed.b" /etc/random.seed 0600
BSD=$work/junk root upgrade 2 "$work/fresh" --file "$work/bsd.rd" /bsd.upgrade 0700
root upgrade-nox 2 "$work/fresh" --file "$work/bsd.rd" /bsd.upgrade 0644
root com1 2 "$work/fresh" --file "$work/com1.conf" /etc/boot.conf 0644
root ucode 2 "$work/fresh" --file "$work/ucode.intel" /etc/firmware/intel/0f-6b-01 0644
root bsdrd 2 "$work/fresh" --file "$work/bsd.rd" /bsd.rd 0644 \
	--file "$work/bsdrd.conf" /etc/boot.conf 0644
disk fresh-uefi fresh gpt
disk fresh-bios fresh mbr
# A broken ESP fallback: had the stage tried it before /bsd, it would say so.
disk stale-uefi stale gpt --bad-fallback
disk stale-bios stale mbr --bad-fallback
disk nofallback fresh mbr --no-kit --no-fallback
disk ffs1 ffs1 mbr
disk confws confws mbr
disk confsingle single mbr
disk seed seed mbr
disk noseed fresh mbr
CFG=$work/debug.cfg disk dseed-a seed mbr
CFG=$work/debug.cfg disk dseed-a2 seed mbr
CFG=$work/debug.cfg disk dseed-b seedb mbr
disk ucode-esp fresh mbr --ucode-intel
disk ucode-root ucode gpt
disk ucode-amd fresh mbr --ucode-amd
disk ucode-big fresh mbr --ucode-big
disk tty-com1 com1 mbr --no-kit
disk upgrade upgrade mbr --bad-fallback
disk upgrade-nox upgrade-nox mbr
# No kit: boot.conf's `boot /bsd.rd` must boot it without any relink.
disk bsdrd bsdrd mbr --no-kit

# run NAME FIRMWARE [boot.sh options]: the OVMF ones get RDRAND and an
# EFI RNG; the seed pair has neither (SeaBIOS, QEMU's default CPU).
run() {
	local name=$1 fw=$2
	shift 2
	sha256sum <"$work/$name.img" >"$work/$name.sha"
	"$boot" -f "$fw" -t "$limit" -l "$work/$name.log" "$@" "$work/$name.img" \
		>"$work/$name.result" 2>&1
}
run fresh-uefi uefi --rng --cpu max &
run fresh-bios bios --cpu max
wait
run stale-uefi uefi --rng --cpu max &
run stale-bios bios --cpu max
for n in nofallback ffs1 confws confsingle; do run "$n" bios --cpu max; done
wait
for n in seed noseed dseed-a dseed-a2 dseed-b bsdrd; do run "$n" bios; done
intel=qemu64,vendor=GenuineIntel
run ucode-root uefi --cpu "$intel" &
run ucode-esp bios --cpu "$intel"
run ucode-amd bios --cpu qemu64,family=23
run ucode-big bios --cpu "$intel"
run upgrade bios
run upgrade-nox bios
run tty-com1 bios -- -serial "file:$work/tty-com1.com1"
wait

# check NAME: passed, unchanged, every line of $want, none matching $deny.
check() {
	local name=$1 log=$work/$1.log res line c
	res=$(cat "$work/$name.result")
	c=$(clean "$log")
	if ! grep -q 'exit=0x10' <<<"$res"; then
		line=$(grep -m1 -E 'obsd: FAIL|relinkboot: fallback' <<<"$c" || true)
		report "stale-root-$name" "$res ${line}"
		return
	fi
	if ! sha256sum -c <(sed "s|-\$|$work/$name.img|" "$work/$name.sha") >/dev/null 2>&1; then
		report "stale-root-$name" "the disk image changed"
		return
	fi
	for line in "${want[@]}"; do
		grep -qxF -- "$line" <<<"$c" ||
			{ report "stale-root-$name" "no line '$line' ($log)"; return; }
	done
	if [ -n "$deny" ] && grep -qE -- "$deny" <<<"$c"; then
		report "stale-root-$name" "$(grep -m1 -E -- "$deny" <<<"$c")"
		return
	fi
	report "stale-root-$name" ""
}

stale='relinkboot: fallback: \RELINK\KERNEL.KIT: stale: made from compile whose main.o has changed since (sha256 differs, same size)'
want=('obsd: ucode none' 'obsd: PASS')
deny='relinkboot: fallback|stale|ignored|trying|microcode'
check fresh-uefi
check fresh-bios
check ffs1
want=("$stale" 'obsd: PASS')
deny='trying|relinkboot: fallback failed'
check stale-uefi
check stale-bios
want=('relinkboot: fallback: \RELINK\KERNEL.KIT: file not found'
	'relinkboot: warning: \RELINK\FALLBACK.ELF: file not found; trying /bsd' 'obsd: PASS')
deny='fallback failed'
check nofallback
want=('relinkboot: warning: /etc/boot.conf ignored: it must be owned by root, not writable by others, at most 64 KiB'
	'obsd: PASS')
deny='relinkboot: fallback|obsd: howto 0x0000000000010002'
check confws
want=('obsd: howto 0x0000000000010002' 'obsd: PASS')
deny='relinkboot: fallback'
check confsingle
want=('obsd: howto 0x0000000000010000' 'obsd: PASS')
check seed
want=('obsd: howto 0x0000000000000000' 'obsd: PASS')
check noseed
want=('relinkboot: INSECURE: debug_seed is set: the layout is fixed and known; never use this in production'
	'obsd: howto 0x0000000000010000' 'obsd: PASS')
deny='relinkboot: fallback'
check dseed-a
check dseed-a2
check dseed-b
# random NAME: the test kernel's digest of its random data.
random() { clean "$work/$1.log" | sed -n 's/^obsd: random //p' | head -n1; }
ra=$(random dseed-a) ra2=$(random dseed-a2) rb=$(random dseed-b)
if [ -z "$ra" ] || [ -z "$rb" ]; then
	report stale-root-dseed-follows-file "no random digest ($ra/$ra2/$rb)"
elif [ "$ra" != "$ra2" ]; then
	report stale-root-dseed-follows-file "same debug seed and seed file, random data $ra then $ra2"
elif [ "$ra" = "$rb" ]; then
	report stale-root-dseed-follows-file "another random.seed left the random data at $ra"
else
	report stale-root-dseed-follows-file ""
fi
# fnv FILE: FNV-1a 64 of its bytes, as the test kernel prints it.
fnv() {
	python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
print("0x%016x" % h)' "$1"
}
deny='relinkboot: fallback|microcode'
want=("obsd: ucode 3000 bytes, fnv $(fnv "$work/ucode.intel")" 'obsd: PASS')
check ucode-esp
check ucode-root
want=("obsd: ucode 2000 bytes, fnv $(fnv "$work/ucode.amd")" 'obsd: PASS')
check ucode-amd
want=('relinkboot: warning: microcode not loaded: \RELINK\UCODE\INTEL\0f-6b-01: 1572864 bytes (1 to 1048576)'
	'obsd: ucode none' 'obsd: PASS')
deny='relinkboot: fallback'
check ucode-big
want=('obsd: consdev com1 speed 9600' 'obsd: PASS')
deny='relinkboot: fallback|nonexistent'
check tty-com1
c1=$(clean "$work/tty-com1.com1" 2>/dev/null)
if ! grep -qxF 'relinkboot: fallback: ffs: /nonexistent: nonexistent not found' <<<"$c1"; then
	report stale-root-tty-com1-stage "the stage's fallback line is not on com1: '$c1'"
else
	report stale-root-tty-com1-stage ""
fi
want=('relinkboot: upgrade detected: switching to /bsd.upgrade' 'obsd: PASS')
deny='relinkboot: fallback'
check upgrade
want=('relinkboot: /bsd.upgrade is not u+x' 'obsd: PASS')
deny='relinkboot: fallback|upgrade detected'
check upgrade-nox
want=('obsd: PASS')
deny='relinkboot: fallback|stale|ignored|trying'
check bsdrd
for n in "${names[@]}"; do
	echo "# $n: $(cat "$work/$n.result" 2>/dev/null)"
done
