#!/usr/bin/env bash
# Differential test of `linkkit create --linux` on the Linux 6.1 defconfig
# corpus (issue 27): the kit made from the build tree, then for each seed
# `linkkit link --seed S` against GNU ld's link of the same object order
# with LINK-COMMAND's flags, then what link-vmlinux.sh does after its
# links, with the corpus' own tools: nm + scripts/mksysmap, scripts/kallsyms
# on that list, its .S assembled and linked again in place of the kallsyms
# object (the list of that link must equal the first: the same check
# link-vmlinux.sh makes), scripts/sorttable; compared section by section in
# every loaded byte (seccmp.py). The kit rewrote kallsyms itself.
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
# section equal, kallsyms' tables included, ORC and __ex_table sorted as
# sorttable sorts them, main_extable_sort_needed cleared; and mksysmap's
# list of the output, every name at its address), linux-ksyms-refuse-*,
# linux-undefined-named. Even seeds link with `--write-parts 8`. Usage:
# test-diff.sh BUILD_DIR [SEEDS]
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
breaks=(chunk:'chunk index out of range' count:'blob has a bad magic'
	ref:'symbol index out of range' flag:'flag and table disagree'
	blob:'blob has a bad magic')
for b in "${breaks[@]}"; do names+=("linux-ksyms-refuse-${b%%:*}"); done
names+=(linux-undefined-named)

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
	fail_all "no kit" "${names[@]:1}"
fi
t1=$(now)
if ! "$LK" info "$T/linux.kit" 2>&1 | grep -q '^kallsyms: '; then
	not_ok linux-kit-create "the kit has no kallsyms table"
	fail_all "no kallsyms in the kit" "${names[@]:1}"
fi
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

# ld.bfd on seed S's order, the kallsyms object replaced by $3, with
# seed S's script (its base shift).
ld_link() {
	local order
	order=$(sed "s|^\.tmp_vmlinux\.kallsyms[0-9]\.o\$|$3|" "$T/order-$1")
	(cd "$corpus" && nice -n 10 ld.bfd "${flags[@]}" -o "$2" $order --script="$T/keep-$1.lds") \
		>"$T/ld-$1.log" 2>&1
}
mksysmap() { (cd "$corpus" && LC_ALL=C NM=nm sh scripts/mksysmap "$1" "$2"); }
# link-vmlinux.sh's kallsyms step: the list, the tables' .S, its object
# (the corpus has no kernel headers: <asm/bitsperlong.h> from a stub).
mkdir -p "$T/inc/asm" && echo '#define BITS_PER_LONG 64' >"$T/inc/asm/bitsperlong.h"
kallsyms_obj() {
	mksysmap "$1" "$1.map" &&
		"$corpus/scripts/kallsyms" --all-symbols --absolute-percpu --base-relative \
			"$1.map" >"$2.S" 2>"$2.log" &&
		gcc -nostdinc -I"$T/inc" -D__ASSEMBLY__ -fno-PIE -m64 -c -o "$2.o" "$2.S" >>"$2.log" 2>&1
}

