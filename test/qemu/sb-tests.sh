#!/usr/bin/env bash
# UEFI Secure Boot (issue 17): one chain of trust from the firmware to the
# relinked kernel, under Debian's test firmware OVMF_CODE_4M.snakeoil.fd +
# OVMF_VARS_4M.snakeoil.fd (Secure Boot on, the snakeoil certificate in
# PK, KEK and db; an SMM build, so ACPI NVS sits over the demo kernel's
# 16 MiB and every boot here also exercises the kernel placement).
#
#   sb-tests.sh
#
# The stage is built with the kit key k1 built in (RELINK_PUBKEY) in the
# run's directory and signed by `make sign` with the snakeoil db key; the
# kit is signed by k1, the fallback too (FALLBACK.SIG). Boots, two at a
# time:
#   signed-1, signed-2  signed stage, signed kit, a RELINK.CFG asking for
#                  debug_seed, verbose = 2 and another pubkey (k2): each
#                  refused with its line, relinked PASS, no INSECURE line,
#                  and two different fingerprints (the seed really unused)
#   unsigned-kit   unsigned kit -> its fallback line, signed fallback boots
#   badsig-kit     one signed header byte changed -> "bad signature", fallback
#   unsigned-fallback  unsigned kit, no FALLBACK.SIG -> "fallback failed",
#                  nothing boots, the firmware takes over again
#   unsigned-stage the stage as built, unsigned -> the firmware refuses it
#                  (Access Denied), no relinkboot line at all
#   other-key      the stage signed by a self-made key outside db -> refused
#   nokey          the production stage (no built-in key), snakeoil-signed
#                  -> "no built-in kit key" once, relinked PASS
#   off            the signed-1 image under the same SMM firmware with
#                  Secure Boot off (OVMF_VARS_4M.fd: no PK) -> as before
#                  this issue: debug_seed and verbose = 2 obeyed (INSECURE
#                  lines), no "secure boot" line, relinked PASS
set -uo pipefail

B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
mkimage=$root/tools/mkimage.sh
boot=$here/boot.sh
linkkit=$B/tools/linkkit
limit=${BOOT_TIMEOUT:-120}
ovmf=/usr/share/OVMF
sbdir=/usr/share/ovmf
names=(sb-signed sb-refusals sb-seed-refused sb-unsigned-kit sb-badsig-kit
       sb-unsigned-fallback sb-unsigned-stage sb-other-key sb-nokey sb-off
       sb-disk-unchanged)
. "$here/lib.sh"

for t in sbsign sbverify openssl signify-openbsd; do
	command -v "$t" >/dev/null || skip_all "$t not installed" "${names[@]}"
done
for f in "$ovmf/OVMF_CODE_4M.snakeoil.fd" "$ovmf/OVMF_VARS_4M.snakeoil.fd" \
	"$ovmf/OVMF_VARS_4M.fd" "$sbdir/PkKek-1-snakeoil.key" "$sbdir/PkKek-1-snakeoil.pem" \
	"$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf" \
	"$B/demo/objects.txt" "$linkkit"; do
	[ -e "$f" ] || skip_all "$f does not exist" "${names[@]}"
done

work=$(new_run_dir "$B/test/qemu/sb.run" "$B/test/qemu/sb") || exit 1

