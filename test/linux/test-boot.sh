#!/usr/bin/env bash
# Linux through both stages (issue 26): the corpus' bzImage as the
# fallback of a kit that is missing, and its vmlinux through `protocol
# linux`, each with an initramfs of Debian's busybox-static whose /init
# (test/linux/init.sh) reports what the kernel got: the command line, the
# initrd's marker, /proc/iomem, the zero page as the kernel keeps it
# (/sys/kernel/boot_params/data) and, under OVMF, efivarfs. QEMU TCG,
# -m 2048 -smp 2, every disk image booted from a copy and checked
# unchanged. Then the refusals, each one line: a corrupt setup header,
# an initrd larger than initrd_addr_max allows, an unsigned initrd with a
# key configured.
#
# Then the corpus relinked at boot (issue 27, `linkkit create --linux`,
# the make rule's kit): under both firmwares with real entropy (the two
# kernels' /proc/kallsyms differ) and with a debug seed (/proc/kallsyms
# equals the tables of `linkkit link --seed` of that seed, decoded by
# kallsyms-list.py); every one has all its kallsyms symbols, a fully
# symbolized ORC unwind (/proc/self/stack down to entry_SYSCALL_64), the
# exception table (test/linux/efault.c gets -EFAULT), a corpus module
# loaded (xt_mark); a stage with a built-in key, signed for the snakeoil
# Secure Boot firmware, boots the signed kit with Secure Boot on; a kit
# with one byte flipped gives one fallback line and the bzImage boots.
# KASLR at link time (policy random-base): each relinked boot has
# KASLR_FLAG in its zero page, at least one real-entropy boot moved
# _text, and `nokaslr` on the command line keeps _text at
# 0xffffffff81000000 without the flag.
#
# usage: test-boot.sh BUILD_DIR [NAME-REGEX]   (names below; default all)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../qemu/lib.sh"
B=$(cd "$1" && pwd)
only=${2:-${LINUX_TESTS:-.}}
root=$here/../..
mk=$root/tools/mkimage.sh
corpus=$B/corpora/linux-6.1-x86_64-defconfig
ovmf=/usr/share/OVMF
names=(linux-uefi-bzimage linux-uefi-vmlinux linux-bios-bzimage
       linux-bios-vmlinux linux-smm-vmlinux linux-sb-bzimage
       linux-bios-signed linux-bad-header linux-initrd-too-large
       linux-initrd-unsigned linux-uefi-initrd-unsigned linux-bios-initrd-low
       linux-uefi-installed linux-uefi-kit linux-bios-kit linux-uefi-kit-seed
       linux-bios-kit-seed linux-kit-entropy linux-sb-kit linux-bios-kit-broken
       linux-bios-kit-nokaslr)
sel=()
for n in "${names[@]}"; do [[ $n =~ $only ]] && sel+=("$n"); done

[ "$(cat "$B/corpora/linux-6.1-x86_64-defconfig.stamp" 2>/dev/null)" = ok ] ||
	skip_all "no Linux corpus (../shared/corpora/linux-6.1-x86_64-defconfig.tar.xz)" "${sel[@]}"
[ -x /bin/busybox ] || skip_all "no /bin/busybox (Debian busybox-static; mk/deps.sh installs it)" "${sel[@]}"
export LINKKIT=$B/tools/linkkit
kit=$B/linux-real/linux.kit
run=$(new_run_dir "$B/test/linux/run" "$B/test/linux/latest") ||
	fail_all "cannot make a run directory" "${sel[@]}"

