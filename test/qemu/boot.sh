#!/usr/bin/env bash
# Boots a disk image once under QEMU (TCG) and reports how the guest ended.
#
#   boot.sh [options] IMAGE
#     -f, --firmware uefi|bios  OVMF (default) or SeaBIOS
#     -l, --log FILE            serial log (default: IMAGE.FIRMWARE.log)
#     -t, --timeout SECONDS     kill QEMU after this long (default 120)
#     --rng                     add -device virtio-rng-pci
#     --cpu MODEL               -cpu MODEL (default: QEMU's default CPU)
#     --copy                    boot a private copy of IMAGE (parallel boots
#                               of one image) and report whether it changed
#     --console                 serial on this terminal too (make run)
#     --send PATTERN=KEYS       type KEYS on the serial line once PATTERN
#                               (repeatable: in order, each after the last)
#                               shows in the guest's output (boot prompt)
#     --until REGEX             stop QEMU once the serial log matches REGEX
#                               (a kernel that waits, e.g. at `root device:`)
#     --mem MB, --smp N         guest memory (default QEMU_MEM or 256), CPUs
#     -- ARGS                   extra QEMU arguments
#
# Prints one line:  boot: exit=0x10 status=33 seconds=5 disk=unchanged log=FILE
# (exit= is the isa-debug-exit value, "reached" when --until matched (exit
# status 0), "timeout", "firmware-gave-up" when
# OVMF fell back to its shell or SeaBIOS found nothing to boot, or "none"
# when QEMU ended without any of these; disk= only with --copy). The exit status is 0 when the
# guest reported pass (0x10), 1 for fail (0x11), 124 for a timeout and 2
# for anything else. OVMF's variable store is a private copy per run.
set -uo pipefail

OVMF_CODE=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
QEMU=${QEMU:-qemu-system-x86_64}

firmware=uefi log='' limit=120 rng=0 cpu='' copy=0 console=0 send=() until=''
mem=${QEMU_MEM:-256} smp=1
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	-f | --firmware) firmware=$2; shift ;;
	-l | --log) log=$2; shift ;;
	-t | --timeout) limit=$2; shift ;;
	--rng) rng=1 ;;
	--cpu) cpu=$2; shift ;;
	--copy) copy=1 ;;
	--console) console=1 ;;
	--send) send+=("${2%%=*}" "${2#*=}"); shift ;;
	--until) until=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--) shift; extra=("${@:1:$#-1}"); set -- "${@:$#}"; break ;;
	-*) echo "boot.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
image=$1
[ -r "$image" ] || { echo "boot.sh: $image: not readable" >&2; exit 2; }
[ -n "$log" ] || log=$image.$firmware.log

work=$(mktemp -d "${TMPDIR:-/tmp}/relinkboot-qemu.XXXXXX")
trap 'rm -rf "$work"' EXIT

args=(-accel tcg -machine q35 -m "$mem" -smp "$smp" -no-reboot -net none
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)
[ -z "$cpu" ] || args+=(-cpu "$cpu")
[ "$rng" = 0 ] || args+=(-device virtio-rng-pci)
case $firmware in
uefi)
	[ -r "$OVMF_CODE" ] && [ -r "$OVMF_VARS" ] || { echo "boot.sh: OVMF not found" >&2; exit 2; }
	cp "$OVMF_VARS" "$work/vars.fd"
	args+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE"
	       -drive "if=pflash,format=raw,unit=1,file=$work/vars.fd") ;;
bios) ;; # QEMU's default -bios is SeaBIOS
*) echo "boot.sh: firmware must be uefi or bios" >&2; exit 2 ;;
esac

disk=$image
if [ "$copy" = 1 ]; then
	disk=$work/disk.img
	cp --sparse=always "$image" "$disk"
	before=$(sha256sum <"$disk")
fi
args+=(-drive "format=raw,file=$disk")

stopped=0
stop_re=${BOOT_STOP_RE:-'EFI Internal Shell|UEFI Interactive Shell|No bootable device'}
: >"$log"
start=$(date +%s.%N)
if [ "$console" = 1 ]; then
	# Serial (and the QEMU monitor, Ctrl-A) on the terminal, logged too.
	timeout -k 5 "$limit" "$QEMU" "${args[@]}" -nographic \
		-chardev "stdio,id=s0,mux=on,signal=on,logfile=$log" \
		-serial chardev:s0 -mon chardev=s0 "${extra[@]}"
	status=$?
else
	serial=(-serial "file:$log")
	if [ ${#send[@]} -gt 0 ]; then
		# A socket instead of a file, so the client can type; QEMU
		# waits for it before starting the guest, and still logs.
		serial=(-chardev "socket,id=s0,path=$work/serial.sock,server=on,wait=on,logfile=$log"
			-serial chardev:s0)
		python3 "$(dirname "$0")/serial-send.py" "$work/serial.sock" \
			"${send[@]}" >"$work/send.out" 2>&1 &
	fi
	timeout -k 5 "$limit" "$QEMU" "${args[@]}" -nographic -monitor none \
		"${serial[@]}" "${extra[@]}" </dev/null >"$work/qemu.out" 2>&1 &
	pid=$!
	# The firmware giving up (OVMF's shell, SeaBIOS without a boot disk)
	# means the boot failed: stop now instead of waiting for the timeout.
	while kill -0 "$pid" 2>/dev/null; do
		if grep -aEq "$stop_re" "$log"; then
			stopped=1
			kill "$pid" 2>/dev/null
			break
		fi
		if [ -n "$until" ] && grep -aEq -- "$until" "$log"; then
			stopped=2
			kill "$pid" 2>/dev/null
			break
		fi
		sleep 0.5
	done
	wait "$pid"
	status=$?
fi
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

if [ "$stopped" = 1 ]; then
	code=firmware-gave-up rc=2
elif [ "$stopped" = 2 ]; then
	code=reached rc=0
else case $status in
124 | 137) code=timeout; rc=124 ;;
*)
	if [ $((status & 1)) -eq 1 ] && [ "$status" -gt 1 ]; then
		code=$(printf '0x%02x' $((status >> 1)))
	else
		code=none
	fi
	case $code in 0x10) rc=0 ;; 0x11) rc=1 ;; *) rc=2 ;; esac ;;
esac
fi
line="boot: exit=$code status=$status seconds=$secs"
if [ "$copy" = 1 ]; then
	[ "$(sha256sum <"$disk")" = "$before" ] && line+=" disk=unchanged" || line+=" disk=CHANGED"
fi
echo "$line log=$log"
if [ "$rc" = 2 ] && [ -s "$work/qemu.out" ]; then
	sed 's/^/boot: qemu: /' "$work/qemu.out" | head -n 5 >&2
fi
exit $rc
