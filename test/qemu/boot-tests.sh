#!/usr/bin/env bash
# End-to-end boot tests of the disk image under one firmware.
#
#   boot-tests.sh uefi|bios
#
# Environment: B (build directory, default build). Uses $B/image/disk.img,
# $B/tools/linkkit, the demo kernel's objects, script and policy, and
# writes scratch images and serial logs under $B/test/qemu/FIRMWARE/ (a
# link to this run's directory).
# Boots run two at a time; each boots a private copy of its image so the
# copies can be checked for writes afterwards.
set -uo pipefail

fw=${1:?usage: boot-tests.sh uefi|bios}
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkimage=$here/../../tools/mkimage.sh
boot=$here/boot.sh
image=$B/image/disk.img
linkkit=$B/tools/linkkit
work=$B/test/qemu/$fw
limit=${BOOT_TIMEOUT:-150}
missing_sym=relinkboot_test_missing_symbol
# The stages' loud warning when a debug option makes the layout insecure
# (linkkit/boot/entropy.c: one text for both stages).
insecure_re='^relinkboot: INSECURE: debug_seed is set: the layout is fixed and known'
. "$here/lib.sh"

names=(relink-1-rng relink-2 relink-3-rng relink-4-installed relink-5-rng-rdrand
       fingerprints-differ disk-unchanged fallback-nokit fallback-flipped
       fallback-undefined debug-seed-fixed protocol-none)
# The BIOS stage must also work with little and with much RAM (E820 maps
# with the kernel near the top of RAM, and RAM above 4 GiB).
[ "$fw" = bios ] && names+=(mem-64M mem-3G)
# The names as printed: FIRMWARE-NAME.
names=("${names[@]/#/$fw-}")

need=("$image" "$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf")
[ "$fw" = uefi ] || need+=("$B/stand/stage.bin" "$B/stand/mbr.bin")
for f in "${need[@]}"; do
	[ -e "$f" ] || skip_all "$f does not exist yet" "${names[@]}"
done
[ "$fw" = uefi ] || "$mkimage" check "$image" | grep -qv ', 0 sectors' ||
	skip_all "$image has no BIOS stage (rebuild it after stand/)" "${names[@]}"

# A private directory per run (several people may run the suite on one
# build tree); $B/test/qemu/FIRMWARE points at the latest one.
work=$(new_run_dir "$B/test/qemu/$fw.run" "$B/test/qemu/$fw") || exit 1
# Boot a snapshot: a concurrent `make` may rebuild the image meanwhile.
cp --sparse=always "$B/image/disk.img" "$work/disk.img"
image=$work/disk.img

# ---- the broken images ----
make_broken() {
	cp --sparse=always "$image" "$work/nokit.img" &&
		"$mkimage" remove "$work/nokit.img" '\RELINK\KERNEL.KIT' || return 1

	# One byte flipped in the middle of the compressed stream.
	local kit=$work/flipped.kit size off byte
	cp "$B/demo/kernel.kit" "$kit"
	size=$(stat -c %s "$kit")
	off=$((64 + (size - 64) / 2))
	byte=$(od -An -tu1 -j "$off" -N1 "$kit" | tr -d ' ')
	printf "$(printf '\\x%02x' $((byte ^ 0x55)))" |
		dd of="$kit" bs=1 seek="$off" conv=notrunc status=none
	cmp -s "$kit" "$B/demo/kernel.kit" && return 1
	cp --sparse=always "$image" "$work/flipped.img" &&
		"$mkimage" put "$work/flipped.img" '\RELINK\KERNEL.KIT' "$kit"
}

