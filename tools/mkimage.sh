#!/usr/bin/env bash
# mkimage: builds and edits relinkboot disk images without root or loop
# devices (sgdisk for the GPT, mkfs.fat + mtools for the ESP).
#
#   mkimage.sh create -o IMG --efi BOOTX64.EFI --kit KIT --fallback ELF
#                     [--cfg RELINK.CFG] [--mbr MBR.BIN] [--stage STAGE.BIN]
#                     [--seed SEED.BIN] [--esp-mib N] [--fat 32|16]
#                     [--fallback-sig SIG | --fallback-key KEY.sec]
#                     (the fallback's detached signature, stored as
#                     \RELINK\FALLBACK.SIG for signed boots: a ready one, or
#                     made here with `linkkit sign -s KEY.sec`)
#                     [--openbsd-duid HEX16 [--openbsd-dtype N]
#                     [--openbsd-size MIB] [--openbsd-root FFS.IMG]] adds an
#                     OpenBSD partition after the ESP (MIB MiB; default 1, or
#                     what the root needs) whose disklabel has that DUID
#                     (d_type N, default 4 SCSI: sd; 5 ESDI: wd); its `a`
#                     holds FFS.IMG from the partition's sector 64
#                     [--table gpt|mbr] partition table (default gpt; mbr:
#                     FAT32 LBA 0x0c ESP and OpenBSD 0xa6, no GPT)
#   mkimage.sh install-kit IMG KIT   replace \RELINK\KERNEL.KIT atomically
#   mkimage.sh install-fallback IMG ELF [--key KEY.sec | --sig SIG]
#                     the same for \RELINK\FALLBACK.ELF (and FALLBACK.SIG;
#                     required when the image holds one)
#   mkimage.sh put IMG ESPPATH FILE  write FILE to ESPPATH (no checks: tests)
#   mkimage.sh get IMG ESPPATH OUT   copy a file out of the ESP
#   mkimage.sh remove IMG ESPPATH    delete a file from the ESP
#   mkimage.sh ls IMG                list the ESP recursively
#   mkimage.sh check IMG             check GPT, ESP files and the MBR fields
#   mkimage.sh --help | -h | --version
#
# ESPPATH is an ESP path like \RELINK\KERNEL.KIT or /RELINK/KERNEL.KIT.
# Signing runs $LINKKIT (default: linkkit on PATH, else build/tools/linkkit
# next to this script).
# Layout (docs/CONVENTIONS.md): GPT, ESP from LBA 2048, BIOS stage raw at
# LBA 64 with its LBA (u32) at MBR 0x1B0 and sector count (u16) at 0x1B4,
# an optional OpenBSD partition (label at its sector 1) right after the ESP.
set -euo pipefail
export MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0
PATH=$PATH:/usr/sbin:/sbin

ESP_LBA=2048
STAGE_LBA=64
KIT_PATH=/RELINK/KERNEL.KIT
NEW_PATH=/RELINK/KERNEL.NEW
FALLBACK_PATH=/RELINK/FALLBACK.ELF
KIT_MAGIC='4c494e4b4b49541a' # "LINKKIT\x1a"

die() { echo "mkimage: $*" >&2; exit 1; }

usage() { sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# `make install` writes the release here; in the source tree it is read
# from tools/version.h.
version=@VERSION@
case $version in
@*) version=$(sed -n 's/^#define RELINKBOOT_VERSION "\(.*\)"$/\1/p' "$(dirname "$0")/version.h") ;;
esac

SIG_PATH=/RELINK/FALLBACK.SIG

# sign_file KEY FILE OUT: a signify signature of FILE made by `linkkit sign`.
sign_file() {
	local lk=${LINKKIT:-}
	if [ -z "$lk" ]; then
		lk=$(command -v linkkit || echo "$(dirname "$0")/../build/tools/linkkit")
	fi
	[ -x "$lk" ] || die "$lk: no linkkit to sign with (set LINKKIT=path)"
	[ -r "$1" ] || die "$1: not readable"
	# linkkit's own line names the key and the reason.
	"$lk" sign -s "$1" -o "$3" "$2" || exit 1
}

