#!/bin/bash
# The FFS reader (linkkit/fs/ffs.c) on images made by Debian's makefs
# (NetBSD's): FFS1 and FFS2, 16 KiB and 4 KiB blocks, compared file by file
# with the tree makefs was given (bytes, size, mode, uid, gid); the
# superblock found at 0, 8192 and 65536; a triple-indirect file made by
# test/fs/ffs_patch.py inside a real image; then hand-broken images, each
# of which must give exactly one error line with the expected text.
#
# usage: test-ffs.sh PROBE [PROBE32]
#   PROBE: $(B)/test/fs/ffs_probe; PROBE32: the same driver on the i386
#   objects (the file comparison and the triple-indirect read run there too)
set -u
PROBE=$1 PROBE32=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
PATCH=$HERE/ffs_patch.py
if ! command -v makefs >/dev/null 2>&1 && [ ! -x /usr/sbin/makefs ]; then
	echo "skip ffs-makefs: makefs not installed (mk/deps.sh installs it)"
	exit 0
fi
MAKEFS=$(command -v makefs || echo /usr/sbin/makefs)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SRC=$T/src

# The tree and what the reader must say about it: test/fs/ffs_tree.py.
make_tree() { python3 "$HERE/ffs_tree.py" make "$SRC"; }
expected() { python3 "$HERE/ffs_tree.py" expected "$SRC"; }

paths_of() {
	sed 's/ size=.*//' "$1"
}

# check NAME CONDITION-STATUS REASON
check() {
	if [ "$2" = 0 ]; then echo "ok $1"; else echo "not ok $1: $3"; fi
}

# The probe's lines for PATHS, ino= dropped (the tree cannot predict it).
probe_stat() {
	"$PROBE" "$@" | sed 's/ ino=[0-9]*//'
}

make_image() { # NAME VERSION BSIZE FSIZE
	local kb
	kb=$(du -sk "$SRC" | cut -f1)
	# makefs's own estimate runs out of space with big files here.
	"$MAKEFS" -t ffs -o "version=$2,bsize=$3,fsize=$4" -b 10% \
		-M $(((kb * 2 + 4096) * 1024)) "$T/$1.img" "$SRC" \
		>"$T/$1.makefs.log" 2>&1
}

# Exactly one error line, equal to WANT; anything else fails NAME.
expect_error() { # NAME WANT PROBE-ARGS...
	local name=$1 want=$2 out errs
	shift 2
	out=$("$PROBE" "$@" 2>&1)
	errs=$(printf '%s\n' "$out" | grep '^error: ')
	if [ "$(printf '%s\n' "$out" | grep -c '^error: ')" != 1 ]; then
		echo "not ok $name: expected one error line, got: $(printf '%s' "$out" | tr '\n' '|')"
	elif [ "$errs" != "error: $want" ]; then
		echo "not ok $name: got '$errs', expected 'error: $want'"
	else
		echo "ok $name"
	fi
}

ino_of() { # IMAGE PATH
	"$PROBE" "$1" stat "$2" | sed -n 's/.* ino=\([0-9]*\) .*/\1/p'
}