# A kit whose objects reference a symbol nobody defines. linkkit create
# refuses that at pre-flight, so build the kit with a stub defining it and
# then undefine it in the kit (kit-undefine.py).
make_undefined() {
	local cc=(gcc -O2 -ffreestanding -fno-pie -fno-stack-protector -mno-red-zone -mcmodel=kernel -c)
	[ -x "$linkkit" ] || { echo "$linkkit does not exist yet"; return 1; }
	[ -r "$B/demo/objects.txt" ] || { echo "$B/demo/objects.txt does not exist yet"; return 1; }
	printf 'extern void %s(void);\nvoid relinkboot_test_extra(void) { %s(); }\n' \
		"$missing_sym" "$missing_sym" >"$work/extra.c"
	printf 'void %s(void) { }\n' "$missing_sym" >"$work/stub.c"
	"${cc[@]}" "$work/extra.c" -o "$work/extra.o" && "${cc[@]}" "$work/stub.c" -o "$work/stub.o" ||
		{ echo "cannot compile extra.o/stub.o"; return 1; }
	demo_kit "$work/stubbed.kit" -- "$work/extra.o" "$work/stub.o" >"$work/create.log" 2>&1 ||
		{ echo "linkkit create failed: $(head -n1 "$work/create.log")"; return 1; }
	python3 "$here/kit-undefine.py" "$work/stubbed.kit" "$missing_sym" "$work/undefined.kit" \
		>>"$work/create.log" 2>&1 || { echo "kit-undefine.py: $(tail -n1 "$work/create.log")"; return 1; }
	cp --sparse=always "$image" "$work/undefined.img" &&
		"$mkimage" put "$work/undefined.img" '\RELINK\KERNEL.KIT' "$work/undefined.kit" ||
		{ echo "cannot install the kit"; return 1; }
}

# debug_seed fixes the layout: two boots must then agree, which shows the
# fingerprint follows the layout (and so that fingerprints-differ can fail).
make_debug_seed() {
	cp --sparse=always "$image" "$work/seeded.img" &&
		"$mkimage" get "$image" '\EFI\BOOT\RELINK.CFG' "$work/seeded.cfg" &&
		echo "debug_seed = 0123456789abcdeffedcba9876543210" >>"$work/seeded.cfg" &&
		"$mkimage" put "$work/seeded.img" '\EFI\BOOT\RELINK.CFG' "$work/seeded.cfg"
}

# `protocol none` (linkkit/proto/none.c): the demo kernel relinked and
# entered with no boot information, EAX = EBX = 0, which its Multiboot2
# check reports; the stage must not fall back for it.
make_none() {
	local objs=() o
	sed 's/^protocol multiboot2$/protocol none/' "$here/../demo/policy" >"$work/none.policy" &&
		grep -q '^protocol none$' "$work/none.policy" || return 1
	while read -r o; do [ -n "$o" ] && objs+=("$o"); done <"$B/demo/objects.txt"
	"$linkkit" create -o "$work/none.kit" -T "$here/../demo/kernel.ld" -P "$work/none.policy" \
		"${objs[@]}" >"$work/none-create.log" 2>&1 &&
		cp --sparse=always "$image" "$work/none.img" &&
		"$mkimage" put "$work/none.img" '\RELINK\KERNEL.KIT' "$work/none.kit"
}

sha_before=$(sha256sum <"$image")
make_installed() {
	cp --sparse=always "$image" "$work/installed.img" &&
		"$mkimage" install-kit "$work/installed.img" "$B/demo/kernel.kit" >/dev/null
}

make_broken && make_debug_seed && make_installed && make_none || { echo "not ok $fw-setup: cannot make the test images"; exit 1; }
undef_why=$(make_undefined) || true

# ---- boots, two at a time ----
# job: NAME IMAGE [boot.sh options]
jobs_list=()
for i in 1 2 3 4 5; do
	# Entropy sources vary: 1 and 3 EFI RNG (virtio-rng), 2 and 4 none
	# but the TSC, 5 virtio-rng plus RDRAND (-cpu max).
	opts=""
	[ $((i % 2)) -eq 1 ] && opts=--rng
	[ "$i" = 5 ] && opts="--rng --cpu max"
	img=$image
	# Boot 4 uses a kit put in place by install-kit (write + rename).
	[ "$i" = 4 ] && img=$work/installed.img
	jobs_list+=("relink-$i $img $opts")
