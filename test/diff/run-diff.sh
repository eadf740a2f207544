#!/usr/bin/env bash
# Differential test of the relinker: for every corpus build (gcc/clang,
# -O0/-O2, with/without -ffunction-sections -fdata-sections) and many seeds,
# `linkkit link --seed S --print-layout` must give loaded segments that are
# byte-identical to GNU ld (ld.bfd) linking the same objects in the printed
# order, with a gap object holding the printed gap sizes.
#
# ld.lld is compared too, on a variant of the corpus without SHF_MERGE
# sections, COMMON symbols and GOT-relative loads: there the two linkers
# differ from each other and the kit follows ld.bfd (docs/kit-format.md):
# lld keeps merged strings in one hash-sharded block, gives every COMMON
# symbol its own section, and relaxes GOTPCRELX `mov` to `lea` where ld.bfd
# makes `mov $sym`.
#
# Usage: run-diff.sh [BUILD_DIR] [CONFIG...]; seeds per build: DIFF_SEEDS
# (ld.bfd, default 20), DIFF_LLD_SEEDS (ld.lld, default 20).
set -u
B=${1:-build}
shift || true
LK=$B/tools/linkkit
D=test/diff
W=$B/diff
BFD_SEEDS=${DIFF_SEEDS:-20}
LLD_SEEDS=${DIFF_LLD_SEEDS:-20}
BASE_FLAGS="-mcmodel=kernel -fno-pic -fno-pie -ffreestanding -mno-red-zone
 -fno-asynchronous-unwind-tables -fno-stack-protector -fcommon -fno-builtin -w"
CONFIGS=("$@")
[ ${#CONFIGS[@]} -eq 0 ] && CONFIGS=(gcc-O0 gcc-O2 gcc-O2-fs clang-O0 clang-O2 clang-O2-fs gcc-O0-fs clang-O0-fs)

compile() { # CFG DIR [plain] -> objects in DIR, canonical list in DIR/objects.txt
	local cfg=$1 dir=$2 plain=${3:-} cc opt fs f o extra= thunk=
	cc=${cfg%%-*}
	opt=$(echo "$cfg" | cut -d- -f2)
	fs=
	[[ $cfg == *-fs ]] && fs="-ffunction-sections -fdata-sections"
	# The -fs builds also use retpoline/return thunks: the compilers put
	# them in a COMDAT group in (nearly) every object, as in an OpenBSD
	# kernel, so the boot side must keep the copy ld keeps. Not in the
	# pinned main.o (like OpenBSD's locore0.o), whose copy would always win.
	[[ $cfg == clang-*-fs ]] && thunk="-mretpoline"
	[[ $cfg == gcc-*-fs ]] && thunk="-mindirect-branch=thunk -mfunction-return=thunk"
	[ -n "$plain" ] && extra="-fno-common -DDIFF_PLAIN"
	rm -rf "$dir" && mkdir -p "$dir"
	: >"$dir/objects.txt"
	# main.o first: it is pinned; the rest in name order.
	for f in $D/corpus/main.c $(ls $D/corpus/*.[cS] | grep -v '/main\.c$'); do
		o=$(basename "${f%.*}").o
		[ -n "$plain" ] && [ "$o" = got.o ] && continue
		$cc -$opt $fs $([ "$o" = main.o ] || echo "$thunk") $BASE_FLAGS $extra \
			-c "$f" -o "$dir/$o" || return 1
		[ -n "$plain" ] && { clear_merge "$dir/$o" || return 1; }
		echo "$dir/$o" >>"$dir/objects.txt"
	done
}

# The ld.lld variant: no SHF_MERGE (cleared here), no COMMON (-fno-common),
# no GOT-relative code (got.S left out).
clear_merge() { # OBJ
	local s flags=()
	for s in $(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p' |
		grep -E '\.(str[0-9]+\.[0-9]+|cst[0-9]+)$'); do
		flags+=(--set-section-flags "$s=alloc,load,readonly,data,contents")
	done
	[ ${#flags[@]} -eq 0 ] || objcopy "${flags[@]}" "$1"
}

run_linker() { # NAME KIT OBJDIR LINKER (SEEDS from the environment)
	python3 $D/seeds.py "$1" "$LK" "$2" "$3" "$4" "$SEEDS" $D/policy $D/diff.ld \
		"$W/$1/work-$4"
}

# Scale: COPIES renamed copies of the gcc -O2 corpus (objcopy
# --prefix-symbols) plus 4000 absolute globals, so ld.bfd's symbol hash
# table grows past its first size (COMMON order depends on it). COMDAT
# objects stay single: ld keeps the first copy in its own (shuffled)
# command line, the kit the first in canonical order.
scale() { # SRC_DIR
	local src=$1 dir=$W/scale n o b
	rm -rf "$dir" && mkdir -p "$dir"
	grep -v -e /got.o -e /comdat "$src/objects.txt" | while read -r o; do
		cp "$o" "$dir/"
		echo "$dir/$(basename "$o")"
	done >"$dir/objects.txt"
	for o in "$src"/comdat*.o; do cp "$o" "$dir/" && echo "$dir/$(basename "$o")"; done >>"$dir/objects.txt"
	for n in $(seq 1 "${DIFF_COPIES:-25}"); do
		grep -v -e /main.o -e /set1.o -e /got.o -e /comdat "$src/objects.txt" | while read -r o; do
			b=c${n}_$(basename "$o")
			objcopy --prefix-symbols=p${n}_ "$o" "$dir/$b" && echo "$dir/$b"
		done
	done >>"$dir/objects.txt"
	python3 -c 'for i in range(4000): print(".globl filler%d\n.set filler%d, %d" % (i, i, i))' >"$dir/filler.s"
	as "$dir/filler.s" -o "$dir/filler.o" && echo "$dir/filler.o" >>"$dir/objects.txt"
	if ! "$LK" create -o "$dir/k.kit" -T $D/diff.ld -P $D/policy \
		$(cat "$dir/objects.txt") 2>"$dir/create.err"; then
		echo "not ok diff-create-scale: $(head -1 "$dir/create.err")"
		return
	fi
	SEEDS=${DIFF_SCALE_SEEDS:-3} run_linker "scale-$(wc -l <"$dir/objects.txt")-objects" \
		"$dir/k.kit" "$dir" bfd
}

for cfg in "${CONFIGS[@]}"; do
	dir=$W/$cfg
	if ! compile "$cfg" "$dir" 2>"$W/$cfg.err"; then
		echo "skip diff-$cfg: corpus does not compile ($(head -1 "$W/$cfg.err"))"
		continue
	fi
	if ! "$LK" create -o "$dir/k.kit" -T $D/diff.ld -P $D/policy \
		$(cat "$dir/objects.txt") 2>"$dir/create.err"; then
		echo "not ok diff-create-$cfg: $(head -1 "$dir/create.err")"
		continue
	fi
	SEEDS=$BFD_SEEDS run_linker "$cfg" "$dir/k.kit" "$dir" bfd
	if compile "$cfg" "$dir/plain" plain 2>"$W/$cfg.err" && "$LK" create -o "$dir/plain/k.kit" -T $D/diff.ld \
		-P $D/policy $(cat "$dir/plain/objects.txt") 2>"$dir/plain/create.err"; then
		SEEDS=$LLD_SEEDS run_linker "$cfg" "$dir/plain/k.kit" "$dir/plain" lld
	else
		echo "not ok diff-lld-$cfg: plain variant: $(head -1 "$dir/plain/create.err" 2>/dev/null)"
	fi
done
[ -e "$W/gcc-O2/objects.txt" ] && scale "$W/gcc-O2"
exit 0
