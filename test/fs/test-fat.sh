#!/usr/bin/env bash
# The FAT reader (linkkit/fs/fat.c, lk_fs_fat) and the ESP search over
# the partition walker (linkkit/fs/part.c), through test/fs/fat_probe:
# builds FAT12/16/32 ESPs with mkfs.fat + mtools inside GPT (and MBR)
# disks, reads files back (whole and in ranges) and compares them, then
# corrupts the images and expects one clear error line and no hang.
#
# usage: test-fat.sh PROBE    (PROBE: $(B)/test/fs/fat_probe)
set -u
PROBE=${1:?usage: test-fat.sh FAT_PROBE}
PATH=$PATH:/usr/sbin:/sbin
export MTOOLS_SKIP_CHECK=1
T=$(mktemp -d /tmp/stand-fat.XXXXXX)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
notok() { echo "not ok $1: $2"; }

# poke FILE OFFSET STRUCT-FORMAT VALUE: overwrite bytes in place.
poke() {
	python3 -c 'import struct,sys
f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); f.write(struct.pack(sys.argv[3], int(sys.argv[4],0)))' "$@"
}

# mkesp OUT FATBITS MIB SCHEME(gpt|mbr): an image with files from $T/src.
mkesp() {
	local out=$1 bits=$2 mib=$3 scheme=$4 part=$T/part.img
	rm -f "$part" "$out"
	local spc=1; [ "$bits" = 12 ] && spc=4  # FAT12 needs < 4085 clusters
	mkfs.fat -C -F "$bits" -s $spc -n ESP "$part" $((mib * 1024)) >/dev/null || return 1
	mmd -i "$part" ::/EFI ::/EFI/BOOT ::/RELINK ::/RELINK/SUB || return 1
	mcopy -i "$part" "$T/src/cfg" ::/EFI/BOOT/RELINK.CFG || return 1
	mcopy -i "$part" "$T/src/kit" ::/RELINK/KERNEL.KIT || return 1
	mcopy -i "$part" "$T/src/a" ::/RELINK/A.BIN
	mcopy -i "$part" "$T/src/b" ::/RELINK/B.BIN
	mcopy -i "$part" "$T/src/c" ::/RELINK/C.BIN
	mcopy -i "$part" "$T/src/empty" ::/RELINK/EMPTY.BIN
	mdel -i "$part" ::/RELINK/B.BIN     # leaves a hole: FRAG.BIN is split
	mcopy -i "$part" "$T/src/frag" ::/RELINK/FRAG.BIN || return 1
	mcopy -i "$part" "$T/src/a" ::/RELINK/SUB/DEEP.TXT || return 1
	truncate -s $(((mib + 2) * 1024 * 1024)) "$out"
	if [ "$scheme" = gpt ]; then
		sgdisk -o -n 1:2048:+${mib}M -t 1:ef00 "$out" >/dev/null 2>&1 || return 1
	else
		# One MBR entry, type 0x0E (FAT16 LBA), no GPT at all.
		python3 -c 'import struct,sys
f=open(sys.argv[1],"r+b"); f.seek(446)
f.write(struct.pack("<BBBBBBBBII",0,0,2,0,0x0e,0xfe,0xff,0xff,2048,int(sys.argv[2])*2048))
f.seek(510); f.write(b"\x55\xaa")' "$out" "$mib"
	fi
	dd if="$part" of="$out" bs=1M seek=1 conv=notrunc status=none
}

# expect_read NAME IMG PATH SRCFILE
expect_read() {
	if timeout 20 "$PROBE" "$2" "$3" "$T/out" 2>"$T/err" && cmp -s "$T/out" "$4"; then
		ok "$1"
	else
		notok "$1" "$(head -n 2 "$T/err" | tr '\n' ' ')"
	fi
}

# expect_range NAME IMG PATH OFF LEN SRCFILE: LEN bytes at OFF.
expect_range() {
	tail -c +$(($4 + 1)) "$6" | head -c "$5" >"$T/want"
	if timeout 20 "$PROBE" "$2" "$3" "$T/out" "$4" "$5" 2>"$T/err" &&
		cmp -s "$T/out" "$T/want"; then
		ok "$1"
	else
		notok "$1" "$(head -n 2 "$T/err" | tr '\n' ' ')"
	fi
}

# expect_error NAME IMG PATH PATTERN [OFF LEN]: exit 1, one error line
# matching.
expect_error() {
	timeout 20 "$PROBE" "$2" "$3" "$T/out" "${@:5}" 2>"$T/err"
	local rc=$?
	if [ $rc -eq 1 ] && head -n 1 "$T/err" | grep -q -- "$4"; then
		ok "$1"
	elif [ $rc -eq 124 ]; then
		notok "$1" "hung (timeout)"
	else
		notok "$1" "rc $rc: $(head -n 2 "$T/err" | tr '\n' ' ')"
	fi
}

