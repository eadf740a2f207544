#!/usr/bin/env bash
# Boots the real OpenBSD 7.3 GENERIC kernel to userland: the disk's DUID-
# labelled OpenBSD partition holds, in its `a`, an FFS root (test/obsd/
# mkroot.sh: our /sbin/init from test/obsd/userland, the corpus' link
# directory under its kit's name, so that the stage finds the kit fresh,
# and ld.lld's link as /bsd). The relinked kernel must mount it
# (`root on sd0a (DUID.a)`) and run init, which prints its argv,
# kern.version and what /dev/ksyms says, then powers QEMU off.
#
# Boots, one at a time: OVMF with an FFS2 root on a GPT disk, SeaBIOS with
# an FFS1 root on an MBR disk (d_type 5), and OVMF without the kit (the
# fallback, ld.lld's link). Every boot: the init lines in order after
# `root on`, a clean power-off (QEMU exits 0 by itself), no panic, the
# disk image unchanged. The symbols init reads must be the running
# layout's: the same count as ld.lld's table, the fallback's values
# exactly ld.lld's, the two relinked boots' fingerprints different from
# each other and from the fallback's. Each boot's time is printed.
set -uo pipefail

B=${B:-build}
R=$B/obsd-real
U=$B/obsd-userland
boot=test/qemu/boot.sh
mkimage=tools/mkimage.sh
limit=${BOOT_TIMEOUT:-300}
names=(label uefi-ffs2 bios-ffs1 uefi-fallback-ffs2 layouts bios-single
       bios-root-second-disk uefi-root-second-disk bios-config bios-ddb
       bios-askname bios-com1 uefi-com1 bios-syspatch bios-jitter)
syms=(main start_init uvm_init cpu_startup) # init.c's `wanted`
. "$(dirname "$0")/../qemu/lib.sh"

[ "$(cat "$R/kit.done" 2>/dev/null)" = ok ] ||
	skip_all "no OpenBSD corpus (../shared/corpora)" "${names[@]/#/obsd-userland-}"
setup_fail() { fail_all "setup: $*" "${names[@]/#/obsd-userland-}"; }
for f in "$U/root-real-ffs1.img" "$U/root-real-ffs2.img"; do
	[ -s "$f" ] || setup_fail "$f missing (make $f)"
done

work=$(new_run_dir "$U/run") || exit 1
duid_gpt=$(new_duid)
duid_mbr=$(new_duid)

image() { # out root-version [mkimage options]
	local out=$1 v=$2
	shift 2
	"$mkimage" create -o "$out" --efi "$B/efi/BOOTX64.EFI" \
		--kit "$R/bsd.kit" --fallback "$R/bsd.lld" --cfg "${cfg:-test/obsd/relink.cfg}" \
		--mbr "$B/stand/mbr.bin" --stage "$B/stand/stage.bin" \
		${v:+--openbsd-root "$U/root-real-ffs$v.img"} "$@" >"$work/mkimage.log" 2>&1 ||
		setup_fail "cannot make $out: $(tail -n 1 "$work/mkimage.log")"
}
image "$work/gpt.img" 2 --table gpt --openbsd-duid "$duid_gpt" --openbsd-dtype 4
image "$work/mbr.img" 1 --table mbr --openbsd-duid "$duid_mbr" --openbsd-dtype 5
# boot(8)'s -s from RELINK.CFG: init must see it (single user).
{ cat test/obsd/relink.cfg; echo 'howto = -s'; } >"$work/single.cfg"
cfg=$work/single.cfg image "$work/single.img" 1 --table mbr --openbsd-duid "$duid_mbr" --openbsd-dtype 5
# Issue 29: the boot disk holds only the ESP; RELINK.CFG names the root
# by DUID, on a second disk (mbr.img): the kernel finds it there.
{ cat test/obsd/relink.cfg; echo "root = $duid_mbr.a"; } >"$work/second.cfg"
cfg=$work/second.cfg image "$work/esp-only.img" ''
cp --sparse=always "$work/mbr.img" "$work/second.img"
# Without a loader of its own, so that OVMF can only boot the first disk.
"$mkimage" remove "$work/second.img" '\EFI\BOOT\BOOTX64.EFI' >/dev/null ||
	setup_fail "cannot remove the second disk's loader"
