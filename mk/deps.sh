#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when missing.
# With arguments, installs those packages instead (bench/deps.sh uses this).
set -euo pipefail
pkgs=(make gcc gcc-multilib binutils clang lld libclang-rt-14-dev gnu-efi
      libelf-dev zlib1g-dev libdeflate-dev qemu-system-x86 qemu-user ovmf mtools gdisk dosfstools
      signify-openbsd python3 python3-bcrypt xxd sbsigntool openssl makefs
      dpkg-dev lintian man-db busybox-static b3sum)
[ $# -gt 0 ] && pkgs=("$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
