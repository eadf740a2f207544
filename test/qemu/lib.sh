# shellcheck shell=bash
# Shell helpers shared by the test scripts that boot under QEMU or sign
# (test/qemu/*-tests.sh, efi/test-uefi-boot.sh, stand/test-boot.sh,
# test/obsd/test-*.sh, tools/test-sign.sh). Sourced, never run:
#
#   . "$here/lib.sh"
#
# It defines functions and qemu_lib (this folder) only, and sets no shell
# options: most scripts run with `set -uo pipefail`, some with `set -u`.
#
# With pipefail, do not pipe a cleaned log into `grep -q`: grep leaving
# at its first match can end the sed with SIGPIPE, and the pipeline then
# fails although the line is there. Grep through process substitution,
# `grep -q RE <(clean LOG)`, or grep a file or a variable (commit 1124d2a).

qemu_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ---- test lines (test/run-tests counts them) ----
ok() { echo "ok $1"; }
not_ok() { echo "not ok $1: $2"; }
# report NAME [WHY]: ok when WHY is empty, else not ok with WHY.
report() { if [ -z "${2:-}" ]; then ok "$1"; else not_ok "$1" "$2"; fi; }

# skip_all WHY NAME...: every test of the suite skipped with WHY, then the
# suite ends: a missing tool or product is not a failure.
skip_all() {
	local why=$1 n
	shift
	for n in "$@"; do echo "skip $n: $why"; done
	exit 0
}

# fail_all WHY NAME...: every test failed with WHY (their setup could not
# be made), then the suite ends with status 1.
fail_all() {
	local why=$1 n
	shift
	for n in "$@"; do not_ok "$n" "$why"; done
	exit 1
}

# ---- serial logs ----
# clean LOG: LOG without the firmware's terminal escapes and CRs, so that
# its lines can be matched.
clean() { sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r//g' "$1"; }

# print_results DIR: each DIR/NAME.result (boot.sh's line) as comments,
# "# NAME: boot: exit=...".
print_results() {
	local f
	for f in "$1"/*.result; do sed "s|^|# $(basename "$f" .result): |" "$f"; done
}

# ---- run directories ----
# new_run_dir BASE [LATEST]: a new directory BASE.XXXXXX, its path on
# stdout; LATEST, if given, becomes a link to it, so the latest logs have
# a fixed path (replaced by a rename: never missing). One directory per
# run, since several people may run a suite on one build tree; older
# runs (BASE.*) are removed after an hour, so a failed run's logs stay
# that long.
new_run_dir() {
	local dir run
	dir=$(dirname "$1")
	mkdir -p "$dir"
	find "$dir" -maxdepth 1 -name "$(basename "$1").*" -mmin +60 -exec rm -rf {} + 2>/dev/null
	run=$(mktemp -d "$1.XXXXXX") || return 1
	[ -z "${2:-}" ] || { ln -sfn "$(basename "$run")" "$2.new" && mv -Tf "$2.new" "$2"; }
	echo "$run"
}

# ---- boots ----
# wait_for_slot N: returns once fewer than N background jobs run (boots
# run N at a time on a shared machine).
wait_for_slot() {
	while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do wait -n; done
}

# new_duid: an OpenBSD disklabel DUID, 8 random bytes in hex, never all
# zero (OpenBSD reads that as no DUID).
new_duid() {
	local d=0000000000000000
	while [ "$d" = 0000000000000000 ]; do
		d=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
	done
	echo "$d"
}

# ---- kits, keys and private builds ----
# demo_kit OUT [OPTION...] [-- OBJECT...]: `linkkit create` ($B/tools) of
# the demo kernel's objects ($B/demo/objects.txt) with its script and
# policy (test/demo): the OPTIONs before them, extra OBJECTs after.
demo_kit() {
	local out=$1 opts=() objs=() o
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -eq 0 ] || shift
	while read -r o; do [ -n "$o" ] && objs+=("$o"); done <"$B/demo/objects.txt"
	"$B/tools/linkkit" create "${opts[@]}" -o "$out" -T "$qemu_lib/../demo/kernel.ld" \
		-P "$qemu_lib/../demo/policy" "${objs[@]}" "$@"
}

# bad_signature_kit KIT OUT: KIT with one byte of its signed header
# (inside payload_sha256) changed, so its signature no longer holds.
bad_signature_kit() {
	cp "$1" "$2" &&
		printf '\x5a' | dd of="$2" bs=1 seek=40 conv=notrunc status=none &&
		! cmp -s "$1" "$2"
}

# signify_keys DIR NAME...: an unencrypted signify key pair per NAME,
# DIR/NAME.pub and DIR/NAME.sec, commented NAME.
signify_keys() {
	local dir=$1 k
	shift
	for k in "$@"; do
		signify-openbsd -G -n -p "$dir/$k.pub" -s "$dir/$k.sec" -c "$k" || return 1
	done
}

# sub_make BUILD_DIR [MAKE ARGUMENTS]: this tree built quietly into
# BUILD_DIR (a stage with a built-in key, say), apart from any make that
# runs the test: its jobserver and flags are not inherited.
sub_make() {
	local dir=$1
	shift
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$qemu_lib/../.." B="$dir" "$@"
}