sha256sum <"$work/second.img" >"$work/second.sha"
cp --sparse=always "$work/gpt.img" "$work/gpt-nokit.img"
# boot(8)'s flags and console, from RELINK.CFG.
with_cfg() { # NAME TABLE VERSION DUID LINES...
	local name=$1 table=$2 v=$3 duid=$4
	shift 4
	{ cat test/obsd/relink.cfg; printf '%s\n' "$@"; } >"$work/$name.cfg"
	cfg=$work/$name.cfg image "$work/$name.img" "$v" --table "$table" \
		--openbsd-duid "$duid" --openbsd-dtype $([ "$table" = gpt ] && echo 4 || echo 5)
}
with_cfg config mbr 1 "$duid_mbr" 'howto = -c'
with_cfg ddb mbr 1 "$duid_mbr" 'howto = -d'
with_cfg askname mbr 1 "$duid_mbr" 'howto = -a'
with_cfg com1-mbr mbr 1 "$duid_mbr" 'tty = com1' 'stty = com1 9600' 'verbose = 1'
with_cfg com1-gpt gpt 2 "$duid_gpt" 'tty = com1' 'stty = com1 9600' 'verbose = 1'
# syspatch: vers.o changed in one byte, same size, in the root's copy.
C=$B/corpora/openbsd-7.3-amd64-GENERIC
rm -rf "$work/patched" && cp -r "$C" "$work/patched" || setup_fail "cannot copy $C"
off=$(($(stat -c %s "$work/patched/vers.o") / 2))
printf '\xff' | dd of="$work/patched/vers.o" bs=1 seek="$off" conv=notrunc status=none
cmp -s "$C/vers.o" "$work/patched/vers.o" && setup_fail "vers.o unchanged"
test/obsd/mkroot.sh "$work/patched.ffs" 1 --init "$U/init" --bsd "$R/bsd.lld" \
	--relink-dir "$work/patched" openbsd-7.3-amd64-GENERIC >"$work/mkroot.log" 2>&1 ||
	setup_fail "mkroot: $(tail -n 1 "$work/mkroot.log")"
rm -rf "$work/patched"
"$mkimage" create -o "$work/syspatch.img" --efi "$B/efi/BOOTX64.EFI" \
	--kit "$R/bsd.kit" --fallback "$R/bsd.lld" --cfg test/obsd/relink.cfg \
	--mbr "$B/stand/mbr.bin" --stage "$B/stand/stage.bin" --table mbr \
	--openbsd-duid "$duid_mbr" --openbsd-dtype 5 --openbsd-root "$work/patched.ffs" \
	>"$work/mkimage.log" 2>&1 || setup_fail "mkimage syspatch: $(tail -n 1 "$work/mkimage.log")"
echo 'not a kernel' >"$work/junk"
"$mkimage" put "$work/syspatch.img" '\RELINK\FALLBACK.ELF' "$work/junk" >/dev/null ||
	setup_fail "cannot break the ESP fallback"
"$mkimage" remove "$work/gpt-nokit.img" '\RELINK\KERNEL.KIT' >/dev/null ||
	setup_fail "cannot remove the kit"

