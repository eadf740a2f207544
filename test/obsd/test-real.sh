#!/usr/bin/env bash
# Boots the real OpenBSD 7.3 GENERIC kernel (../shared/corpora, unpacked by
# test/corpora/rules.mk) under OVMF and SeaBIOS: relinked from its kit
# (`linkkit create --openbsd` of the link directory, unchanged) and through
# the fallback (ld.lld's link of the corpus' LINK-ORDER, as OpenBSD itself
# would install /bsd), each on a disk without an OpenBSD partition and on
# one whose disklabel carries a fresh random DUID, plus -smp 2 boots, and
# under OVMF's SMM builds (ACPI NVS over the kernel's fixed 16 MiB: the
# stage copies over it at the jump, as efiboot does, and says so): with
# Secure Boot off (OVMF_CODE_4M.secboot.fd), and on (the snakeoil test
# firmware) with a snakeoil-signed stage holding a kit key, a kit and a
# fallback signed by that key: one chain of trust to the real kernel.
#
# The real kernel is the judge: without a root disk it must reach its
# `root device:` prompt; with the labelled disk it must find its root by
# the DUID the stage passed (`root on sd0a (DUID.a)`, printed by setroot()
# just before it tries to mount that partition, which holds no file
# system: QEMU is stopped at that line). Every boot: no panic, no
# uvm_fault, no `relinkboot: fallback` line unless the kit was removed,
# the disk image unchanged, the symbol table in use (`[ using N bytes of
# bsd ELF symbol table ]`), and under OVMF efi0 (the EFI system table
# from EFIINFO) and efifb0 (the framebuffer) attached.
set -uo pipefail

B=${B:-build}
R=$B/obsd-real
boot=test/qemu/boot.sh
mkimage=tools/mkimage.sh
limit=${BOOT_TIMEOUT:-240}
names=(uefi-relinked bios-relinked uefi-fallback bios-fallback
       uefi-duid bios-duid uefi-fallback-duid bios-fallback-duid
       uefi-smp2 bios-smp2 uefi-smm uefi-secureboot uefi-pc bios-pc
       bios-rootduid bios-rootbad uefi-rootbad)
ovmf=/usr/share/OVMF
sbdir=/usr/share/ovmf
. "$(dirname "$0")/../qemu/lib.sh"

[ "$(cat "$R/kit.done" 2>/dev/null)" = ok ] ||
	skip_all "no OpenBSD corpus (../shared/corpora)" "${names[@]/#/obsd-real-}"
setup_fail() { echo "not ok obsd-real-setup: $*"; exit 0; }

image() { # out [mkimage options]
	local out=$1
	shift
	"$mkimage" create -o "$out" --efi "$B/efi/BOOTX64.EFI" \
		--kit "$R/bsd.kit" --fallback "$R/bsd.lld" \
		--cfg "${cfg:-test/obsd/relink.cfg}" --mbr "$B/stand/mbr.bin" \
		--stage "$B/stand/stage.bin" "$@" >/dev/null ||
		setup_fail "cannot make $out"
}
# REAL_RECHECK=DIR judges the logs of an earlier run (kept on failure)
# again without booting: for working on the checks.
if [ -n "${REAL_RECHECK:-}" ]; then
	work=$REAL_RECHECK
	read -r duid_gpt duid_mbr <"$work/duids" || exit 1
else
	work=$(new_run_dir "$R/run") || exit 1
	duid_gpt=$(new_duid)
	duid_mbr=$(new_duid)
	echo "$duid_gpt $duid_mbr" >"$work/duids"