for s in $seeds; do
	n=linux-diff-seed-$s
	t0=$(now)
	# Even seeds: the write split as the UEFI stage splits it (the sorted
	# tables' parts first, sorted while the other parts still run).
	split=()
	[ $((s % 2)) = 0 ] && split=(--write-parts 8)
	if ! "$LK" link --seed "$s" "${split[@]}" --print-layout -o "$T/lk-$s.elf" "$T/linux.kit" >"$T/layout-$s" 2>"$T/link-$s.log"; then
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
	# KASLR at link time (policy random-base): the script's first
	# `. = ...;` moved up by the layout's shift, for ld too.
	shift_=$(sed -n 's/^base-shift //p' "$T/layout-$s")
	if [ -z "$shift_" ]; then
		not_ok "$n" "no base-shift in --print-layout (the kit has no random-base)"
		continue
	fi
	sed "0,/^ *\. = \(.*\);\$/s//. = (\1) + $shift_;/" "$T/keep.lds" >"$T/keep-$s.lds"
	echo "# seed $s: base shift $shift_ ($(grep -m1 '^\. = (' "$T/keep-$s.lds"))"
	if ! ld_link "$s" "$T/ld-$s.tmp" "$(tail -1 "$T/canonical")"; then
		not_ok "$n" "ld.bfd: $(head -1 "$T/ld-$s.log")"
		continue
	fi
	if ! kallsyms_obj "$T/ld-$s.tmp" "$T/ks-$s"; then
		not_ok "$n" "scripts/kallsyms: $(tail -1 "$T/ks-$s.log")"
		continue
	fi
	if ! ld_link "$s" "$T/ld-$s.elf" "$T/ks-$s.o"; then
		not_ok "$n" "ld.bfd (kallsyms pass): $(head -1 "$T/ld-$s.log")"
		continue
	fi
	t2=$(now)
	if ! mksysmap "$T/ld-$s.elf" "$T/ld-$s.map" || ! cmp -s "$T/ld-$s.tmp.map" "$T/ld-$s.map"; then
		not_ok "$n" "the kallsyms pass moved symbols (link-vmlinux.sh: inconsistent kallsyms data)"
		continue
	fi
	if ! "$corpus/scripts/sorttable" "$T/ld-$s.elf" >"$T/sort-$s.log" 2>&1; then
		not_ok "$n" "sorttable: $(head -1 "$T/sort-$s.log")"
		continue
	fi
	python3 "$here/seccmp.py" --mask-build-id "$T/lk-$s.elf" "$T/ld-$s.elf" >"$T/cmp-$s.log" 2>&1
	rc=$?
	# The symbol table too, as link-vmlinux.sh's System.map sees it (the
	# kit keeps most names only in its kallsyms blob): every name at its
	# address. The type letters of some script symbols differ (this
	# .symtab gives them no section): counted, not compared.
	if ! mksysmap "$T/lk-$s.elf" "$T/lk-$s.map"; then
		echo "differ: scripts/mksysmap failed on linkkit's output" >>"$T/cmp-$s.log"
		rc=1
	elif ! cmp -s <(awk '{print $1, $3}' "$T/lk-$s.map") <(awk '{print $1, $3}' "$T/ld-$s.map"); then
		echo "differ: System.map names or addresses of linkkit's output vs ld.bfd's:" \
			"$(diff <(awk '{print $1, $3}' "$T/ld-$s.map") <(awk '{print $1, $3}' "$T/lk-$s.map") |
				grep -c '^[<>]') lines" >>"$T/cmp-$s.log"
		rc=1
	else
		echo "System.map: $(wc -l <"$T/lk-$s.map") names and addresses identical;" \
			"$(diff "$T/ld-$s.map" "$T/lk-$s.map" | grep -c '^>') type letters differ" >>"$T/cmp-$s.log"
	fi
	sed 's/^/# seed '"$s"': /' "$T/cmp-$s.log"
	echo "# seed $s: linkkit link $(secs "$t0" "$t1") s, ld.bfd $(secs "$t1" "$t2") s"
	if [ $rc = 0 ]; then ok "$n"; else not_ok "$n" "$(grep -m1 '^differ\|^seccmp' "$T/cmp-$s.log")"; fi
	rm -f "$T/ld-$s.elf" "$T/lk-$s.elf" "$T/ld-$s.tmp"
done

# A broken ksyms table: `linkkit link` (the boot side's checks) refuses
# it with one line naming the table.
for b in "${breaks[@]}"; do
	m=${b%%:*} want=${b#*:} n=linux-ksyms-refuse-${b%%:*}
	if ! python3 "$here/kit-ksyms-break.py" "$m" "$T/linux.kit" "$T/bad-$m.kit" >"$T/bad-$m.log" 2>&1; then
		not_ok "$n" "kit-ksyms-break.py: $(tail -1 "$T/bad-$m.log")"
		continue
	fi
	out=$("$LK" link --seed 1 -o "$T/bad-$m.elf" "$T/bad-$m.kit" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then not_ok "$n" "linked"
	elif [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || [[ $out != *"ksyms table: "*"$want"* ]]; then
		not_ok "$n" "said: $out"
	else ok "$n"; fi
	rm -f "$T/bad-$m.kit" "$T/bad-$m.elf"
done

# The kit keeps a kallsyms-listed symbol's name only in the ksyms blob
# (not in strtab): a message about that symbol still names it.
n=linux-undefined-named
if ! python3 "$root/test/qemu/kit-undefine.py" "$T/linux.kit" do_one_initcall "$T/undef.kit" \
	>"$T/undef.log" 2>&1; then
	not_ok "$n" "kit-undefine.py: $(tail -1 "$T/undef.log")"
elif ! grep -qx 'do_one_initcall: 0 by strtab name, 1 by kallsyms name' "$T/undef.log"; then
	not_ok "$n" "the kit's strtab still names it: $(head -1 "$T/undef.log")"
else
	out=$("$LK" link --seed 1 -o "$T/undef.elf" "$T/undef.kit" 2>&1)
	rc=$?
	# The split write (the UEFI stage's, kallsyms beside the parts) says
	# the same lines.
	split=$("$LK" link --seed 1 --write-parts 4 -o "$T/undef.elf" "$T/undef.kit" 2>&1)
	if [ $rc = 0 ]; then not_ok "$n" "linked"
	elif [[ $(printf '%s\n' "$out" | head -1) != *"against undefined symbol 'do_one_initcall'"* ]]; then
		not_ok "$n" "said: $(printf '%s\n' "$out" | head -1)"
	elif [ "$split" != "$out" ]; then
		not_ok "$n" "the split write said otherwise: $(printf '%s\n' "$split" | head -1)"
	else ok "$n"; fi
fi
rm -f "$T/undef.kit" "$T/undef.elf"