# Normalises \A\B or A/B to ::/A/B for mtools.
esp_path() {
	local p=${1//\\//}
	[ "${p:0:1}" = / ] || p=/$p
	printf '::%s' "$p"
}

# Byte offset of partition 1 (the ESP), read from the GPT.
esp_offset() {
	local img=$1 first
	first=$(sgdisk -i 1 "$img" 2>/dev/null | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
	[ -n "$first" ] || die "$img: no GPT partition 1 (not a relinkboot image?)"
	echo $((first * 512))
}

# mtools "drive" spec for the ESP inside an image.
esp_drive() { printf '%s@@%s' "$1" "$(esp_offset "$1")"; }

esp_exists() { mdir -i "$1" -b "$(esp_path "$2")" >/dev/null 2>&1; }

put_le() { # put_le FILE OFFSET BYTES VALUE: little-endian integer in place
	local f=$1 off=$2 n=$3 v=$4 i hex=
	for ((i = 0; i < n; i++)); do
		hex+=$(printf '\\x%02x' $(((v >> (8 * i)) & 255)))
	done
	printf "$hex" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

get_le() { # get_le FILE OFFSET BYTES
	local v=0 i b
	local -a bytes
	read -r -a bytes < <(od -An -tu1 -j "$2" -N "$3" "$1")
	for ((i = ${#bytes[@]} - 1; i >= 0; i--)); do
		b=${bytes[i]}
		v=$(((v << 8) | b))
	done
	echo "$v"
}

file_magic() { od -An -tx1 -N8 "$1" | tr -d ' \n'; }

# Copies the first 440 bytes of mbr.bin over the MBR boot code, keeping
# the disk signature and the protective partition entry sgdisk wrote.
write_mbr_code() {
	local img=$1 mbr=$2 size
	size=$(stat -c %s "$mbr")
	[ "$size" -ge 440 ] || die "$mbr: $size bytes, need at least 440"
	if [ "$(od -An -tx1 -j $((0x1B0)) -N8 "$mbr" | tr -d ' \n')" != 0000000000000000 ]; then
		echo "mkimage: warning: $mbr uses bytes 0x1B0..0x1B7, overwritten by the stage location" >&2
	fi
	dd if="$mbr" of="$img" bs=440 count=1 conv=notrunc status=none
}

write_stage() {
	local img=$1 stage=$2 size sectors
	size=$(stat -c %s "$stage")
	[ "$size" -gt 0 ] || die "$stage: empty BIOS stage"
	sectors=$(((size + 511) / 512))
	[ $((STAGE_LBA + sectors)) -le $ESP_LBA ] ||
		die "$stage: $sectors sectors at LBA $STAGE_LBA overlap the ESP at LBA $ESP_LBA"
	[ "$sectors" -le 65535 ] || die "$stage: too large for the u16 sector count"
	dd if="$stage" of="$img" bs=512 seek=$STAGE_LBA conv=notrunc status=none
	put_le "$img" $((0x1B0)) 4 $STAGE_LBA
	put_le "$img" $((0x1B4)) 2 "$sectors"
}

# write_label IMG LBA DUID DTYPE PSTART PSIZE TOTAL [ASIZE FSIZE FRAG]: an
# OpenBSD disklabel (sys/sys/disklabel.h, amd64: 16 partitions) in sector
# LBA; partition a starts 64 sectors into the OpenBSD partition and fills
# it, or is ASIZE sectors of an FFS with that fragment size and count
# (--openbsd-root), c is the whole disk; d_checksum makes the XOR of its
# 16-bit words up to the end of the partition table zero.
write_label() {
	local img=$1 lba=$2 duid=$3 dtype=$4 pstart=$5 psize=$6 total=$7
	local asize=${8:-$(($6 - 64))} fsize=${9:-0} frag=${10:-0}
	local -a b=()
	local i sum=0 hex= x
	for ((i = 0; i < 512; i++)); do b[i]=0; done
	setle() { local k; for ((k = 0; k < $2; k++)); do b[$1 + k]=$((($3 >> (8 * k)) & 255)); done; }
	setle 0 4 0x82564557          # d_magic
	setle 4 2 "$dtype"            # d_type
	for ((i = 0; i < 10; i++)); do b[8 + i]=$(printf '%d' "'${DL_NAME:i:1}"); done
	setle 40 4 512                # d_secsize
	setle 44 4 63                 # d_nsectors
	setle 48 4 255                # d_ntracks
	setle 52 4 $((total / (63 * 255) + 1)) # d_ncylinders
	setle 56 4 $((63 * 255))      # d_secpercyl
	setle 60 4 $((total & 0xffffffff)) # d_secperunit
	for ((i = 0; i < 8; i++)); do b[64 + i]=$((16#${duid:2*i:2})); done
	setle 80 4 "$pstart"          # d_bstart
	setle 84 4 $((pstart + psize)) # d_bend
	setle 112 2 $((total >> 32))  # d_secperunith
	setle 114 2 1                 # d_version
	setle 132 4 0x82564557        # d_magic2
	setle 138 2 16                # d_npartitions
	setle 140 4 8192              # d_bbsize
	setle 144 4 65536             # d_sbsize
	setle 148 4 "$asize" && setle 152 4 $((pstart + 64)) # a
	b[160]=7                      # a: FS_BSDFFS
	if [ "$fsize" -gt 0 ]; then   # a: p_fragblock, p_cpg as newfs sets them
		b[161]=$((($(ffs_bit $((fsize * frag))) - 13) << 3 | $(ffs_bit "$frag")))
		setle 162 2 1
	fi
	setle 180 4 $((total & 0xffffffff)) # c: the whole disk
	for ((i = 0; i < 148 + 16 * 16; i += 2)); do sum=$((sum ^ b[i] ^ (b[i + 1] << 8))); done
	setle 136 2 $sum              # d_checksum
	for ((i = 0; i < 512; i++)); do printf -v x '\\x%02x' "${b[i]}"; hex+=$x; done
	printf "$hex" | dd of="$img" bs=512 seek="$lba" conv=notrunc status=none
}
DL_NAME='relinkboot'

# ffs_bit N: ffs(3) of N > 0, the 1-based index of its lowest set bit.
ffs_bit() { local n=$1 i=1; while [ $((n & 1)) -eq 0 ]; do n=$((n >> 1)) i=$((i + 1)); done; echo $i; }

# ffs_geometry IMG: "FSIZE FRAG" of the FFS1 or FFS2 file system in IMG,
# from the superblock at 8192 (FFS1; makefs' FFS2) or 65536 (newfs' FFS2):
# fs_fsize at 52, fs_frag at 56, fs_magic at 1372 (ufs/ffs/fs.h).
ffs_geometry() {
	local img=$1 sb magic fsize frag
	for sb in 8192 65536; do
		magic=$(od -An -tu4 -j $((sb + 1372)) -N4 "$img" 2>/dev/null | tr -d ' ')
		case $magic in $((0x011954)) | $((0x19540119))) ;; *) continue ;; esac
		read -r fsize frag < <(od -An -tu4 -j $((sb + 52)) -N8 "$img")
		[ "$fsize" -ge 512 ] && [ "$frag" -ge 1 ] && [ "$frag" -le 8 ] || return 1
		[ $((fsize & (fsize - 1))) -eq 0 ] && [ $((frag & (frag - 1))) -eq 0 ] || return 1
		echo "$fsize $frag"
		return 0
	done
	return 1
}

# to_mbr IMG ESP_SECTORS FATTYPE OBSD_LBA OBSD_SECTORS TOTAL: replaces the
# GPT (both copies) by an MBR table: the ESP and, if any, OpenBSD's 0xa6.
to_mbr() {
	local img=$1 esp_sectors=$2 typ=$3 olba=$4 osec=$5 total=$6 e
	dd if=/dev/zero of="$img" bs=512 seek=1 count=33 conv=notrunc status=none
	dd if=/dev/zero of="$img" bs=512 seek=$((total - 33)) count=33 conv=notrunc status=none
	dd if=/dev/zero of="$img" bs=1 seek=$((0x1BE)) count=64 conv=notrunc status=none
	mbr_part() { # slot type start size: LBA only, CHS fields saturated
		e=$((0x1BE + 16 * $1))
		printf '\xfe\xff\xff' | dd of="$img" bs=1 seek=$((e + 1)) conv=notrunc status=none
		put_le "$img" $((e + 4)) 1 "$2"
		printf '\xfe\xff\xff' | dd of="$img" bs=1 seek=$((e + 5)) conv=notrunc status=none
		put_le "$img" $((e + 8)) 4 "$3"
		put_le "$img" $((e + 12)) 4 "$4"
	}
	mbr_part 0 "$typ" $ESP_LBA "$esp_sectors"
	put_le "$img" $((0x1BE)) 1 $((0x80)) # active
	[ "$osec" -eq 0 ] || mbr_part 1 $((0xa6)) "$olba" "$osec"
	put_le "$img" 510 2 $((0xaa55))
}

cmd_create() {
	local out='' efi='' kit='' fallback='' cfg='' mbr='' stage='' seed='' esp_mib=64 fat=32 fsig= fkey=
	local duid='' dtype=4 table=gpt osize='' oroot='' geom=''
	while [ $# -gt 0 ]; do
		case $1 in
		-o) out=$2 ;;
		--efi) efi=$2 ;;
		--kit) kit=$2 ;;
		--fallback) fallback=$2 ;;
		--fallback-sig) fsig=$2 ;;
		--fallback-key) fkey=$2 ;;
		--cfg) cfg=$2 ;;
		--mbr) mbr=$2 ;;
		--stage) stage=$2 ;;
		--seed) seed=$2 ;;
		--esp-mib) esp_mib=$2 ;;
		--fat) fat=$2 ;;
		--openbsd-duid) duid=$2 ;;
		--openbsd-dtype) dtype=$2 ;;
		--openbsd-size) osize=$2 ;;
		--openbsd-root) oroot=$2 ;;
		--table) table=$2 ;;
		*) usage ;;
		esac
		shift 2 || usage
	done
	[ -n "$out" ] && [ -n "$efi" ] && [ -n "$kit" ] && [ -n "$fallback" ] || usage
	[ -z "$fsig" ] || [ -z "$fkey" ] || die "--fallback-sig and --fallback-key exclude each other"
	local f
	for f in "$efi" "$kit" "$fallback" ${cfg:+"$cfg"} ${mbr:+"$mbr"} ${stage:+"$stage"} ${seed:+"$seed"} ${fsig:+"$fsig"}; do
		[ -r "$f" ] || die "$f: not readable"
	done
	[ "$(file_magic "$kit")" = $KIT_MAGIC ] || die "$kit: not a link kit (bad magic)"
	case $fat in 16 | 32) ;; *) die "--fat must be 16 or 32" ;; esac
	case $table in gpt | mbr) ;; *) die "--table must be gpt or mbr" ;; esac
	if [ -n "$duid" ]; then
		[[ $duid =~ ^[0-9a-fA-F]{16}$ ]] || die "--openbsd-duid must be 16 hex digits"
		[[ $duid =~ [1-9a-fA-F] ]] || die "--openbsd-duid must not be zero (OpenBSD reads that as none)"
		[[ $dtype =~ ^[0-9]+$ ]] && [ "$dtype" -le 65535 ] || die "--openbsd-dtype must be 0..65535"
	elif [ -n "$osize$oroot" ]; then
		die "--openbsd-size and --openbsd-root need --openbsd-duid"
	fi
	[ -z "$osize" ] || [[ $osize =~ ^[1-9][0-9]{0,6}$ ]] || die "--openbsd-size must be a number of MiB"
	if [ -n "$oroot" ]; then
		[ -r "$oroot" ] || die "$oroot: not readable"
		[ $(($(stat -c %s "$oroot") % 512)) -eq 0 ] || die "$oroot: not a whole number of sectors"
		geom=$(ffs_geometry "$oroot") || die "$oroot: no FFS1/FFS2 superblock"
	fi
	# FAT32 needs >= 65525 clusters: 1-sector clusters from 33 MiB up.
	[ "$fat" = 16 ] || [ "$esp_mib" -ge 34 ] || die "--esp-mib $esp_mib too small for FAT32"

	local tmp esp esp_sectors total
	tmp=$(mktemp "$out.XXXXXX")
	esp=$(mktemp "$out.esp.XXXXXX")
	trap 'rm -f "$tmp" "$esp" "$tmp.sig"' EXIT
	if [ -n "$fkey" ]; then
		sign_file "$fkey" "$fallback" "$tmp.sig"
		fsig=$tmp.sig
	fi
	esp_sectors=$((esp_mib * 2048))
	local obsd_lba=$((ESP_LBA + esp_sectors)) obsd_sectors=0
	[ -z "$duid" ] || obsd_sectors=$((${osize:-1} * 2048))
	local root_sectors=0
	if [ -n "$oroot" ]; then
		# a starts at sector 64 of the partition (label at 1).
		root_sectors=$(($(stat -c %s "$oroot") / 512))
		[ -n "$osize" ] || obsd_sectors=$(((64 + root_sectors + 2047) / 2048 * 2048))
		[ $((64 + root_sectors)) -le "$obsd_sectors" ] ||
			die "$oroot: $root_sectors sectors do not fit in a $osize MiB OpenBSD partition"
	fi
	# Room after the ESP for the backup GPT (33 sectors), rounded to 1 MiB.
	total=$((ESP_LBA + esp_sectors + obsd_sectors + 2048))
	rm -f "$tmp" "$esp"
	truncate -s $((total * 512)) "$tmp"
	sgdisk -o -n 1:$ESP_LBA:+"$esp_sectors" -t 1:ef00 -c 1:ESP "$tmp" >/dev/null ||
		die "$out: sgdisk failed"
	if [ -n "$duid" ]; then
		sgdisk -n 2:$obsd_lba:+$obsd_sectors -t 2:a600 -c 2:OpenBSD "$tmp" >/dev/null ||
			die "$out: sgdisk failed (OpenBSD partition)"
		if [ -n "$oroot" ]; then
			dd if="$oroot" of="$tmp" bs=512 seek=$((obsd_lba + 64)) conv=notrunc,sparse status=none ||
				die "$out: cannot write $oroot"
			# shellcheck disable=SC2086 # geom is "FSIZE FRAG"
			write_label "$tmp" $((obsd_lba + 1)) "${duid,,}" "$dtype" $obsd_lba $obsd_sectors \
				$total $root_sectors $geom
		else
			write_label "$tmp" $((obsd_lba + 1)) "${duid,,}" "$dtype" $obsd_lba $obsd_sectors $total
		fi
	fi
	[ "$(esp_offset "$tmp")" -eq $((ESP_LBA * 512)) ] || die "$out: ESP not at LBA $ESP_LBA"

	local spc=1
	[ "$fat" = 32 ] || spc=4
	mkfs.fat -C -F "$fat" -s $spc -h $ESP_LBA -n RELINKBOOT -i 52454c4b "$esp" \
		$((esp_sectors / 2)) >/dev/null || die "$out: mkfs.fat failed"
	mmd -i "$esp" ::/EFI ::/EFI/BOOT ::/RELINK
	mcopy -i "$esp" "$efi" ::/EFI/BOOT/BOOTX64.EFI
	if [ -n "$cfg" ]; then
		mcopy -i "$esp" "$cfg" ::/EFI/BOOT/RELINK.CFG
	else
		default_cfg | mcopy -i "$esp" - ::/EFI/BOOT/RELINK.CFG
	fi
	mcopy -i "$esp" "$kit" ::$KIT_PATH
	mcopy -i "$esp" "$fallback" ::$FALLBACK_PATH
	[ -z "$fsig" ] || mcopy -i "$esp" "$fsig" ::$SIG_PATH
	[ -z "$seed" ] || mcopy -i "$esp" "$seed" ::/RELINK/SEED.BIN
	dd if="$esp" of="$tmp" bs=1M seek=1 conv=notrunc,sparse status=none
	rm -f "$esp"

	[ -z "$mbr" ] || write_mbr_code "$tmp" "$mbr"
	[ -z "$stage" ] || write_stage "$tmp" "$stage"
	sgdisk -v "$tmp" | grep -q 'No problems found' || die "$out: GPT does not verify"
	if [ "$table" = mbr ]; then
		local typ=$((0x0c))
		[ "$fat" = 32 ] || typ=$((0x0e))
		to_mbr "$tmp" $esp_sectors $typ $obsd_lba $obsd_sectors $total
	fi
	mv -f "$tmp" "$out"
	rm -f "$tmp.sig"
	trap - EXIT
}

