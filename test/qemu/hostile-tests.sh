#!/usr/bin/env bash
# Hostile kits (issue 7): a corrupted or hostile KERNEL.KIT must never crash
# or hang a stage; it must boot the fallback and say why in one line.
#
#   hostile-tests.sh
#
# Kits come from kit-hostile.py (truncated, huge payload_zsize, huge
# payload_size, flipped zlib bit with SHA-256 recomputed, bad table offset
# inside a valid stream, three fuzzed payloads). Every kit boots under
# SeaBIOS, two of them under OVMF too; two boots at a time. Environment: B.
set -uo pipefail

B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkimage=$here/../../tools/mkimage.sh
boot=$here/boot.sh
linkkit=$B/tools/linkkit
limit=${BOOT_TIMEOUT:-60}
kits=(truncated zsize size zflip tabofs fuzz-1 fuzz-2 fuzz-3)
uefi_kits=(zflip fuzz-1)
names=()
for k in "${kits[@]}"; do names+=("bios-hostile-$k"); done
for k in "${uefi_kits[@]}"; do names+=("uefi-hostile-$k"); done

skip_all() {
	local n
	for n in "${names[@]}"; do echo "skip $n: $1"; done
	exit 0
}

need=("$B/image/disk.img" "$B/efi/BOOTX64.EFI" "$B/demo/kernel.kit" "$B/demo/fallback.elf"
      "$B/stand/stage.bin" "$B/stand/mbr.bin" "$linkkit")
for f in "${need[@]}"; do
	[ -e "$f" ] || skip_all "$f does not exist yet"
done
"$mkimage" check "$B/image/disk.img" | grep -qv ', 0 sectors' ||
	skip_all "$B/image/disk.img has no BIOS stage (rebuild it after stand/)"

mkdir -p "$B/test/qemu"
find "$B/test/qemu" -maxdepth 1 -name "hostile.run.*" -mmin +60 -exec rm -rf {} + 2>/dev/null
work=$(mktemp -d "$B/test/qemu/hostile.run.XXXXXX") || exit 1
ln -sfn "$(basename "$work")" "$B/test/qemu/hostile.new" && mv -Tf "$B/test/qemu/hostile.new" "$B/test/qemu/hostile"
# A snapshot: a concurrent `make` may rebuild the image meanwhile.
cp --sparse=always "$B/image/disk.img" "$work/disk.img"

clean() { sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g' "$1"; }

setup() {
	local k
	python3 "$here/kit-hostile.py" "$B/demo/kernel.kit" "$work" >"$work/setup.log" 2>&1 || return 1
	for k in "${kits[@]}"; do
		cp --sparse=always "$work/disk.img" "$work/$k.img" &&
			"$mkimage" put "$work/$k.img" '\RELINK\KERNEL.KIT' "$work/$k.kit" >>"$work/setup.log" 2>&1 ||
			return 1
	done
}
setup || { for n in "${names[@]}"; do echo "not ok $n: cannot make the images: $(tail -n1 "$work/setup.log")"; done; exit 1; }

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
for j in "${jobs_list[@]}"; do
	set -- $j
	"$boot" -f "$1" --copy -t "$limit" -l "$work/$1-$2.log" "$work/$2.img" >"$work/$1-$2.result" 2>&1 &
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
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
	fi
	if [ -z "$why" ]; then
		local secs=${res#*seconds=}
		echo "ok $name: ${lines#relinkboot: fallback: } (${secs%% *} s)"
	else echo "not ok $name: $why"; fi
}

for k in "${kits[@]}"; do check bios "$k"; done
for k in "${uefi_kits[@]}"; do check uefi "$k"; done
