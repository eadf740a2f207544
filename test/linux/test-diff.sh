#!/usr/bin/env bash
# Differential test of `linkkit create --linux` on the Linux 6.1 defconfig
# corpus (issue 27): the kit made from the build tree, then for each seed
# `linkkit link --seed S` against GNU ld's link of the same object order
# with LINK-COMMAND's flags followed by the corpus' own scripts/sorttable,
# compared section by section in every loaded byte (seccmp.py).
#
# What forces ld to that order: the objects on its command line in the
# order --print-layout printed, and a copy of vmlinux.lds in which every
# table the kit keeps in link order names its objects one by one
# (keeporder.py), given after the objects (a file named in a script
# before the command line's objects is loaded first, which changes which
# COMDAT copy ld keeps). The flags are LINK-COMMAND's, --build-id=sha1
# included: the kit makes a build-id note of the same size in the same
# place (policy `build-id`), whose 20-byte id names the kit where ld's is
# a SHA-1 of the whole file; only those 20 bytes are masked
# (seccmp.py --mask-build-id).
#
# Results: linux-kit-create, linux-diff-seed-S (one per seed: every loaded
# section equal, ORC and __ex_table sorted as sorttable sorts them,
# main_extable_sort_needed cleared). Usage: test-diff.sh BUILD_DIR [SEEDS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../qemu/lib.sh"
B=$(cd "$1" && pwd)
seeds=${2:-${LINUX_DIFF_SEEDS:-1 2 3}}
root=$(cd "$here/../.." && pwd)
LK=$B/tools/linkkit
corpus=${LINUX_CORPUS_DIR:-$B/corpora/linux-6.1-x86_64-defconfig}
names=(linux-kit-create)
for s in $seeds; do names+=("linux-diff-seed-$s"); done

[ -f "$corpus/LINK-COMMAND" ] && [ -f "$corpus/vmlinux.a" ] ||
	skip_all "no Linux corpus (../shared/corpora/linux-6.1-x86_64-defconfig.tar.xz)" "${names[@]}"
command -v ld.bfd >/dev/null || skip_all "no ld.bfd (binutils)" "${names[@]}"
run=$(new_run_dir "$B/test/linux/diff" "$B/test/linux/diff-latest") ||
	fail_all "cannot make a run directory" "${names[@]}"
T=$run

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

t0=$(now)
if ! nice -n 10 "$LK" create -o "$T/linux.kit" --linux "$corpus" >"$T/create.log" 2>&1; then
	not_ok linux-kit-create "$(head -1 "$T/create.log")"
	for s in $seeds; do not_ok "linux-diff-seed-$s" "no kit"; done
	exit 1
fi
t1=$(now)
ok linux-kit-create
echo "# create: $(secs "$t0" "$t1") s, kit $(stat -c %s "$T/linux.kit") bytes," \
	"bzImage $(stat -c %s "$corpus/arch/x86/boot/bzImage") bytes"

# LINK-COMMAND's flags: every word between `ld` and the script.
read -r -a words <"$corpus/LINK-COMMAND"
flags=()
for w in "${words[@]:1}"; do
	case $w in --script=* | -T) break ;; esac
	flags+=("$w")
done
# The canonical order, as the kit has it (ar prints a thin archive's
# members relative to the directory it runs in).
(cd "$corpus" && ar t vmlinux.a && printf '%s\n' .vmlinux.export.o init/version-timestamp.o &&
	ls .tmp_vmlinux.kallsyms[0-9].o | tail -1) >"$T/canonical"
python3 "$here/keeporder.py" "$root/tools/kblinux.c" "$corpus" "$T/canonical" "$T/keep.lds" \
	>"$T/keeporder.log" 2>&1 || fail_all "keeporder.py: $(tail -1 "$T/keeporder.log")" "${names[@]:1}"

for s in $seeds; do
	n=linux-diff-seed-$s
	t0=$(now)
	if ! "$LK" link --seed "$s" --print-layout -o "$T/lk-$s.elf" "$T/linux.kit" >"$T/layout-$s" 2>"$T/link-$s.log"; then
		not_ok "$n" "linkkit link: $(head -1 "$T/link-$s.log")"
		continue
	fi
	t1=$(now)
	sed -n 's/^object //p' "$T/layout-$s" >"$T/order-$s"
	if cmp -s "$T/order-$s" "$T/canonical"; then
		not_ok "$n" "the seed left the objects in link order: nothing was shuffled"
		continue
	fi
	if grep -q '^gap ' "$T/layout-$s"; then
		not_ok "$n" "the built-in policy has gaps: this test does not link them"
		continue
	fi
	if ! (cd "$corpus" && nice -n 10 ld.bfd "${flags[@]}" -o "$T/ld-$s.elf" $(cat "$T/order-$s") \
		--script="$T/keep.lds") >"$T/ld-$s.log" 2>&1; then
		not_ok "$n" "ld.bfd: $(head -1 "$T/ld-$s.log")"
		continue
	fi
	t2=$(now)
	if ! "$corpus/scripts/sorttable" "$T/ld-$s.elf" >"$T/sort-$s.log" 2>&1; then
		not_ok "$n" "sorttable: $(head -1 "$T/sort-$s.log")"
		continue
	fi
	python3 "$here/seccmp.py" --mask-build-id "$T/lk-$s.elf" "$T/ld-$s.elf" >"$T/cmp-$s.log" 2>&1
	rc=$?
	sed 's/^/# seed '"$s"': /' "$T/cmp-$s.log"
	echo "# seed $s: linkkit link $(secs "$t0" "$t1") s, ld.bfd $(secs "$t1" "$t2") s"
	if [ $rc = 0 ]; then ok "$n"; else not_ok "$n" "$(grep -m1 '^differ\|^seccmp' "$T/cmp-$s.log")"; fi
	rm -f "$T/ld-$s.elf" "$T/lk-$s.elf"
done