setup() {
	signify_keys "$work" k1 k2 || return 1
	demo_kit "$work/signed.kit" --sign "$work/k1.sec" >"$work/create.log" 2>&1 || return 1
	bad_signature_kit "$work/signed.kit" "$work/badsig.kit" || return 1
	# The db key (snakeoil, as in the firmware's db) and one outside db.
	openssl rsa -passin pass:snakeoil -in "$sbdir/PkKek-1-snakeoil.key" \
		-out "$work/db.key" 2>/dev/null || return 1
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/other.key" \
		-out "$work/other.crt" -subj /CN=relinkboot-other-key -days 1 \
		>/dev/null 2>&1 || return 1
	# The stage with k1 built in, signed by `make sign` (private tree).
	sub_make "$work/bk" -j2 RELINK_PUBKEY="$work/k1.pub" SB_KEY="$work/db.key" \
		SB_CERT="$sbdir/PkKek-1-snakeoil.pem" sign >"$work/bk.log" 2>&1 || return 1
	sbverify --cert "$sbdir/PkKek-1-snakeoil.pem" "$work/bk/efi/BOOTX64.signed.EFI" \
		>/dev/null 2>&1 || return 1
	# A check that can fail: the other key's signature must not verify
	# against the snakeoil certificate.
	sbsign --key "$work/other.key" --cert "$work/other.crt" \
		--output "$work/other.EFI" "$work/bk/efi/BOOTX64.EFI" >/dev/null 2>&1 || return 1
	! sbverify --cert "$sbdir/PkKek-1-snakeoil.pem" "$work/other.EFI" >/dev/null 2>&1 || return 1
	sbsign --key "$work/db.key" --cert "$sbdir/PkKek-1-snakeoil.pem" \
		--output "$work/nokey.EFI" "$B/efi/BOOTX64.EFI" >/dev/null 2>&1 || return 1
	{
		cat "$here/relink.cfg"
		echo "debug_seed = 000102030405060708090a0b0c0d0e0f"
		echo "verbose = 2"
		echo "pubkey = $(sed -n 2p "$work/k2.pub")"
	} >"$work/insecure.cfg"
	local signed=$work/bk/efi/BOOTX64.signed.EFI
	mk() { # out efi kit cfg [mkimage options]
		local out=$1 efi=$2 kit=$3 cfg=$4
		shift 4
		LINKKIT=$linkkit "$mkimage" create -o "$work/$out.img" --efi "$efi" \
			--kit "$kit" --fallback "$B/demo/fallback.elf" --cfg "$cfg" "$@" >/dev/null
	}
	mk signed "$signed" "$work/signed.kit" "$work/insecure.cfg" --fallback-key "$work/k1.sec" &&
		mk unsigned-kit "$signed" "$B/demo/kernel.kit" "$here/relink.cfg" --fallback-key "$work/k1.sec" &&
		mk badsig-kit "$signed" "$work/badsig.kit" "$here/relink.cfg" --fallback-key "$work/k1.sec" &&
		mk unsigned-fallback "$signed" "$B/demo/kernel.kit" "$here/relink.cfg" &&
		mk unsigned-stage "$work/bk/efi/BOOTX64.EFI" "$work/signed.kit" "$here/relink.cfg" --fallback-key "$work/k1.sec" &&
		mk other-key "$work/other.EFI" "$work/signed.kit" "$here/relink.cfg" --fallback-key "$work/k1.sec" &&
		mk nokey "$work/nokey.EFI" "$B/demo/kernel.kit" "$here/relink.cfg"
}
setup || { echo "not ok sb-setup: see $work (bk.log, create.log)"; exit 0; }

