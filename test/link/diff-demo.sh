#!/bin/bash
# Differential test of the boot-side link against GNU ld: links the demo
# objects into a kit (policy without keep-order, which GNU ld cannot
# express), links it with `linkkit link --seed S --print-layout`, then runs
# ld on the same script with the objects in the printed order and a gap
# object of the printed sizes. Allocated sections must match byte for byte.
# usage: diff-demo.sh BUILD_DIR
set -u
B=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
LK=$B/tools/linkkit
for f in "$LK" "$B/demo/objects.txt"; do
	[ -e "$f" ] || { echo "skip diff_demo: $f not built"; exit 0; }
done
grep -v '^keep-order' test/demo/policy >"$T/policy"
mapfile -t OBJS <"$B/demo/objects.txt"
if ! "$LK" create -o "$T/k.kit" -T test/demo/kernel.ld -P "$T/policy" "${OBJS[@]}" >"$T/create.log" 2>&1; then
	echo "not ok diff_demo_create: $(head -1 "$T/create.log")"
	exit 1
fi

# gap.S: one section per policy gap line, sized as the link printed.
mkgap() {
	local sec max step fill size
	while read -r _ sec max step fill; do
		size=$(awk -v s="$sec" '$1=="gap" && $2==s {print $3}' "$T/layout")
		if [ -n "$fill" ]; then
			case $sec in .text*) fl='"ax",@progbits' ;; .data*) fl='"aw",@progbits' ;;
			*) fl='"a",@progbits' ;; esac
			printf '\t.section %s,%s\n\t.balign %s\n\t.fill %s, 1, %s\n' "$sec" "$fl" "$step" "$size" "$fill"
		else
			printf '\t.section %s,"aw",@nobits\n\t.balign %s\n\t.skip %s\n' "$sec" "$step" "$size"
		fi
	done < <(sed 's/#.*//' "$T/policy" | awk '$1=="gap"')
	printf '\t.section .note.GNU-stack,"",@progbits\n'
}

sections() { # name addr size of allocated sections
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk '$7 ~ /A/ {print $1, $3, $5}'
}

rc=0
for seed in 1 2 3 c0ffee 5eed; do
	name=diff_demo_seed_$seed
	if ! "$LK" link --seed "$seed" --print-layout -o "$T/lk.elf" "$T/k.kit" >"$T/layout" 2>&1; then
		echo "not ok $name: linkkit link failed: $(grep -v '^object\|^gap' "$T/layout" | head -1)"
		rc=1; continue
	fi
	mkgap >"$T/gap.S" && gcc -c "$T/gap.S" -o "$T/gap.o"
	order=()
	while read -r kind obj; do
		[ "$kind" = object ] || continue
		if [ "$obj" = gap ]; then order+=("$T/gap.o"); else
			order+=("$(grep "/$obj\$" "$B/demo/objects.txt")"); fi
	done <"$T/layout"
	if ! ld -nostdlib -z noexecstack --no-warn-rwx-segments -T test/demo/kernel.ld \
		-o "$T/ld.elf" "${order[@]}" 2>"$T/ld.log"; then
		echo "not ok $name: ld failed: $(head -1 "$T/ld.log")"; rc=1; continue
	fi
	bad=""
	sections "$T/lk.elf" | grep -v randomdata >"$T/a"
	sections "$T/ld.elf" | grep -v randomdata >"$T/b"
	cmp -s "$T/a" "$T/b" || bad="section headers differ: $(diff "$T/a" "$T/b" | head -2 | tr '\n' ' ')"
	while read -r s _; do
		objcopy -O binary --only-section="$s" "$T/lk.elf" "$T/a.bin"
		objcopy -O binary --only-section="$s" "$T/ld.elf" "$T/b.bin"
		cmp -s "$T/a.bin" "$T/b.bin" || bad="$bad $s contents differ"
	done <"$T/b"
	if [ -z "$bad" ] && [ -s "$T/b" ]; then echo "ok $name"; else
		echo "not ok $name: ${bad:-no sections}"; rc=1; fi
done

# A script without fill patterns: GNU ld pads code with NOPs, data with
# zeros, at every alignment and at `. = ALIGN()` inside a section.
mkdir "$T/n"
for i in 0 1 2 3 4 5 6 7 8 9; do
	printf '.text\n.balign %d\n.globl f%d\nf%d: .fill %d,1,0xee\n.data\n.balign %d\nd%d: .quad f%d\n.byte 1\n.section .note.GNU-stack,"",@progbits\n' \
		$((1 << (i % 5))) $i $i $(((i * 7 + 3) % 23 + 1)) $((1 << (i % 4))) $i $i >"$T/n/o$i.s"
	gcc -c "$T/n/o$i.s" -o "$T/n/o$i.o"
done
printf 'ENTRY(f0)\nSECTIONS {\n . = 0x100000;\n .text : { *(.text) . = ALIGN(64); }\n .data : { *(.data) . = ALIGN(32); }\n .bss : { *(.bss) }\n}\n' >"$T/n/n.ld"
printf 'protocol none\ngranularity object\n' >"$T/n/policy"
if ! "$LK" create -o "$T/n/n.kit" -T "$T/n/n.ld" -P "$T/n/policy" "$T"/n/o*.o >"$T/n/log" 2>&1; then
	echo "not ok diff_nop_fill: create failed: $(head -1 "$T/n/log")"; exit 1
fi
for seed in 1 2 3; do
	name=diff_nop_fill_seed_$seed
	"$LK" link --seed $seed --print-layout -o "$T/n/lk.elf" "$T/n/n.kit" >"$T/n/lay" 2>&1 &&
	ld -T "$T/n/n.ld" --no-warn-rwx-segments -o "$T/n/ld.elf" \
		$(awk -v d="$T/n" '$1=="object"{print d "/" $2}' "$T/n/lay") 2>"$T/n/log" || {
		echo "not ok $name: link failed: $(head -1 "$T/n/log")"; rc=1; continue; }
	bad=""
	for s in .text .data; do
		objcopy -O binary --only-section=$s "$T/n/lk.elf" "$T/a.bin"
		objcopy -O binary --only-section=$s "$T/n/ld.elf" "$T/b.bin"
		cmp -s "$T/a.bin" "$T/b.bin" || bad="$bad $s differs"
	done
	if [ -z "$bad" ]; then echo "ok $name"; else echo "not ok $name:$bad"; rc=1; fi
done
exit $rc
