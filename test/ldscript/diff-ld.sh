#!/bin/bash
# Differential test of the linker-script compiler: `linkkit create` with
# diff/diff.ld, `linkkit link --seed S --print-layout`, then GNU ld with the
# same objects in the printed order (objects before -T: ld loads a file
# named in the script at the script's position otherwise). Allocated
# sections (name, type, address, size, flags, contents), symbol values and
# the entry point must be identical.
# usage: diff-ld.sh BUILD_DIR
set -u
B=$1
D=test/ldscript/diff
LK=$B/tools/linkkit
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$LK" ] || { echo "skip ldscript_diff: $LK not built"; exit 0; }
command -v ld >/dev/null || { echo "skip ldscript_diff: no ld"; exit 0; }
for f in a b skip; do
	gcc -c "$D/$f.s" -o "$T/$f.o" || { echo "not ok ldscript_diff: assembling $f.s"; exit 1; }
done
if ! "$LK" create -o "$T/k.kit" -T "$D/diff.ld" -P "$D/policy" \
	"$T/a.o" "$T/b.o" "$T/skip.o" >"$T/create.log" 2>&1; then
	echo "not ok ldscript_diff_create: $(head -1 "$T/create.log")"
	exit 1
fi

sections() { # allocated sections: name type addr size flags
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk '$7 ~ /A/ {print $1, $2, $3, $5, $7}'
}

rc=0
for seed in 1 2 3 4; do
	name=ldscript_diff_seed_$seed
	if ! "$LK" link --seed "$seed" --print-layout -o "$T/lk.elf" "$T/k.kit" >"$T/layout" 2>&1; then
		echo "not ok $name: linkkit link: $(grep -v '^object' "$T/layout" | head -1)"
		rc=1; continue
	fi
	order=$(awk '$1 == "object" {print $2}' "$T/layout")
	# In $T: ld matches `a.o(...)` against the names as given.
	# shellcheck disable=SC2086
	if ! (cd "$T" && ld -nostdlib -z noexecstack --no-warn-rwx-segments \
		-o ld.elf $order -T "$OLDPWD/$D/diff.ld") 2>"$T/ld.log"; then
		echo "not ok $name: ld: $(head -1 "$T/ld.log")"; rc=1; continue
	fi
	bad=""
	sections "$T/lk.elf" >"$T/s1"
	sections "$T/ld.elf" >"$T/s2"
	[ "$(wc -l <"$T/s2")" -ge 4 ] || bad="ld made only $(wc -l <"$T/s2") sections"
	cmp -s "$T/s1" "$T/s2" || bad="$bad sections differ: $(diff "$T/s1" "$T/s2" | grep '^[<>]' | head -2 | tr '\n' ' ')"
	while read -r s type _; do
		[ "$type" = NOBITS ] && continue
		objcopy -O binary --only-section="$s" "$T/lk.elf" "$T/a.bin"
		objcopy -O binary --only-section="$s" "$T/ld.elf" "$T/b.bin"
		cmp -s "$T/a.bin" "$T/b.bin" || bad="$bad $s contents differ"
	done <"$T/s2"
	nm "$T/lk.elf" | awk '{print $1, $3}' | sort >"$T/n1"
	nm "$T/ld.elf" | awk '{print $1, $3}' | sort >"$T/n2"
	cmp -s "$T/n1" "$T/n2" || bad="$bad symbols differ: $(diff "$T/n1" "$T/n2" | grep '^[<>]' | head -2 | tr '\n' ' ')"
	e1=$(readelf -h "$T/lk.elf" | awk '/Entry/ {print $4}')
	e2=$(readelf -h "$T/ld.elf" | awk '/Entry/ {print $4}')
	[ "$e1" = "$e2" ] || bad="$bad entry $e1 vs $e2"
	if [ -z "$bad" ]; then echo "ok $name"; else echo "not ok $name:$bad"; rc=1; fi
done
exit $rc