# boot NAME IMAGE [VARS]: Secure Boot firmware (SMM), private image copy.
boot_one() {
	local name=$1 img=$2 vars=${3:-$ovmf/OVMF_VARS_4M.snakeoil.fd}
	OVMF_CODE=$ovmf/OVMF_CODE_4M.snakeoil.fd OVMF_VARS=$vars \
		"$boot" -t "$limit" --copy --rng --cpu max -l "$work/$name.log" -- \
		-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on \
		"$img" >"$work/$name.result" 2>&1
}
start=$(date +%s)
boot_one signed-1 "$work/signed.img" & boot_one signed-2 "$work/signed.img"; wait
boot_one unsigned-kit "$work/unsigned-kit.img" & boot_one badsig-kit "$work/badsig-kit.img"; wait
boot_one unsigned-fallback "$work/unsigned-fallback.img" & boot_one unsigned-stage "$work/unsigned-stage.img"; wait
boot_one other-key "$work/other-key.img" & boot_one nokey "$work/nokey.img"; wait
boot_one off "$work/signed.img" "$ovmf/OVMF_VARS_4M.fd"
echo "# $(($(date +%s) - start)) s for 9 boots"
for r in "$work"/*.result; do echo "# $(basename "$r" .result): $(head -n 1 "$r")"; done

has() { clean "$work/$1.log" | grep -Fq -- "$2"; }
count() { clean "$work/$1.log" | grep -Fc -- "$2"; }
exit_is() { grep -q "boot: exit=$2 " "$work/$1.result"; }
result() { # name cond-status why
	if [ "$2" = 0 ]; then echo "ok $1"; else echo "not ok $1: $3"; fi
}
fp() { clean "$work/$1.log" | sed -n 's/^demo: fingerprint //p'; }

ok=0
for n in signed-1 signed-2; do
	exit_is $n 0x10 && has $n "demo: loader relinked" && has $n "demo: PASS" || ok=1
done
result sb-signed $ok "signed stage + signed kit did not boot relinked (see $work/signed-1.log)"

ok=0 why=
for n in signed-1 signed-2; do
	for l in "relinkboot: secure boot: debug_seed refused" \
		"relinkboot: secure boot: verbose = 2 refused" \
		"relinkboot: secure boot: pubkey in RELINK.CFG refused: it differs from the built-in key"; do
		[ "$(count $n "$l")" = 1 ] || { ok=1; why="$n: not exactly one '$l'"; }
	done
	! has $n "INSECURE" || { ok=1; why="$n: an INSECURE setting was obeyed"; }
	! has $n "relinkboot: fallback" || { ok=1; why="$n: fell back"; }
done
result sb-refusals $ok "$why"

f1=$(fp signed-1) f2=$(fp signed-2)
[ -n "$f1" ] && [ "$f1" != "$f2" ]
result sb-seed-refused $? "fingerprints '$f1' '$f2': the fixed seed was used"

exit_is unsigned-kit 0x10 && has unsigned-kit "demo: loader fallback" &&
	[ "$(count unsigned-kit "relinkboot: fallback:")" = 1 ] &&
	has unsigned-kit "relinkboot: fallback: \\RELINK\\KERNEL.KIT: not signed"
result sb-unsigned-kit $? "no single 'not signed' fallback line and fallback boot ($work/unsigned-kit.log)"

exit_is badsig-kit 0x10 && has badsig-kit "demo: loader fallback" &&
	[ "$(count badsig-kit "relinkboot: fallback:")" = 1 ] &&
	has badsig-kit "relinkboot: fallback: \\RELINK\\KERNEL.KIT: bad signature"
result sb-badsig-kit $? "no single 'bad signature' fallback line and fallback boot ($work/badsig-kit.log)"

! exit_is unsigned-fallback 0x10 && ! has unsigned-fallback "demo:" &&
	has unsigned-fallback "relinkboot: fallback failed: \\RELINK\\FALLBACK.ELF: not signed"
result sb-unsigned-fallback $? "the unsigned fallback was not refused ($work/unsigned-fallback.log)"

for n in unsigned-stage other-key; do
	! exit_is $n 0x10 && ! has $n "relinkboot:" && ! has $n "demo:" && has $n "Access Denied"
	result sb-$n $? "the firmware did not refuse the stage ($work/$n.log)"
done

exit_is nokey 0x10 && has nokey "demo: loader relinked" &&
	[ "$(count nokey "relinkboot: secure boot: no built-in kit key")" = 1 ]
result sb-nokey $? "no single 'no built-in kit key' line or no relinked boot ($work/nokey.log)"

exit_is off 0x10 && has off "demo: loader relinked" && ! has off "secure boot:" &&
	has off "relinkboot: INSECURE: debug_seed" && has off "relinkboot: INSECURE: verbose=2"
result sb-off $? "Secure Boot off did not behave as before ($work/off.log)"

! grep -q "disk=CHANGED" "$work"/*.result
result sb-disk-unchanged $? "a boot wrote its disk"
