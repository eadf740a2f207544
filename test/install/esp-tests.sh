#!/usr/bin/env bash
# relinkboot-install on a directory standing in for a mounted ESP (issue
# 30): install, status, update, remove; refusals that leave the directory
# untouched; an update killed at each step (as by a power cut) and, for the
# installed directory and every interrupted one, a disk image made from
# exactly that directory booted under OVMF, which must boot the kernel
# relinked (`demo: loader relinked`, `demo: PASS`).
#
#   esp-tests.sh   (run from the source tree, B = the build directory)
set -u
B=${B:-build}
B=$(cd "$B" && pwd)
SRC=$(pwd)
LK=$B/tools/linkkit
INST=$SRC/tools/relinkboot-install
MKIMAGE=$SRC/tools/mkimage.sh
BOOT=$SRC/test/qemu/boot.sh
export LINKKIT=$LK
# The stage `install` defaults to and `status` compares with: this build's.
export RELINKBOOT_DATADIR=$B/efi
mkdir -p "$B/test/install"
find "$B/test/install" -maxdepth 1 -name 'esp.run.*' -mmin +60 -exec rm -rf {} + 2>/dev/null
W=$(mktemp -d "$B/test/install/esp.run.XXXXXX")
# Killed runs leave their scratch directories here, not in /tmp.
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
ESP=$W/esp

ok() { echo "ok $1"; }
not_ok() { echo "not ok $1: $2"; }
report() { if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$2"; fi; }

for f in "$LK" "$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf" "$B/demo/objects.txt"; do
	[ -e "$f" ] || { echo "not ok esp-setup: $f does not exist yet"; exit 1; }
done

# ---- ingredients: two keys, two signed kits that differ, two fallbacks ----
setup() {
	local objs
	signify-openbsd -G -n -p "$W/k.pub" -s "$W/k.sec" >/dev/null &&
		signify-openbsd -G -n -p "$W/o.pub" -s "$W/o.sec" >/dev/null || return 1
	read -r -d '' -a objs <"$B/demo/objects.txt"
	# Kit B: the demo policy with another gap size, so its payload differs.
	sed 's/^gap \.text \([0-9]*\)/gap .text 8192/' "$SRC/test/demo/policy" >"$W/policy.b"
	"$LK" create --sign "$W/k.sec" -o "$W/a.kit" -T test/demo/kernel.ld -P test/demo/policy "${objs[@]}" &&
		"$LK" create --sign "$W/k.sec" -o "$W/b.kit" -T test/demo/kernel.ld -P "$W/policy.b" "${objs[@]}" &&
		"$LK" create --sign "$W/o.sec" -o "$W/other.kit" -T test/demo/kernel.ld -P test/demo/policy "${objs[@]}" &&
		"$LK" link --random -o "$W/a.elf" "$W/a.kit" && "$LK" link --random -o "$W/b.elf" "$W/b.kit" ||
		return 1
	! cmp -s "$W/a.kit" "$W/b.kit" && ! cmp -s "$W/a.elf" "$W/b.elf"
} >"$W/setup.log" 2>&1
echo 'an initrd' >"$W/initrd.img"
setup || { echo "not ok esp-setup: cannot make the keys, kits and fallbacks: $(tail -n1 "$W/setup.log")"; exit 1; }

# Every file under a directory with its checksum: "nothing changed" means
# this is the same before and after.
snapshot() { (cd "$1" && find . -type f -exec sha256sum {} + | sort -k2); }
files() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }

install_a() { # install_a DIR: the signed pair A on an empty directory
	rm -rf "$1" && mkdir -p "$1"
	"$INST" install --esp "$1" --efi "$B/efi/BOOTX64.EFI" --kit "$W/a.kit" --fallback "$W/a.elf" \
		--fallback-key "$W/k.sec" --pubkey "$W/k.pub" --cmdline console=com0
}

