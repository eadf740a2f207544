#!/usr/bin/env bash
# The boot prompt (config `timeout = N`), boot(8)'s way: `f` at the count
# boots the fallback with the reason "chosen at the boot prompt"; another
# key opens boot>, where `boot` boots the relinked kernel (x) and a bad
# command gets its line before `boot fallback` (cmd); no key boots the
# relinked kernel after the timeout.
#
#   prompt-tests.sh
#
# SeaBIOS: f, x, cmd and no key; OVMF: f, x and cmd. Two at a time. Env: B.
set -uo pipefail

B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkimage=$here/../../tools/mkimage.sh
boot=$here/boot.sh
limit=${BOOT_TIMEOUT:-90}
cases=("bios f" "bios x" "bios cmd" "bios none" "uefi f" "uefi x" "uefi cmd")
names=()
for c in "${cases[@]}"; do set -- $c; names+=("$1-prompt-$2"); done
. "$here/lib.sh"

[ -e "$B/image/disk.img" ] || skip_all "$B/image/disk.img does not exist yet" "${names[@]}"
"$mkimage" check "$B/image/disk.img" | grep -qv ', 0 sectors' ||
	skip_all "$B/image/disk.img has no BIOS stage" "${names[@]}"

mkdir -p "$B/test/qemu"
work=$(mktemp -d "$B/test/qemu/prompt.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp --sparse=always "$B/image/disk.img" "$work/disk.img"
sed 's/^timeout = .*/timeout = 2/' "$here/relink.cfg" >"$work/relink.cfg"
"$mkimage" put "$work/disk.img" '\EFI\BOOT\RELINK.CFG' "$work/relink.cfg" >"$work/setup.log" 2>&1 ||
	fail_all "cannot make the image: $(tail -n1 "$work/setup.log")" "${names[@]}"

for c in "${cases[@]}"; do
	set -- $c
	case $2 in
	none) send=() ;;
	f) send=(--send "for the fallback kernel=f") ;;
	x) send=(--send "for the fallback kernel=x" --send "boot> =boot"$'\r') ;;
	cmd) send=(--send "for the fallback kernel=x" --send "boot> =bogus"$'\r'
		--send "help lists them)=boot fallback"$'\r') ;;
	esac
	"$boot" -f "$1" --copy -t "$limit" "${send[@]}" -l "$work/$1-$2.log" "$work/disk.img" \
		>"$work/$1-$2.result" 2>&1 &
	wait_for_slot 2
done
wait

# check FW KEY: one ok / not ok line.
check() {
	local name=$1-prompt-$2 res c why='' want=relinked reason
	res=$(cat "$work/$1-$2.result")
	c=$(clean "$work/$1-$2.log")
	[ "$2" = f ] || [ "$2" = cmd ] && want=fallback
	reason=$(grep -ao 'relinkboot: fallback: .*' <<<"$c")
	if [[ $res != *exit=0x10* ]]; then why="${res%% log=*}; last: $(grep -aE 'relinkboot: |demo: ' <<<"$c" | tail -n1)"
	elif [[ $res != *disk=unchanged* ]]; then why="the boot wrote to its disk"
	elif ! grep -q 'relinkboot: press f for the fallback kernel' <<<"$c"; then why="no prompt line"
	elif ! grep -q "demo: loader $want" <<<"$c"; then why="want 'demo: loader $want'"
	elif [ "$want" = fallback ] && [ "$reason" != 'relinkboot: fallback: chosen at the boot prompt' ]; then
		why="want one 'fallback: chosen at the boot prompt' line, got '$reason'"
	elif [ "$want" = relinked ] && [ -n "$reason" ]; then why="unexpected '$reason'"
	elif [ "$2" = cmd ] && ! grep -q 'relinkboot: unknown or bad command: bogus (help lists them)' <<<"$c"; then
		why="no line for the bad command"
	elif [ "$2" = x ] && ! grep -q 'boot> boot' <<<"$c"; then why="no boot> prompt echoing 'boot'"
	fi
	if [ -n "$why" ]; then
		echo "not ok $name: $why"
		cp "$work/$1-$2.log" "$B/test/qemu/$name.log" 2>/dev/null
	else echo "ok $name: demo: loader $want (${res#*seconds=}" | sed 's/ disk=.*/ s)/'; fi
}

for c in "${cases[@]}"; do set -- $c; check "$1" "$2"; done
