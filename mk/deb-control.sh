#!/bin/sh
# shellcheck disable=SC3043 # local: dash and bash have it
# deb-control.sh ROOT VERSION ARCH MAINTAINER: the Debian metadata of the
# package tree `make deb` built under ROOT (mk/install.mk): DEBIAN/control
# with the shared-library dependencies dpkg-shlibdeps finds in linkkit,
# DEBIAN/md5sums, and the copyright and changelog Debian policy asks for.
set -eu
root=$(cd "$1" && pwd) version=$2 arch=$3 maint=$4
doc=$root/usr/share/doc/relinkboot
# Dates from the last commit, so two builds of one tree are the same.
stamp=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

# dpkg-shlibdeps wants a source tree: a scratch debian/control is enough.
shlibs() {
	local t
	t=$(mktemp -d)
	mkdir "$t/debian"
	printf 'Source: relinkboot\n\nPackage: relinkboot\nArchitecture: any\n' >"$t/debian/control"
	(cd "$t" && dpkg-shlibdeps -O "$root/usr/bin/linkkit") |
		sed -n 's/^shlibs:Depends=//p'
	rm -rf "$t"
}

copyright() {
	cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: relinkboot
Comment: Built from the relinkboot source tree with \`make deb\`.

Files: *
Copyright: $(date -u -d @"$stamp" +%Y) the relinkboot authors
License: other
 The relinkboot source tree carries no license statement yet; until it
 does, this package may be used as the authors allow.
EOF
}

changelog() {
	cat <<EOF
relinkboot ($version) unstable; urgency=medium

  * Package made by \`make deb\` from the relinkboot source tree.

 -- $maint  $(date -R -u -d @"$stamp")
EOF
}

control() {
	cat <<EOF
Package: relinkboot
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $(shlibs)
Recommends: mtools, gdisk, dosfstools
Suggests: efibootmgr, signify-openbsd
Section: admin
Priority: optional
Description: boot stage that relinks the kernel at every boot
 relinkboot moves OpenBSD's kernel address randomized link (KARL) into
 the boot loader: a UEFI or BIOS stage reads a link kit made by linkkit,
 links the kernel in memory with a new random object order and random
 gaps, and boots it, or a stored prelinked fallback kernel when that
 fails.
 .
 This package holds linkkit, relinkboot-install (puts the stage, kit and
 fallback on a mounted EFI system partition and updates them atomically),
 relinkboot-mkimage (disk images without root) and the stage binaries.
EOF
}

copyright >"$doc/copyright"
changelog | gzip -9n >"$doc/changelog.gz"
chmod 644 "$doc/copyright" "$doc/changelog.gz"
control >"$root/DEBIAN/control"
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
