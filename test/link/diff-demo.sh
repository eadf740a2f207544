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
# Script features: AT(), ALIGN() attribute, SORT_BY_ALIGNMENT, a 2-byte
# fill, data statements with ADDR/SIZEOF/LOADADDR, `. = . + n`, symbol
# arithmetic, a discarded empty section with an address, merged strings,
# and PC32/32S/64 relocations between objects.
mkdir "$T/g"
for i in 0 1 2 3 4 5 6 7; do
	cat >"$T/g/o$i.s" <<EOF2
.text
.balign $((1 << (i % 4)))
.globl f$i
f$i: call f$(((i + 1) % 8))
 lea s$i(%rip), %rax
 movq \$f$(((i + 3) % 8)), %rbx
 .fill $((i * 5 + 1)),1,0xee
.section .text.hot$i,"ax",@progbits
.balign $((1 << ((i + 1) % 5)))
h$i: .fill $((i + 2)),1,0xdd
 jmp f$i
.section .rodata.str1.1,"aMS",@progbits,1
s$i: .asciz "str$((i % 3))"
.asciz "common"
.section .rodata,"a"
.balign 8
.quad f$i, h$i
.data
.balign $((1 << (i % 3)))
.long $i
.quad s$i
.bss
.balign 16
.skip $((i * 3 + 1))
.section .note.GNU-stack,"",@progbits
EOF2
	gcc -c "$T/g/o$i.s" -o "$T/g/o$i.o"
done
cat >"$T/g/g.ld" <<'EOF2'
ENTRY(f0)
SECTIONS {
  . = 0xffffffff80100000;
  .text : AT(0x100000) {
    *(SORT_BY_ALIGNMENT(.text.hot*))
    *(.text)
    . = ALIGN(32);
    etext = .;
  } =0x90cc
  .empty 0xffffffff90000000 : { *(.nothing) }
  .rodata : ALIGN(64) {
    *(.rodata .rodata.*)
    BYTE(0x11) SHORT(0x2233) LONG(ADDR(.text)) QUAD(SIZEOF(.text))
    . = . + 5;
  }
  mid = . + 0x10;
  . = ALIGN(0x1000);
  .data : {
    *(.data)
    LONG(LOADADDR(.data))
    QUAD(mid)
  }
  .bss : { *(.bss) }
  _end = .;
}
EOF2
printf 'protocol none\npin o3.o\ngranularity object\n' >"$T/g/policy"
if ! "$LK" create -o "$T/g/g.kit" -T "$T/g/g.ld" -P "$T/g/policy" "$T"/g/o*.o >"$T/g/log" 2>&1; then
	echo "not ok diff_script: create failed: $(head -1 "$T/g/log")"; exit 1
fi
for seed in 1 2 3; do
	name=diff_script_seed_$seed
	"$LK" link --seed $seed --print-layout -o "$T/g/lk.elf" "$T/g/g.kit" >"$T/g/lay" 2>&1 &&
	ld -T "$T/g/g.ld" --no-warn-rwx-segments -o "$T/g/ld.elf" \
		$(awk -v d="$T/g" '$1=="object"{print d "/" $2}' "$T/g/lay") 2>"$T/g/log" || {
		echo "not ok $name: link failed: $(head -1 "$T/g/log")"; rc=1; continue; }
	bad=""
	sections "$T/g/lk.elf" >"$T/a"
	sections "$T/g/ld.elf" >"$T/b"
	cmp -s "$T/a" "$T/b" || bad="section headers differ"
	for s in .text .rodata .data; do
		objcopy -O binary --only-section=$s "$T/g/lk.elf" "$T/a.bin"
		objcopy -O binary --only-section=$s "$T/g/ld.elf" "$T/b.bin"
		cmp -s "$T/a.bin" "$T/b.bin" || bad="$bad $s differs"
	done
	if [ -z "$bad" ]; then echo "ok $name"; else echo "not ok $name: $bad"; rc=1; fi
done
exit $rc