# gptfix IMG: recomputes the primary GPT's entry-array and header CRCs
# (so a test reaches the check behind them).
gptfix() {
	python3 -c 'import struct,sys,zlib
f=open(sys.argv[1],"r+b"); f.seek(512); h=bytearray(f.read(512))
tab,n,esz=struct.unpack_from("<QII",h,72)
f.seek(tab*512); crc=zlib.crc32(f.read(n*esz))
struct.pack_into("<I",h,88,crc); struct.pack_into("<I",h,16,0)
hs=struct.unpack_from("<I",h,12)[0]
struct.pack_into("<I",h,16,zlib.crc32(bytes(h[:hs])))
f.seek(512); f.write(h)' "$1"
}

info() { "$PROBE" "$1" "$2" --info 2>/dev/null; }
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

mkdir -p "$T/src"
printf 'kit = \\RELINK\\KERNEL.KIT\nverbose = 0\n' >"$T/src/cfg"
head -c 307201 /dev/urandom >"$T/src/kit"    # many clusters, odd tail
head -c 10240 /dev/urandom >"$T/src/a"
head -c 10240 /dev/urandom >"$T/src/b"
head -c 10240 /dev/urandom >"$T/src/c"
head -c 70001 /dev/urandom >"$T/src/frag"
: >"$T/src/empty"

for bits in 12 16 32; do
	case $bits in 12) mib=3 ;; 16) mib=20 ;; 32) mib=40 ;; esac
	img=$T/fat$bits.img
	if ! mkesp "$img" $bits $mib gpt; then
		notok "fat$bits-build" "could not build the image"
		continue
	fi
	t=$(info "$img" '\RELINK\KERNEL.KIT' | field type)
	[ "$t" = "$bits" ] && ok "fat$bits-type" || notok "fat$bits-type" "reader says FAT$t"
	expect_read "fat$bits-config" "$img" '\EFI\BOOT\RELINK.CFG' "$T/src/cfg"
	expect_read "fat$bits-kit" "$img" '\RELINK\KERNEL.KIT' "$T/src/kit"
	expect_read "fat$bits-fragmented" "$img" '/RELINK/FRAG.BIN' "$T/src/frag"
	expect_read "fat$bits-lowercase" "$img" 'relink/sub/deep.txt' "$T/src/a"
	expect_read "fat$bits-empty" "$img" '\RELINK\EMPTY.BIN' "$T/src/empty"
	expect_error "fat$bits-missing" "$img" '\RELINK\NOPE.KIT' 'NOPE.KIT: file not found'
	expect_error "fat$bits-deleted" "$img" '\RELINK\B.BIN' 'B.BIN: file not found'
	expect_error "fat$bits-not-83" "$img" '\RELINK\KERNEL.KITX' 'not a valid 8.3'
	expect_error "fat$bits-dir" "$img" '\RELINK' 'is a directory'
	expect_error "fat$bits-file-as-dir" "$img" '\RELINK\A.BIN\X' 'not a directory'
	# Ranges: an unaligned head and tail, to the end of the file, across
	# the hole of the fragmented file, and past the end.
	expect_range "fat$bits-range" "$img" '\RELINK\KERNEL.KIT' 5000 100000 "$T/src/kit"
	expect_range "fat$bits-range-to-end" "$img" '\RELINK\KERNEL.KIT' 300000 7201 "$T/src/kit"
	expect_range "fat$bits-range-fragmented" "$img" '\RELINK\FRAG.BIN' 1 70000 "$T/src/frag"
	expect_range "fat$bits-range-empty" "$img" '\RELINK\KERNEL.KIT' 307201 0 "$T/src/kit"
	expect_error "fat$bits-range-past-end" "$img" '\RELINK\KERNEL.KIT' 'beyond the size' 307000 1000
done

# An MBR-only disk (no GPT): the fallback partition search.
if mkesp "$T/mbr.img" 16 20 mbr; then
	expect_read mbr-fallback "$T/mbr.img" '\RELINK\KERNEL.KIT' "$T/src/kit"
else
	notok mbr-fallback "could not build the image"
fi