default_cfg() {
	cat <<'EOF'
# relinkboot configuration (written by tools/mkimage.sh)
kit = \RELINK\KERNEL.KIT
fallback = \RELINK\FALLBACK.ELF
cmdline = console=com0
protocol = multiboot2
timeout = 0
verbose = 0
EOF
}

# Runs "$@" holding an exclusive lock on the image, so concurrent edits
# of one image (parallel tests, a user) cannot interleave.
with_lock() {
	local img=$1
	shift
	exec 9<"$img"
	flock 9
	"$@"
	exec 9<&-
}

cmd_install_kit() {
	[ $# -eq 2 ] || usage
	local img=$1 kit=$2
	[ -r "$kit" ] || die "$kit: not readable"
	[ "$(file_magic "$kit")" = $KIT_MAGIC ] || die "$kit: not a link kit (bad magic)"
	# The fallback must stay bootable throughout: refuse to touch an image
	# that would be left with neither a kit nor a fallback.
	with_lock "$img" install_locked "$img" "$kit" $KIT_PATH $NEW_PATH $FALLBACK_PATH
}

cmd_install_fallback() {
	[ $# -eq 2 ] || [ $# -eq 4 ] || usage
	local img=$1 elf=$2 sig='' tmp
	[ -r "$elf" ] || die "$elf: not readable"
	[ "$(od -An -tx1 -N5 "$elf" | tr -d ' \n')" = 7f454c4602 ] || die "$elf: not an ELF64 file"
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	case ${3:-} in
	'') ;;
	--key) sign_file "$4" "$elf" "$tmp" && sig=$tmp ;;
	--sig) sig=$4 && { [ -r "$sig" ] || die "$sig: not readable"; } ;;
	*) usage ;;
	esac
	# A signed image keeps booting only with a signature of the new file.
	if [ -z "$sig" ] && esp_exists "$(esp_drive "$img")" $SIG_PATH; then
		die "$img: has ${SIG_PATH//\//\\}; give --key KEY.sec or --sig SIG for the new fallback"
	fi
	with_lock "$img" install_locked "$img" "$elf" $FALLBACK_PATH /RELINK/FALLBACK.NEW $KIT_PATH
	# The fallback is in place; its signature follows (replaced the same way).
	[ -z "$sig" ] ||
		with_lock "$img" install_locked "$img" "$sig" $SIG_PATH /RELINK/FALLBACK.SGN $FALLBACK_PATH
	rm -f "$tmp"
	trap - EXIT
}