done
jobs_list+=("fallback-nokit $work/nokit.img" "fallback-flipped $work/flipped.img"
	   "seeded-1 $work/seeded.img" "seeded-2 $work/seeded.img --rng"
	   "protocol-none $work/none.img")
[ -z "$undef_why" ] && jobs_list+=("fallback-undefined $work/undefined.img")
[ "$fw" = bios ] && jobs_list+=("mem-64M $image" "mem-3G $image")

run_job() {
	local name=$1 img=$2
	shift 2
	case $name in mem-*) export QEMU_MEM=${name#mem-} ;; esac
	"$boot" -f "$fw" --copy -t "$limit" -l "$work/$name.log" "$@" "$img" \
		>"$work/$name.result" 2>&1
}
for j in "${jobs_list[@]}"; do
	# shellcheck disable=SC2086
	run_job $j &
	wait_for_slot 2
done
wait

# ---- checks ----
# check_boot NAME LOADER: "" when fine, else the reason.
check_boot() {
	local name=$1 loader=$2 log=$work/$1.log res
	res=$(cat "$work/$name.result" 2>/dev/null)
	case $res in
	*exit=0x10*) ;;
	*)
		# Say where it stopped: the last stage or demo line, if any.
		local last
		last=$(clean "$log" | grep -aE 'demo: (check .*FAIL|ramscan FOUND)' | head -n1)
		[ -n "$last" ] || last=$(clean "$log" | grep -aE 'relinkboot: |demo: FAIL' | tail -n1)
		echo "${res%% log=*}${last:+; last: $last} (see $log)"
		return ;;
	esac
	case $res in *disk=unchanged*) ;; *) echo "the boot wrote to its disk: $res"; return ;; esac
	local c
	c=$(clean "$log")
	grep -q "demo: loader $loader" <<<"$c" || { echo "no 'demo: loader $loader' in $log"; return; }
	grep -q 'demo: PASS' <<<"$c" || { echo "no 'demo: PASS' in $log"; return; }
	grep -q 'demo: ramscan clean' <<<"$c" || { echo "no 'demo: ramscan clean' in $log"; return; }
	grep -Eq 'demo: fingerprint [0-9a-fA-F]{16}' <<<"$c" || { echo "no fingerprint in $log"; return; }
	if grep -Eq 'demo: (FAIL|check .* FAIL)' <<<"$c"; then
		echo "$(grep -Em1 'FAIL' <<<"$c")"
		return
	fi
}

fps=()
for i in 1 2 3 4 5; do
	name=relink-$i
	[ $((i % 2)) -eq 1 ] && tag=$name-rng || tag=$name
	[ "$i" = 4 ] && tag=$name-installed
	[ "$i" = 5 ] && tag=$name-rng-rdrand
	why=$(check_boot "$name" relinked)
	# Under OVMF the stage must use the EFI RNG exactly when it exists.
	rng_warn=$(clean "$work/$name.log" | grep -c 'relinkboot: .*EFI_RNG')
	if [ -z "$why" ] && [ "$fw" = uefi ]; then
		if [ $((i % 2)) -eq 1 ] && [ "$rng_warn" -ne 0 ]; then
			why="virtio-rng present but: $(clean "$work/$name.log" | grep -m1 'EFI_RNG')"
		elif [ $((i % 2)) -eq 0 ] && [ "$rng_warn" -eq 0 ]; then
			why="no virtio-rng, yet no warning about the missing EFI_RNG_PROTOCOL"
		fi
	fi
	if [ -z "$why" ] && grep -q 'relinkboot: fallback' <(clean "$work/$name.log"); then
		why="unexpected $(grep -m1 'relinkboot: fallback' <(clean "$work/$name.log"))"
	elif [ -z "$why" ] && grep -Eiq "$insecure_re" <(clean "$work/$name.log"); then
		why="a default boot printed $(grep -Eim1 "$insecure_re" <(clean "$work/$name.log"))"
	fi
	report "$fw-$tag" "$why"
	fp=$(clean "$work/$name.log" | grep -Eo 'demo: fingerprint [0-9a-fA-F]{16}' | tail -n1)
	[ -n "$fp" ] && fps+=("${fp##* }")
