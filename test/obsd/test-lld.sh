#!/usr/bin/env bash
# Differential test of `linkkit create --openbsd` against ld.lld, which
# links OpenBSD kernels: the kit of the test compile directory
# ($B/obsd/compile, test/obsd/rules.mk) is linked with several seeds; ld.lld
# links the same objects with the same unchanged ld.script, in the order
# `--print-layout` printed (locore0.o, then a gap.o holding the printed gap
# sizes, then the rest), as OpenBSD's Makefile does. Every program header
# and every loaded byte must match (test/obsd/segcmp.py). Also: the
# built-in policy equals test/obsd/policy, and a compile directory with
# locore0.o missing is refused with a line naming it.
set -uo pipefail

B=${B:-build}
LK=$B/tools/linkkit
C=$B/obsd/compile
KIT=$B/obsd/kernel.kit
seeds=${OBSD_LLD_SEEDS:-6}

if ! command -v ld.lld >/dev/null; then
	echo "skip obsd-lld: no ld.lld"
	exit 0
fi
if [ ! -e "$KIT" ]; then
	echo "skip obsd-lld: $KIT missing"
	exit 0
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

if "$LK" create --openbsd "$C" -P test/obsd/policy -o "$T/p.kit" >"$T/p.log" 2>&1 &&
	cmp -s "$T/p.kit" "$KIT"; then
	echo "ok obsd-builtin-policy"
else
	echo "not ok obsd-builtin-policy: the kit differs from one made with -P test/obsd/policy $(head -1 "$T/p.log")"
fi

mkdir "$T/nolocore"
cp "$C"/* "$T/nolocore/" && rm "$T/nolocore/locore0.o"
if ! "$LK" create --openbsd "$T/nolocore" -o "$T/n.kit" >"$T/n.log" 2>&1 &&
	grep -q "nolocore/locore0.o: missing" "$T/n.log" && [ ! -e "$T/n.kit" ]; then
	echo "ok obsd-missing-locore0"
else
	echo "not ok obsd-missing-locore0: $(head -1 "$T/n.log")"
fi

# ld.lld matches `locore0.o(.text)` against the name on its command line.
mkdir "$T/ld"
for f in "$C"/*.o "$C/ld.script"; do ln -s "$(realpath "$f")" "$T/ld/"; done
rm "$T/ld/gap.o"
fail=0
for s in $(seq 1 "$seeds"); do
	name=obsd-lld-seed-$s
	if ! "$LK" link --seed "$s" --print-layout -o "$T/lk.elf" "$KIT" >"$T/layout" 2>"$T/err"; then
		echo "not ok $name: linkkit link: $(head -1 "$T/err")"; fail=1; continue
	fi
	order=$(awk '$1 == "object" && $2 != "gap" {print $2}' "$T/layout")
	if [ "$(head -1 <<<"$order")" != locore0.o ] ||
		[ "$(awk '$1 == "object" {print $2; exit}' "$T/layout")" != locore0.o ] ||
		grep -qx 'object gap.o' "$T/layout"; then
		echo "not ok $name: locore0.o not first, or gap.o linked: $(tr '\n' ' ' <"$T/layout")"
		fail=1; continue
	fi
	python3 test/diff/mkgap.py test/obsd/policy "$T/layout" >"$T/ld/gapk.s" &&
		as "$T/ld/gapk.s" -o "$T/ld/gapk.o" || { echo "not ok $name: gap object"; fail=1; continue; }
	rest=$(tail -n +2 <<<"$order" | tr '\n' ' ')
	# shellcheck disable=SC2086
	if ! (cd "$T/ld" && ld.lld -T ld.script -X --warn-common --no-pie \
		-o ld.elf locore0.o gapk.o $rest) 2>"$T/ld.log"; then
		echo "not ok $name: ld.lld: $(head -1 "$T/ld.log")"; fail=1; continue
	fi
	if why=$(python3 test/obsd/segcmp.py "$T/lk.elf" "$T/ld/ld.elf"); then
		echo "ok $name"
	else
		echo "not ok $name: $why"; fail=1
	fi
done
exit 0