# ---- install ----
t_install() {
	local want='./EFI/BOOT/BOOTX64.EFI ./EFI/BOOT/RELINK.CFG ./RELINK/FALLBACK.ELF ./RELINK/FALLBACK.SIG ./RELINK/KERNEL.KIT '
	install_a "$ESP" >"$W/install.log" 2>&1 || { echo "install failed: $(tail -n1 "$W/install.log")"; return; }
	[ "$(files "$ESP")" = "$want" ] || { echo "files: $(files "$ESP")"; return; }
	cmp -s "$ESP/RELINK/KERNEL.KIT" "$W/a.kit" && cmp -s "$ESP/RELINK/FALLBACK.ELF" "$W/a.elf" &&
		cmp -s "$ESP/EFI/BOOT/BOOTX64.EFI" "$B/efi/BOOTX64.EFI" || { echo "installed files differ"; return; }
	grep -q "^pubkey = $(sed -n 2p "$W/k.pub")\$" "$ESP/EFI/BOOT/RELINK.CFG" || echo "RELINK.CFG lacks the pubkey"
}
report esp-install "$(t_install)"
cp -a "$ESP" "$W/installed"

# ---- status ----
t_status() {
	local out keynum
	out=$("$INST" status --esp "$ESP" --against "$W/a.kit" 2>&1) || { echo "status failed: $out"; return; }
	keynum=$(sed -n 2p "$W/k.pub" | base64 -d | od -An -tx1 -j2 -N8 | tr -d ' \n')
	for re in "^stage: relinkboot $(sed -n 's/^#define RELINKBOOT_VERSION "\(.*\)"$/\1/p' tools/version.h) \\(the same as $B/efi/BOOTX64.EFI\\)" "^kit: .*KERNEL.KIT: ok, .*protocol multiboot2, signed by key number $keynum, signature verified" \
		"^fallback: .*FALLBACK.ELF: ok, .*Multiboot2 header, .*key number $keynum, signature verified" \
		"kit is current" "^boots: relinked, fallback ready"; do
		grep -Eq "$re" <<<"$out" || { echo "no line matching '$re'"; return; }
	done
	out=$("$INST" status --esp "$ESP" --against "$W/b.kit" 2>&1) && { echo "status --against a newer kit exited 0"; return; }
	grep -q 'kit is STALE' <<<"$out" || echo "a newer kit is not reported stale"
}
report esp-status "$(t_status)"

# An OpenBSD kit (protocol openbsd, a fallback without a Multiboot2
# header) and `status --against` its link directory, before and after a
# file in it changes.
t_openbsd() {
	local d=$W/obsd-esp c=$W/obsd-compile out
	[ -r "$B/obsd/kernel.kit" ] && [ -d "$B/obsd/compile" ] || { echo "no $B/obsd/kernel.kit"; return; }
	mkdir -p "$d" && cp -a "$B/obsd/compile" "$c"
	"$INST" install --esp "$d" --efi "$B/efi/BOOTX64.EFI" --kit "$B/obsd/kernel.kit" \
		--fallback "$B/obsd/fallback.elf" >/dev/null 2>"$W/err" || { echo "install: $(cat "$W/err")"; return; }
	grep -qx 'protocol = openbsd' "$d/EFI/BOOT/RELINK.CFG" || { echo "RELINK.CFG has no protocol = openbsd"; return; }
	out=$("$INST" status --esp "$d" --against "$c" 2>&1) || { echo "status --against a fresh directory: $out"; return; }
	grep -q 'kit is current' <<<"$out" || { echo "not current: $out"; return; }
	grep -q '^fallback: .*ok, .*' <<<"$out" && ! grep -q 'Multiboot2 header' <<<"$(grep '^fallback:' <<<"$out")" ||
		{ echo "fallback line: $(grep '^fallback:' <<<"$out")"; return; }
	printf '\n' >>"$c/ld.script"
	out=$("$INST" status --esp "$d" --against "$c" 2>&1) && { echo "status --against a changed directory exited 0"; return; }
	grep -q 'kit is STALE: .*ld.script' <<<"$out" || echo "stale line: $(grep against <<<"$out")"
}
report esp-status-openbsd "$(t_openbsd)"

