#!/usr/bin/env bash
# Differential test of `linker lld` kits against ld.lld 14, merged strings
# included. First, always: a small compile directory of gcc objects with
# every kind of merge section gcc writes. Then, when the corpus is there,
# the real OpenBSD 7.3 GENERIC link directory ($B/corpora,
# test/corpora/rules.mk) and its kit ($B/obsd-real/bsd.kit, `linkkit
# create --openbsd`). Each kit is linked with several seeds, and ld.lld
# links the same objects with the unchanged ld.script in the order
# `--print-layout` printed, as OpenBSD's Makefile does (locore0.o, a gap
# object holding the printed gaps, the rest). Every program header and
# every loaded byte must match (segcmp.py): that takes ld.lld's
# merged-string layout (shards, no tail merging), which the kit reproduces
# for `linker lld` (docs/kit-format.md, "Merging").
# OBSD_LLD_REAL_SEEDS (default 3) seeds of the corpus; per seed ~1 s for
# linkkit, 0.4 s for ld.lld, ~2 s for segcmp. Even seeds write the image
# as the UEFI stage does on several processors (`--write-parts 8`: eight
# parts, each on its own thread), so ld.lld checks the split write too.
set -uo pipefail

B=${B:-build}
LK=$B/tools/linkkit
R=$B/obsd-real
C=$B/corpora/openbsd-7.3-amd64-GENERIC
seeds=${OBSD_LLD_REAL_SEEDS:-3}

if ! command -v ld.lld >/dev/null; then
	echo "skip obsd-lld-real: no ld.lld"
	exit 0
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# diff_lld NAME DIR KIT SEEDS: ld.script names locore0.o as given on the
# command line, so ld.lld runs in DIR, writing only to $T.
diff_lld() {
	local name=$1 dir=$2 kit=$3 n=$4 s why split
	for s in $(seq 1 "$n"); do
		split=()
		[ $((s % 2)) = 0 ] && split=(--write-parts 8)
		if ! "$LK" link --seed "$s" "${split[@]}" --print-layout -o "$T/lk.elf" "$kit" >"$T/layout" 2>"$T/err"; then
			echo "not ok $name-seed-$s: linkkit link: $(head -1 "$T/err")"
			continue
		fi
		if [ "$(awk '$1 == "object" {print $2; exit}' "$T/layout")" != locore0.o ] ||
			grep -qx 'object gap.o' "$T/layout"; then
			echo "not ok $name-seed-$s: locore0.o not first, or gap.o linked"
			continue
		fi
		python3 test/obsd/mkgap.py test/obsd/policy "$T/layout" >"$T/gapk.s" &&
			as "$T/gapk.s" -o "$T/gapk.o" || { echo "not ok $name-seed-$s: gap object"; continue; }
		awk '$1 == "object" && $2 != "gap" && $2 != "locore0.o" {print $2}' "$T/layout" >"$T/order"
		if ! (cd "$dir" && xargs ld.lld -T ld.script -X --warn-common --no-pie \
			-o "$T/ld.elf" locore0.o "$T/gapk.o" <"$T/order") 2>"$T/ld.log"; then
			echo "not ok $name-seed-$s: ld.lld: $(head -1 "$T/ld.log")"
			continue
		fi
		if why=$(python3 test/obsd/segcmp.py "$T/lk.elf" "$T/ld.elf"); then
			echo "ok $name-seed-$s${split:+-parts8}"
			readelf -lW "$T/ld.elf" | awk -v s="$s" '$1 == "LOAD" {n++; t = t sprintf(" %s/%s", $5, $6)}
				END {printf "# seed %s: %d PT_LOAD equal (filesz/memsz%s)\n", s, n, t}'
		else
			echo "not ok $name-seed-$s: $why"
		fi
	done
}

# Eight objects sharing some strings: .rodata.str1.1, strings of 32 bytes
# or more aligned to 8 with NUL padding (.rodata.str1.8), 2-byte wide
# strings (.rodata.str2.2), .rodata.cst8 and .rodata.cst16.
S=$T/syn
mkdir "$S" && cp test/obsd/ld.script "$S/" && printf '\t.text\n\tret\n' >"$S/locore0.s" &&
	as "$S/locore0.s" -o "$S/locore0.o" || { echo "not ok obsd-lld-merge: setup"; exit 0; }
for i in 0 1 2 3 4 5 6 7; do
	{
		printf 'const char *m%d_s[] = { "shared", "also shared by all", "m%d only", "only",\n' "$i" "$i"
		printf '  "%d every third", "",\n' $((i % 3))
		printf '  "a string longer than thirty-two bytes gets aligned, number %d" };\n' $((i % 2))
		printf 'const unsigned short *m%d_w[] = { L"wide shared", L"wide %d" };\n' "$i" $((i % 4))
		printf 'double m%d_d(double x) { return x * 1.25 + %d.5; }\n' "$i" $((i % 3))
		printf 'typedef float v4 __attribute__((vector_size(16)));\n'
		printf 'v4 m%d_v(v4 x) { return x * (v4){ 1.5f, 2.5f, %d.5f, 4.5f }; }\n' "$i" $((i % 2))
		printf 'const char *m%d_f(int k) { return k ? "fn shared" : "fn %d"; }\n' "$i" "$i"
	} >"$T/m$i.c"
	gcc -O2 -fno-pic -fno-pie -mcmodel=kernel -ffreestanding -fshort-wchar \
		-fno-asynchronous-unwind-tables -fno-stack-protector \
		-c "$T/m$i.c" -o "$S/m$i.o" || { echo "not ok obsd-lld-merge: gcc"; exit 0; }
done
rm "$S/locore0.s"
kinds=$(readelf -SW "$S/m0.o" | grep -oE '\.rodata\.(str1\.1|str1\.8|str2\.2|cst8|cst16) ' | sort -u | wc -l)
if [ "$kinds" != 5 ]; then
	echo "not ok obsd-lld-merge: gcc wrote $kinds of the 5 merge section kinds"
elif "$LK" create --openbsd "$S" -o "$T/syn.kit" >"$T/syn.log" 2>&1; then
	diff_lld obsd-lld-merge "$S" "$T/syn.kit" 4
else
	echo "not ok obsd-lld-merge: create: $(head -1 "$T/syn.log")"
fi

if [ "$(cat "$R/kit.done" 2>/dev/null)" != ok ]; then
	echo "skip obsd-lld-real: no OpenBSD GENERIC corpus ($R/kit.done: $(cat "$R/kit.done" 2>/dev/null || echo missing))"
	exit 0
fi
diff_lld obsd-lld-real "$C" "$R/bsd.kit" "$seeds"
exit 0
