#!/usr/bin/env bash
# The boot prompt (config `timeout = N`): `f` on the serial line boots the
# fallback with the reason "chosen at the boot prompt", another key boots
# the relinked kernel at once, no key boots it after the timeout.
#
#   prompt-tests.sh
#
# SeaBIOS: f, x and no key; OVMF: f and x. Two boots at a time. Env: B.
set -uo pipefail

B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkimage=$here/../../tools/mkimage.sh
boot=$here/boot.sh
limit=${BOOT_TIMEOUT:-90}
cases=("bios f" "bios x" "bios none" "uefi f" "uefi x")

skip_all() {
	local c
	for c in "${cases[@]}"; do set -- $c; echo "skip $1-prompt-$2: $3"; done
	exit 0
}

[ -e "$B/image/disk.img" ] || skip_all "$B/image/disk.img does not exist yet"
"$mkimage" check "$B/image/disk.img" | grep -qv ', 0 sectors' ||
	skip_all "$B/image/disk.img has no BIOS stage"

mkdir -p "$B/test/qemu"
work=$(mktemp -d "$B/test/qemu/prompt.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp --sparse=always "$B/image/disk.img" "$work/disk.img"
sed 's/^timeout = .*/timeout = 2/' "$here/relink.cfg" >"$work/relink.cfg"
if ! "$mkimage" put "$work/disk.img" '\EFI\BOOT\RELINK.CFG' "$work/relink.cfg" >"$work/setup.log" 2>&1; then
	for c in "${cases[@]}"; do set -- $c; echo "not ok $1-prompt-$2: cannot make the image: $(tail -n1 "$work/setup.log")"; done
	exit 1
fi

for c in "${cases[@]}"; do
	set -- $c
	send=()
	[ "$2" = none ] || send=(--send "for the fallback kernel=$2")
	"$boot" -f "$1" --copy -t "$limit" "${send[@]}" -l "$work/$1-$2.log" "$work/disk.img" \
		>"$work/$1-$2.result" 2>&1 &
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
done
wait

clean() { sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g' "$1"; }

# check FW KEY: one ok / not ok line.
check() {
	local name=$1-prompt-$2 res c why='' want=relinked reason
	res=$(cat "$work/$1-$2.result")
	c=$(clean "$work/$1-$2.log")
	[ "$2" = f ] && want=fallback
	reason=$(grep -ao 'relinkboot: fallback: .*' <<<"$c")
	if [[ $res != *exit=0x10* ]]; then why="${res%% log=*}; last: $(grep -aE 'relinkboot: |demo: ' <<<"$c" | tail -n1)"
	elif [[ $res != *disk=unchanged* ]]; then why="the boot wrote to its disk"
	elif ! grep -q 'relinkboot: press f for the fallback kernel' <<<"$c"; then why="no prompt line"
	elif ! grep -q "demo: loader $want" <<<"$c"; then why="want 'demo: loader $want'"
	elif [ "$want" = fallback ] && [ "$reason" != 'relinkboot: fallback: chosen at the boot prompt' ]; then
		why="want one 'fallback: chosen at the boot prompt' line, got '$reason'"
	elif [ "$want" = relinked ] && [ -n "$reason" ]; then why="unexpected '$reason'"
	fi
	if [ -n "$why" ]; then
		echo "not ok $name: $why"
		cp "$work/$1-$2.log" "$B/test/qemu/$name.log" 2>/dev/null
	else echo "ok $name: demo: loader $want (${res#*seconds=}" | sed 's/ disk=.*/ s)/'; fi
}

for c in "${cases[@]}"; do set -- $c; check "$1" "$2"; done
