#!/usr/bin/env bash
# Runs the leak test of one firmware and its controls side by side:
#   uefi: the scan, the negative control, the real-entropy boot, the
#         fallback after a failed link and its negative control, the
#         OpenBSD-protocol kernel relinked, the fallback after an early
#         failure (in the layout), the OpenBSD-protocol fallback loaded
#         over a failed image, and a negative control for each of the two;
#   bios: the same, the mid-link dump and a Linux bzImage as the
#         fallback after a failed link (issue 26).
# Results in the order above (test/qemu/leak-tests.sh prints them).
set -uo pipefail
fw=${1:?usage: leak-run.sh uefi|bios}
here=$(cd "$(dirname "$0")" && pwd)
modes=('' negative entropy fallback fallback-negative obsd early early-negative
       obsd-fallback obsd-fallback-negative)
# linux-fallback: ~20 s (leak-scan's Bloom filter of the 38 MB image);
# under OVMF with a calibration boot first, and its negative control.
[ "$fw" = bios ] && modes+=(midlink linux-fallback)
[ "$fw" = uefi ] && modes+=(linux-fallback linux-fallback-negative)
out=$(mktemp -d "${TMPDIR:-/tmp}/leak-run.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
pids=()
for i in "${!modes[@]}"; do
	"$here/leak-tests.sh" "$fw" ${modes[$i]} >"$out/$i" 2>&1 &
	pids+=($!)
done
for i in "${!modes[@]}"; do
	wait "${pids[$i]}"
	cat "$out/$i"
done
