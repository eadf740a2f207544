#!/usr/bin/env bash
# Installing relinkboot (issue 30): the three commands' --help, -h,
# --version and bad-command behaviour, `make install` / `make uninstall`
# with DESTDIR, and `make deb` (contents, a scratch-root install, lintian).
#
#   install-tests.sh   (run from the source tree, B = the build directory)
set -u
B=${B:-build}
B=$(cd "$B" && pwd)
SRC=$(pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/relinkboot-install-test.XXXXXX")
trap 'rm -rf "$W"' EXIT
# A make started from this test must not join the parent make's jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
VERSION=$(sed -n 's/^#define RELINKBOOT_VERSION "\(.*\)"$/\1/p' tools/version.h)

ok() { echo "ok $1"; }
not_ok() { echo "not ok $1: $2"; }
report() { if [ -z "$2" ]; then ok "$1"; else not_ok "$1" "$2"; fi; }

# The files `make install PREFIX=P` places (README "Installing" lists them).
expected_files() { # PREFIX MANSUFFIX
	local p=$1 z=$2
	printf '%s\n' "$p/bin/linkkit" "$p/bin/relinkboot-mkimage" "$p/sbin/relinkboot-install" \
		"$p/share/man/man1/linkkit.1$z" "$p/share/man/man1/relinkboot-mkimage.1$z" \
		"$p/share/man/man8/relinkboot-install.8$z" "$p/share/relinkboot/BOOTX64.EFI" \
		"$p/share/relinkboot/mbr.bin" "$p/share/relinkboot/stage.bin"
	[ ! -e "$B/efi/BOOTX64.signed.EFI" ] || echo "$p/share/relinkboot/BOOTX64.signed.EFI"
}

# ---- --help, -h, --version, bad commands ----

# cli_check CMD...: --help and -h print the usage on stdout (exit 0),
# --version the release, a bad command the usage on stderr (exit 2).
cli_check() {
	local out err rc
	for h in --help -h; do
		out=$("$@" "$h" 2>"$W/err") rc=$?
		[ $rc -eq 0 ] || { echo "$h exited $rc"; return; }
		[ ! -s "$W/err" ] || { echo "$h wrote to stderr: $(head -n1 "$W/err")"; return; }
		grep -q -- '--version' <<<"$out" || { echo "$h: no usage on stdout"; return; }
	done
	out=$("$@" --version 2>&1) rc=$?
	[ $rc -eq 0 ] && [ "${out##* }" = "$VERSION" ] || { echo "--version: '$out' (exit $rc), want $VERSION"; return; }
	out=$("$@" no-such-command 2>"$W/err") rc=$?
	err=$(cat "$W/err")
	[ $rc -eq 2 ] || { echo "a bad command exited $rc, want 2"; return; }
	[ -z "$out" ] || { echo "a bad command wrote to stdout: ${out%%$'\n'*}"; return; }
	grep -q -- '--version' <<<"$err" || echo "a bad command: no usage on stderr"
}

# Every command form in linkkit(1)'s synopsis is in `linkkit --help`.
linkkit_forms() {
	local help cmds c
	help=$("$B/tools/linkkit" --help)
	cmds=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh/s/^\.Cm \([a-z-]*\).*/\1/p' docs/linkkit.1 | sort -u)
	[ -n "$cmds" ] || { echo "no .Cm commands in docs/linkkit.1"; return; }
	for c in $cmds; do
		grep -q "linkkit $c " <<<"$help" || { echo "usage lacks 'linkkit $c'"; return; }
	done
	grep -q -- '--openbsd' <<<"$help" || echo "usage lacks create --openbsd"
}

report cli-linkkit "$(cli_check "$B/tools/linkkit")"
report cli-linkkit-forms "$(linkkit_forms)"
report cli-mkimage "$(cli_check tools/mkimage.sh)"
report cli-relinkboot-install "$(LINKKIT=$B/tools/linkkit cli_check tools/relinkboot-install)"

# Every option the install command parses is in its usage and its manual.
install_opts() {
	local o help
	help=$(tools/relinkboot-install --help)
	for o in $(grep -o -- '--[a-z][a-z-]*)' tools/relinkboot-install | tr -d ')' | sort -u) \
		$(grep -Eo -- '--[a-z][a-z-]* \|' tools/relinkboot-install | tr -d ' |' | sort -u); do
		grep -q -- "$o" <<<"$help" || { echo "usage lacks $o"; return; }
		grep -q -- "Fl ${o#-}" docs/relinkboot-install.8 || { echo "manual lacks $o"; return; }
	done
}
report cli-relinkboot-install-options "$(install_opts)"

# Manual pages format without warnings.
man_check() {
	local m w
	for m in docs/linkkit.1 docs/relinkboot-mkimage.1 docs/relinkboot-install.8; do
		[ -r "$m" ] || { echo "$m missing"; return; }
		w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$m" 2>&1 >/dev/null)
		[ -z "$w" ] || { echo "$m: $(head -n1 <<<"$w")"; return; }
	done
}
if command -v man >/dev/null; then
	report man-pages "$(man_check)"
else
	echo "skip man-pages: no man(1) to format them"
fi

# ---- make install / make uninstall ----

files_under() { (cd "$1" && find . ! -type d | sed 's|^\.||' | sort); }

make_install() {
	local d=$W/destdir diff
	make -s -C "$SRC" B="$B" install DESTDIR="$d" PREFIX=/usr >"$W/make.log" 2>&1 ||
		{ echo "make install failed: $(tail -n1 "$W/make.log")"; return; }
	diff=$(diff <(expected_files /usr '' | sort) <(files_under "$d") | grep '^[<>]')
	[ -z "$diff" ] || { echo "file list differs: $(tr '\n' ' ' <<<"$diff")"; return; }
	"$d/usr/bin/linkkit" --version | grep -q "$VERSION" || { echo "installed linkkit --version fails"; return; }
	grep -q "^version=$VERSION\$" "$d/usr/sbin/relinkboot-install" || { echo "relinkboot-install: version not filled in"; return; }
	"$d/usr/bin/relinkboot-mkimage" --help | grep -q 'relinkboot-mkimage create' ||
		{ echo "relinkboot-mkimage --help does not name itself"; return; }
	cmp -s "$d/usr/share/relinkboot/BOOTX64.EFI" "$B/efi/BOOTX64.EFI" || echo "BOOTX64.EFI differs from the build's"
}
report make-install "$(make_install)"

make_uninstall() {
	local left
	make -s -C "$SRC" B="$B" uninstall DESTDIR="$W/destdir" PREFIX=/usr >"$W/make.log" 2>&1 ||
		{ echo "make uninstall failed: $(tail -n1 "$W/make.log")"; return; }
	left=$(files_under "$W/destdir")
	[ -z "$left" ] || echo "left behind: $(tr '\n' ' ' <<<"$left")"
}
report make-uninstall "$(make_uninstall)"

# ---- make deb ----

DEB=$B/deb/relinkboot_${VERSION}_$(dpkg --print-architecture).deb
make_deb() {
	local r=$W/debroot diff dep
	make -s -C "$SRC" B="$B" deb >"$W/deb.log" 2>&1 || { echo "make deb failed: $(tail -n1 "$W/deb.log")"; return; }
	[ -r "$DEB" ] || { echo "no $DEB"; return; }
	dpkg-deb -x "$DEB" "$r" || { echo "dpkg-deb -x failed"; return; }
	diff=$(diff <({ expected_files /usr .gz; echo /usr/share/doc/relinkboot/copyright
		echo /usr/share/doc/relinkboot/changelog.gz; } | sort) <(files_under "$r") | grep '^[<>]')
	[ -z "$diff" ] || { echo "package contents differ: $(tr '\n' ' ' <<<"$diff")"; return; }
	"$r/usr/bin/linkkit" --version | grep -q "$VERSION" || { echo "the package's linkkit --version fails"; return; }
	"$r/usr/sbin/relinkboot-install" --version | grep -q "$VERSION" ||
		{ echo "the package's relinkboot-install --version fails"; return; }
	dep=$(dpkg-deb -f "$DEB" Depends)
	for lib in libelf1 zlib1g libdeflate0 libc6; do
		grep -q "$lib" <<<"$dep" || { echo "Depends lacks $lib: $dep"; return; }
	done
	[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ] || echo "Version is not $VERSION"
}
report deb-contents "$(make_deb)"

lintian_check() {
	local out
	out=$(lintian --tag-display-limit 0 "$DEB" 2>&1)
	out=$(grep -E '^[EW]: ' <<<"$out")
	[ -z "$out" ] || echo "$(grep -c . <<<"$out") lintian errors/warnings: $(head -n1 <<<"$out")"
}
if ! command -v lintian >/dev/null; then
	echo "skip deb-lintian: lintian is not installed (mk/deps.sh installs it)"
elif [ ! -r "$DEB" ]; then
	not_ok deb-lintian "no package to check"
else
	report deb-lintian "$(lintian_check)"
fi