# ---- inputs ----
token=$(od -An -tx1 -N6 /dev/urandom | tr -d ' \n')
cmdline="console=ttyS0 relinktest=$token"
bz=$corpus/arch/x86/boot/bzImage
setup() {
	gcc -static -nostdlib -fno-pie -no-pie -O2 -fno-stack-protector -fno-builtin \
		-o "$run/efault" "$here/efault.c" &&
	"$here/mkinitramfs.py" "$run/initrd.img" /bin/busybox "$here/init.sh" \
		"$token" "lib/modules/efivarfs.ko=$corpus/fs/efivarfs/efivarfs.ko" \
		"lib/modules/xt_mark.ko=$corpus/net/netfilter/xt_mark.ko" "bin/efault=$run/efault" &&
	strip -o "$run/vmlinux" "$corpus/vmlinux" && gzip -9n "$run/vmlinux" &&
	signify_keys "$run" k &&
	"$LINKKIT" sign -s "$run/k.sec" -o "$run/initrd.sig" "$run/initrd.img" >/dev/null
}
setup >"$run/setup.log" 2>&1 || fail_all "setup failed: $(tail -1 "$run/setup.log")" "${sel[@]}"
initrd_size=$(stat -c %s "$run/initrd.img")

# image NAME KERNEL [CONFIG LINES...]: a disk with both stages, no kit
# (IMAGE_KIT: that kit), KERNEL as \RELINK\FALLBACK.ELF and the initrd
# beside it (IMAGE_EFI: that UEFI stage).
image() {
	local name=$1 kernel=$2 img=$run/$1.img
	shift 2
	{
		echo 'initrd = \RELINK\INITRD.IMG'
		echo "cmdline = $cmdline${IMAGE_CMDLINE_EXTRA:-}"
		printf '%s\n' "$@"
	} >"$run/$name.cfg"
	"$mk" create -o "$img" --efi "${IMAGE_EFI:-$B/efi/BOOTX64.EFI}" --kit "$B/demo/kernel.kit" \
		--fallback "$B/demo/fallback.elf" --cfg "$run/$name.cfg" \
		--mbr "$B/stand/mbr.bin" --stage "$B/stand/stage.bin" &&
	"$mk" remove "$img" /RELINK/KERNEL.KIT &&
	"$mk" remove "$img" /RELINK/FALLBACK.ELF &&
	"$mk" put "$img" /RELINK/FALLBACK.ELF "$kernel" &&
	"$mk" put "$img" /RELINK/INITRD.IMG "$run/initrd.img" &&
	if [ -n "${IMAGE_KIT:-}" ]; then "$mk" put "$img" /RELINK/KERNEL.KIT "$IMAGE_KIT"; fi
}

# boot NAME FIRMWARE IMG [boot.sh options]: one boot, its result line in
# NAME.result, its serial log NAME.log.
boot() {
	local name=$1 fw=$2 img=$3
	shift 3
	QEMU_MEM=2048 "$here/../qemu/boot.sh" -f "$fw" --smp 2 --cpu max --copy \
		-t "${LINUX_BOOT_TIMEOUT:-150}" -l "$run/$name.log" "$@" "$img" \
		>"$run/$name.result" 2>&1
}