# Corruptions, each on a fresh copy.
for bits in 16 32; do
	img=$T/fat$bits.img
	[ -f "$img" ] || continue
	w=$((bits / 8)); fmt='<H'; [ $bits = 32 ] && fmt='<I'
	i=$(info "$img" '\RELINK\KERNEL.KIT')
	c=$(echo "$i" | field cluster); fat=$(echo "$i" | field fat)
	lba=$(echo "$i" | field lba)
	big=0xfff0 eoc=0xfff8
	[ $bits = 32 ] && big=0x0ffffff0 eoc=0x0ffffff8   # big: beyond the last cluster

	cp "$img" "$T/x.img"; poke "$T/x.img" $((fat + (c + 1) * w)) "$fmt" $((c + 1))
	expect_error "fat$bits-chain-loop" "$T/x.img" '\RELINK\KERNEL.KIT' 'corrupt FAT: chain longer'
	expect_error "fat$bits-chain-loop-range" "$T/x.img" '\RELINK\KERNEL.KIT' 'corrupt FAT: chain longer' 307101 100
	cp "$img" "$T/x.img"; poke "$T/x.img" $((fat + c * w)) "$fmt" 0
	expect_error "fat$bits-chain-free" "$T/x.img" '\RELINK\KERNEL.KIT' 'links to 0'
	cp "$img" "$T/x.img"; poke "$T/x.img" $((fat + c * w)) "$fmt" $big
	expect_error "fat$bits-chain-range" "$T/x.img" '\RELINK\KERNEL.KIT' 'corrupt FAT'
	cp "$img" "$T/x.img"; poke "$T/x.img" $((fat + c * w)) "$fmt" $eoc
	expect_error "fat$bits-chain-short" "$T/x.img" '\RELINK\KERNEL.KIT' 'chain ends before size'
	if [ $bits = 32 ]; then
		# Root directory chain looping on itself: the lookup must end.
		root=$(python3 -c 'import struct,sys
f=open(sys.argv[1],"rb"); f.seek(int(sys.argv[2])*512+44); print(struct.unpack("<I",f.read(4))[0])' "$img" "$lba")
		data=$(echo "$i" | field data)
		cp "$img" "$T/x.img"; poke "$T/x.img" $((fat + root * 4)) '<I' "$root"
		# Mark the free slots deleted so the scan must follow the chain.
		for e in $(seq 3 15); do
			poke "$T/x.img" $((data + (root - 2) * 512 + e * 32)) '<B' 0xe5
		done
		expect_error fat32-dir-loop "$T/x.img" '\NOPE.BIN' 'corrupt directory chain'
		# Mirroring off, FAT 1 active: FAT 0 is stale and must be ignored.
		cp "$img" "$T/x.img"; poke "$T/x.img" $((lba * 512 + 40)) '<H' 0x81
		poke "$T/x.img" $((fat + c * 4)) '<I' 0
		expect_read fat32-active-fat "$T/x.img" '\RELINK\KERNEL.KIT' "$T/src/kit"
		cp "$img" "$T/x.img"; poke "$T/x.img" $((lba * 512 + 40)) '<H' 0x85
		expect_error fat32-active-fat-range "$T/x.img" '\RELINK\KERNEL.KIT' 'bad FAT boot sector'
	fi
	cp "$img" "$T/x.img"; poke "$T/x.img" $((lba * 512 + 11)) '<H' 0x300
	expect_error "fat$bits-bad-bps" "$T/x.img" '\RELINK\KERNEL.KIT' 'bad FAT boot sector'
	cp "$img" "$T/x.img"; poke "$T/x.img" $((lba * 512 + 13)) '<B' 3
	expect_error "fat$bits-bad-spc" "$T/x.img" '\RELINK\KERNEL.KIT' 'bad FAT boot sector'
	cp "$img" "$T/x.img"; poke "$T/x.img" $((lba * 512 + 510)) '<H' 0
	expect_error "fat$bits-no-signature" "$T/x.img" '\RELINK\KERNEL.KIT' 'bad FAT boot sector'
done

# Corrupt GPT: entry size that does not tile a sector.
if [ -f "$T/fat16.img" ]; then
	cp "$T/fat16.img" "$T/x.img"; poke "$T/x.img" $((512 + 84)) '<I' 100
	expect_error gpt-header-crc "$T/x.img" '\RELINK\KERNEL.KIT' 'GPT: bad header (CRC'
	gptfix "$T/x.img"
	expect_error gpt-bad-entry-size "$T/x.img" '\RELINK\KERNEL.KIT' 'GPT: bad header (entries'
	cp "$T/fat16.img" "$T/x.img"
	python3 -c 'import struct,sys
f=open(sys.argv[1],"r+b"); f.seek(1024+32); f.write(struct.pack("<QQ",2048,1<<40))' "$T/x.img"
	expect_error gpt-entries-crc "$T/x.img" '\RELINK\KERNEL.KIT' 'GPT: partition entries CRC'
	gptfix "$T/x.img"
	expect_error gpt-esp-beyond-disk "$T/x.img" '\RELINK\KERNEL.KIT' 'ESP entry 0 has bad range'
	cp "$T/fat16.img" "$T/x.img"; dd if=/dev/zero of="$T/x.img" bs=512 seek=2 count=32 conv=notrunc status=none
	gptfix "$T/x.img"
	expect_error gpt-no-esp "$T/x.img" '\RELINK\KERNEL.KIT' 'no EFI system partition'
fi
exit 0