test_image() { # NAME
	local img=$T/$1.img n=$1 got
	# shellcheck disable=SC2046
	probe_stat "$img" stat $(paths_of "$T/want") >"$T/got.$n"
	diff -u "$T/want" "$T/got.$n" >"$T/diff.$n"
	check "ffs-$n-files" $? "$(head -c 600 "$T/diff.$n" | tr '\n' '|')"
	if [ -n "$PROBE32" ]; then
		# shellcheck disable=SC2046
		PROBE=$PROBE32 probe_stat "$img" stat $(paths_of "$T/want") >"$T/got32.$n" 2>&1
		diff -u "$T/want" "$T/got32.$n" >"$T/diff32.$n"
		check "ffs-$n-files-i386" $? "$(head -c 600 "$T/diff32.$n" | tr '\n' '|')"
	fi

	# Lookups the plain walk does not make; the root last (its size is
	# makefs's, so only its mode and owner are compared).
	got=$(probe_stat "$img" stat /a/b/c/../c/./d//e/deep.txt \
		'\a\b\c\d\e\deep.txt' /dirlink/c/d/e/deep.txt \
		/a/b/c/up/etc/fast /a/abs /chain8 / | cut -d' ' -f2- |
		sed '$s/^size=[0-9]* //;$s/ sha256=.*//')
	want=$(for p in a/b/c/d/e/deep.txt a/b/c/d/e/deep.txt \
		a/b/c/d/e/deep.txt etc/boot.conf etc/boot.conf etc/boot.conf; do
		grep "^/$p " "$T/want" | cut -d' ' -f2-
	done
	printf 'mode=%o uid=%s gid=%s\n' "0x$(stat -c %f "$SRC")" \
		"$(stat -c %u "$SRC")" "$(stat -c %g "$SRC")")
	[ "$got" = "$want" ]
	check "ffs-$n-paths" $? "got: $(printf '%s' "$got" | tr '\n' '|')"

	expect_error "ffs-$n-symlink-loop" "ffs: /loop1: more than 8 symbolic links" \
		"$img" stat /loop1
	expect_error "ffs-$n-symlink-chain9" "ffs: /chain9: more than 8 symbolic links" \
		"$img" stat /chain9
	expect_error "ffs-$n-dangling" "ffs: /dangling: nowhere not found" \
		"$img" stat /dangling
	expect_error "ffs-$n-notfound" "ffs: /etc/nothere: nothere not found" \
		"$img" stat /etc/nothere
	expect_error "ffs-$n-notdir" \
		"ffs: /etc/boot.conf/x: inode $(ino_of "$img" /etc/boot.conf) on the way is not a directory" \
		"$img" stat /etc/boot.conf/x
	# Paths over 120 bytes are shown as "..." and their last 117.
	long=$(printf 'm%.0s' $(seq 256))
	expect_error "ffs-$n-namelen" "ffs: ...${long:0:117}: a name is longer than 255 bytes" \
		"$img" stat "/a/$long"
	expect_error "ffs-$n-pathlen" "ffs: ...$(printf 'a/%.0s' $(seq 58))a: path longer than 1023 bytes" \
		"$img" stat "$(printf '/a%.0s' $(seq 600))"

	# The same file system at LBA 2048 of a larger disk.
	dd if=/dev/zero of="$T/disk" bs=512 count=2048 status=none
	cat "$img" >>"$T/disk"
	dd if=/dev/zero bs=512 count=100 status=none >>"$T/disk"
	got=$(probe_stat -l 2048 -c $(($(stat -c %s "$img") / 512)) "$T/disk" \
		stat /bsd /etc/boot.conf)
	[ "$got" = "$(grep -E '^/(etc/boot.conf|bsd) ' "$T/want")" ]
	check "ffs-$n-lba" $? "$got"
	rm -f "$T/disk"
}

# Triple indirect: too big for makefs here (FFS2 with 4 KiB blocks needs
# more than 1 GiB), so /tri is rewritten in place as a sparse file whose
# data sits behind di_ib[2] (ffs_patch.py triple), and a range covering
# the hole before it and the data is compared with Python's hash of it.
test_triple() { # NAME
	local img=$T/$1.tri.img got off len sum
	cp "$T/$1.img" "$img"
	read -r off len sum < <(python3 "$PATCH" "$img" triple /tri)
	got=$("$PROBE" "$img" read /tri "$off" "$len")
	[ "$got" = "sha256=$sum" ]
	check "ffs-$1-triple-indirect" $? "$got, expected $sum"
	if [ -n "$PROBE32" ]; then
		got=$("$PROBE32" "$img" read /tri "$off" "$len" 2>&1)
		[ "$got" = "sha256=$sum" ]
		check "ffs-$1-triple-indirect-i386" $? "$got, expected $sum"
	fi
	rm -f "$img"
}

