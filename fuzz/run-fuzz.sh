#!/bin/bash
# Runs the libFuzzer targets: first replays every file under
# fuzz/regressions/TARGET/ (crashes found earlier, now fixed), then fuzzes
# each target for SECONDS from its seed corpus. Prints one result line per
# regression and per target (docs/CONVENTIONS.md), plus execution counts.
# A regression file NAME.gz is replayed decompressed.
#
# usage: run-fuzz.sh BUILD_DIR SECONDS [--keep] [TARGET...]
#   --keep: grow the persistent corpus BUILD_DIR/fuzz/work/TARGET (make fuzz)
#           instead of a throwaway copy of the seeds (make test).
set -u
B=$1 SECS=$2
shift 2
KEEP=0
if [ "${1:-}" = --keep ]; then KEEP=1; shift; fi
SRC=$(cd "$(dirname "$0")" && pwd)
TARGETS=${*:-kit payload plan elf inflate config ldscript mb2 sig fat}
export FZ_BASE_PAYLOAD=$B/fuzz/corpus/demo.payload
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
total=0

for t in $TARGETS; do
	bin=$B/fuzz/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "not ok fuzz-$t: $bin not built"
		continue
	fi
	for r in "$SRC"/regressions/"$t"/*; do
		[ -f "$r" ] || continue
		in=$r
		case $r in # big inputs are stored compressed
		*.gz) in=$TMP/replay.in; gzip -dc "$r" >"$in" ;;
		esac
		if timeout 60 "$bin" -runs=1 "$in" >"$TMP/replay.log" 2>&1; then
			echo "ok fuzz-regress-$t-$(basename "$r")"
		else
			echo "not ok fuzz-regress-$t-$(basename "$r"): $(grep -m1 'ERROR\|runtime error\|deadly' "$TMP/replay.log")"
		fi
	done
	if [ $KEEP = 1 ]; then
		work=$B/fuzz/work/$t
		mkdir -p "$work"
	else
		work=$TMP/work-$t
		mkdir -p "$work"
	fi
	mkdir -p "$B/fuzz/crashes"
	# -timeout: one input running for seconds is a hang (a bug here);
	# the kit is small, so 2 GiB RSS is far beyond any legitimate use.
	timeout $((SECS + 120)) "$bin" -max_total_time="$SECS" -timeout=10 \
		-rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/crashes/$t-" \
		"$work" "$B/fuzz/corpus/$t" >"$TMP/$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/$t.log")
	cov=$(grep -o 'cov: [0-9]*' "$TMP/$t.log" | tail -1)
	total=$((total + ${execs:-0}))
	cp "$TMP/$t.log" "$B/fuzz/last-$t.log"
	if [ $rc = 0 ]; then
		echo "ok fuzz-$t # ${execs:-?} execs in ${SECS}s, $cov"
	else
		art=$(grep -o "$B/fuzz/crashes/$t-[a-z]*-[0-9a-f]*" "$TMP/$t.log" | head -1)
		why=$(grep -m1 'ERROR: \|runtime error\|deadly signal\|timeout' "$TMP/$t.log")
		echo "not ok fuzz-$t: rc $rc after ${execs:-?} execs: $why (input: ${art:-none}, log $B/fuzz/last-$t.log)"
	fi
done
echo "# fuzz: $total executions in total"
