#!/usr/bin/env bash
# Differential test of a `linker lld` kit against ld.lld 14 on the real
# OpenBSD 7.3 GENERIC link directory ($B/corpora, test/corpora/rules.mk):
# its kit ($B/obsd-real/bsd.kit, `linkkit create --openbsd`) is linked with
# several seeds, and ld.lld links the same objects with the unchanged
# ld.script in the order `--print-layout` printed, as OpenBSD's Makefile
# does (locore0.o, a gap object holding the printed gaps, the rest). Every
# program header and every loaded byte must match (segcmp.py): that takes
# ld.lld's merged-string layout (shards, no tail merging), which the kit
# reproduces for `linker lld` (docs/kit-format.md, "Merging").
# OBSD_LLD_REAL_SEEDS (default 3) seeds; 1 s per seed for linkkit, 0.4 s
# for ld.lld.
set -uo pipefail

B=${B:-build}
LK=$B/tools/linkkit
R=$B/obsd-real
C=$B/corpora/openbsd-7.3-amd64-GENERIC
seeds=${OBSD_LLD_REAL_SEEDS:-3}

if [ "$(cat "$R/kit.done" 2>/dev/null)" != ok ]; then
	echo "skip obsd-lld-real: no OpenBSD GENERIC corpus ($R/kit.done: $(cat "$R/kit.done" 2>/dev/null || echo missing))"
	exit 0
fi
if ! command -v ld.lld >/dev/null; then
	echo "skip obsd-lld-real: no ld.lld"
	exit 0
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

for s in $(seq 1 "$seeds"); do
	name=obsd-lld-real-seed-$s
	if ! "$LK" link --seed "$s" --print-layout -o "$T/lk.elf" "$R/bsd.kit" >"$T/layout" 2>"$T/err"; then
		echo "not ok $name: linkkit link: $(head -1 "$T/err")"
		continue
	fi
	if [ "$(awk '$1 == "object" {print $2; exit}' "$T/layout")" != locore0.o ] ||
		grep -qx 'object gap.o' "$T/layout"; then
		echo "not ok $name: locore0.o not first, or gap.o linked"
		continue
	fi
	python3 test/obsd/mkgap.py test/obsd/policy "$T/layout" >"$T/gapk.s" &&
		as "$T/gapk.s" -o "$T/gapk.o" || { echo "not ok $name: gap object"; continue; }
	awk '$1 == "object" && $2 != "gap" && $2 != "locore0.o" {print $2}' "$T/layout" >"$T/order"
	# ld.script names locore0.o as given on the command line: link in the
	# corpus directory, writing only to $T.
	if ! (cd "$C" && xargs ld.lld -T ld.script -X --warn-common --no-pie \
		-o "$T/ld.elf" locore0.o "$T/gapk.o" <"$T/order") 2>"$T/ld.log"; then
		echo "not ok $name: ld.lld: $(head -1 "$T/ld.log")"
		continue
	fi
	if why=$(python3 test/obsd/segcmp.py "$T/lk.elf" "$T/ld.elf"); then
		echo "ok $name"
		readelf -lW "$T/ld.elf" | awk -v s="$s" '$1 == "LOAD" {n++; t = t sprintf(" %s/%s", $5, $6)}
			END {printf "# seed %s: %d PT_LOAD equal (filesz/memsz%s)\n", s, n, t}'
	else
		echo "not ok $name: $why"
	fi
done
exit 0
