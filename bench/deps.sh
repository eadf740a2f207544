#!/usr/bin/env bash
# Debian packages only `make bench` needs (the Linux corpus), kept out of
# mk/deps.sh so `make test` does not pull a kernel source tree.
set -euo pipefail
pkgs=(linux-source-6.1 bc flex bison libssl-dev libelf-dev xz-utils)
missing=()
for p in "${pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "bench deps: installing ${missing[*]}" >&2
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
