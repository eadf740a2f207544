#!/usr/bin/env bash
# `linkkit sign` and `linkkit verify -x` (detached signify signatures of any
# file, the fallback kernel in particular) against signify-openbsd, both
# ways: our signature file must be byte-identical to `signify -S`'s (Ed25519
# is deterministic), signify must verify ours, we must verify signify's, and
# every refusal is one line naming the file or the key.
#
#   test-sign.sh BUILD_DIR   (uses its tools/linkkit and demo kernel)
set -u
B=$1
LK=$B/tools/linkkit ELF=$B/demo/fallback.elf
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. "$SRC/test/qemu/lib.sh"

check() { # NAME REASON CONDITION...
	local n=$1 why=$2
	shift 2
	if "$@"; then ok "$n"; else not_ok "$n" "$why"; fi
}
# one_line NAME WANT CMD...: CMD fails with exactly the line WANT on stderr.
one_line() {
	local n=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 0 ]; then
		not_ok "$n" "succeeded; want failure with '$want'"
	elif [ "$out" != "$want" ]; then
		not_ok "$n" "stderr '$out', want '$want'"
	else
		ok "$n"
	fi
}

names=(same-bytes signify-verifies-ours ours-verifies-signify default-name
       tampered other-key encrypted-key encrypted-wrong-passphrase
       encrypted-no-passphrase encrypted-nothing-written encrypted-key-create
       kdf-rounds-limit not-a-key not-a-pubkey malformed-sig mkimage-fallback-key
       mkimage-install-needs-key mkimage-install-refused-unchanged mkimage-install-key
       mkimage-encrypted-key)
command -v signify-openbsd >/dev/null ||
	skip_all "signify-openbsd not installed" "${names[@]/#/sign-}"

# An encrypted key (signify -G without -n) needs the passphrase on a tty.
mkenc() {
	python3 - "$1" "$2" <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp("signify-openbsd", ["signify-openbsd", "-G", "-p", sys.argv[1],
                                  "-s", sys.argv[2]])
buf = b""
for _ in range(2):
    while b"passphrase:" not in buf:
        buf += os.read(fd, 100)
    buf = buf.split(b"passphrase:", 1)[1]
    os.write(fd, b"not the real one\n")
try:
    while os.read(fd, 100):
        pass
except OSError:
    pass
sys.exit(os.waitpid(pid, 0)[1] >> 8)
EOF
}

signify_keys "$W" k1 k2 || {
	echo "not ok sign-setup: signify-openbsd -G failed"
	exit 0
}
head -c 0 /dev/null >"$W/empty"
head -c 4097 /dev/urandom >"$W/rand"
cp "$ELF" "$W/fallback.elf"

# Ours and signify's, for the fallback, an empty file and random bytes.
same=1 sv=1 why=
for f in fallback.elf empty rand; do
	"$LK" sign -s "$W/k1.sec" -o "$W/$f.ours" "$W/$f" || { same=0; why="$f: linkkit sign failed"; }
	signify-openbsd -S -s "$W/k1.sec" -m "$W/$f" -x "$W/$f.theirs"
	cmp -s "$W/$f.ours" "$W/$f.theirs" || { same=0; why="$f: $(tail -1 "$W/$f.ours") vs $(tail -1 "$W/$f.theirs")"; }
	out=$(signify-openbsd -V -p "$W/k1.pub" -m "$W/$f" -x "$W/$f.ours" 2>&1)
	[ "$out" = "Signature Verified" ] || { sv=0; svwhy="$f: $out"; }
done
check sign-same-bytes "$why" test $same = 1
check sign-signify-verifies-ours "${svwhy:-}" test $sv = 1

out=$("$LK" verify -p "$W/k1.pub" -x "$W/fallback.elf.theirs" "$W/fallback.elf" 2>&1)
check sign-ours-verifies-signify "$out" \
	test "$out" = "$W/fallback.elf: signature ok ($W/fallback.elf.theirs)"

# Without -o the signature goes to FILE.sig, as with signify.
"$LK" sign -s "$W/k1.sec" "$W/rand"
check sign-default-name "no $W/rand.sig identical to signify's" cmp -s "$W/rand.sig" "$W/rand.theirs"

cp "$W/fallback.elf" "$W/bad.elf"
printf '\x01' | dd of="$W/bad.elf" bs=1 seek=100 conv=notrunc status=none
one_line sign-tampered "linkkit: $W/bad.elf: bad signature" \
	"$LK" verify -p "$W/k1.pub" -x "$W/fallback.elf.ours" "$W/bad.elf"
one_line sign-other-key "linkkit: $W/fallback.elf: signed with another key" \
	"$LK" verify -p "$W/k2.pub" -x "$W/fallback.elf.ours" "$W/fallback.elf"