done
uniq_fps=$(printf '%s\n' "${fps[@]}" | sort -u | grep -c .)
if [ "${#fps[@]}" -ne 5 ]; then
	report "$fw-fingerprints-differ" "only ${#fps[@]} of 5 boots printed a fingerprint"
elif [ "$uniq_fps" -ne 5 ]; then
	report "$fw-fingerprints-differ" "$uniq_fps distinct fingerprints in 5 boots: ${fps[*]}"
else
	report "$fw-fingerprints-differ" ""
fi

if [ "$(sha256sum <"$image")" != "$sha_before" ]; then
	report "$fw-disk-unchanged" "$image changed while booting copies of it"
elif grep -l 'disk=CHANGED' "$work"/*.result >/dev/null 2>&1; then
	report "$fw-disk-unchanged" "written to: $(grep -l 'disk=CHANGED' "$work"/*.result | tr '\n' ' ')"
else
	report "$fw-disk-unchanged" ""
fi

# check_fallback NAME REGEX WHAT: one fallback line whose reason matches.
check_fallback() {
	local name=$1 re=$2 what=$3 why lines n
	why=$(check_boot "$name" fallback)
	if [ -z "$why" ]; then
		lines=$(clean "$work/$name.log" | grep -o 'relinkboot: fallback: .*')
		n=$(grep -c . <<<"$lines")
		if [ "$n" -ne 1 ]; then
			why="$n 'relinkboot: fallback:' lines, want exactly 1"
		elif ! grep -Eiq "$re" <<<"$lines"; then
			why="reason does not name $what: $lines"
		fi
	fi
	report "$fw-$name" "$why"
}
check_fallback fallback-nokit '\\RELINK\\KERNEL\.KIT: file not found$' 'the missing kit file'
check_fallback fallback-flipped 'sha-?256|blake3|hash|digest|checksum|corrupt|adler|inflate|integrity' \
	'a checksum/integrity failure'
if [ -n "$undef_why" ]; then
	echo "skip $fw-fallback-undefined: $undef_why"
else
	check_fallback fallback-undefined "$missing_sym" "the undefined symbol $missing_sym"
fi
fingerprint() { clean "$work/$1.log" | grep -Eo 'demo: fingerprint [0-9a-fA-F]{16}' | tail -n1; }
why=$(check_boot seeded-1 relinked)
[ -n "$why" ] || why=$(check_boot seeded-2 relinked)
if [ -z "$why" ]; then
	f1=$(fingerprint seeded-1) f2=$(fingerprint seeded-2)
	if [ "$f1" != "$f2" ]; then
		why="same debug_seed, different layouts: ${f1##* } vs ${f2##* }"
	elif ! clean "$work/seeded-1.log" | grep -Eiq "$insecure_re"; then
		why="debug_seed in use but no 'relinkboot: ... INSECURE/debug_seed' warning"
	fi
fi
report "$fw-debug-seed-fixed" "$why"
c=$(clean "$work/protocol-none.log")
why=""
if grep -q 'relinkboot: fallback' <<<"$c"; then
	why="unexpected $(grep -m1 'relinkboot: fallback' <<<"$c")"
elif ! grep -q 'demo: check mbinfo FAIL bad magic 0x0, info 0x0 (no Multiboot2 info)' <<<"$c"; then
	why="the kernel did not report EAX = EBX = 0: $(grep -m1 'demo: check mbinfo' <<<"$c") (see $work/protocol-none.log)"
fi
report "$fw-protocol-none" "$why"
if [ "$fw" = bios ]; then
	for m in 64M 3G; do
		why=$(check_boot "mem-$m" relinked)
		if [ -z "$why" ] && grep -q 'relinkboot: fallback' <(clean "$work/mem-$m.log"); then
			why="unexpected $(clean "$work/mem-$m.log" | grep -m1 'relinkboot: fallback')"
		fi
		report "$fw-mem-$m" "$why"
	done
fi
print_results "$work"