# ---- refusals: one line, nothing changed ----
# refused NAME WANT-REGEX ARGS...: exit 1, one stderr line, the same tree.
refused() {
	local before after err rc
	before=$(snapshot "$ESP")
	"$INST" "$@" >/dev/null 2>"$W/err"
	rc=$?
	err=$(cat "$W/err")
	after=$(snapshot "$ESP")
	[ $rc -eq 1 ] || { echo "exit $rc, want 1 ($err)"; return; }
	[ "$(grep -c . <<<"$err")" -eq 1 ] || { echo "$(grep -c . <<<"$err") lines: $err"; return; }
	grep -Eq "$WANT" <<<"$err" || { echo "reason: $err"; return; }
	[ "$before" = "$after" ] || echo "the ESP changed"
}
report esp-refuse-nonkit "$(WANT='a.elf: refused: not a link kit' refused update --esp "$ESP" --kit "$W/a.elf")"
report esp-refuse-otherkey "$(WANT='other.kit: refused: signed with another key' \
	refused update --esp "$ESP" --kit "$W/other.kit")"
# The signature's last bytes flipped: the header still says signed.
head -c -8 "$W/b.kit" >"$W/badsig.kit" && tail -c 8 "$W/b.kit" | tr 'A-Za-z' 'N-ZA-Mn-za-m' >>"$W/badsig.kit"
report esp-refuse-badsig "$(WANT='badsig.kit: refused: (bad signature|malformed signature)' \
	refused update --esp "$ESP" --kit "$W/badsig.kit")"
report esp-refuse-unsigned-kit "$(WANT='kernel.kit: refused: not signed, and a public key is configured' \
	refused update --esp "$ESP" --kit "$B/demo/kernel.kit")"
report esp-refuse-unsigned-fallback "$(WANT='b.elf: refused: a key is configured' \
	refused update --esp "$ESP" --fallback "$W/b.elf")"
report esp-refuse-otherkey-fallback "$(WANT='b.elf: refused: signed with another key' \
	refused update --esp "$ESP" --fallback "$W/b.elf" --fallback-key "$W/o.sec")"
report esp-refuse-linux-protocol "$(WANT='b.elf: refused: not a Linux kernel, but RELINK.CFG says protocol = linux' \
	refused install --esp "$ESP" --efi "$B/efi/BOOTX64.EFI" --kit "$W/b.kit" --fallback "$W/b.elf" \
	--fallback-key "$W/k.sec" --pubkey "$W/k.pub" --protocol linux)"
report esp-refuse-unsigned-initrd "$(WANT='initrd.img: refused: a key is configured, so the initrd needs --initrd-sig or --initrd-key' \
	refused install --esp "$ESP" --efi "$B/efi/BOOTX64.EFI" --kit "$W/b.kit" --fallback "$W/b.elf" \
	--fallback-key "$W/k.sec" --pubkey "$W/k.pub" --initrd "$W/initrd.img")"
report esp-refuse-initrd-not-in-cfg "$(WANT='names no initrd' refused update --esp "$ESP" --initrd "$W/initrd.img" \
	--initrd-key "$W/k.sec")"
report esp-refuse-nonelf-fallback "$(WANT='b.kit: refused: not an x86-64 ELF' \
	refused update --esp "$ESP" --fallback "$W/b.kit" --fallback-key "$W/k.sec")"

# ---- update, and an update killed at each step ----
STEPS='kit-written kit-renamed fallback-written sig-written fallback-renamed sig-renamed'
update_b() { "$INST" update --esp "$1" --kit "$W/b.kit" --fallback "$W/b.elf" --fallback-key "$W/k.sec"; }

t_update() {
	update_b "$ESP" >"$W/update.log" 2>&1 || { echo "update failed: $(tail -n1 "$W/update.log")"; return; }
	cmp -s "$ESP/RELINK/KERNEL.KIT" "$W/b.kit" && cmp -s "$ESP/RELINK/FALLBACK.ELF" "$W/b.elf" ||
		{ echo "the new kit or fallback is not in place"; return; }
	"$LK" verify-elf -p "$W/k.pub" "$ESP/RELINK/FALLBACK.ELF" >/dev/null 2>&1 || { echo "FALLBACK.SIG does not match"; return; }
	[ "$(files "$ESP")" = "$(files "$W/installed")" ] || echo "files after update: $(files "$ESP")"
}
report esp-update "$(t_update)"