# Hand-broken copies of a small image (ffs_patch.py batch), each of which
# must give exactly one error line with the expected text.
test_broken() { # VERSION
	local n=v$1-small img=$T/v$1-small.img B=$T/broken
	local part="ffs: partition at LBA 0" k=/usr/share/relink/kernel/GENERIC.MP/f250000.o
	local conf etc kf slow etc_conf_pos ncg ipg frags
	mkdir -p "$B"
	eval "$(python3 "$PATCH" "$img" query <<EOF
conf ino /etc/boot.conf
etc ino /etc
kf ino $k
slow ino /etc/slow
etc_conf_pos dirpos /etc boot.conf
ncg sb ncg
ipg sb ipg
frags sb size$1
EOF
)"
	python3 "$PATCH" "$img" batch "$B" <<EOF
bad-magic sb magic 0x12345678
bad-bsize sb bsize 12288
bad-inopb sb inopb 7
bad-ncg sb ncg 1000
bad-block inode /etc/boot.conf db0 0x7ffffff0
negative-block inode /etc/boot.conf db0 -5
bad-indirect inode $k ib0 $((frags + 8))
huge-size inode $k size $((1 << 62))
reclen-0 dirent /etc boot.conf reclen 0
reclen-long dirent /etc boot.conf reclen 1000
namlen dirent /etc boot.conf namlen 200
ino-range dirent /etc boot.conf ino 99999999
ino-1 dirent /etc boot.conf ino 1
free-inode inode /etc/boot.conf mode 0
dir-hole inode /etc db0 0
symlink-long inode /etc/slow size 5000
EOF
	expect_error "ffs-$n-bad-magic" \
		"$part: no FFS superblock at byte 65536, 8192, 0 or 262144" "$B/bad-magic.img" mount
	expect_error "ffs-$n-bad-bsize" "$part: superblock at byte 8192: bad block size (12288)" \
		"$B/bad-bsize.img" mount
	expect_error "ffs-$n-bad-inopb" "$part: superblock at byte 8192: bad fs_inopb (7)" \
		"$B/bad-inopb.img" mount
	expect_error "ffs-$n-bad-ncg" "$part: superblock at byte 8192: bad fs_ncg for the size (1000)" \
		"$B/bad-ncg.img" mount
	# A partition smaller than the file system.
	expect_error "ffs-$n-small-partition" \
		"$part: superblock at byte 8192: bad size (fragments) outside the partition ($frags)" \
		-c $((frags * 4 - 1)) "$img" mount
	expect_error "ffs-$n-bad-block" \
		"ffs: /etc/boot.conf: data block 0x7ffffff0 outside the partition ($frags fragments)" \
		"$B/bad-block.img" stat /etc/boot.conf
	expect_error "ffs-$n-negative-block" \
		"ffs: /etc/boot.conf: data block 0xfffffffffffffffb outside the partition ($frags fragments)" \
		"$B/negative-block.img" stat /etc/boot.conf
	expect_error "ffs-$n-bad-indirect" \
		"ffs: $k: indirect block $(printf '0x%x' $((frags + 8))) outside the partition ($frags fragments)" \
		"$B/bad-indirect.img" stat "$k"
	expect_error "ffs-$n-huge-size" \
		"ffs: $k: inode $kf has a size beyond what its blocks can map (size 4611686018427387904)" \
		"$B/huge-size.img" stat "$k"
	# A name after boot.conf's record, so the walk reaches the bad one.
	expect_error "ffs-$n-reclen-0" \
		"ffs: /etc/nothere: directory inode $etc: bad record length (reclen 0 at byte $etc_conf_pos)" \
		"$B/reclen-0.img" stat /etc/nothere
	expect_error "ffs-$n-reclen-long" \
		"ffs: /etc/nothere: directory inode $etc: record crosses its 512-byte block (reclen 1000 at byte $etc_conf_pos)" \
		"$B/reclen-long.img" stat /etc/nothere
	expect_error "ffs-$n-namlen" \
		"ffs: /etc/nothere: directory inode $etc: name longer than its record (reclen 20 at byte $etc_conf_pos)" \
		"$B/namlen.img" stat /etc/nothere
	expect_error "ffs-$n-ino-range" \
		"ffs: /etc/boot.conf: inode number 99999999 out of range (2..$((ncg * ipg - 1)))" \
		"$B/ino-range.img" stat /etc/boot.conf
	expect_error "ffs-$n-ino-1" \
		"ffs: /etc/boot.conf: inode number 1 out of range (2..$((ncg * ipg - 1)))" \
		"$B/ino-1.img" stat /etc/boot.conf
	expect_error "ffs-$n-free-inode" \
		"ffs: /etc/boot.conf: inode $conf is not in use (mode 0) (size $(stat -c %s "$SRC"/etc/boot.conf))" \
		"$B/free-inode.img" stat /etc/boot.conf
	# A hole in a directory reads as zeros: a record of length 0.
	expect_error "ffs-$n-dir-hole" \
		"ffs: /etc/boot.conf: directory inode $etc: bad record length (reclen 0 at byte 0)" \
		"$B/dir-hole.img" stat /etc/boot.conf
	expect_error "ffs-$n-symlink-long" \
		"ffs: /etc/slow: symbolic link inode $slow: target of 5000 bytes empty or too long" \
		"$B/symlink-long.img" stat /etc/slow
	rm -rf "$B"
}

