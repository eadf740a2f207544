#!/usr/bin/env bash
# Tests test/run-i386, the one runner of host-built 32-bit programs: the
# probe in each mode (I386_RUN=auto|native|emulated), the i386 core and
# link tests forced through qemu-i386 whatever the host can do natively
# (so a host with 32-bit support also checks the emulated path), and the
# one-line failure saying what to install when neither way works.
# Argument: the build directory.
set -uo pipefail
B=${1:?usage: test-run-i386.sh BUILD-DIR}
run=test/run-i386
probe=$B/test/i386/probe
w=$(mktemp -d "$B/test/i386/run.XXXXXX") || exit 1
failed=0
trap '[ "$failed" = 1 ] && echo "# files kept in $w" || rm -rf "$w"' EXIT

report() { # report NAME REASON-or-empty [COMMENT]
	if [ -z "$2" ]; then
		echo "ok i386-run-$1${3:+ # $3}"
	else
		echo "not ok i386-run-$1: $2"
		failed=1
	fi
}

# Independent check of native support: 7 * 2654435761 + 1 wraps to
# 1401181144 in a 32-bit unsigned long.
native=no
[ "$("$probe" 7 2>/dev/null)" = "i386-probe 1401181144 4 4" ] && native=yes
echo "# this host runs 32-bit programs natively: $native"

# A stand-in for qemu-i386 that records each use and runs the real one.
real_qemu=$(command -v qemu-i386)
cat >"$w/qemu-stub" <<EOF
#!/bin/sh
echo "\$*" >>"$w/qemu.log"
exec "${real_qemu:-/nonexistent/qemu-i386}" "\$@"
EOF
chmod +x "$w/qemu-stub"

# auto: native where the kernel allows it, else the emulator.
m=$(I386_RUN=auto QEMU_I386="$w/qemu-stub" $run --probe "$probe")
if [ $native = yes ]; then want=native; else want="emulated $w/qemu-stub"; fi
[ "$m" = "$want" ] && r= || r="auto probe says '$m', expected '$want'"
report probe-auto "$r" "$m"

# native only: works exactly when the host runs the probe itself.
m=$(I386_RUN=native $run --probe "$probe")
if [ $native = yes ]; then
	[ "$m" = native ] && r= || r="native probe says '$m' on a host that runs it"
else
	case $m in
	"none I386_RUN=native but this host cannot run 32-bit programs ("*) r= ;;
	*) r="native probe says '$m' on a host that cannot run it" ;;
	esac
fi
report probe-native "$r" "$m"

# emulated only: must go through the emulator.
rm -f "$w/qemu.log"
m=$(I386_RUN=emulated QEMU_I386="$w/qemu-stub" $run --probe "$probe")
if [ -z "$real_qemu" ]; then
	r="qemu-i386 not found: install qemu-user (apt-get install qemu-user)"
elif [ "$m" != "emulated $w/qemu-stub" ]; then
	r="emulated probe says '$m'"
elif ! grep -q -- "-L / $probe " "$w/qemu.log" 2>/dev/null; then
	r="the emulated probe did not run under the emulator"
else
	r=
fi
report probe-emulated "$r" "$m"
echo "emulated $w/qemu-stub" >"$w/mode.emulated"
d=$($run --describe "$w/mode.emulated")
[ "$d" = "i386 tests: emulated (qemu-stub)" ] && r= || r="describe says '$d'"
report describe-emulated "$r"

# forced NAME ELF: runs a 32-bit test program forced through the emulator;
# it must pass every check it makes, under the emulator.
forced() {
	local name=$1 elf=$2 out rc t0 t1 ok bad
	rm -f "$w/qemu.log"
	t0=$(date +%s.%N)
	out=$($run "$w/mode.emulated" "$elf" 2>&1)
	rc=$?
	t1=$(date +%s.%N)
	ok=$(grep -c '^ok ' <<<"$out")
	bad=$(grep -c '^not ok ' <<<"$out")
	if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$ok" -eq 0 ]; then
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/# | /'
		r="exit $rc, $ok passed, $bad failed under qemu-i386"
	elif ! grep -q -- "-L / $elf" "$w/qemu.log" 2>/dev/null; then
		r="did not run under the emulator"
	else
		r=
	fi
	report "$name" "$r" "$ok checks passed under qemu-i386 in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
}
forced emulated-i386-core "$B/test/unit/test_i386_core.elf"
forced emulated-link-test32 "$B/test/link/link_test32.elf"

# Neither way works: a host whose kernel refuses the probe and has no
# emulator. The probe's answer, and then each program, is one line saying
# why and what to install.
# shellcheck disable=SC2016 # $0 is the stand-in's own name
printf '#!/bin/sh\necho "$0: cannot execute binary file: Exec format error" >&2\nexit 126\n' >"$w/refused"
chmod +x "$w/refused"
m=$(I386_RUN=auto QEMU_I386="$w/no-such-qemu" $run --probe "$w/refused")
case $m in
"none this host cannot run 32-bit programs (native: exit 126: cannot execute binary file: Exec format error; $w/no-such-qemu not found); install qemu-user"*) r= ;;
*) r="probe with neither way says '$m'" ;;
esac
report probe-neither "$r"
printf '%s\n' "$m" >"$w/mode.none"
out=$($run "$w/mode.none" "$B/test/link/link_test32.elf" 2>&1)
rc=$?
case $rc:$(wc -l <<<"$out"):$out in
[1-9]*:1:"not ok link_test32: this host cannot run 32-bit programs ("*"install qemu-user"*) r= ;;
*) r="exit $rc, output '$out'" ;;
esac
report neither-fails-one-line "$r"
d=$($run --describe "$w/mode.none")
case $d in "i386 tests: cannot run (this host cannot"*) r= ;; *) r="describe says '$d'" ;; esac
report describe-neither "$r"

m=$(I386_RUN=emulated QEMU_I386="$w/no-such-qemu" $run --probe "$probe")
case $m in
"none I386_RUN=emulated but $w/no-such-qemu not found; install qemu-user"*) r= ;;
*) r="forced emulation without an emulator says '$m'" ;;
esac
report probe-emulated-missing "$r"

m=$(I386_RUN=sometimes $run --probe "$probe")
case $m in "none I386_RUN=sometimes: must be"*) r= ;; *) r="bad I386_RUN gives '$m'" ;; esac
report probe-bad-setting "$r"
[ "$failed" = 0 ]