# Passphrase-protected keys: the passphrase comes from stdin when it is
# not a terminal, as with signify; bcrypt_pbkdf decrypts the seed.
PASS='not the real one'
if mkenc "$W/enc.pub" "$W/enc.sec" >"$W/enc.log" 2>&1; then
	echo "$PASS" | signify-openbsd -S -s "$W/enc.sec" -m "$W/rand" -x "$W/enc.theirs"
	echo "$PASS" | "$LK" sign -s "$W/enc.sec" -o "$W/enc.ours" "$W/rand"
	check sign-encrypted-key "$(tail -1 "$W/enc.ours" 2>&1) vs $(tail -1 "$W/enc.theirs")" \
		cmp -s "$W/enc.ours" "$W/enc.theirs"
	one_line sign-encrypted-wrong-passphrase "linkkit: $W/enc.sec: incorrect passphrase" \
		bash -c 'echo wrong | "$0" sign -s "$1" -o "$2" "$3"' "$LK" "$W/enc.sec" "$W/x.sig" "$W/rand"
	one_line sign-encrypted-no-passphrase "linkkit: $W/enc.sec: encrypted key and no passphrase given" \
		bash -c '"$0" sign -s "$1" -o "$2" "$3" </dev/null' "$LK" "$W/enc.sec" "$W/x.sig" "$W/rand"
	check sign-encrypted-nothing-written "$W/x.sig exists" test ! -e "$W/x.sig"
	# create --sign takes the same keys; the kit verifies with the key.
	echo "$PASS" | demo_kit "$W/a.kit" --sign "$W/enc.sec" 2>"$W/create.log"
	out=$("$LK" verify -p "$W/enc.pub" "$W/a.kit" 2>&1)
	check sign-encrypted-key-create "$out $(head -1 "$W/create.log")" \
		test "$out" = "$W/a.kit: ok (signature verified)"
else
	not_ok sign-encrypted-key "cannot make an encrypted key: $(tail -1 "$W/enc.log")"
fi
# A key file claiming 2^32-1 KDF rounds (hours of work) is refused at once.
python3 - "$W/k1.sec" "$W/slow.sec" <<'EOF'
import base64, sys
lines = open(sys.argv[1]).read().split("\n")
raw = bytearray(base64.b64decode(lines[1]))
raw[4:8] = b"\xff\xff\xff\xff"
open(sys.argv[2], "w").write(lines[0] + "\n" + base64.b64encode(raw).decode() + "\n")
EOF
one_line sign-kdf-rounds-limit "linkkit: $W/slow.sec: 4294967295 KDF rounds (more than 1024)" \
	"$LK" sign -s "$W/slow.sec" -o "$W/x.sig" "$W/rand"

one_line sign-not-a-key "linkkit: $W/k1.pub: not a signify secret key" \
	"$LK" sign -s "$W/k1.pub" -o "$W/y.sig" "$W/rand"
one_line sign-not-a-pubkey "linkkit: $W/k1.sec: not a signify public key" \
	"$LK" verify -p "$W/k1.sec" -x "$W/rand.sig" "$W/rand"
one_line sign-malformed-sig "linkkit: $W/rand: malformed signature" \
	"$LK" verify -p "$W/k1.pub" -x "$W/k1.pub" "$W/rand"

# ---- mkimage signs the fallback itself (--fallback-key, install-fallback --key) ----
MK=$SRC/tools/mkimage.sh
export LINKKIT=$LK
img=$W/s.img
if "$MK" create -o "$img" --efi "$B/efi/BOOTX64.EFI" --kit "$B/demo/kernel.kit" \
	--fallback "$ELF" --fallback-key "$W/k1.sec" >"$W/mk.log" 2>&1 &&
	"$MK" get "$img" '\RELINK\FALLBACK.SIG' "$W/img.sig" >>"$W/mk.log" 2>&1; then
	check sign-mkimage-fallback-key "FALLBACK.SIG differs from signify's" \
		cmp -s "$W/img.sig" "$W/fallback.elf.theirs"
else
	not_ok sign-mkimage-fallback-key "$(tail -1 "$W/mk.log")"
fi
# A new fallback on a signed image needs a new signature: refused without.
cp "$ELF" "$W/fb2.elf" && printf 'x' >>"$W/fb2.elf"
one_line sign-mkimage-install-needs-key \
	"mkimage: $img: has \\RELINK\\FALLBACK.SIG; give --key KEY.sec or --sig SIG for the new fallback" \
	"$MK" install-fallback "$img" "$W/fb2.elf"
"$MK" get "$img" '\RELINK\FALLBACK.ELF' "$W/still.elf" 2>/dev/null
check sign-mkimage-install-refused-unchanged "the fallback changed" cmp -s "$W/still.elf" "$ELF"
if "$MK" install-fallback "$img" "$W/fb2.elf" --key "$W/k1.sec" >"$W/mk.log" 2>&1 &&
	"$MK" get "$img" '\RELINK\FALLBACK.ELF' "$W/new.elf" &&
	"$MK" get "$img" '\RELINK\FALLBACK.SIG' "$W/new.sig"; then
	out=$(signify-openbsd -V -p "$W/k1.pub" -m "$W/new.elf" -x "$W/new.sig" 2>&1)
	check sign-mkimage-install-key "$out" \
		test "$out" = "Signature Verified" -a "$(cmp "$W/new.elf" "$W/fb2.elf" 2>&1)" = ""
else
	not_ok sign-mkimage-install-key "$(tail -1 "$W/mk.log")"
fi
# With an encrypted key the passphrase passes through mkimage's stdin.
echo "$PASS" | signify-openbsd -S -s "$W/enc.sec" -m "$ELF" -x "$W/enc-fb.theirs"
if echo "$PASS" | "$MK" create -o "$W/e.img" --efi "$B/efi/BOOTX64.EFI" --kit "$B/demo/kernel.kit" \
	--fallback "$ELF" --fallback-key "$W/enc.sec" >"$W/mk.log" 2>&1 &&
	"$MK" get "$W/e.img" '\RELINK\FALLBACK.SIG' "$W/e.sig" >>"$W/mk.log" 2>&1; then
	check sign-mkimage-encrypted-key "FALLBACK.SIG differs from signify's" \
		cmp -s "$W/e.sig" "$W/enc-fb.theirs"
else
	not_ok sign-mkimage-encrypted-key "$(tail -1 "$W/mk.log")"
fi