# install_locked IMG SRC DEST TMP OTHER: writes SRC as TMP, reads it back,
# renames it over DEST. OTHER (the other bootable file) must exist before
# and after, so a failure at any point leaves something to boot.
install_locked() {
	local img=$1 src=$2 dest=$3 tmp=$4 other=$5 drv
	drv=$(esp_drive "$img")
	esp_exists "$drv" "$other" || die "$img: no ${other//\//\\}; refusing to replace ${dest//\//\\}"
	mdel -i "$drv" "::$tmp" 2>/dev/null || true
	if ! mcopy -i "$drv" "$src" "::$tmp"; then
		mdel -i "$drv" "::$tmp" 2>/dev/null || true
		die "$img: cannot write $tmp (ESP full?); old file kept"
	fi
	if ! mtype -i "$drv" "::$tmp" | cmp -s - "$src"; then
		mdel -i "$drv" "::$tmp" 2>/dev/null || true
		die "$img: $tmp reads back wrong; old file kept"
	fi
	# Only a directory entry changes from here: the new data is complete.
	mren -i "$drv" -D o "::$tmp" "::$dest" 2>/dev/null || {
		mdel -i "$drv" "::$dest" && mren -i "$drv" "::$tmp" "::$dest"
	} || die "$img: rename $tmp -> $dest failed"
	mtype -i "$drv" "::$dest" | cmp -s - "$src" || die "$img: installed $dest reads back wrong"
	esp_exists "$drv" "$other" || die "$img: $other missing after the install"
	echo "mkimage: installed $src as $dest in $img"
}

