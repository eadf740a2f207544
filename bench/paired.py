#!/usr/bin/env python3
"""ld.lld against the boot-side relink in paired, interleaved rounds.

On this shared 2-core machine both linkers' times drift by 1.5-2x from one
minute to the next, so a median of ld.lld taken in one minute divided by
our median taken in another says as much about the minutes as about the
linkers. Here each round runs ld.lld once (the command and object order
bench/ldtime.py times: seed 1's `linkkit link --print-layout` order) and
`bench KIT RUNS` once, back to back, the one going first alternating
between rounds; each round gives one ratio, and the median of the ratios
is the comparison.

Usage: paired.py LINKKIT KIT OBJDIR POLICY SCRIPT WORKDIR BENCH ROUNDS RUNS
Prints `key value` lines: `round I FIRST LLD_MS RELINK_MS RATIO LLD_CPU_MS
RELINK_CPU_MS CPU_RATIO` per round (FIRST is lld or relink), then
ratio_median, ratio_min, ratio_max, cpu_ratio_median, lld_ms_median,
relink_ms_median, rounds; or one `error ...` line."""
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'test', 'diff'))
import ldtime  # noqa: E402
from ldtime import ld_once, order_objects, seed_hex  # noqa: E402
from seeds import first_line  # noqa: E402


def relink_once(bench, kit, runs):
    """bench's own timing of the core (relink_ms: the sum of the phase
    medians over RUNS, process start-up and the comparison phases not
    counted): (wall ms, CPU ms, None) or (None, None, error)."""
    p = subprocess.run([bench, kit, str(runs)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return None, None, 'bench: ' + first_line(p.stderr)
    kv = dict(ln.split(' ', 1) for ln in p.stdout.splitlines() if ' ' in ln)
    try:
        return float(kv['relink_ms']), float(kv['relink_cpu_ms']), None
    except (KeyError, ValueError):
        return None, None, 'bench: no relink_ms/relink_cpu_ms in its output'


def main():
    lk, kit, objdir, policy, script, w, bench, rounds, runs = sys.argv[1:10]
    rounds, runs = int(rounds), int(runs)
    if rounds < 1 or runs < 1:
        print('error paired: ROUNDS and RUNS must be at least 1')
        return
    os.makedirs(w, exist_ok=True)
    ldtime.OBSD_DIR = objdir  # BENCH_LD_MODE=openbsd: ld.lld runs there
    kelf, objs = order_objects(lk, kit, seed_hex(1), policy, objdir, w)
    if kelf is None:
        print(f'error paired: {objs}')
        return
    out = os.path.join(w, 'paired-lld.elf')
    steps = {
        'lld': lambda: ld_once('lld', script, objs, out),
        'relink': lambda: relink_once(bench, kit, runs),
    }
    ratios, cpu_ratios, lld_ms, relink_ms = [], [], [], []
    for i in range(1, rounds + 1):
        # Alternate who goes first, so neither always gets the caches
        # (or the quiet moment) the other one left.
        order = ('lld', 'relink') if i % 2 else ('relink', 'lld')
        got = {}
        for name in order:
            try:
                wall, cpu, err = steps[name]()
            except OSError as e:  # a linker or bench binary missing
                wall, cpu, err = None, None, f'{name}: {e}'
            if err:
                print(f'error paired round {i}: {err}')
                return
            got[name] = (wall, cpu)
        (lw, lc), (rw, rc) = got['lld'], got['relink']
        if rw <= 0 or rc <= 0:
            print(f'error paired round {i}: bench reported relink {rw} ms, CPU {rc} ms')
            return
        ratios.append(lw / rw)
        cpu_ratios.append(lc / rc)
        lld_ms.append(lw)
        relink_ms.append(rw)
        print(f'round {i} {order[0]} {lw:.1f} {rw:.1f} {lw / rw:.2f} '
              f'{lc:.1f} {rc:.1f} {lc / rc:.2f}')
        sys.stdout.flush()
    print(f'ratio_median {statistics.median(ratios):.2f}')
    print(f'ratio_min {min(ratios):.2f}')
    print(f'ratio_max {max(ratios):.2f}')
    print(f'cpu_ratio_median {statistics.median(cpu_ratios):.2f}')
    print(f'lld_ms_median {statistics.median(lld_ms):.1f}')
    print(f'relink_ms_median {statistics.median(relink_ms):.1f}')
    print(f'rounds {rounds}')


if __name__ == '__main__':
    main()
