#!/usr/bin/env bash
# `make bench` (issue 6): on each corpus, creates the kit, runs the boot-side
# core per phase (build/bench/bench), times ld.bfd and ld.lld producing the
# same image from the same objects in the printed order (bench/ldtime.py,
# which also checks the images are byte-identical), and prints one markdown
# table per corpus plus the ratios against the issue's targets.
#
# Corpora (cached under cache/, git-ignored):
#  synth: bench/gen-kernel.py, BENCH_SYNTH_OBJS objects (default 3000).
#  linux: Debian's linux-source-6.1, x86-64 tinyconfig + serial console
#         (bench/linux.sh; needs `bench/deps.sh`); skipped if unavailable.
# Knobs: BENCH_RUNS (default 7), BENCH_SEEDS (default 3), BENCH_CORPORA
# (default "synth linux").
# Usage: bench/run.sh [BUILD_DIR]
set -u
B=${1:-build}
LK=$B/tools/linkkit
BIN=$B/bench/bench
C=${BENCH_CACHE:-cache}
W=$B/bench/work
RUNS=${BENCH_RUNS:-7}
SEEDS=${BENCH_SEEDS:-3}
mkdir -p "$W"

# kv FILE KEY: the value of a `key value` line.
kv() { sed -n "s/^$2 //p" "$1" | head -1; }
phase() { sed -n "s/^phase $2 \([0-9.]*\) ms \([0-9.]*\) MB\/s/\1 \2/p" "$1"; }
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.2f' % (a/b) if b else 'n/a')" "$1" "$2"; }
verdict() { python3 -c "import sys; v=float(sys.argv[1]); t=float(sys.argv[3]); ok = v>=t if sys.argv[2]=='ge' else v<t; print('met' if ok else 'MISSED')" "$1" "$2" "$3"; }

# One corpus: NAME OBJDIR SCRIPT POLICY OBJ...
bench_corpus() {
	local name=$1 objdir=$2 script=$3 policy=$4 kit=$W/$1.kit out=$W/$1.out ld=$W/$1.ld t0 t1
	shift 4
	t0=$(date +%s.%N)
	if ! "$LK" create -o "$kit" -T "$script" -P "$policy" "$@" 2>"$W/$name.create.err"; then
		echo "corpus $name: linkkit create failed: $(head -1 "$W/$name.create.err")"
		return
	fi
	t1=$(date +%s.%N)
	if ! "$BIN" "$kit" "$RUNS" >"$out" 2>"$W/$name.bench.err"; then
		echo "corpus $name: bench failed: $(head -1 "$W/$name.bench.err")"
		return
	fi
	# GNU ld cannot keep .initcall* in canonical order while the objects
	# are shuffled: the differential check links a kit made without the
	# keep-order lines (as test/link/diff-demo.sh does); ld is timed on the
	# real kit's order.
	if grep -q '^keep-order' "$policy"; then
		grep -v '^keep-order' "$policy" >"$W/$name.diff.policy"
		if "$LK" create -o "$W/$name.diff.kit" -T "$script" -P "$W/$name.diff.policy" "$@" \
			2>"$W/$name.create.err"; then
			python3 bench/ldtime.py "$LK" "$kit" "$objdir" "$policy" "$script" "$W/$name-ld" \
				"$RUNS" 1 | grep '^ld_\|^error' >"$ld"
			python3 bench/ldtime.py "$LK" "$W/$name.diff.kit" "$objdir" "$W/$name.diff.policy" \
				"$script" "$W/$name-diff" 1 "$SEEDS" | grep -v '^ld_' >>"$ld"
		else
			echo "error diff kit: $(head -1 "$W/$name.create.err")" >"$ld"
		fi
	else
		python3 bench/ldtime.py "$LK" "$kit" "$objdir" "$policy" "$script" "$W/$name-ld" \
			"$RUNS" "$SEEDS" >"$ld"
	fi
	local relink lld bfd link mc mcc inf zl img peak
	relink=$(kv "$out" relink_ms)
	link=$(kv "$out" link_ms)
	lld=$(kv "$ld" ld_lld_ms)
	bfd=$(kv "$ld" ld_bfd_ms)
	mc=$(phase "$out" memcpy-image | cut -d' ' -f1)
	mcc=$(phase "$out" memcpy-image | cut -d' ' -f4)
	inf=$(phase "$out" inflate | cut -d' ' -f1)
	zl=$(phase "$out" zlib-inflate | cut -d' ' -f1)
	img=$(kv "$out" image_bytes)
	peak=$(kv "$out" stage_peak_bytes)
	echo
	echo "### Corpus $name: $(kv "$out" objects) objects, $(kv "$out" relocations) relocations," \
		"kit $(kv "$out" kit_bytes) B, payload $(kv "$out" payload_bytes) B, image $img B"
	echo
	echo "linkkit create (host, once): $(python3 -c "print('%.0f' % (($t1-$t0)*1e3))") ms; median of $RUNS runs below."
	echo
	echo "| phase | ms (wall) | MB/s | ms (CPU) |"
	echo "|---|---:|---:|---:|"
	for p in verify inflate parse place write fill relocate verify-portable zlib-inflate memcpy-image; do
		set -- $(phase "$out" $p)
		echo "| $p | $1 | $2 | $4 |"
	done
	echo "| relink (verify+inflate+parse+place+write) | $relink | | $(kv "$out" relink_cpu_ms) |"
	echo "| ld.bfd, same objects and order | ${bfd:-failed} | | $(kv "$ld" ld_bfd_cpu_ms) |"
	echo "| ld.lld, same objects and order | ${lld:-failed} | | $(kv "$ld" ld_lld_cpu_ms) |"
	echo
	echo "write = fill + relocate in one pass (each chunk relocated right after its copy);" \
		"fill and relocate are each timed alone (relocate as a separate pass over the" \
		"written image). relocate: $(kv "$out" relocs_per_s) relocations/s; SHA-NI used: $(kv "$out" sha256_ni); buffer pages: $(kv "$out" pages);" \
		"verify-portable = verify with the portable SHA-256;" \
		"core allocations peak $(kv "$out" core_peak_bytes) B;" \
		"stage peak (kit + payload + image + core) $peak B"
	echo
	echo "| target | measured | verdict |"
	echo "|---|---:|---|"
	if [ -n "$lld" ]; then
		r=$(ratio "$lld" "$relink")
		echo "| relink >= 6x faster than ld.lld | $r x | $(verdict "$r" ge 6) |"
		r=$(ratio "$(kv "$ld" ld_lld_cpu_ms)" "$(kv "$out" relink_cpu_ms)")
		echo "| same, CPU time (lld: all threads) | $r x | $(verdict "$r" ge 6) |"
	else
		echo "| relink >= 6x faster than ld.lld | ld.lld failed | n/a |"
	fi
	r=$(ratio "$link" "$mc")
	echo "| link (parse+place+write) within 4x of memcpy | $r x | $(verdict "$r" lt 4.0001) |"
	r=$(ratio "$(kv "$out" link_cpu_ms)" "$mcc")
	echo "| same, CPU time (not counting time descheduled) | $r x | $(verdict "$r" lt 4.0001) |"
	r=$(ratio "$zl" "$inf")
	echo "| inflate >= zlib speed | $r x zlib | $(verdict "$r" ge 1) |"
	r=$(ratio "$peak" "$img")
	echo "| peak memory < 3x image | $r x | $(verdict "$r" lt 3) |"
	echo
	echo "Differential check ($SEEDS seeds, loaded segments, policy without keep-order): ld.bfd $(kv "$ld" diff_bfd);" \
		"ld.lld $(kv "$ld" diff_lld). $(grep '^mold' "$ld")"
	grep '^error' "$ld" | sed 's/^error /ld timing failed: /'
}