# Where the superblock is: 65536 (an FFS2 with 64 KiB blocks keeps a copy
# there: the primary at 8192 is wiped), 0 (moved into the boot area), and
# an FFS1 copy at 65536 that must be ignored as OpenBSD's kernel does.
test_sbloc() {
	local b
	make_image v2b64 2 65536 8192 || { echo "not ok ffs-sb-65536: makefs failed"; return; }
	make_image v1b64 1 65536 8192 || { echo "not ok ffs-sb-ufs1-65536: makefs failed"; return; }
	dd if=/dev/zero of="$T/v2b64.img" bs=8192 seek=1 count=1 conv=notrunc status=none
	got=$(probe_stat "$T/v2b64.img" stat /bsd /etc/boot.conf)
	[ "$got" = "$(grep -E '^/(etc/boot.conf|bsd) ' "$T/want")" ]
	check ffs-sb-65536 $? "$got"
	dd if=/dev/zero of="$T/v1b64.img" bs=8192 seek=1 count=1 conv=notrunc status=none
	expect_error ffs-sb-ufs1-65536-ignored \
		"ffs: partition at LBA 0: no FFS superblock at byte 65536, 8192, 0 or 262144" \
		"$T/v1b64.img" mount
	for v in 1 2; do
		b=$T/v${v}-16k.img
		cp "$b" "$T/sb0.img"
		dd if="$b" of="$T/sb0.img" bs=8192 skip=1 count=1 conv=notrunc status=none
		dd if=/dev/zero of="$T/sb0.img" bs=8192 seek=1 count=1 conv=notrunc status=none
		got=$(probe_stat "$T/sb0.img" stat /etc/boot.conf)
		[ "$got" = "$(grep -E '^/etc/boot.conf ' "$T/want")" ]
		check "ffs-v$v-sb-0" $? "$got"
	done
	rm -f "$T"/v*b64.img "$T/sb0.img"
}

make_tree
expected >"$T/want"
for cfg in v1-16k:1:16384:2048 v2-16k:2:16384:2048 v1-4k:1:4096:512 v2-4k:2:4096:512; do
	IFS=: read -r n v bs fs <<<"$cfg"
	if ! make_image "$n" "$v" "$bs" "$fs"; then
		echo "not ok ffs-$n-makefs: $(tail -1 "$T/$n.makefs.log")"
		continue
	fi
	test_image "$n"
	test_triple "$n"
done
# The small tree: /etc, /usr and /a of the big one, owners kept.
mkdir -p "$T/small"
cp -a "$SRC/etc" "$SRC/usr" "$SRC/a" "$T/small/"
for v in 1 2; do
	if SRC=$T/small make_image "v$v-small" "$v" 16384 2048; then
		test_broken "$v"
	else
		echo "not ok ffs-v$v-small-makefs: $(tail -1 "$T/v$v-small.makefs.log")"
	fi
done
test_sbloc
