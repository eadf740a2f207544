#!/usr/bin/env bash
# Differential test of `linkkit create --openbsd` against ld.lld, which
# links OpenBSD kernels: the kit of the test compile directory
# ($B/obsd/compile, test/obsd/rules.mk) is linked with several seeds; ld.lld
# links the same objects with the same unchanged ld.script, in the order
# `--print-layout` printed (locore0.o, then a gap.o holding the printed gap
# sizes, then the rest), as OpenBSD's Makefile does. Every program header
# and every loaded byte must match (test/obsd/segcmp.py). Also: the
# built-in policy equals test/obsd/policy, and a compile directory with
# locore0.o missing is refused with a line naming it. A variant with
# nosects.o for sects.o leaves .kutext, .cptext, .kutext.page and .kudata
# empty: lld keeps them in their segments, and so must the kit. With
# `linker lld`, an unmatched .note.gnu.property is dropped as lld drops it
# when not every object has the same x86 feature bits, and refused when
# every object has them (lld would write a merged note).
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

# The swap/root object comes from the Makefile's `bsd:` rule
# (`${SYSTEM_LD} swapgeneric.o`; config(8) writes swapbsd.o for a fixed
# root), never from a built-in name; without the rule it is missing and
# the kernel does not link (main.c reads obsd_rootdev).
if "$LK" link --seed 1 --print-layout -o "$T/sw.elf" "$KIT" 2>/dev/null |
	grep -qx 'object swapgeneric.o'; then
	echo "ok obsd-swapgeneric"
else
	echo "not ok obsd-swapgeneric: swapgeneric.o is not in the kit's layout"
