#!/usr/bin/env bash
# Hostile kits (issue 7): a corrupted or hostile KERNEL.KIT must never crash
# or hang a stage; it must boot the fallback and say why in one line.
#
#   hostile-tests.sh
#
# Kits come from kit-hostile.py (truncated, huge payload_zsize, huge
# payload_size, flipped zlib bit with SHA-256 recomputed, bad table offset
# inside a valid stream, three fuzzed payloads) and kit-gaps.py (entry0: the
# entry symbol made absolute 0, outside every section). Every kit boots under
# SeaBIOS, three of them under OVMF too; two boots at a time. One more kit,
# segshift (a segment index one byte off), must boot relinked under OVMF
# and SeaBIOS with -smp 2 and say in one line why it was slow. Environment: B.
set -uo pipefail

B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkimage=$here/../../tools/mkimage.sh
boot=$here/boot.sh
linkkit=$B/tools/linkkit
limit=${BOOT_TIMEOUT:-60}
kits=(truncated zsize size zflip tabofs fuzz-1 fuzz-2 fuzz-3 entry0)
uefi_kits=(zflip fuzz-1 entry0)
names=()
for k in "${kits[@]}"; do names+=("bios-hostile-$k"); done
for k in "${uefi_kits[@]}"; do names+=("uefi-hostile-$k"); done
names+=(uefi-smp2-segshift bios-smp2-segshift)
. "$here/lib.sh"

need=("$B/image/disk.img" "$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf"
      "$B/stand/stage.bin" "$B/stand/mbr.bin" "$linkkit")
for f in "${need[@]}"; do
	[ -e "$f" ] || skip_all "$f does not exist yet" "${names[@]}"
done
"$mkimage" check "$B/image/disk.img" | grep -qv ', 0 sectors' ||
	skip_all "$B/image/disk.img has no BIOS stage (rebuild it after stand/)" "${names[@]}"

work=$(new_run_dir "$B/test/qemu/hostile.run" "$B/test/qemu/hostile") || exit 1
# A snapshot: a concurrent `make` may rebuild the image meanwhile.
cp --sparse=always "$B/image/disk.img" "$work/disk.img"

setup() {
	local k
	python3 "$here/kit-hostile.py" "$B/demo/kernel.kit" "$work" "$linkkit" >"$work/setup.log" 2>&1 || return 1
	for k in entry0 segshift; do
		python3 "$here/kit-gaps.py" $k "$B/demo/kernel.kit" "$work/$k.kit" >>"$work/setup.log" 2>&1 || return 1
	done
	for k in "${kits[@]}" segshift; do
		cp --sparse=always "$work/disk.img" "$work/$k.img" &&
			"$mkimage" put "$work/$k.img" '\RELINK\KERNEL.KIT' "$work/$k.kit" >>"$work/setup.log" 2>&1 ||
			return 1
	done
}
setup || fail_all "cannot make the images: $(tail -n1 "$work/setup.log")" "${names[@]}"

# Every case must be a bad kit to the host tool too, else "fallback" would be
# the wrong expectation (e.g. a fuzz mutation that only touched padding).
host_why() {
	local out
	out=$("$linkkit" link --seed 0123456789abcdef0123456789abcdef -o "$work/$1.elf" "$work/$1.kit" 2>&1) &&
		echo "host 'linkkit link' accepts $1.kit, so it is not a hostile kit"
}

jobs_list=()
for k in "${kits[@]}"; do jobs_list+=("bios $k"); done
for k in "${uefi_kits[@]}"; do jobs_list+=("uefi $k"); done
jobs_list+=("uefi segshift --smp 2" "bios segshift --smp 2")
for j in "${jobs_list[@]}"; do
	set -- $j
	"$boot" -f "$1" "${@:3}" --copy -t "$limit" -l "$work/$1-$2.log" "$work/$2.img" >"$work/$1-$2.result" 2>&1 &
	wait_for_slot 2
done
wait

# check FW KIT: prints "ok ..." or "not ok ..." for one boot.
check() {
	local name=$1-hostile-$2 log=$work/$1-$2.log res c lines n why
	why=$(host_why "$2")
	res=$(cat "$work/$1-$2.result" 2>/dev/null)
	c=$(clean "$log" 2>/dev/null)
	lines=$(grep -ao 'relinkboot: fallback: .*' <<<"$c")
	n=$(grep -c . <<<"$lines")
	if [ -n "$why" ]; then :
	elif [[ $res != *exit=0x10* ]]; then
		why="${res%% log=*}; last: $(grep -aE 'relinkboot: |demo: ' <<<"$c" | tail -n1) (see $log)"
	elif [[ $res != *disk=unchanged* ]]; then why="the boot wrote to its disk: $res"
	elif ! grep -q 'demo: loader fallback' <<<"$c"; then why="no 'demo: loader fallback' in $log"
	elif ! grep -q 'demo: PASS' <<<"$c"; then why="no 'demo: PASS' in $log"
	elif [ "$n" -ne 1 ]; then why="want exactly one 'relinkboot: fallback:' line, got $n (see $log)"
	elif [ "$2" = entry0 ] && [ "$lines" != "relinkboot: fallback: $entry0_why" ]; then
		why="want 'relinkboot: fallback: $entry0_why', got '$lines'"
	fi
	if [ -z "$why" ]; then
		local secs=${res#*seconds=}
		echo "ok $name: ${lines#relinkboot: fallback: } (${secs%% *} s)"
	else echo "not ok $name: $why"; fi
}

entry0_why='\RELINK\KERNEL.KIT: '"entry symbol 'start' at 0x0 lies outside every output section"

# The segment index one byte off: refused by `linkkit verify`; the stage
# inflates the stream whole, boots relinked and says so in one line.
check_segshift() {
	local name=$1-smp2-segshift log=$work/$1-segshift.log res c lines why=
	local want='relinkboot: warning: \RELINK\KERNEL.KIT: segment 1 does not match the stream: inflated it whole (slower)'
	local host="linkkit: $work/segshift.kit: segment 1 does not match the stream (wrong segment index)"
	res=$(cat "$work/$1-segshift.result" 2>/dev/null)
	c=$(clean "$log" 2>/dev/null)
	lines=$(grep -a 'segment .* does not match' <<<"$c")
	if [ "$("$linkkit" verify "$work/segshift.kit" 2>&1)" != "$host" ]; then
		why="host 'linkkit verify' does not say '$host'"
	elif [[ $res != *exit=0x10* ]]; then
		why="${res%% log=*}; last: $(grep -aE 'relinkboot: |demo: ' <<<"$c" | tail -n1) (see $log)"
	elif ! grep -q 'demo: loader relinked' <<<"$c"; then why="no 'demo: loader relinked' in $log"
	elif ! grep -q 'demo: PASS' <<<"$c"; then why="no 'demo: PASS' in $log"
	elif [ "$lines" != "$want" ]; then why="want the one line '$want', got '$lines' (see $log)"
	fi
	report "$name" "$why"
}

for k in "${kits[@]}"; do check bios "$k"; done
for k in "${uefi_kits[@]}"; do check uefi "$k"; done
check_segshift uefi
check_segshift bios
