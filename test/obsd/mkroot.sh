#!/usr/bin/env bash
# mkroot: an OpenBSD root file system image for the userland boot tests,
# made on Debian without root: a staging tree plus an mtree spec (owners,
# modes, device nodes) given to Debian's makefs (NetBSD's).
#
#   mkroot.sh OUT VERSION [options]     VERSION 1 (FFS1) or 2 (FFS2)
#     --init PATH               /sbin/init (0555)
#     --bsd FILE                /bsd (0644)
#     --relink-dir DIR NAME     DIR's files as /usr/share/relink/kernel/NAME
#     --file SRC DEST [MODE [UID]]   any file (MODE octal, default 0644;
#                               UID default 0), e.g. /etc/boot.conf, or
#                               /etc/random.seed 0600
#     --size MIB                a fixed image size (default: the contents
#                               plus 10% free, at least 8 MiB)
#
# Always: /dev/console (char 0,0) and /dev/ksyms (char 50,0) as in
# OpenBSD's amd64 conf.c, the directories OpenBSD's init and tests look
# in, everything owned by uid 0 gid 0 (numbers: Debian has no `wheel`).
# Place the image with `mkimage.sh create --openbsd-duid HEX16
# --openbsd-root OUT`.
set -eu
PATH=$PATH:/usr/sbin:/sbin

die() { echo "mkroot: $*" >&2; exit 1; }
usage() { sed -n '5,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 2 ] || usage
out=$1 version=$2
shift 2
case $version in 1 | 2) ;; *) die "VERSION must be 1 or 2" ;; esac
command -v makefs >/dev/null || die "makefs not found (Debian package makefs)"

tree=$(mktemp -d "${TMPDIR:-/tmp}/mkroot.XXXXXX")
spec=$tree.spec
trap 'rm -rf "$tree" "$spec" "$tree.log"' EXIT
mkdir "$tree/root"
size=''

# Spec lines (mtree -C style, full paths) are written as the tree grows;
# makefs fails on an entry the spec and the tree disagree about.
entry() { # PATH TYPE MODE [UID] [EXTRA]
	echo "./${1#/} type=$2 mode=$3 uid=${4:-0} gid=0${5:+ $5}" >>"$spec"
}
dir() { # PATH: PATH and its missing parents, 0755
	local p=${1#/} sofar=''
	local IFS=/
	for c in $p; do
		sofar+=/$c
		[ -d "$tree/root$sofar" ] && continue
		mkdir "$tree/root$sofar"
		entry "$sofar" dir 0755
	done
}
file() { # SRC DEST MODE UID
	[ -f "$1" ] && [ -r "$1" ] || die "$1: not a readable file"
	[[ $2 == /* ]] && [[ $2 != */ ]] && [[ $2 != *..* ]] || die "$2: not an absolute file path"
	[[ $3 =~ ^[0-7]{3,4}$ ]] || die "$3: not an octal mode"
	[[ $4 =~ ^[0-9]+$ ]] || die "$4: not a numeric uid"
	[ ! -e "$tree/root$2" ] || die "$2 given twice"
	dir "$(dirname "$2")"
	cp "$1" "$tree/root$2"
	entry "$2" file "$3" "$4"
}

# relink_dir DIR DEST: DIR's regular files, in one copy (~2,200 objects
# for GENERIC: a process per file would dominate the run).
relink_dir() {
	local f n=0
	dir "$2"
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		entry "$2/${f##*/}" file 0644
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "$1: no files"
	find "$1" -maxdepth 1 -type f -exec cp -t "$tree/root$2" {} +
}

echo '. type=dir mode=0755 uid=0 gid=0' >"$spec"
dir /dev
dir /sbin
dir /etc
dir /tmp
# Created by makefs from the spec alone (no file in the tree).
entry /dev/console char 0600 0 device=native,0,0
entry /dev/ksyms char 0640 0 device=native,50,0

while [ $# -gt 0 ]; do
	case $1 in
	--init) [ $# -ge 2 ] || usage; file "$2" /sbin/init 0555 0; shift 2 ;;
	--bsd) [ $# -ge 2 ] || usage; file "$2" /bsd 0644 0; shift 2 ;;
	--relink-dir)
		[ $# -ge 3 ] || usage
		[ -d "$2" ] || die "$2: not a directory"
		[[ $3 =~ ^[A-Za-z0-9._-]+$ ]] || die "$3: not a kernel name"
		relink_dir "$2" "/usr/share/relink/kernel/$3"
		shift 3 ;;
	--file)
		[ $# -ge 3 ] || usage
		src=$2 dest=$3 mode=0644 uid=0
		shift 3
		if [ $# -gt 0 ] && [[ $1 =~ ^[0-7]{3,4}$ ]]; then
			mode=$1
			shift
			if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then uid=$1; shift; fi
		fi
		file "$src" "$dest" "$mode" "$uid" ;;
	--size)
		[ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage
		size=$2
		shift 2 ;;
	*) usage ;;
	esac
done

# makefs' own defaults differ from OpenBSD's newfs (-b/-f mean free
# blocks/inodes there): the block and fragment sizes are set here.
opts=(-t ffs -o "version=$version,bsize=16384,fsize=2048" -F "$spec")
if [ -n "$size" ]; then
	opts+=(-s "${size}m")
else
	opts+=(-M 8m -b 10% -f 10%)
fi
rm -f "$out"
makefs "${opts[@]}" "$out" "$tree/root" >"$tree.log" 2>&1 ||
	{ cat "$tree.log" >&2; rm -f "$out"; die "makefs failed"; }
