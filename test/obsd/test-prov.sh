#!/usr/bin/env bash
# A stale kit never boots (issue 25), host side: the real GENERIC kit
# ($B/obsd-real/bsd.kit, `linkkit create --openbsd` of the unpacked
# corpus, test/corpora/rules.mk) records what it was made from, and
# `linkkit verify --against DIR` runs the stages' check (linkkit/kit_prov.c)
# against a directory: fresh against the corpus and against a copy with
# what reorder_kernel leaves there (a new gap.o, bsd, lorder); stale, naming
# the file, when one object has one byte flipped (same size), grew, is
# gone, or the Makefile lists one more object; a kit without the record
# (the same kit with it cut off, as an older linkkit wrote it) still
# verifies and links, and --against says it cannot tell.
set -uo pipefail

B=${B:-build}
LK=$B/tools/linkkit
R=$B/obsd-real
C=$B/corpora/openbsd-7.3-amd64-GENERIC
names=(info fresh fresh-relinked same-size size missing makefile-list
       no-record no-record-links)

if [ "$(cat "$R/kit.done" 2>/dev/null)" != ok ]; then
	for n in "${names[@]}"; do
		echo "skip obsd-prov-$n: no OpenBSD corpus (../shared/corpora)"
	done
	exit 0
fi
T=$(mktemp -d "$R/prov.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
K=$R/bsd.kit
check() { # name reason command...
	local n=$1 why=$2
	shift 2
	if "$@"; then echo "ok obsd-prov-$n"; else echo "not ok obsd-prov-$n: $why"; fi
}

# The files the kit depends on: every linked object, ld.script, Makefile.
nobj=$(ls "$C" | grep '\.o$' | grep -cvx 'gap\.o\|gapdummy\.o')
out=$("$LK" info "$K" 2>&1)
check info "want $((nobj + 2)) files: $(echo "$out" | grep made)" \
	grep -qx "made from: openbsd-7.3-amd64-GENERIC ($((nobj + 2)) files, [0-9]* bytes, record [0-9]* bytes)" <<<"$out"

verify() { # dir: sets out and rc
	out=$("$LK" verify --against "$1" "$K" 2>&1)
	rc=$?
}
verify "$C"
check fresh "rc $rc: $out" \
	grep -q "^$K: fresh: made from openbsd-7.3-amd64-GENERIC, $((nobj + 2)) files" <<<"$out"

# A copy (hard links; every file changed below is replaced, never written
# through a link) with what a relink leaves behind.
D=$T/GENERIC
cp -al "$C" "$D" || exit 1
echo 'not linked from the kit' >"$T/x" && mv "$T/x" "$D/gap.o"
echo 'a kernel' >"$D/bsd"
echo 'vers.o' >"$D/lorder"
verify "$D"
check fresh-relinked "rc $rc: $out" test "$rc" = 0

# change NAME HOW: replaces NAME in the copy by a changed copy of itself.
change() {
	cp "$C/$1" "$T/x"
	case $2 in
	flip) printf "\\x$(printf %02x $(( $(od -An -tu1 -j100 -N1 "$T/x") ^ 1 )))" |
		dd of="$T/x" bs=1 seek=100 conv=notrunc status=none ;;
	grow) printf '\0' >>"$T/x" ;;
	list) sed -i 's/^OBJS=/OBJS=\tnew.o /' "$T/x" ;;
	esac
	mv "$T/x" "$D/$1"
}
restore() { ln -f "$C/$1" "$D/$1"; }
stale() { # name file reason-pattern
	check "$1" "rc $rc: $out" bash -c '[ "$1" = 1 ] && [ "$(wc -l <<<"$2")" = 1 ] &&
		grep -q "^linkkit: $3: stale: made from openbsd-7.3-amd64-GENERIC whose $4 $5\$" <<<"$2"' \
		_ "$rc" "$out" "$K" "$2" "$3"
}
change vers.o flip
cmp -s "$C/vers.o" "$D/vers.o" && echo "not ok obsd-prov-same-size: vers.o unchanged"
verify "$D"
stale same-size vers.o 'has changed since (sha256 differs, same size)'
restore vers.o

obj=$(ls "$C" | grep '\.o$' | grep -vx 'gap\.o\|gapdummy\.o\|locore0\.o\|vers\.o' | sed -n 100p)
size=$(stat -c %s "$C/$obj")
change "$obj" grow
verify "$D"
stale size "$obj" "has changed since (size $((size + 1)), was $size)"
restore "$obj"

rm "$D/$obj"
verify "$D"
stale missing "$obj" 'is gone (not found)'
restore "$obj"

change Makefile list
verify "$D"
stale makefile-list Makefile 'has changed since (size [0-9]*, was [0-9]*)'
restore Makefile

# The same kit as an older linkkit wrote it: flag clear, record cut off,
# hash recomputed.
python3 - "$K" "$T/old.kit" <<'EOF' || echo "not ok obsd-prov-no-record: cannot cut the record"
import hashlib, struct, subprocess, sys
k = bytearray(open(sys.argv[1], "rb").read())
flags, zsize = struct.unpack_from("<IQ", k, 12)
count, names = struct.unpack_from("<II", k, 64 + zsize - 20)
cut = count * 48 + names + 20
z = bytes(k[64:64 + zsize - cut])
struct.pack_into("<IQ", k, 12, flags & ~4, len(z))
if flags & 8:  # LK_KIT_F_BLAKE3
    k[32:64] = bytes.fromhex(subprocess.run(["b3sum", "--no-names"], input=z,
        capture_output=True, check=True).stdout.split()[0].decode())
else:
    k[32:64] = hashlib.sha256(z).digest()
open(sys.argv[2], "wb").write(bytes(k[:64]) + z + bytes(k[64 + zsize:]))
EOF
out=$("$LK" verify --against "$C" "$T/old.kit" 2>&1)
rc=$?
check no-record "rc $rc: $out" bash -c '[ "$1" = 1 ] &&
	grep -q "^linkkit: .*/old.kit: no record of what it was made from .*cannot tell whether it is stale$" <<<"$2"' \
	_ "$rc" "$out"
out=$("$LK" verify "$T/old.kit" 2>&1 && "$LK" info "$T/old.kit" 2>&1)
check no-record-links "$out" grep -qx "made from: unknown (no provenance record)" <<<"$out"