# mkimage's label (after the ESP, 64 MiB from LBA 2048: the OpenBSD
# partition at 133120, its label in sector 1): `a` is the root image from
# sector 64 of the partition, FS_BSDFFS, fragblock for 16 KiB blocks of 8
# fragments ((ffs(16384) - 13) << 3 | ffs(8) = 20), cpg 1; `c` the disk;
# the label's XOR over 16-bit words up to its partition table's end 0.
label_ok() { # IMG ROOT
	local w a c sum=0 i
	read -ra w < <(od -An -v -tu2 -j $(((133120 + 1) * 512)) -N $((148 + 256)) "$1" | tr '\n' ' ')
	for ((i = 0; i < ${#w[@]}; i++)); do sum=$((sum ^ w[i])); done
	[ "$sum" = 0 ] || { echo "checksum"; return; }
	read -r a < <(od -An -tu4 -j $(((133120 + 1) * 512 + 148)) -N8 "$1" | tr -s ' ')
	read -r c < <(od -An -tu1 -j $(((133120 + 1) * 512 + 160)) -N4 "$1" | tr -s ' ')
	[ "$a" = "$(($(stat -c %s "$2") / 512)) $((133120 + 64))" ] || { echo "a is '$a'"; return; }
	[ "$c" = "7 20 1 0" ] || { echo "a's fstype, fragblock, cpg are '$c'"; return; }
	cmp -s -n "$(stat -c %s "$2")" -i 0:$(((133120 + 64) * 512)) "$2" "$1" || echo "root not in a"
}
why=$(label_ok "$work/gpt.img" "$U/root-real-ffs2.img")
[ -n "$why" ] || why=$(label_ok "$work/mbr.img" "$U/root-real-ffs1.img")
report obsd-userland-label "$why"

# A kernel that stops (panic, ddb, no root) ends the boot at once.
stop='panic:|uvm_fault|ddb\{?[0-9]*\}?>|root device( \(default [a-z0-9]+\))?:|relinkboot: fallback failed'
run() { # name firmware image [-- qemu options]; PLAIN=1: no RNG device, QEMU's CPU
	local trusted=(--rng --cpu max)
	[ -z "${PLAIN:-}" ] || trusted=()
	"$boot" -f "$2" "${trusted[@]}" --copy --mem 1024 -t "$limit" \
		--until "$stop" -l "$work/$1.log" "${@:4}" "$3" >"$work/$1.result" 2>&1
}
run uefi-ffs2 uefi "$work/gpt.img"
run bios-ffs1 bios "$work/mbr.img"
run uefi-fallback-ffs2 uefi "$work/gpt-nokit.img"
run bios-single bios "$work/single.img"
run bios-root-second-disk bios "$work/esp-only.img" -- -drive "format=raw,file=$work/second.img"
sha256sum -c <(sed "s|-\$|$work/second.img|" "$work/second.sha") >/dev/null 2>&1 ||
	sed -i 's/disk=unchanged/disk=changed (the second disk)/' "$work/bios-root-second-disk.result"
run uefi-root-second-disk uefi "$work/esp-only.img" -- -drive "format=raw,file=$work/second.img"
sha256sum -c <(sed "s|-\$|$work/second.img|" "$work/second.sha") >/dev/null 2>&1 ||
	sed -i 's/disk=unchanged/disk=changed (the second disk)/' "$work/uefi-root-second-disk.result"
stop="$stop|UKC>"
run bios-config bios "$work/config.img"
run bios-ddb bios "$work/ddb.img"
run bios-askname bios "$work/askname.img"
run bios-com1 bios "$work/com1-mbr.img" -- -serial "file:$work/bios-com1.com1"
run uefi-com1 uefi "$work/com1-gpt.img" -- -serial "file:$work/uefi-com1.com1"
run bios-syspatch bios "$work/syspatch.img"
PLAIN=1 run bios-jitter bios "$work/mbr.img"

# ld.lld's symbols, for the fallback: its /dev/ksyms is this table.
nsyms=$(readelf -SW "$R/bsd.lld" | sed -n 's/.* \.symtab *SYMTAB *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p')
nsyms=$((16#${nsyms:-0} / 24))
declare -A lld
while read -r v _ n; do lld[$n]=0x${v#00000000}; done < <(nm -g "$R/bsd.lld")
declare -A fp

failed=0
# check NAME KIND DUID [DEV [ARGV]]: KIND relinked|fallback; the root on
# DEV (sd0a), init's argv ARGV (/sbin/init).
check() {
	local name=$1 kind=$2 duid=$3 dev=${4:-sd0a} argv=${5:-/sbin/init}
	local res log=$work/$1.judged want=() s line got x x7
	res=$(cat "$work/$name.result")
	echo "# obsd-userland-$name: $res"
	clean "$work/$name.log" >"$log"
	if ! grep -q 'exit=none status=0 ' <<<"$res"; then
		failed=1
		not_ok "obsd-userland-$name" "no clean power-off: $(head -n 1 <<<"$res") '$(tail -n 1 "$log")'"
		return
	fi
	if ! grep -q 'disk=unchanged' <<<"$res"; then
		failed=1; not_ok "obsd-userland-$name" "the boot changed the disk image"
		return
	fi
	# A trusted source seeded the stage (virtio-rng, RDRAND): the kernel
	# must not say its seed is bad (RB_GOODRANDOM).
	if line=$(grep -m1 -E 'panic|uvm_fault|ddb\{?[0-9]*\}?>|fallback failed|init: .*error|does not indicate good seed' "$log"); then
		failed=1; not_ok "obsd-userland-$name" "$line"
		return
	fi
	if [ "$kind" = fallback ]; then
		grep -q '^relinkboot: fallback: .*KERNEL\.KIT' "$log" || {
			failed=1; not_ok "obsd-userland-$name" "no fallback line"; return; }
	elif line=$(grep -m1 'relinkboot: fallback' "$log"); then
		failed=1; not_ok "obsd-userland-$name" "$line"
		return
	fi
	# In this order, each on its own line.
	want=("^root on $dev \\($duid\\.a\\)" "^init: argv $argv\$" '^init: kern\.version OpenBSD 7\.3'
	      "^init: ksyms [0-9]+ bytes, $nsyms symbols, fingerprint 0x[0-9a-f]+\$")
	# Kernel text addresses; spelled out: mawk knows no {7}.
	x='[0-9a-f]' x7=$x$x$x$x$x$x$x
	for s in "${syms[@]}"; do want+=("^init: ksym $s 0xffffffff8$x7\$"); done
	want+=('^init: done$')
	# Through the environment: awk -v would eat the backslashes.
	if ! line=$(PATS=$(printf '%s\n' "${want[@]}") awk '
		BEGIN { n = split(ENVIRON["PATS"], p, "\n"); i = 1 }
		i <= n && $0 ~ p[i] { i++ }
		END { if (i <= n) { print p[i]; exit 1 } }' "$log"); then
		failed=1; not_ok "obsd-userland-$name" "no line /$line/ (in order)"
		return
	fi
	fp[$name]=$(sed -n 's/^init: ksyms .* fingerprint //p' "$log")
	# The fallback is ld.lld's link: its values are nm's. A relinked
	# kernel's main is elsewhere (a 1 in ~2,200 chance otherwise).
	for s in "${syms[@]}"; do
		got=$(sed -n "s/^init: ksym $s //p" "$log")
		if [ "$kind" = fallback ] && [ "$got" != "${lld[$s]:-}" ]; then
			failed=1; not_ok "obsd-userland-$name" "$s at $got, ld.lld has ${lld[$s]:-none}"
			return
		fi
		if [ "$kind" = relinked ] && [ "$s" = main ] && [ "$got" = "${lld[$s]:-}" ]; then
			failed=1; not_ok "obsd-userland-$name" "main at ld.lld's address $got: not relinked?"
			return
		fi
	done
	ok "obsd-userland-$name"
}

check uefi-ffs2 relinked "$duid_gpt"
check bios-ffs1 relinked "$duid_mbr"
check uefi-fallback-ffs2 fallback "$duid_gpt"
check bios-single relinked "$duid_mbr" sd0a '/sbin/init -s'
check bios-root-second-disk relinked "$duid_mbr" sd1a
check uefi-root-second-disk relinked "$duid_mbr" sd1a
check bios-syspatch fallback "$duid_mbr"
if [ -n "${fp[bios-syspatch]:-}" ] && ! grep -qxF 'relinkboot: fallback: \RELINK\KERNEL.KIT: stale: made from openbsd-7.3-amd64-GENERIC whose vers.o has changed since (sha256 differs, same size)' "$work/bios-syspatch.judged"; then
	failed=1; not_ok obsd-userland-bios-syspatch-line "no stale line naming vers.o"
fi

# stopped NAME LINE-REGEX: the kernel stopped where it should (QEMU
# ended by --until), from the relinked kernel, the disk unchanged.
stopped() {
	local name=$1 re=$2 res log=$work/$1.judged line
	res=$(cat "$work/$name.result")
	echo "# obsd-userland-$name: $res"
	clean "$work/$name.log" >"$log"
	if line=$(grep -m1 -E 'panic:|relinkboot: fallback' "$log"); then
		failed=1; not_ok "obsd-userland-$name" "$line"
	elif ! grep -q 'disk=unchanged' <<<"$res"; then
		failed=1; not_ok "obsd-userland-$name" "the boot changed the disk image"
	elif ! grep -qE -- "$re" "$log"; then
		failed=1; not_ok "obsd-userland-$name" "no line /$re/: '$(tail -n 1 "$log")'"
	else
		ok "obsd-userland-$name"
	fi
}
stopped bios-config '^UKC> ?$|^UKC>'
stopped bios-ddb '^Stopped at +[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+:'
stopped bios-askname '^root device \(default sd0a\): ?'

# com1 NAME: the stage (verbose) and the kernel's console on the second
# port at 9600 (the kernel says so), init there; nothing of it on the first.
com1() {
	local name=$1 res c0=$work/$1.judged c1=$work/$1.com1.judged line
	res=$(cat "$work/$name.result")
	echo "# obsd-userland-$name: $res"
	clean "$work/$name.log" >"$c0"
	clean "$work/$name.com1" >"$c1"
	if ! grep -q 'exit=none status=0 ' <<<"$res" || ! grep -q 'disk=unchanged' <<<"$res"; then
		failed=1; not_ok "obsd-userland-$name" "no clean power-off with the disk unchanged: $res"
	elif line=$(grep -m1 -E 'panic|fallback' "$c1" "$c0"); then
		failed=1; not_ok "obsd-userland-$name" "$line"
	elif ! grep -q '^relinkboot: ' "$c1"; then
		failed=1; not_ok "obsd-userland-$name" "no stage line on com1"
	elif ! grep -qE '^com1 at [a-z]+0 .*0x2f8' "$c1" || ! grep -qE '^com1: console' "$c1"; then
		failed=1; not_ok "obsd-userland-$name" "the kernel's console is not com1 ($c1)"
	elif ! grep -q '^init: done$' "$c1"; then
		failed=1; not_ok "obsd-userland-$name" "init's lines are not on com1"
	elif line=$(grep -m1 -E '^(init:|root on|com1: console)' "$c0"); then
		failed=1; not_ok "obsd-userland-$name" "on com0: $line"
	else
		ok "obsd-userland-$name"
	fi
}
com1 bios-com1
com1 uefi-com1
res=$(cat "$work/bios-jitter.result")
echo "# obsd-userland-bios-jitter: $res"
clean "$work/bios-jitter.log" >"$work/bios-jitter.judged"
if ! grep -q 'exit=none status=0 .*disk=unchanged' <<<"$res"; then
	failed=1; not_ok obsd-userland-bios-jitter "no clean power-off with the disk unchanged: $res"
elif ! grep -q 'random: boothowto does not indicate good seed' "$work/bios-jitter.judged"; then
	failed=1; not_ok obsd-userland-bios-jitter "no 'does not indicate good seed' line with TSC jitter alone"
elif ! grep -q '^init: done$' "$work/bios-jitter.judged" || grep -q 'relinkboot: fallback' "$work/bios-jitter.judged"; then
	failed=1; not_ok obsd-userland-bios-jitter "the relinked kernel did not run init"
else
	ok obsd-userland-bios-jitter
fi
a=${fp[uefi-ffs2]:-} b=${fp[bios-ffs1]:-} c=${fp[uefi-fallback-ffs2]:-}
echo "# obsd-userland fingerprints: relinked $a, $b; fallback $c"
if [ -z "$a" ] || [ -z "$b" ] || [ -z "$c" ]; then
	failed=1; not_ok obsd-userland-layouts "a boot gave no fingerprint"
elif [ "$a" = "$b" ] || [ "$a" = "$c" ] || [ "$b" = "$c" ]; then
	failed=1; not_ok obsd-userland-layouts "two boots saw the same symbol values"
else
	ok obsd-userland-layouts
fi
if [ "$failed" = 1 ]; then
	echo "# logs kept in $work"
else
	rm -rf "$work"
fi
exit 0