fi
if [ -z "${REAL_RECHECK:-}" ]; then
	image "$work/plain.img"
	# The -smp 2 boots say how the kit was inflated (verbose = 1).
	sed 's/^verbose = .*/verbose = 1/' test/obsd/relink.cfg >"$work/verbose.cfg"
	cfg=$work/verbose.cfg image "$work/verbose.img"
	image "$work/gpt.img" --table gpt --openbsd-duid "$duid_gpt" --openbsd-dtype 4
	image "$work/mbr.img" --table mbr --openbsd-duid "$duid_mbr" --openbsd-dtype 5
	for t in plain gpt mbr; do
		cp --sparse=always "$work/$t.img" "$work/$t-nokit.img"
		"$mkimage" remove "$work/$t-nokit.img" '\RELINK\KERNEL.KIT' >/dev/null ||
			setup_fail "cannot remove the kit"
	done

	stop='root device( \(default [a-z]+[0-9]+[a-p]\))?:|root on [a-z]+[0-9]+[a-p] \([0-9a-f]{16}\.[a-p]\)|panic:|uvm_fault|ddb\{?[0-9]*\}?>|relinkboot: fallback failed'
	run() { # name firmware image [boot.sh options]
		local name=$1 fw=$2 img=$3
		shift 3
		"$boot" -f "$fw" --rng --copy --cpu max --mem 1024 -t "$limit" \
			--until "$stop" -l "$work/$name.log" "$@" "$img" \
			>"$work/$name.result" 2>&1
	}
	run uefi-relinked uefi "$work/plain.img" &
	run bios-relinked bios "$work/plain.img" &
	wait
	run uefi-fallback uefi "$work/plain-nokit.img" &
	run bios-fallback bios "$work/plain-nokit.img" &
	wait
	run uefi-duid uefi "$work/gpt.img" &
	run bios-duid bios "$work/mbr.img" &
	wait
	run uefi-fallback-duid uefi "$work/gpt-nokit.img" &
	run bios-fallback-duid bios "$work/mbr-nokit.img" &
	wait
	run uefi-smp2 uefi "$work/verbose.img" --smp 2 &
	run bios-smp2 bios "$work/verbose.img" --smp 2 &
	wait
	# Issue 29: an ESP-only disk on QEMU's `pc` machine (PIIX IDE, wd0):
	# no label, so the kernel must ask, not try a wd0a that is not there.
	run uefi-pc uefi "$work/plain.img" -- -machine pc &
	run bios-pc bios "$work/plain.img" -- -machine pc &
	wait
	# The root named in RELINK.CFG by DUID, on a second disk; a bad value
	# is one line and the kernel asks.
	cp --sparse=always "$work/mbr.img" "$work/second.img"
	sha256sum <"$work/second.img" >"$work/second.sha"
	{ cat test/obsd/relink.cfg; echo "root = $duid_mbr.a"; } >"$work/rootduid.cfg"
	{ cat test/obsd/relink.cfg; echo "root = sd9z9"; } >"$work/rootbad.cfg"
	cfg=$work/rootduid.cfg image "$work/rootduid.img"
	cfg=$work/rootbad.cfg image "$work/rootbad.img"
	run bios-rootduid bios "$work/rootduid.img" -- -drive "format=raw,file=$work/second.img" &
	run bios-rootbad bios "$work/rootbad.img" &
	run uefi-rootbad uefi "$work/rootbad.img" &
	wait
	sha256sum -c <(sed "s|-\$|$work/second.img|" "$work/second.sha") >/dev/null 2>&1 ||
		echo "boot: the second disk changed" >"$work/bios-rootduid.result"
	# The Secure Boot chain: kit key k built into a stage signed with the
	# snakeoil db key (`make sign`), kit and fallback signed by k.
	smm=(-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on)
	if signify_keys "$work" k >/dev/null &&
		openssl rsa -passin pass:snakeoil -in "$sbdir/PkKek-1-snakeoil.key" \
			-out "$work/db.key" 2>/dev/null &&
		sub_make "$work/bk" -j2 RELINK_PUBKEY="$work/k.pub" SB_KEY="$work/db.key" \
			SB_CERT="$sbdir/PkKek-1-snakeoil.pem" sign >"$work/bk.log" 2>&1 &&
		"$B/tools/linkkit" create --openbsd "$B/corpora/openbsd-7.3-amd64-GENERIC" \
			--sign "$work/k.sec" -o "$work/signed.kit" >"$work/create.log" 2>&1 &&
		"$mkimage" create -o "$work/sb.img" --efi "$work/bk/efi/BOOTX64.signed.EFI" \
			--kit "$work/signed.kit" --fallback "$R/bsd.lld" --fallback-key "$work/k.sec" \
			--cfg test/obsd/relink.cfg >/dev/null; then
		OVMF_CODE=$ovmf/OVMF_CODE_4M.secboot.fd OVMF_VARS=$ovmf/OVMF_VARS_4M.fd \
			run uefi-smm uefi "$work/plain.img" -- "${smm[@]}" &
		OVMF_CODE=$ovmf/OVMF_CODE_4M.snakeoil.fd OVMF_VARS=$ovmf/OVMF_VARS_4M.snakeoil.fd \
			run uefi-secureboot uefi "$work/sb.img" -- "${smm[@]}" &
		wait
	else
		echo "boot: setup failed (see bk.log, create.log)" >"$work/uefi-smm.result"
		cp "$work/uefi-smm.result" "$work/uefi-secureboot.result"
	fi
fi