cmd_put() {
	[ $# -eq 3 ] || usage
	local img=$1 p=$2 f=$3 drv
	[ -r "$f" ] || die "$f: not readable"
	drv=$(esp_drive "$img")
	with_lock "$img" put_dirs "$drv" "$(esp_path "$p")"
	with_lock "$img" mcopy -o -i "$drv" "$f" "$(esp_path "$p")"
}

# put_dirs DRIVE ::/A/B/FILE: makes ::/A and ::/A/B where missing.
put_dirs() {
	local drv=$1 path=${2#::/} dir='::'
	while [ "${path#*/}" != "$path" ]; do
		dir=$dir/${path%%/*}
		path=${path#*/}
		mdir -i "$drv" -b "$dir" >/dev/null 2>&1 || mmd -i "$drv" "$dir" || return
	done
}

cmd_get() {
	[ $# -eq 3 ] || usage
	mcopy -n -i "$(esp_drive "$1")" "$(esp_path "$2")" "$3"
}

cmd_remove() {
	[ $# -eq 2 ] || usage
	local drv
	drv=$(esp_drive "$1")
	with_lock "$1" mdel -i "$drv" "$(esp_path "$2")"
}

cmd_ls() {
	[ $# -eq 1 ] || usage
	mdir -i "$(esp_drive "$1")" -/ -b ::/
}

cmd_check() {
	[ $# -eq 1 ] || usage
	local img=$1 drv p lba n bad=0
	if [ "$(od -An -c -j512 -N8 "$img" | tr -d ' ')" = EFIPART ]; then
		sgdisk -v "$img" | grep -q 'No problems found' || die "$img: GPT does not verify"
		sgdisk -i 1 "$img" | grep -q 'C12A7328-F81F-11D2-BA4B-00A0C93EC93B' || die "$img: partition 1 is not an ESP"
	else # --table mbr: entry 0 is the ESP as FAT32/FAT16 LBA
		case $(get_le "$img" $((0x1C2)) 1) in 12 | 14) ;; *) die "$img: MBR entry 0 is not a FAT LBA partition" ;; esac
	fi
	[ "$(esp_offset "$img")" -eq $((ESP_LBA * 512)) ] || die "$img: ESP does not start at LBA $ESP_LBA"
	drv=$(esp_drive "$img")
	for p in /EFI/BOOT/BOOTX64.EFI /EFI/BOOT/RELINK.CFG $KIT_PATH $FALLBACK_PATH; do
		esp_exists "$drv" "$p" || { echo "mkimage: $img: missing ${p//\//\\}" >&2; bad=1; }
	done
	lba=$(get_le "$img" $((0x1B0)) 4)
	n=$(get_le "$img" $((0x1B4)) 2)
	if [ "$n" -ne 0 ]; then
		[ "$lba" -eq $STAGE_LBA ] && [ $((lba + n)) -le $ESP_LBA ] ||
			{ echo "mkimage: $img: bad stage location LBA $lba count $n" >&2; bad=1; }
	fi
	[ "$bad" -eq 0 ] || exit 1
	echo "mkimage: $img: ok (stage LBA $lba, $n sectors)"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
--help | -h) sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//' ;;
--version) echo "mkimage.sh (relinkboot) $version" ;;
create) cmd_create "$@" ;;
install-kit) cmd_install_kit "$@" ;;
install-fallback) cmd_install_fallback "$@" ;;
put) cmd_put "$@" ;;
get) cmd_get "$@" ;;
remove) cmd_remove "$@" ;;
ls) cmd_ls "$@" ;;
check) cmd_check "$@" ;;
*) usage ;;
esac
