#!/usr/bin/env bash
# Tests of the `linkkit` command line: create/info/verify/link behaviour,
# determinism, uniformity of the object order (chi-square), and the exact
# text of every error message. Usage: cli-test.sh [BUILD_DIR]
set -u
B=${1:-build}
LK=$B/tools/linkkit
D=test/diff
W=$B/diff/cli
rm -rf "$W" && mkdir -p "$W"

ok() { echo "ok $1"; }
nok() { echo "not ok $1: $2"; }
differ() { ! cmp -s "$1" "$2"; }
check() { # NAME REASON CONDITION...
	local name=$1 why=$2
	shift 2
	if "$@"; then ok "$name"; else nok "$name" "$why"; fi
}

# ---- a kit from the corpus ----
FLAGS="-O2 -mcmodel=kernel -fno-pic -fno-pie -ffreestanding -mno-red-zone
 -fno-asynchronous-unwind-tables -fno-stack-protector -fcommon -fno-builtin -w"
OBJS=()
for f in $D/corpus/main.c $(ls $D/corpus/*.[cS] | grep -v '/main\.c$'); do
	o=$W/$(basename "${f%.*}").o
	gcc $FLAGS -c "$f" -o "$o" || { nok cli-corpus "cannot compile $f"; exit 0; }
	OBJS+=("$o")
done
if ! "$LK" create -o "$W/k.kit" -T $D/diff.ld -P $D/policy "${OBJS[@]}" 2>"$W/create.err"; then
	nok cli-create "$(head -1 "$W/create.err")"
	exit 0
fi
ok cli-create

"$LK" info "$W/k.kit" >"$W/info.txt" 2>&1
# Entropy: log2(m!) for the m shuffled objects (all but the pinned main.o) plus
# log2(max/step) for each gap line of the policy.
expect=$(python3 - "${#OBJS[@]}" $D/policy <<'EOF'
import math, sys
m = int(sys.argv[1]) - 1
bits = math.lgamma(m + 1) / math.log(2)
for line in open(sys.argv[2]):
    w = line.split('#')[0].split()
    if w and w[0] == 'gap':
        bits += math.log2(math.ceil(int(w[2], 0) / int(w[3], 0)))
print('%.1f' % bits)
EOF
)
check cli-info-entropy "expected $expect bits, got: $(grep entropy "$W/info.txt")" \
	grep -q "^entropy: $expect bits" "$W/info.txt"
check cli-info-objects "$(grep objects: "$W/info.txt")" \
	grep -q "^objects: $((${#OBJS[@]} + 1)) (1 pinned, 1 synthetic)" "$W/info.txt"

out=$("$LK" verify "$W/k.kit" 2>&1)
check cli-verify "$out" test "$out" = "$W/k.kit: ok"

# Segments (LINKKIT_SEGMENTS=5), judged by zlib itself: the whole stream
# inflates to the one-stream kit's payload, every segment inflates alone
# from its index entry (no match reaches before it) and all but the last
# end in an empty stored block; the boot core links the same kernel.
if LINKKIT_SEGMENTS=5 "$LK" create -o "$W/seg.kit" -T $D/diff.ld -P $D/policy "${OBJS[@]}" \
	2>"$W/seg.err"; then
	out=$(python3 - "$W/k.kit" "$W/seg.kit" 2>&1 <<'EOF'
import struct, sys, zlib

def load(path):
    b = open(path, "rb").read()
    flags, zsize, size = struct.unpack_from("<IQQ", b, 12)
    z, segs = b[64:64 + zsize], []
    if flags & 2:  # LK_KIT_F_SEGMENTS: index, then {u32 count, u32 0}
        count, = struct.unpack_from("<I", z, len(z) - 8)
        at = len(z) - 8 - 16 * count
        segs = [struct.unpack_from("<QQ", z, at + 16 * i) for i in range(count)]
        z = z[:at]
    return z, size, segs

z0, _, segs0 = load(sys.argv[1])
z, size, segs = load(sys.argv[2])
whole = zlib.decompress(z)
if segs0 or whole != zlib.decompress(z0) or len(whole) != size:
    sys.exit("the segmented stream inflates to other bytes")
if len(segs) != 4:
    sys.exit(f"{len(segs)} index entries, not 4")
bounds = [(2, 0)] + segs + [(len(z) - 4, size)]
for (zs, ps), (ze, pe) in zip(bounds, bounds[1:]):
    if zlib.decompressobj(-15).decompress(z[zs:ze]) != whole[ps:pe]:
        sys.exit(f"the segment at stream byte {zs} does not inflate alone")
    if pe != size and z[ze - 4:ze] != b"\0\0\xff\xff":
        sys.exit(f"the segment at stream byte {zs} does not end in a stored block")
print("ok")
EOF
)
	check cli-segments-zlib "$out" test "$out" = ok
	"$LK" link --seed 77 -o "$W/one.elf" "$W/k.kit" && "$LK" link --seed 77 -o "$W/seg.elf" "$W/seg.kit"
	check cli-segments-link "seed 77 links differ between the one-stream and the 5-segment kit" \
		cmp -s "$W/one.elf" "$W/seg.elf"
else
	nok cli-segments-zlib "$(head -1 "$W/seg.err")"
	nok cli-segments-link "no segmented kit"
fi

# A corrupted byte in the compressed stream must fail the hash check.
cp "$W/k.kit" "$W/bad.kit"
printf '\x55' | dd of="$W/bad.kit" bs=1 seek=100 conv=notrunc status=none
out=$("$LK" verify "$W/bad.kit" 2>&1)
rc=$?
check cli-verify-corrupt "rc $rc: $out" \
	test $rc -ne 0 -a "$(echo "$out" | wc -l)" -eq 1 -a -n "$(echo "$out" | grep -i "$W/bad.kit")"

head -c 100 "$W/k.kit" >"$W/trunc.kit"
for cmd in verify info "link --seed 1 -o $W/t.elf"; do
	out=$("$LK" $cmd "$W/trunc.kit" 2>&1)
	rc=$?
	check "cli-truncated-${cmd%% *}" "rc $rc: $out" \
		test $rc -eq 1 -a "$(echo "$out" | wc -l)" -eq 1 -a -n "$(echo "$out" | grep "$W/trunc.kit")"
done

# Issue 23: an entry symbol outside every output section (made absolute 0)
# is refused by link and verify; a segment index one byte off (the stream
# still inflates whole) by verify. Each in exactly one line.
one_line() { # NAME WANT CMD...: CMD fails with exactly the line WANT
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	check "$name" "rc $rc: $(echo "$out" | tr '\n' '|')" test $rc -eq 1 -a "$out" = "$want"
}
python3 test/qemu/kit-gaps.py entry0 "$W/k.kit" "$W/entry0.kit"
want="linkkit: $W/entry0.kit: entry symbol '_start' at 0x0 lies outside every output section"
one_line cli-entry-outside-verify "$want" "$LK" verify "$W/entry0.kit"
one_line cli-entry-outside-link "$want" "$LK" link --seed 1 -o "$W/e.elf" "$W/entry0.kit"
python3 test/qemu/kit-gaps.py segshift "$W/k.kit" "$W/segshift.kit"
one_line cli-segment-index-verify \
	"linkkit: $W/segshift.kit: segment 1 does not match the stream (wrong segment index)" \
	"$LK" verify "$W/segshift.kit"
"$LK" link --seed 1 -o "$W/s.elf" "$W/segshift.kit"
check cli-segment-index-link "link refuses a kit whose stream inflates whole" test $? -eq 0
if [ -e "$W/seg.kit" ]; then
	out=$("$LK" verify "$W/seg.kit" 2>&1)
	check cli-segment-index-good "$out" test "$out" = "$W/seg.kit: ok"
fi

# ---- signatures (signify format over the kit header, our own Ed25519;
# signify-openbsd is the oracle both ways) ----
if command -v signify-openbsd >/dev/null; then
	rm -f "$W"/k1.* "$W"/k2.*
	signify-openbsd -G -n -p "$W/k1.pub" -s "$W/k1.sec" &&
		signify-openbsd -G -n -p "$W/k2.pub" -s "$W/k2.sec"
	"$LK" create --sign "$W/k1.sec" -o "$W/s.kit" -T $D/diff.ld -P $D/policy "${OBJS[@]}"
	out=$("$LK" verify -p "$W/k1.pub" "$W/s.kit" 2>&1)
	check cli-sign-verify "$out" test "$out" = "$W/s.kit: ok (signature verified)"
	out=$("$LK" verify -p "$W/k2.pub" "$W/s.kit" 2>&1)
	check cli-sign-wrong-key "$out" test "$(echo "$out" | tail -1)" = "linkkit: $W/s.kit: signed with another key"
	cp "$W/s.kit" "$W/s2.kit"
	# Another base64 letter in the signature (writing 'x' alone left the
	# kit unchanged whenever the signature had an 'x' there: 1 run in 64).
	at=$(($(stat -c %s "$W/s2.kit") - 20))
	new=x
	[ "$(dd if="$W/s2.kit" bs=1 skip="$at" count=1 status=none)" != x ] || new=y
	printf %s "$new" | dd of="$W/s2.kit" bs=1 seek="$at" conv=notrunc status=none
	out=$("$LK" verify -p "$W/k1.pub" "$W/s2.kit" 2>&1)
	check cli-sign-tampered "$out" test "$(echo "$out" | tail -1)" = "linkkit: $W/s2.kit: bad signature"
	out=$("$LK" verify -p "$W/k1.pub" "$W/k.kit" 2>&1)
	check cli-sign-unsigned "$out" test "$out" = "linkkit: $W/k.kit: not signed, and a public key is configured"
	# signify checks our trailer; Ed25519 is deterministic, so signify's
	# own signature of the header must be byte-identical to ours
	zs=$(od -An -tu8 -j16 -N8 "$W/s.kit" | tr -d ' ')
	head -c 64 "$W/s.kit" >"$W/s.hdr"
	tail -c +$((64 + zs + 1)) "$W/s.kit" >"$W/s.trailer"
	out=$(signify-openbsd -V -p "$W/k1.pub" -m "$W/s.hdr" -x "$W/s.trailer" 2>&1)
	check cli-sign-signify-verifies-ours "$out" test "$out" = "Signature Verified"
	signify-openbsd -S -s "$W/k1.sec" -m "$W/s.hdr" -x "$W/s.theirs"
	check cli-sign-signify-same-bytes "$(tail -1 "$W/s.theirs") vs $(tail -1 "$W/s.trailer")" \
		test "$(tail -1 "$W/s.theirs")" = "$(tail -1 "$W/s.trailer")"
	# a kit whose trailer signify wrote verifies with our code
	{ head -c $((64 + zs)) "$W/s.kit"; cat "$W/s.theirs"; } >"$W/s3.kit"
	out=$("$LK" verify -p "$W/k1.pub" "$W/s3.kit" 2>&1)
	check cli-sign-ours-verifies-signify "$out" test "$out" = "$W/s3.kit: ok (signature verified)"
else
	echo "skip cli-sign: signify-openbsd not installed"
fi

# ---- determinism ----
"$LK" link --seed 1234 -o "$W/a.elf" "$W/k.kit" && "$LK" link --seed 1234 -o "$W/b.elf" "$W/k.kit" &&
	"$LK" link --seed 1235 -o "$W/c.elf" "$W/k.kit" && "$LK" link --random -o "$W/d.elf" "$W/k.kit" &&
	"$LK" link --random -o "$W/e.elf" "$W/k.kit"
check cli-same-seed "seed 1234 gave two different files" cmp -s "$W/a.elf" "$W/b.elf"
check cli-other-seed "seeds 1234 and 1235 gave the same file" differ "$W/a.elf" "$W/c.elf"
check cli-random "two --random links are identical" differ "$W/d.elf" "$W/e.elf"
out=$(readelf -lW "$W/a.elf" 2>&1 | grep -c LOAD)
check cli-elf-phdrs "readelf sees $out PT_LOAD" test "$out" -eq 4

"$LK" link --seed 99 --map "$W/a.map" -o "$W/m.elf" "$W/k.kit"
addr=$(nm "$W/m.elf" 2>/dev/null | awk '$3 == "_start" {print $1}')
check cli-map "_start ($addr) not in the map" grep -q "^0x$addr .* _start$" "$W/a.map"

out=$(readelf -aW "$W/a.elf" 2>&1 >/dev/null)
check cli-elf-clean "readelf complains: $out" test -z "$out"

# The boot stages' loader (lk_elf_check + lk_elf_load) must see what the
# ELF says: paddr range, entry and the segment bytes with zeroed holes.
if [ -x "$B/diff/elfcheck" ]; then
	got=$("$B/diff/elfcheck" "$W/a.elf" 2>&1)
	want=$(python3 $D/segimage.py "$W/a.elf")
	check cli-fallback-loader "loader: $got; ELF: $want" test "$got" = "$want"
else
	echo "skip cli-fallback-loader: $B/diff/elfcheck not built"
fi

# ---- policy variants ----
# granularity section: every slot is shuffled per chunk; the order part of
# the entropy is then the sum of log2(chunks!) over the shuffled slots.
sed 's/^granularity object/granularity section/' $D/policy >"$W/sec.policy"
if "$LK" create -o "$W/sec.kit" -T $D/diff.ld -P "$W/sec.policy" "${OBJS[@]}" 2>"$W/sec.err"; then
	"$LK" link --seed 1 -o "$W/s1.elf" "$W/sec.kit" && "$LK" link --seed 2 -o "$W/s2.elf" "$W/sec.kit"
	check cli-granularity-section "seeds 1 and 2 gave the same file" differ "$W/s1.elf" "$W/s2.elf"
	o1=$(grep '^entropy' "$W/info.txt" | sed 's/.*order \([0-9.]*\).*/\1/')
	o2=$("$LK" info "$W/sec.kit" | grep '^entropy' | sed 's/.*order \([0-9.]*\).*/\1/')
	check cli-granularity-entropy "order bits $o2 (section) vs $o1 (object)" \
		python3 -c "import sys; sys.exit(not float('$o2') > float('$o1'))"
else
	nok cli-granularity-section "$(head -1 "$W/sec.err")"
fi
# keep-order: the set_items slot keeps canonical object order whatever
# the seed (entries named by their item_* symbols, in address order).
set_order() { # KIT SEED
	"$LK" link --seed "$2" --map "$W/o.map" -o "$W/o.elf" "$1" &&
		awk '$3 ~ /^item_/ {print $3}' "$W/o.map" | tr '\n' ' '
}
sed 's/^granularity object/granularity object\nkeep-order set_items/' $D/policy >"$W/keep.policy"
if "$LK" create -o "$W/keep.kit" -T $D/diff.ld -P "$W/keep.policy" "${OBJS[@]}" 2>"$W/keep.err"; then
	kept=$(for s in 1 2 3 4 5 6; do set_order "$W/keep.kit" $s; echo; done | sort -u)
	free=$(for s in 1 2 3 4 5 6; do set_order "$W/k.kit" $s; echo; done | sort -u)
	ld.bfd -static -nostdlib -z noexecstack -T $D/diff.ld -o "$W/canon.elf" "${OBJS[@]}"
	canon=$(nm -n "$W/canon.elf" | awk '$3 ~ /^item_/ {printf "%s ", $3}')
	check cli-keep-order "orders with keep-order: $(echo "$kept" | tr '\n' '|') canonical: $canon" \
		test "$kept" = "$canon"
	check cli-keep-order-control "set_items order never changed without keep-order" \
		test "$(echo "$free" | wc -l)" -gt 1
else
	nok cli-keep-order "$(head -1 "$W/keep.err")"
fi

# ---- uniformity: chi-square of each shuffled object's position ----
N=300
for s in $(seq 1 $N); do
	"$LK" link --seed "$(printf '%x' $((s * 40503)))" --print-layout -o "$W/u.elf" "$W/k.kit" |
		awk '$1 == "object" {printf "%s ", $2} END {print ""}'
done >"$W/orders.txt"
res=$(python3 - "$W/orders.txt" <<'EOF'
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
fixed = ('main.o', 'gap')
rows = [[o for o in r if o not in fixed] for r in rows]
k = len(rows[0])
if any(sorted(r) != sorted(rows[0]) for r in rows):
    print('bad orders'); sys.exit()
n = len(rows)
# Critical value of chi-square with k-1 degrees of freedom at p = 1e-4
# (Wilson-Hilferty), Bonferroni-corrected over the k objects tested.
df = k - 1
z = 3.719 + 0.6 * math.log10(k)
crit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
worst = 0
for obj in rows[0]:
    counts = [0] * k
    for r in rows:
        counts[r.index(obj)] += 1
    e = n / k
    chi = sum((c - e) ** 2 / e for c in counts)
    worst = max(worst, chi)
print('ok' if worst < crit else 'fail', '%.1f %.1f %d' % (worst, crit, len(set(map(tuple, rows)))))
EOF
)
check cli-uniform-order "chi-square worst/critical/distinct: $res" test "${res%% *}" = ok
distinct=${res##* }
check cli-orders-distinct "only $distinct distinct orders of $N" test "$distinct" -ge $((N - 2))
# Pinned objects first, then the gap object, in every layout.
check cli-pinned-first "pinned objects not first" \
	test "$(cut -d' ' -f1-2 "$W/orders.txt" | sort -u)" = "main.o gap"

# ---- error messages (exact text) ----
asm() { printf "$2" >"$W/$1.s" && as "$W/$1.s" -o "$W/$1.o"; }
asm undef '\t.text\n\t.globl f\nf:\n\tcall missing_fn\n\tmovq $other_missing, %%rax\n\tret\n'
asm dup1 '\t.data\n\t.globl dup_sym\ndup_sym:\n\t.long 1\n'
asm dup2 '\t.data\n\t.globl dup_sym\ndup_sym:\n\t.long 2\n'
asm tls '\t.text\n\tmovl %%fs:tlsvar@tpoff, %%eax\n\tret\n'
asm orphan '\t.section .weird,"a"\n\t.byte 1\n'
asm start '\t.text\n\t.globl _start\n_start:\n\tret\n'

expect_err() { # NAME EXPECTED-STDERR ARGS...
	local name=$1 want=$2 got rc
	shift 2
	rm -f "$W/err.kit"
	got=$("$LK" create -o "$W/err.kit" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ "$got" = "$want" ] && [ ! -e "$W/err.kit" ]; then
		ok "$name"
	else
		nok "$name" "rc $rc, got: $(echo "$got" | tr '\n' '|')"
	fi
}
P=$D/policy
T=$D/diff.ld
expect_err cli-err-undefined "linkkit: undef.o: section .text+0x1: undefined symbol 'missing_fn'
linkkit: undef.o: section .text+0x8: undefined symbol 'other_missing'
linkkit: 2 errors" -T $T -P $P "$W/start.o" "$W/undef.o" "${OBJS[@]:1}"
expect_err cli-err-duplicate "linkkit: dup2.o: duplicate definition of 'dup_sym' (first defined in dup1.o)
linkkit: 1 error" -T $T -P $P "${OBJS[@]}" "$W/dup1.o" "$W/dup2.o"
expect_err cli-err-reloc "linkkit: tls.o: section .text+0x4: unsupported relocation type 23 against 'tlsvar'
linkkit: 1 error" -T $T -P $P "${OBJS[@]}" "$W/tls.o"
expect_err cli-err-orphan "linkkit: orphan.o: section .weird: orphan section not matched by the script
linkkit: 1 error" -T $T -P $P "${OBJS[@]}" "$W/orphan.o"
# Every error is reported, not just the first.
expect_err cli-err-all "linkkit: dup2.o: duplicate definition of 'dup_sym' (first defined in dup1.o)
linkkit: orphan.o: section .weird: orphan section not matched by the script
linkkit: 2 errors" -T $T -P $P "${OBJS[@]}" "$W/dup1.o" "$W/dup2.o" "$W/orphan.o"
expect_err cli-err-all-later "linkkit: tls.o: section .text+0x4: unsupported relocation type 23 against 'tlsvar'
linkkit: orphan.o: section .weird: orphan section not matched by the script
linkkit: undef.o: section .text+0x1: undefined symbol 'missing_fn'
linkkit: undef.o: section .text+0x8: undefined symbol 'other_missing'
linkkit: 4 errors" -T $T -P $P "$W/start.o" "$W/undef.o" "$W/tls.o" "$W/orphan.o" "${OBJS[@]:1}"

# COMDAT copies in several objects are chosen at boot: a local symbol of
# one copy may not be referenced from outside the group.
G='\t.section .text.grp,"axG",@progbits,grp,comdat\nlcl:\n'
asm cg1 "$G\tret\n\t.text\n\t.globl use_lcl\nuse_lcl:\n\tcall lcl\n\tret\n"
asm cg2 "$G\tnop\n\tret\n"
expect_err cli-err-comdat-local "linkkit: cg1.o: section .text+0x1: relocation against local symbol 'lcl' of COMDAT group 'grp' from outside the group (the copy in cg1.o may be discarded)
linkkit: 1 error" -T $T -P $P "${OBJS[@]}" "$W/cg1.o" "$W/cg2.o"
"$LK" create -o "$W/cg.kit" -T $T -P $P "${OBJS[@]}" "$W/cg1.o" >"$W/cg.err" 2>&1
check cli-comdat-local-single "a single copy is an ordinary section: $(head -1 "$W/cg.err")" \
	test $? -eq 0 -a ! -s "$W/cg.err"

# What the kit cannot choose at boot keeps the canonical choice, with a
# warning naming the symbol or group.
expect_warn() { # NAME EXPECTED-STDERR ARGS...
	local name=$1 want=$2 got rc
	shift 2
	rm -f "$W/warn.kit"
	got=$("$LK" create -o "$W/warn.kit" "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ -e "$W/warn.kit" ]; then
		ok "$name"
	else
		nok "$name" "rc $rc, got: $(echo "$got" | tr '\n' '|')"
	fi
}
M='\t.section .rodata.str1.1,"aMSG",@progbits,1,mgrp,comdat\n'
asm mg1 "$M\t.string \"one\"\n"
asm mg2 "$M\t.string \"two\"\n"
expect_warn cli-warn-comdat-merge "linkkit: warning: COMDAT group 'mgrp': has merge sections and copies in several objects: the copy in mg1.o is always kept (GNU ld keeps the first in link order)" \
	-T $T -P $P "${OBJS[@]}" "$W/mg1.o" "$W/mg2.o"
asm aw1 '\t.weak absw\n\t.set absw, 5\n'
asm aw2 '\t.weak absw\n\t.set absw, 6\n'
expect_warn cli-warn-weak-abs "linkkit: warning: symbol 'absw': defined in aw1.o and aw2.o, not all in input sections the boot side can choose from: the definition in aw1.o is always used (GNU ld picks by link order)" \
	-T $T -P $P "${OBJS[@]}" "$W/aw1.o" "$W/aw2.o"
P1='\t.section .text.pg,"axG",@progbits,pgrp,comdat\n'
asm pg1 "$P1\t.globl pg_sym\npg_sym:\n\tret\n"
asm pg2 "$P1\tret\n"
expect_warn cli-warn-comdat-partial "linkkit: warning: symbol 'pg_sym' is defined in 1 of the 2 copies of COMDAT group 'pgrp': it is undefined when another copy is kept" \
	-T $T -P $P "${OBJS[@]}" "$W/pg1.o" "$W/pg2.o"
A1='\t.section .text.ag,"axG",@progbits,agrp,comdat\n'
asm ag1 "$A1\t.balign 16\n\tret\n"
asm ag2 "$A1\t.balign 64\n\tret\n"
expect_warn cli-warn-comdat-align "linkkit: warning: COMDAT group 'agrp': its copies differ in alignment in output section .text (16 to 64): the section is aligned for the most aligned copy, GNU ld for the kept one" \
	-T $T -P $P "${OBJS[@]}" "$W/ag1.o" "$W/ag2.o"

asm eg1 '\t.section .text.eg,"axG",@progbits,egrp,comdat\n\tret\n'
asm eg2 '\t.section .comment.eg,"G",@progbits,egrp,comdat\n\t.byte 1\n'
expect_warn cli-warn-comdat-empty-copy "linkkit: warning: COMDAT group 'egrp': 1 of its 2 copies load nothing: the boot side keeps the first copy that does, GNU ld the first copy" \
	-T $T -P $P "${OBJS[@]}" "$W/eg1.o" "$W/eg2.o"
asm cm1 '\t.comm cmsym,8,8\n'
asm cga '\t.section .data.cm,"awG",@progbits,cmgrp,comdat\n\t.quad 0\n'
asm cgb '\t.section .data.cm,"awG",@progbits,cmgrp,comdat\n\t.globl cmsym\ncmsym:\n\t.quad 1\n'
expect_warn cli-warn-comdat-common "linkkit: warning: symbol 'cmsym': COMMON in cm1.o, defined only in later copies of a COMDAT group (cgb.o): COMMON is always used (GNU ld uses the definition when its copy is kept)" \
	-T $T -P $P "${OBJS[@]}" "$W/cm1.o" "$W/cga.o" "$W/cgb.o"

printf 'protocol multiboot2\nshuffle everything\ngap .text 100 3 0xcc\npin\ngap .bss 4096 16 300\n' >"$W/bad.policy"
expect_err cli-err-policy "$W/bad.policy:2: unknown keyword
$W/bad.policy:3: gap: STEP must be a power of two
$W/bad.policy:4: wrong number of arguments
$W/bad.policy:5: gap: FILL must be a byte (0..255)
linkkit: 1 error" -T $T -P "$W/bad.policy" "${OBJS[@]}"
printf 'pin nothere.o\n' >"$W/pin.policy"
expect_err cli-err-pin "linkkit: policy: pinned object 'nothere.o' is not among the inputs
linkkit: 1 error" -T $T -P "$W/pin.policy" "${OBJS[@]}"

# The script parser's own messages are "path:line: message" (tools/ldscript.h).
printf 'SECTIONS\n{\n\t.text : { *(.text) }\n\tfoo bar baz\n}\n' >"$W/bad.ld"
got=$("$LK" create -o "$W/err.kit" -T "$W/bad.ld" -P $P "${OBJS[@]}" 2>&1)
rc=$?
check cli-err-script "rc $rc, got: $(echo "$got" | tr '\n' '|')" \
	test $rc -ne 0 -a "$(echo "$got" | head -1 | cut -d: -f1-2)" = "$W/bad.ld:4" \
	-a "$(echo "$got" | tail -1)" = "linkkit: 1 error"

got=$("$LK" link -o "$W/x.elf" "$W/k.kit" 2>&1)
check cli-err-link-usage "got: $got" \
	test "$got" = "linkkit: link: needs -o OUT, a KIT, and one of --seed HEX or --random"
got=$("$LK" link --seed xyz -o "$W/x.elf" "$W/k.kit" 2>&1)
check cli-err-seed "got: $got" test "$got" = "linkkit: link: bad seed 'xyz' (hex, up to 128 digits)"
exit 0