failed=0
# check NAME FW KIND END: KIND relinked|fallback; END is the regex of the
# last line wanted (the prompt, or setroot's `root on` line).
check() {
	local name=$1 fw=$2 kind=$3 end=$4 log=$work/$1.log res line
	res=$(cat "$work/$name.result")
	echo "# obsd-real-$name: $res"
	if ! grep -q 'exit=reached' <<<"$res" || ! grep -q 'disk=unchanged' <<<"$res"; then
		failed=1
		echo "not ok obsd-real-$name: $(head -1 "$work/$name.result") $(clean "$log" | tail -n 1)"
		return
	fi
	# Judge the log up to the wanted last line: after `root on sd0a`
	# the kernel goes on to mount it and panics (no file system there)
	# before QEMU is stopped.
	n=$(clean "$log" | grep -n -m1 -E -- "$end" | cut -d: -f1)
	if [ -z "$n" ]; then
		failed=1; echo "not ok obsd-real-$name: stopped at '$(clean "$log" | tail -n 1)', not /$end/"
		return
	fi
	clean "$log" | head -n "$n" >"$work/$name.judged"
	log=$work/$name.judged
	line=$(grep -m1 -E -- "panic|uvm_fault|ddb\\{?[0-9]*\\}?>|fallback failed${deny:+|$deny}" "$log" || true)
	if [ -n "$line" ]; then
		failed=1; echo "not ok obsd-real-$name: $line"
		return
	fi
	want=('^\[ using [0-9]+ bytes of bsd ELF symbol table \]$' "${extra[@]}")
	[ "$fw" = uefi ] && want+=('^efi0 at bios0: UEFI [0-9.]+$' '^efifb0 at mainbus0: [0-9]+x[0-9]+, 32bpp$')
	if [ "$kind" = fallback ]; then
		want+=('^relinkboot: fallback: .*KERNEL\.KIT')
	elif line=$(grep -m1 'relinkboot: fallback' "$log"); then
		failed=1; echo "not ok obsd-real-$name: $line"
		return
	fi
	for line in "${want[@]}"; do
		# On the file, not through a pipe: with pipefail, grep -q
		# leaving early would make the writer's SIGPIPE a miss.
		if ! grep -qE -- "$line" "$log"; then
			failed=1; echo "not ok obsd-real-$name: no line /$line/"
			return
		fi
	done
	echo "ok obsd-real-$name"
}

# RB_ASKNAME (no label, no root configured): the kernel asks, offering
# its guess as the default: `root device (default wd0a): `.
prompt='root device( \(default [a-z]+[0-9]+[a-p]\))?: ?$'
extra=() deny=''
check uefi-relinked uefi relinked "$prompt"
check bios-relinked bios relinked "$prompt"
check uefi-fallback uefi fallback "$prompt"
check bios-fallback bios fallback "$prompt"
check uefi-duid uefi relinked "^root on sd0a \($duid_gpt\.a\)"
check bios-duid bios relinked "^root on sd0a \($duid_mbr\.a\)"
check uefi-fallback-duid uefi fallback "^root on sd0a \($duid_gpt\.a\)"
check bios-fallback-duid bios fallback "^root on sd0a \($duid_mbr\.a\)"
# The corpus is GENERIC, not GENERIC.MP: the kernel finds the second CPU
# in the MADT and, being uniprocessor, does not attach it. Under OVMF the
# second CPU has first inflated kit segments and written parts of the
# image (EFI MP Services, efi/mp.c); under SeaBIOS the same (started
# and stopped by the stage itself, stand/mp.c).
extra=('^cpu at mainbus0: not configured$'
       '^relinkboot: inflate: [0-9]+ items \(the kit.s hash, segments\), [1-9][0-9]* of them by 1 application processor$'
       '^relinkboot: write: [0-9]+ parts, [1-9][0-9]* of them by 1 application processor$')
check uefi-smp2 uefi relinked "$prompt"
extra=('^cpu at mainbus0: not configured$' '^relinkboot: phase inflate [0-9]+ cycles$'
       '^relinkboot: inflate: [0-9]+ items \(the kit.s hash, segments\), [1-9][0-9]* of them by 1 application processor$'
       '^relinkboot: write: [0-9]+ parts, [1-9][0-9]* of them by 1 application processor$')
check bios-smp2 bios relinked "$prompt"
deny=''
extra=('^relinkboot: warning: the kernel.s fixed range .* overlaps ACPI NVS')
check uefi-smm uefi relinked "$prompt"
# Under Secure Boot the keyed stage must neither miss its key nor meet an
# unsigned kit (that would be a fallback line).
deny='secure boot: no built-in kit key'
check uefi-secureboot uefi relinked "$prompt"
deny=''
extra=()
check uefi-pc uefi relinked "$prompt"
check bios-pc bios relinked "$prompt"
check bios-rootduid bios relinked "^root on sd1a \($duid_mbr\.a\)"
extra=('^relinkboot: warning: .*RELINK.CFG:[0-9]+: ignored bad value for .root.$')
check bios-rootbad bios relinked "$prompt"
check uefi-rootbad uefi relinked "$prompt"
if [ "$failed" = 1 ] || [ -n "${REAL_RECHECK:-}" ]; then
	echo "# logs kept in $work"
else
	rm -rf "$work"
fi
exit 0
