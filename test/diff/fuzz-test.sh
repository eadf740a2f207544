#!/usr/bin/env bash
# Objects are untrusted input too: `linkkit create` (built with ASan and
# UBSan) gets corpus objects with corrupted bytes and must either build a
# kit or print error lines and fail, never crash, hang or trip a sanitizer.
# Deterministic (fixed mutation seed). Usage: fuzz-test.sh [BUILD_DIR] [N]
set -u
B=${1:-build}
N=${2:-150}
LK=$B/tools/linkkit-asan
D=test/diff
W=$B/diff/fuzz
rm -rf "$W" && mkdir -p "$W"
[ -x "$LK" ] || { echo "skip fuzz: $LK not built"; exit 0; }
FLAGS="-O2 -mcmodel=kernel -fno-pic -fno-pie -ffreestanding -mno-red-zone
 -fno-asynchronous-unwind-tables -fno-stack-protector -fcommon -fno-builtin -w"
OBJS=()
for f in $D/corpus/main.c $(ls $D/corpus/*.[cS] | grep -v '/main\.c$'); do
	o=$W/$(basename "${f%.*}").o
	gcc $FLAGS -c "$f" -o "$o" || { echo "not ok fuzz-corpus: cannot compile $f"; exit 0; }
	OBJS+=("$o")
done
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99
crashes=0 built=0 refused=0 silent=0 first=
for i in $(seq 1 "$N"); do
	# Corrupt one object: a few random bytes, biased to the ELF header and
	# the start of the file, and to the section headers at its end.
	victim=${OBJS[$((i % ${#OBJS[@]}))]}
	python3 - "$victim" "$W/m.o" "$i" <<'EOF'
import random, sys
d = bytearray(open(sys.argv[1], 'rb').read())
r = random.Random(int(sys.argv[3]))
for _ in range(r.choice((1, 2, 4, 8))):
    x = r.random()
    shoff = int.from_bytes(d[40:48], 'little')
    if x < 0.35:
        pos = r.randrange(min(len(d), 2048))
    elif x < 0.7 and 0 < shoff < len(d):
        pos = r.randrange(shoff, len(d))
    else:
        pos = r.randrange(len(d))
    d[pos] = r.randrange(256) if r.random() < 0.5 else d[pos] ^ (1 << r.randrange(8))
open(sys.argv[2], 'wb').write(d)
EOF
	args=()
	for o in "${OBJS[@]}"; do
		[ "$o" = "$victim" ] && args+=("$W/m.o") || args+=("$o")
	done
	timeout 20 "$LK" create -o "$W/f.kit" -T $D/diff.ld -P $D/policy "${args[@]}" >"$W/out" 2>&1
	rc=$?
	case $rc in
	0) built=$((built + 1)) ;;
	1) refused=$((refused + 1))
	   grep -q '^linkkit: ' "$W/out" || { silent=$((silent + 1)); [ -z "$first" ] && first="mutation $i of $(basename "$victim") failed without a message"; } ;;
	*) crashes=$((crashes + 1))
	   [ -z "$first" ] && first="mutation $i of $(basename "$victim"): rc $rc: $(grep -m1 -E 'ERROR|runtime error|SEGV' "$W/out")"
	   cp "$W/m.o" "$W/crash-$i.o" ;;
	esac
done
if [ $crashes -eq 0 ] && [ $silent -eq 0 ]; then
	echo "ok fuzz-create ($N corrupted objects: $built built, $refused refused with a message)"
else
	echo "not ok fuzz-create: $crashes crashes, $silent silent failures; $first"
fi
