#!/bin/sh
# Usage: freestanding-check.sh ARCH OBJ... [-- ARCH OBJ...]
# For each group, every undefined symbol of every object must be defined by
# some object of the same group: the boot stages link nothing else (no
# libc memcpy/memset, no libgcc __udivdi3, no stack protector), and no
# linkkit source includes a system header.
status=0

check_group() {
	arch=$1
	shift
	defs=$(nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
	bad=0
	for o in "$@"; do
		if [ ! -f "$o" ]; then
			echo "not ok freestanding-$arch: missing object $o"
			bad=1
			continue
		fi
		src="linkkit/$(basename "$o" .o).c"
		for sym in $(nm -u "$o" | awk '{ print $NF }'); do
			if ! printf '%s\n' "$defs" | grep -qx -- "$sym"; then
				echo "not ok freestanding-$arch: $src needs $sym from outside the core"
				bad=1
			fi
		done
	done
	[ "$bad" -eq 0 ] && echo "ok freestanding-$arch"
	[ "$bad" -eq 0 ] || status=1
}

# No libc headers either: the core includes only its own headers.
check_includes() {
	root=$(cd "$(dirname "$0")/../.." && pwd)
	hits=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' \
		"$root"/linkkit/*.c "$root"/linkkit/*.h \
		"$root"/linkkit/*/*.c "$root"/linkkit/*/*.h 2>/dev/null)
	if [ -n "$hits" ]; then
		printf '%s\n' "$hits" | sed "s|^$root/||" | while IFS= read -r h; do
			echo "not ok freestanding-includes: $h"
		done
		status=1
	else
		echo "ok freestanding-includes"
	fi
}

check_includes
group=
for a in "$@"; do
	if [ "$a" = "--" ]; then
		check_group $group
		group=
	else
		group="$group $a"
	fi
done
[ -n "$group" ] && check_group $group
exit $status