# After a kill, each of the kit and the fallback is whole: the old one or
# the new one, never a mix; the kit in place verifies; the next update
# finishes the job and leaves no leftovers.
t_interrupted() { # STEP
	local d=$W/int-$1 kit rc
	cp -a "$W/installed" "$d"
	RELINKBOOT_INSTALL_CRASH_AT=$1 update_b "$d" >"$W/int-$1.log" 2>&1
	rc=$?
	[ $rc -eq 137 ] || { echo "not killed at $1 (exit $rc)"; return; }
	kit=$d/RELINK/KERNEL.KIT
	cmp -s "$kit" "$W/a.kit" || cmp -s "$kit" "$W/b.kit" || { echo "KERNEL.KIT is neither the old nor the new kit"; return; }
	cmp -s "$d/RELINK/FALLBACK.ELF" "$W/a.elf" || cmp -s "$d/RELINK/FALLBACK.ELF" "$W/b.elf" ||
		{ echo "FALLBACK.ELF is neither the old nor the new one"; return; }
	"$LK" verify -p "$W/k.pub" "$kit" >/dev/null 2>&1 || { echo "the kit in place does not verify"; return; }
	"$INST" status --esp "$d" >"$W/int-$1.status" 2>&1
	grep -q '^boots: relinked' "$W/int-$1.status" || { echo "status: $(tail -n1 "$W/int-$1.status")"; return; }
	cp -a "$d" "$W/resumed-$1"
	update_b "$W/resumed-$1" >/dev/null 2>&1 || { echo "the next update failed"; return; }
	[ "$(snapshot "$W/resumed-$1")" = "$(snapshot "$ESP")" ] || echo "the next update left $(files "$W/resumed-$1")"
}
for s in $STEPS; do report "esp-interrupted-$s" "$(t_interrupted "$s")"; done

# ---- remove ----
t_remove() {
	local d=$W/rm before
	cp -a "$W/installed" "$d"
	before=$(snapshot "$d")
	"$INST" remove --esp "$d" >/dev/null 2>"$W/err" && { echo "remove without a saved loader succeeded"; return; }
	[ "$(grep -c . "$W/err")" -eq 1 ] && grep -q 'add --force' "$W/err" || { echo "refusal: $(cat "$W/err")"; return; }
	[ "$(snapshot "$d")" = "$before" ] || { echo "the refused remove changed the ESP"; return; }
	"$INST" remove --esp "$d" --force >/dev/null 2>&1 || { echo "remove --force failed"; return; }
	[ -z "$(files "$d")" ] || { echo "left behind: $(files "$d")"; return; }
	# A foreign loader is saved by install and put back by remove.
	rm -rf "$d" && mkdir -p "$d/EFI/BOOT" && echo 'MZ another loader' >"$d/EFI/BOOT/BOOTX64.EFI"
	cp "$d/EFI/BOOT/BOOTX64.EFI" "$W/foreign.efi"
	"$INST" install --esp "$d" --efi "$B/efi/BOOTX64.EFI" --kit "$W/a.kit" --fallback "$W/a.elf" \
		>/dev/null 2>&1 || { echo "install over a foreign loader failed"; return; }
	cmp -s "$d/EFI/BOOT/BOOTX64.BAK" "$W/foreign.efi" || { echo "the foreign loader was not saved"; return; }
	"$INST" remove --esp "$d" >/dev/null 2>&1 || { echo "remove failed"; return; }
	[ "$(files "$d")" = './EFI/BOOT/BOOTX64.EFI ' ] && cmp -s "$d/EFI/BOOT/BOOTX64.EFI" "$W/foreign.efi" ||
		echo "after remove: $(files "$d")"
}
report esp-remove "$(t_remove)"