synth() {
	local n=${BENCH_SYNTH_OBJS:-3000} d
	d=$C/synth-$n
	if [ ! -e "$d/done" ]; then
		python3 bench/gen-kernel.py "$d" "$n" || return
		(cd "$d" && sed 's/\.s$//' sources.txt | nice -n 10 xargs -P2 -I{} as --64 {}.s -o {}.o) || return
		find "$d" -name "*.s" -delete
		touch "$d/done"
	fi
	bench_corpus synth "$d" bench/synth.ld bench/synth.policy $(sed "s|^|$d/|; s|\.s\$|.o|" "$d/sources.txt")
}

linux() {
	local src d
	if ! src=$(bench/linux.sh "$C" 2>"$W/linux.build.err"); then
		echo "corpus linux: skipped: $(head -1 "$W/linux.build.err")"
		return
	fi
	d=$C/linux-objs
	bench/linux-objs.sh "$src" "$d" || { echo "corpus linux: object list failed"; return; }
	bench_corpus linux "$d" "$d/vmlinux.lds" bench/linux.policy $(cat "$d/objects.txt")
	linux_boot
}

# The relinked Linux must still boot: PVH entry under QEMU (-kernel), no
# initramfs, so a good boot ends at "No working init found".
linux_boot() {
	local s ok=0 n=${BENCH_BOOTS:-3} first=
	for s in $(seq 1 "$n"); do
		"$LK" link --seed "b00$s" -o "$W/linux-boot.elf" "$W/linux.kit" 2>/dev/null &&
			timeout 120 qemu-system-x86_64 -accel tcg -m 256 -nographic -no-reboot \
				-kernel "$W/linux-boot.elf" -append "console=ttyS0 panic=-1" -net none \
				>"$W/linux-boot-$s.log" 2>&1
		if tr -d '\r' <"$W/linux-boot-$s.log" | grep -q 'No working init found'; then
			ok=$((ok + 1))
		else
			first=${first:-"seed b00$s: $(tr -d '\r' <"$W/linux-boot-$s.log" | tail -1)"}
		fi
	done
	echo
	echo "Relinked Linux boots in QEMU (PVH, to 'No working init found'): $ok/$n seeds${first:+; $first}"
}

echo "## make bench on $(uname -m), $(nproc) cores, $(date -u +%Y-%m-%d)"
for c in ${BENCH_CORPORA:-synth linux}; do
	$c
done
[ "${BENCH_QEMU:-1}" = 0 ] || bench/qemu-phases.sh "$B"