# ---- checks on a Linux boot's log ----
zp=()
zp_load() { read -ra zp < <(grep -a -m1 '^linuxtest: zeropage' <(clean "$1") | cut -d' ' -f3-); }
zp_u32() { local o=$1; echo $((16#${zp[o+3]}${zp[o+2]}${zp[o+1]}${zp[o]})); }
zp_u8() { echo $((16#${zp[$1]})); }

# linux_checks NAME EFI(0|1) [FALLBACK]: why it failed on stdout, nothing
# when fine. FALLBACK: the one fallback line the stage must print (the
# missing kit's by default), or `none` for a relinked boot.
linux_checks() {
	local name=$1 efi=$2 fb=${3:-'relinkboot: fallback: \RELINK\KERNEL.KIT: file not found'}
	local log=$run/$1.log res n
	res=$(cat "$run/$name.result")
	[[ $res == *disk=unchanged* ]] || { echo "disk changed or no boot: $res"; return; }
	grep -aq '^linuxtest: done' <(clean "$log") || { echo "/init did not finish: $res"; return; }
	n=$(grep -ac '^relinkboot: fallback' <(clean "$log"))
	if [ "$fb" = none ]; then
		[ "$n" = 0 ] || { echo "not relinked: $(grep -a -m1 '^relinkboot: fallback' "$log" | tr -d '\r')"; return; }
	else
		grep -aqxF "$fb" <(clean "$log") && [ "$n" = 1 ] ||
			{ echo "want the one fallback line '$fb', got $n: $(grep -a -m1 '^relinkboot: fallback' "$log" | tr -d '\r')"; return; }
	fi
	grep -aqx "linuxtest: cmdline $cmdline${extra_cmdline[$name]:-}" <(clean "$log") ||
		{ echo "command line differs: $(grep -a 'linuxtest: cmdline' "$log")"; return; }
	grep -aqx "linuxtest: marker $token" <(clean "$log") || { echo "initrd marker missing"; return; }
	grep -aq '^linuxtest: iomem 00100000-' <(clean "$log") || { echo "no System RAM at 1 MiB in /proc/iomem"; return; }
	if grep -aE 'WARNING|BUG|Oops|Call Trace' <(clean "$log") | grep -av '^linuxtest' | head -1 >"$run/$name.bad" &&
		[ -s "$run/$name.bad" ]; then
		echo "kernel said: $(cat "$run/$name.bad")"
		return
	fi
	zp_load "$log"
	[ ${#zp[@]} -eq 4096 ] || { echo "no zero page from /sys/kernel/boot_params/data"; return; }
	[ "$(zp_u32 0x218)" != 0 ] && [ "$(zp_u32 0x21c)" = "$initrd_size" ] ||
		{ echo "ramdisk_size $(zp_u32 0x21c), the initrd has $initrd_size bytes"; return; }
	[ "$(zp_u8 0x210)" = 255 ] && [ "$(zp_u8 0x1e8)" -gt 0 ] ||
		{ echo "type_of_loader $(zp_u8 0x210), e820_entries $(zp_u8 0x1e8)"; return; }
	if [ "$efi" = 1 ]; then
		[ "$(zp_u32 0x1c0)" = $((0x34364c45)) ] && [ "$(zp_u32 0x1c4)" != 0 ] &&
			[ "$(zp_u32 0x1c8)" -ge 40 ] && [ "$(zp_u32 0x1cc)" = 1 ] ||
			{ echo "efi_info: signature/systab/desc size/version wrong"; return; }
		grep -aq 'efi: EFI v[0-9.]* by EDK II' <(clean "$log") ||
			{ echo "the kernel did not read the system table (no efi: EFI v... line)"; return; }
		grep -aq '^linuxtest: efivarfs mounted' <(clean "$log") &&
			grep -aq '^linuxtest: efivar BootOrder ' <(clean "$log") ||
			{ echo "efivarfs: runtime services do not work"; return; }
	else
		grep -aq '^linuxtest: no efi' <(clean "$log") && [ "$(zp_u32 0x1c0)" = 0 ] ||
			{ echo "EFI information under BIOS"; return; }
	fi
}

# kit_checks NAME: what only a kernel relinked right gets right.
kit_checks() {
	local log=$run/$1.log st
	grep -aqE "^linuxtest: kallsyms $nksyms [0-9a-f]{64}\$" <(clean "$log") ||
		{ echo "kallsyms: $(grep -a -m1 '^linuxtest: kallsyms' "$log" | tr -d '\r'), want $nksyms symbols"; return; }
	st=$(grep -a '^linuxtest: stack ' <(clean "$log"))
	[ "$(printf '%s\n' "$st" | grep -c .)" -ge 4 ] &&
		! printf '%s\n' "$st" | grep -qvE '^linuxtest: stack \[<0>\] [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+$' &&
		printf '%s\n' "$st" | tail -1 | grep -q ' entry_SYSCALL_64' ||
		{ echo "ORC unwind not fully symbolized: $(printf '%s' "$st" | tr '\n' '|')"; return; }
	grep -aqx 'linuxtest: efault ok' <(clean "$log") || { echo "uname(bad pointer) did not give EFAULT"; return; }
	grep -aqx 'linuxtest: insmod xt_mark ok' <(clean "$log") || { echo "insmod xt_mark.ko failed"; return; }
	# KASLR at link time: the flag that makes the kernel randomize its
	# memory regions, and _text where the link put it.
	zp_load "$log"
	[ ${#zp[@]} -eq 4096 ] || { echo "no zero page"; return; }
	if [[ $1 == *nokaslr* ]]; then
		[ $(($(zp_u8 0x211) & 2)) = 0 ] || { echo "KASLR_FLAG set although nokaslr"; return; }
		[ "$(text_of "$1")" = ffffffff81000000 ] || echo "nokaslr, but _text at $(text_of "$1")"
	else
		[ $(($(zp_u8 0x211) & 2)) = 2 ] || echo "no KASLR_FLAG in loadflags ($(zp_u8 0x211))"
	fi
}
text_of() { sed -n 's/^linuxtest: text \([0-9a-f]*\) T _text$/\1/p' <(clean "$run/$1.log") | head -1; }
ksyms_of() { sed -n 's/^linuxtest: kallsyms [0-9]* //p' <(clean "$run/$1.log") | head -1; }

# The kernel's range (code32_start = its load address, init_size what
# it owns from there) must miss ACPI NVS, with no copy-over warning.
nvs_checks() {
	local name=$1 size lo
	zp_load "$run/$name.log"
	[ ${#zp[@]} -eq 4096 ] || { echo "no zero page"; return; }
	lo=$(zp_u32 0x214)
	size=$(zp_u32 0x260)
	! grep -aq 'overlaps ACPI NVS' <(clean "$run/$name.log") || { echo "copied over ACPI NVS"; return; }
	[ $((lo + size)) -le $((0x810000)) ] || [ "$lo" -ge $((0x1710000)) ] ||
		echo "kernel at $(printf 0x%x "$lo") overlaps [0x810000, 0x1710000)"
}

# refusal NAME LINE: the stage's one line, and nothing booted.
refusal() {
	local name=$1 want=$2 n
	n=$(grep -ac '^relinkboot: fallback failed:' <(clean "$run/$name.log"))
	grep -aqxF "$want" <(clean "$run/$name.log") && [ "$n" = 1 ] &&
		! grep -aq 'Linux version' <(clean "$run/$name.log") ||
		echo "want one line '$want', got: $(grep -a 'fallback failed' "$run/$name.log" | head -2 | tr -d '\r')"
	[[ $(cat "$run/$name.result") == *disk=unchanged* ]] || echo "disk changed: $(cat "$run/$name.result")"
}

want() { [[ " ${sel[*]} " == *" $1 "* ]]; }

# ---- the boots (two at a time) ----
declare -A why extra_cmdline
extra_cmdline[linux-bios-kit-nokaslr]=' nokaslr'
until_done=(--until '^linuxtest: done')
if want linux-uefi-bzimage || want linux-bios-bzimage || want linux-sb-bzimage; then
	image bz "$bz" >>"$run/setup.log" 2>&1 || fail_all "cannot make the bzImage disk" "${sel[@]}"
fi
if want linux-uefi-vmlinux || want linux-bios-vmlinux || want linux-smm-vmlinux; then
	image vm "$run/vmlinux.gz" 'protocol = linux' >>"$run/setup.log" 2>&1 ||
		fail_all "cannot make the vmlinux disk" "${sel[@]}"
fi
want linux-uefi-bzimage && { boot linux-uefi-bzimage uefi "$run/bz.img" "${until_done[@]}" & }
want linux-bios-bzimage && { boot linux-bios-bzimage bios "$run/bz.img" "${until_done[@]}" & }
wait_for_slot 2
want linux-uefi-vmlinux && { boot linux-uefi-vmlinux uefi "$run/vm.img" "${until_done[@]}" & }
wait_for_slot 2
want linux-bios-vmlinux && { boot linux-bios-vmlinux bios "$run/vm.img" "${until_done[@]}" & }
wait_for_slot 2
if want linux-smm-vmlinux; then
	OVMF_CODE=$ovmf/OVMF_CODE_4M.secboot.fd OVMF_VARS=$ovmf/OVMF_VARS_4M.fd \
		boot linux-smm-vmlinux uefi "$run/vm.img" "${until_done[@]}" -- \
		-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on &
fi
wait_for_slot 2
if want linux-sb-bzimage; then
	openssl rsa -passin pass:snakeoil -in /usr/share/ovmf/PkKek-1-snakeoil.key \
		-out "$run/db.key" >>"$run/setup.log" 2>&1 &&
	sbsign --key "$run/db.key" --cert /usr/share/ovmf/PkKek-1-snakeoil.pem \
		--output "$run/BOOTX64.signed.EFI" "$B/efi/BOOTX64.EFI" >>"$run/setup.log" 2>&1 &&
	cp --sparse=always "$run/bz.img" "$run/sb.img" &&
	"$mk" put "$run/sb.img" /EFI/BOOT/BOOTX64.EFI "$run/BOOTX64.signed.EFI" >>"$run/setup.log" 2>&1 &&
	{ OVMF_CODE=$ovmf/OVMF_CODE_4M.snakeoil.fd OVMF_VARS=$ovmf/OVMF_VARS_4M.snakeoil.fd \
		boot linux-sb-bzimage uefi "$run/sb.img" "${until_done[@]}" -- \
		-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on & } ||
		why[linux-sb-bzimage]="cannot sign the stage: $(tail -1 "$run/setup.log")"
fi
wait_for_slot 2
# Signed: the fallback and the initrd by k, its key in RELINK.CFG.
pub="pubkey = $(sed -n 2p "$run/k.pub")"
if want linux-bios-signed || want linux-initrd-unsigned || want linux-uefi-initrd-unsigned; then
	{ image signed "$bz" "$pub" &&
	  "$LINKKIT" sign -s "$run/k.sec" -o "$run/bz.sig" "$bz" &&
	  "$mk" put "$run/signed.img" /RELINK/FALLBACK.SIG "$run/bz.sig" &&
	  cp --sparse=always "$run/signed.img" "$run/unsigned.img" &&
	  "$mk" put "$run/signed.img" /RELINK/INITRD.SIG "$run/initrd.sig"; } >>"$run/setup.log" 2>&1 ||
		fail_all "cannot make the signed disks" "${sel[@]}"
fi
want linux-bios-signed && { boot linux-bios-signed bios "$run/signed.img" "${until_done[@]}" & }
wait_for_slot 2
halt=(--until 'nothing to boot; halting')
want linux-initrd-unsigned && { boot linux-initrd-unsigned bios "$run/unsigned.img" "${halt[@]}" & }
wait_for_slot 2
want linux-uefi-initrd-unsigned && { boot linux-uefi-initrd-unsigned uefi "$run/unsigned.img" -t 60 & }
wait_for_slot 2
if want linux-bad-header; then
	cp "$bz" "$run/bad.bz" && printf '\x09\x02' | dd of="$run/bad.bz" bs=1 seek=$((0x206)) conv=notrunc status=none
	image bad "$run/bad.bz" >>"$run/setup.log" 2>&1 && { boot linux-bad-header bios "$run/bad.img" "${halt[@]}" & }
fi
wait_for_slot 2
if want linux-bios-initrd-low; then
	# initrd_addr_max 256 MiB - 1: below the BIOS stage's heap, which
	# sits at the top of RAM; the stage must look lower.
	cp "$bz" "$run/low.bz" && printf '\xff\xff\xff\x0f' | dd of="$run/low.bz" bs=1 seek=$((0x22c)) conv=notrunc status=none
	image low "$run/low.bz" >>"$run/setup.log" 2>&1 && { boot linux-bios-initrd-low bios "$run/low.img" "${until_done[@]}" & }
fi
wait_for_slot 2
if want linux-initrd-too-large; then
	# initrd_addr_max 512 KiB - 1: the ~1 MB initrd is larger.
	cp "$bz" "$run/small.bz" && printf '\xff\xff\x07\x00' | dd of="$run/small.bz" bs=1 seek=$((0x22c)) conv=notrunc status=none
	image small "$run/small.bz" >>"$run/setup.log" 2>&1 && { boot linux-initrd-too-large bios "$run/small.img" "${halt[@]}" & }
fi
wait_for_slot 2
# relinkboot-install's ESP (signed kit, bzImage fallback, initrd, each
# with its .SIG by k) as a disk; the kit then removed, so the bzImage
# boots with the initrd the installer put there.
installed() {
	local d=$run/inst-esp objs
	mkdir -p "$d"
	read -r -d '' -a objs <"$B/demo/objects.txt"
	(cd "$root" && "$LINKKIT" create --sign "$run/k.sec" -o "$run/inst.kit" -T test/demo/kernel.ld \
		-P test/demo/policy "${objs[@]}") &&
	RELINKBOOT_DATADIR=$B/efi "$root/tools/relinkboot-install" install --esp "$d" \
		--efi "$B/efi/BOOTX64.EFI" --kit "$run/inst.kit" --fallback "$bz" --fallback-key "$run/k.sec" \
		--initrd "$run/initrd.img" --initrd-key "$run/k.sec" --pubkey "$run/k.pub" --cmdline "$cmdline" &&
	"$mk" create -o "$run/installed.img" --efi "$d/EFI/BOOT/BOOTX64.EFI" --kit "$d/RELINK/KERNEL.KIT" \
		--fallback "$d/RELINK/FALLBACK.ELF" --cfg "$d/EFI/BOOT/RELINK.CFG" &&
	for f in FALLBACK.SIG INITRD.IMG INITRD.SIG; do "$mk" put "$run/installed.img" "/RELINK/$f" "$d/RELINK/$f" || return 1; done &&
	"$mk" remove "$run/installed.img" /RELINK/KERNEL.KIT
}
if want linux-uefi-installed; then
	if installed >>"$run/setup.log" 2>&1; then
		boot linux-uefi-installed uefi "$run/installed.img" "${until_done[@]}" &
	else
		why[linux-uefi-installed]="relinkboot-install or mkimage failed: $(tail -1 "$run/setup.log")"
	fi
fi
wait_for_slot 2
# ---- the relinked kernel (issue 27) ----
dseed=6c696e75782d6b69742d73656564
if want linux-uefi-kit || want linux-bios-kit || want linux-uefi-kit-seed ||
	want linux-bios-kit-seed || want linux-kit-entropy || want linux-sb-kit ||
	want linux-bios-kit-broken || want linux-bios-kit-nokaslr; then
	[ "$(cat "$B/linux-real/kit.done" 2>/dev/null)" = ok ] || fail_all "no Linux kit ($B/linux-real/kit.done)" "${sel[@]}"
	nksyms=$("$LINKKIT" info "$kit" | sed -n 's/^kallsyms: \([0-9]*\) .*/\1/p')
	{ IMAGE_KIT=$kit image kit "$bz" &&
	  IMAGE_KIT=$kit image kitseed "$bz" "debug_seed = $dseed" &&
	  "$LINKKIT" link --seed "$dseed" -o "$run/seed.elf" "$kit" &&
	  "$here/kallsyms-list.py" "$run/seed.elf" >"$run/seed.kallsyms" &&
	  rm -f "$run/seed.elf" &&
	  cp "$kit" "$run/broken.kit" &&
	  printf '\x5a' | dd of="$run/broken.kit" bs=1 seek=100000 conv=notrunc status=none &&
	  IMAGE_KIT=$run/broken.kit image broken "$bz" &&
	  IMAGE_KIT=$kit IMAGE_CMDLINE_EXTRA=' nokaslr' image nokaslr "$bz"; } >>"$run/setup.log" 2>&1 ||
		fail_all "cannot make the kit disks: $(tail -1 "$run/setup.log")" "${sel[@]}"
	want_seed=$(sha256sum <"$run/seed.kallsyms" | cut -d' ' -f1)
fi
broken_line='relinkboot: fallback: \RELINK\KERNEL.KIT: BLAKE3 of the payload does not match the header'
want linux-uefi-kit && { boot linux-uefi-kit uefi "$run/kit.img" --rng "${until_done[@]}" & }
want linux-bios-kit && { boot linux-bios-kit bios "$run/kit.img" "${until_done[@]}" & }
wait_for_slot 2
want linux-uefi-kit-seed && { boot linux-uefi-kit-seed uefi "$run/kitseed.img" "${until_done[@]}" & }
want linux-bios-kit-seed && { boot linux-bios-kit-seed bios "$run/kitseed.img" "${until_done[@]}" & }
wait_for_slot 2
want linux-bios-kit-broken && { boot linux-bios-kit-broken bios "$run/broken.img" "${until_done[@]}" & }
want linux-bios-kit-nokaslr && { boot linux-bios-kit-nokaslr bios "$run/nokaslr.img" "${until_done[@]}" & }
wait_for_slot 2
# Secure Boot: the stage with k built in (a private build), signed with
# the snakeoil db key; the kit signed by k.
sbkit() {
	sub_make "$run/bk" RELINK_PUBKEY="$run/k.pub" SB_KEY="$run/db.key" \
		SB_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem sign &&
	"$LINKKIT" create --sign "$run/k.sec" -o "$run/signed-linux.kit" --linux "$corpus" &&
	IMAGE_KIT=$run/signed-linux.kit IMAGE_EFI=$run/bk/efi/BOOTX64.signed.EFI image sbkit "$bz" &&
	"$LINKKIT" sign -s "$run/k.sec" -o "$run/sbbz.sig" "$bz" &&
	"$mk" put "$run/sbkit.img" /RELINK/FALLBACK.SIG "$run/sbbz.sig" &&
	"$mk" put "$run/sbkit.img" /RELINK/INITRD.SIG "$run/initrd.sig"
}
if want linux-sb-kit; then
	[ -s "$run/db.key" ] || openssl rsa -passin pass:snakeoil -in /usr/share/ovmf/PkKek-1-snakeoil.key \
		-out "$run/db.key" >>"$run/setup.log" 2>&1
	if sbkit >>"$run/setup.log" 2>&1; then
		OVMF_CODE=$ovmf/OVMF_CODE_4M.snakeoil.fd OVMF_VARS=$ovmf/OVMF_VARS_4M.snakeoil.fd \
			boot linux-sb-kit uefi "$run/sbkit.img" "${until_done[@]}" -- \
			-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on &
	else
		why[linux-sb-kit]="cannot build the keyed stage or the signed kit: $(tail -1 "$run/setup.log")"
	fi
fi
wait

# ---- results ----
for n in "${sel[@]}"; do
	[ -n "${why[$n]:-}" ] && { not_ok "$n" "${why[$n]}"; continue; }
	[ -r "$run/$n.log" ] || [ "$n" = linux-kit-entropy ] ||
		{ not_ok "$n" "did not run (see $run/setup.log)"; continue; }
	case $n in
	linux-uefi-*bzimage | linux-uefi-vmlinux | linux-uefi-installed) r=$(linux_checks "$n" 1) ;;
	linux-bios-bzimage | linux-bios-vmlinux | linux-bios-signed) r=$(linux_checks "$n" 0) ;;
	linux-bios-initrd-low)
		r=$(linux_checks "$n" 0)
		zp_load "$run/$n.log"
		[ -n "$r" ] || [ $(($(zp_u32 0x218) + $(zp_u32 0x21c) - 1)) -le $((0x0fffffff)) ] ||
			r="initrd at $(printf 0x%x "$(zp_u32 0x218)") ends above initrd_addr_max 0xfffffff" ;;
	linux-smm-vmlinux) r=$(linux_checks "$n" 1); [ -n "$r" ] || r=$(nvs_checks "$n") ;;
	linux-sb-bzimage)
		r=$(linux_checks "$n" 1)
		[ -n "$r" ] || grep -aq 'secureboot: Secure boot enabled' <(clean "$run/$n.log") ||
			r="the kernel does not report Secure Boot on"
		zp_load "$run/$n.log"
		[ -n "$r" ] || [ "${zp[0x1ec]:-}" = 03 ] || r="zero page secure_boot ${zp[0x1ec]:-none}, want 3"
		[ -n "$r" ] || r=$(nvs_checks "$n") ;;
	linux-uefi-kit | linux-uefi-kit-seed | linux-bios-kit | linux-bios-kit-seed | linux-bios-kit-nokaslr)
		efi=0
		[[ $n == linux-uefi-* ]] && efi=1
		r=$(linux_checks "$n" $efi none)
		[ -n "$r" ] || r=$(kit_checks "$n")
		if [ -z "$r" ] && [[ $n == *-seed ]] && [ "$(ksyms_of "$n")" != "$want_seed" ]; then
			r="/proc/kallsyms differs from linkkit link --seed $dseed's tables"
		fi ;;
	linux-kit-entropy)
		r=''
		a=$(ksyms_of linux-uefi-kit) c=$(ksyms_of linux-bios-kit)
		[ -n "$a" ] && [ -n "$c" ] || r="a real-entropy boot gave no kallsyms digest"
		[ -n "$r" ] || [ "$a" != "$c" ] || r="two real-entropy boots listed the same kallsyms ($a)"
		[ -n "$r" ] || [ "$a" != "$want_seed" ] || r="a real-entropy boot has the debug seed's layout"
		# 1 in ~480 boots keeps the base; two at once in ~230,000.
		[ -n "$r" ] || [ "$(text_of linux-uefi-kit)" != ffffffff81000000 ] ||
			[ "$(text_of linux-bios-kit)" != ffffffff81000000 ] ||
			r="neither real-entropy boot moved _text from ffffffff81000000" ;;
	linux-sb-kit)
		r=$(linux_checks "$n" 1 none)
		[ -n "$r" ] || r=$(kit_checks "$n")
		[ -n "$r" ] || grep -aq 'secureboot: Secure boot enabled' <(clean "$run/$n.log") ||
			r="the kernel does not report Secure Boot on"
		[ -n "$r" ] || ! grep -aq 'INSECURE\|no built-in' <(clean "$run/$n.log") ||
			r="the stage warned: $(grep -a -m1 'INSECURE\|no built-in' "$run/$n.log")" ;;
	linux-bios-kit-broken)
		r=$(linux_checks "$n" 0 "$broken_line") ;;
	linux-bad-header)
		r=$(refusal "$n" 'relinkboot: fallback failed: \RELINK\FALLBACK.ELF: setup header: boot protocol 2.09 is older than 2.12') ;;
	linux-initrd-too-large)
		r=$(refusal "$n" "relinkboot: fallback failed: \\RELINK\\INITRD.IMG: $initrd_size bytes, larger than the kernel's initrd_addr_max 0x7ffff allows") ;;
	linux-initrd-unsigned | linux-uefi-initrd-unsigned)
		r=$(refusal "$n" 'relinkboot: fallback failed: \RELINK\INITRD.IMG: not signed (\RELINK\INITRD.SIG: file not found), and a public key is configured') ;;
	esac
	report "$n" "$r"
done
print_results "$run"