# ---- --efi-entry, with efibootmgr, findmnt and lsblk stubbed ----
t_efi_entry() {
	local d=$W/entry s=$W/stubs
	mkdir -p "$s"
	printf '#!/bin/sh\necho "$*" >>%s/efibootmgr.calls\n[ $# -gt 0 ] || [ ! -e %s/has-entry ] || echo "Boot0007* relinkboot	HD(1,GPT)"\n' "$W" "$W" >"$s/efibootmgr"
	printf '#!/bin/sh\necho /dev/nvme0n1p3\n' >"$s/findmnt"
	printf '#!/bin/sh\necho nvme0n1\n' >"$s/lsblk"
	chmod +x "$s"/*
	cp -a "$W/installed" "$d"
	PATH=$s:$PATH "$INST" install --esp "$d" --efi "$B/efi/BOOTX64.EFI" --kit "$W/a.kit" --fallback "$W/a.elf" \
		--fallback-key "$W/k.sec" --efi-entry >/dev/null 2>"$W/err" || { echo "install --efi-entry: $(cat "$W/err")"; return; }
	grep -qx -- '--create --disk /dev/nvme0n1 --part 3 --label relinkboot --loader \\EFI\\BOOT\\BOOTX64.EFI' \
		"$W/efibootmgr.calls" || { echo "efibootmgr called as: $(tr '\n' ';' <"$W/efibootmgr.calls")"; return; }
	touch "$W/has-entry"
	PATH=$s:$PATH "$INST" remove --esp "$d" --force --efi-entry >/dev/null 2>"$W/err" || { echo "remove --efi-entry: $(cat "$W/err")"; return; }
	grep -qx -- '-b 0007 -B' "$W/efibootmgr.calls" || echo "no deletion of Boot0007: $(tr '\n' ';' <"$W/efibootmgr.calls")"
}
report esp-efi-entry "$(t_efi_entry)"

# ---- images made from the directories, booted under OVMF ----
# dir_image DIR IMG: an image whose ESP holds exactly DIR's files.
dir_image() {
	local d=$1 img=$2 f sig=()
	[ ! -f "$d/RELINK/FALLBACK.SIG" ] || sig=(--fallback-sig "$d/RELINK/FALLBACK.SIG")
	"$MKIMAGE" create -o "$img" --efi "$d/EFI/BOOT/BOOTX64.EFI" --kit "$d/RELINK/KERNEL.KIT" \
		--fallback "$d/RELINK/FALLBACK.ELF" --cfg "$d/EFI/BOOT/RELINK.CFG" "${sig[@]}" || return 1
	# Leftovers of an interrupted update go along.
	(cd "$d" && find . -type f) | while read -r f; do
		f=${f#./}
		case $f in EFI/BOOT/BOOTX64.EFI | EFI/BOOT/RELINK.CFG | RELINK/KERNEL.KIT | RELINK/FALLBACK.ELF | RELINK/FALLBACK.SIG) ;;
		*) "$MKIMAGE" put "$img" "/$f" "$d/$f" || exit 1 ;;
		esac
	done
}

boots=(installed "$W/installed" updated "$ESP")
for s in $STEPS; do boots+=("interrupted-$s" "$W/int-$s"); done
if ! [ -r /usr/share/OVMF/OVMF_CODE_4M.fd ]; then
	for ((i = 0; i < ${#boots[@]}; i += 2)); do echo "skip esp-boot-${boots[i]}: no OVMF"; done
	exit 0
fi
run_boot() { # NAME DIR
	dir_image "$2" "$W/$1.img" >"$W/$1.mk.log" 2>&1 || { echo "mkimage failed" >"$W/$1.result"; return; }
	"$BOOT" -f uefi --rng --copy -t "${BOOT_TIMEOUT:-150}" -l "$W/$1.log" "$W/$1.img" >"$W/$1.result" 2>&1
}
for ((i = 0; i < ${#boots[@]}; i += 2)); do
	[ -d "${boots[i + 1]}" ] || { echo "not ok esp-boot-${boots[i]}: no directory (an earlier test failed)"; continue; }
	run_boot "${boots[i]}" "${boots[i + 1]}" &
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
done
wait
clean() { sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g' "$1" 2>/dev/null; }
for ((i = 0; i < ${#boots[@]}; i += 2)); do
	n=${boots[i]} why=''
	res=$(cat "$W/$n.result" 2>/dev/null)
	log=$(clean "$W/$n.log")
	case $res in
	*exit=0x10*disk=unchanged*) ;;
	*) why="${res%% log=*}; last: $(grep -aE 'relinkboot: |demo: ' <<<"$log" | tail -n1) (see $W/$n.log)" ;;
	esac
	if [ -z "$why" ]; then
		grep -q 'demo: loader relinked' <<<"$log" || why="not relinked: $(grep -am1 'relinkboot: fallback' <<<"$log")"
	fi
	[ -n "$why" ] || grep -q 'demo: PASS' <<<"$log" || why="no demo: PASS"
	report "esp-boot-$n" "$why"
done