fi
mkdir "$T/swapbsd"
cp "$C"/* "$T/swapbsd/" && mv "$T/swapbsd/swapgeneric.o" "$T/swapbsd/swapbsd.o" &&
	sed -i 's/^\t${SYSTEM_LD} swapgeneric.o$/\t${SYSTEM_LD} swapbsd.o/' "$T/swapbsd/Makefile"
if "$LK" create --openbsd "$T/swapbsd" -o "$T/sb.kit" >"$T/sb.log" 2>&1 &&
	"$LK" link --seed 1 --print-layout -o "$T/sb.elf" "$T/sb.kit" 2>/dev/null | grep -qx 'object swapbsd.o'; then
	echo "ok obsd-swapbsd"
else
	echo "not ok obsd-swapbsd: $(head -1 "$T/sb.log")"
fi
sed -i '/^bsd:/,/^$/d' "$T/swapbsd/Makefile"
if ! "$LK" create --openbsd "$T/swapbsd" -o "$T/nb.kit" >"$T/nb.log" 2>&1 &&
	grep -q "swapbsd/Makefile: no \`bsd:\` rule" "$T/nb.log" &&
	grep -q "undefined symbol 'obsd_rootdev'" "$T/nb.log" && [ ! -e "$T/nb.kit" ]; then
	echo "ok obsd-no-bsd-rule"
else
	echo "not ok obsd-no-bsd-rule: $(tr '\n' ' ' <"$T/nb.log" | head -c 300)"
fi

# OpenBSD ships the link directories as /usr/share/relink/kernel.tgz, one
# directory per kernel: `--openbsd kernel.tgz:NAME` (or a one-kernel
# archive without NAME) must give the kit the directory gives.
mkdir -p "$T/tgz/GENERIC" "$T/tgz/GENERIC.MP"
cp "$C"/* "$T/tgz/GENERIC/" && cp "$C"/* "$T/tgz/GENERIC.MP/" &&
	(cd "$T/tgz" && tar czf ../kernel.tgz GENERIC GENERIC.MP && tar czf ../one.tgz GENERIC.MP &&
		echo x >../evil.o && tar czf ../evil.tgz GENERIC.MP ../evil.o 2>/dev/null)
head -c "$(($(stat -c %s "$T/kernel.tgz") / 2))" "$T/kernel.tgz" >"$T/short.tgz"
# From a directory of the same name: the kit records it (LK_KIT_F_PROV).
"$LK" create --openbsd "$T/tgz/GENERIC.MP" -P test/obsd/policy -o "$T/dir.kit" >/dev/null 2>&1
tgz() { # name arg expected-error (empty: must equal $KIT)
	if [ -z "$3" ] && "$LK" create --openbsd "$2" -P test/obsd/policy -o "$T/t.kit" >"$T/t.log" 2>&1 &&
		cmp -s "$T/t.kit" "$T/dir.kit"; then
		echo "ok $1"
	elif [ -n "$3" ] && ! "$LK" create --openbsd "$2" -o "$T/t.kit" >"$T/t.log" 2>&1 &&
		grep -q "$3" "$T/t.log"; then
		echo "ok $1"
	else
		echo "not ok $1: $(head -1 "$T/t.log")"
	fi
	rm -f "$T/t.kit"
}
tgz obsd-tgz-named "$T/kernel.tgz:GENERIC.MP" ''
tgz obsd-tgz-one "$T/one.tgz" ''
tgz obsd-tgz-dotdot "$T/evil.tgz:GENERIC.MP" ''
tgz obsd-tgz-several "$T/kernel.tgz" 'kernel.tgz: holds several kernels: name one, as in .*kernel.tgz:GENERIC.MP'
tgz obsd-tgz-missing "$T/kernel.tgz:GENERIC.SP" 'kernel.tgz: no files under GENERIC.SP in the archive'
tgz obsd-tgz-short "$T/short.tgz:GENERIC" 'short.tgz: .*truncated'
if ls /tmp/linkkit-openbsd.* >/dev/null 2>&1; then
	echo "# note: /tmp/linkkit-openbsd.* exist (another run in progress?)"
fi

# Scripts whose headers cannot be placed as ld.lld would: refused, one
# line naming the segment, no kit written.
refuse() { # name sed-expression expected-text
	rm -rf "$T/neg" && mkdir "$T/neg" && cp "$C"/* "$T/neg/" &&
		sed -i "$2" "$T/neg/ld.script" || { echo "not ok $1: setup"; return; }
	if ! "$LK" create --openbsd "$T/neg" -o "$T/neg.kit" >"$T/neg.log" 2>&1 &&
		grep -q "$3" "$T/neg.log" && [ ! -e "$T/neg.kit" ]; then
		echo "ok $1"
	else
		echo "not ok $1: $(head -1 "$T/neg.log")"
	fi
}
refuse obsd-filehdr-twice 's/^\tdata PT_LOAD;/\tdata PT_LOAD FILEHDR;/' \
	'segment data (FILEHDR/PHDRS): headers in two segments'
refuse obsd-filehdr-not-lowest \
	's/^\ttext PT_LOAD FILEHDR PHDRS;/\ttext PT_LOAD;/; s/^\tdata PT_LOAD;/\tdata PT_LOAD FILEHDR PHDRS;/' \
	'segment data (FILEHDR/PHDRS): not the lowest segment'

# diff NAME DIR KIT SEEDS: ld.lld matches `locore0.o(.text)` against the
# name on its command line, so it runs in a directory of links.
diff_lld() {
	local name=$1 dir=$2 kit=$3 n=$4 s order rest why w=$T/ld-$1
	mkdir "$w"
	for f in "$dir"/*.o "$dir/ld.script"; do ln -s "$(realpath "$f")" "$w/"; done
	rm "$w/gap.o"
	for s in $(seq 1 "$n"); do
		if ! "$LK" link --seed "$s" --print-layout -o "$T/lk.elf" "$kit" >"$T/layout" 2>"$T/err"; then
			echo "not ok $name-seed-$s: linkkit link: $(head -1 "$T/err")"; continue
		fi
		order=$(awk '$1 == "object" && $2 != "gap" {print $2}' "$T/layout")
		if [ "$(awk '$1 == "object" {print $2; exit}' "$T/layout")" != locore0.o ] ||
			grep -qx 'object gap.o' "$T/layout"; then
			echo "not ok $name-seed-$s: locore0.o not first, or gap.o linked: $(tr '\n' ' ' <"$T/layout")"
			continue
		fi
		python3 test/obsd/mkgap.py test/obsd/policy "$T/layout" >"$w/gapk.s" &&
			as "$w/gapk.s" -o "$w/gapk.o" || { echo "not ok $name-seed-$s: gap object"; continue; }
		rest=$(tail -n +2 <<<"$order" | tr '\n' ' ')
		# shellcheck disable=SC2086
		if ! (cd "$w" && ld.lld -T ld.script -X --warn-common --no-pie \
			-o ld.elf locore0.o gapk.o $rest) 2>"$T/ld.log"; then
			echo "not ok $name-seed-$s: ld.lld: $(head -1 "$T/ld.log")"; continue
		fi
		# Segments, then the symbol table the stages hand the kernel
		# (docs/CONVENTIONS.md): ld.lld -X's symbols and values.
		if why=$(python3 test/obsd/segcmp.py "$T/lk.elf" "$w/ld.elf") &&
			why=$(python3 test/obsd/symcmp.py "$T/lk.elf" "$w/ld.elf"); then
			echo "ok $name-seed-$s"
		else
			echo "not ok $name-seed-$s: $why"
		fi
	done
}
diff_lld obsd-lld "$C" "$KIT" "$seeds"

mkdir "$T/empty"
cp "$C"/* "$T/empty/" && cp "$B/obsd/nosects.o" "$T/empty/sects.o"
if "$LK" create --openbsd "$T/empty" -o "$T/empty.kit" >"$T/e.log" 2>&1; then
	diff_lld obsd-lld-empty "$T/empty" "$T/empty.kit" 3
else
	echo "not ok obsd-lld-empty: create: $(head -1 "$T/e.log")"
fi

mkdir "$T/cet"
cp "$C"/* "$T/cet/" && cp "$B/obsd/cons-cet.o" "$T/cet/cons.o"
if "$LK" create --openbsd "$T/cet" -o "$T/cet.kit" >"$T/c.log" 2>&1; then
	diff_lld obsd-lld-note "$T/cet" "$T/cet.kit" 2
else
	echo "not ok obsd-lld-note: create: $(head -1 "$T/c.log")"
fi

mkdir "$T/allcet"
printf 'void start(void) { }\n' >"$T/allcet/a.c"
printf 'int b(void) { return 1; }\n' >"$T/allcet/b.c"
printf 'ENTRY(start)\nSECTIONS { .text 0x1000 : { *(.text) } /DISCARD/ : { *(.note.GNU-stack) *(.comment) *(.eh_frame) } }\n' >"$T/allcet/s.ld"
printf 'linker lld\n' >"$T/allcet/p"
if ! (cd "$T/allcet" && gcc -O2 -fcf-protection=branch -c a.c b.c); then
	echo "not ok obsd-lld-note-all: gcc"
elif ! "$LK" create -T "$T/allcet/s.ld" -P "$T/allcet/p" -o "$T/allcet/x.kit" \
	"$T/allcet/a.o" "$T/allcet/b.o" >"$T/a.log" 2>&1 &&
	grep -q 'a.o: section .note.gnu.property: every object has x86 features 0x1' "$T/a.log" &&
	[ ! -e "$T/allcet/x.kit" ]; then
	echo "ok obsd-lld-note-all"
else
	echo "not ok obsd-lld-note-all: $(head -1 "$T/a.log")"
fi
exit 0
