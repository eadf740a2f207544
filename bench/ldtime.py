#!/usr/bin/env python3
"""Times GNU ld (bfd) and ld.lld producing the same image as the kit, from
the same objects in the order `linkkit link --print-layout` printed, and
checks the images are equal (differential check on the bench corpus).

Usage: ldtime.py LINKKIT KIT OBJDIR POLICY SCRIPT WORKDIR RUNS SEEDS
With BENCH_LD_MODE=openbsd (the openbsd corpus, a kit made with `linkkit
create --openbsd OBJDIR`): ld.lld only, run as test/obsd/test-lld.sh runs it
(in OBJDIR, OpenBSD's flags, bare object names, test/obsd/mkgap.py's gap
object); GNU ld refuses OpenBSD's ld.script, so ld_bfd_* are not printed.
Prints `key value` lines: ld_bfd_ms, ld_lld_ms (wall-time medians over RUNS
on the first seed's order), ld_bfd_cpu_ms, ld_lld_cpu_ms (user + system time
of the linker process, all its threads: medians too), diff_bfd / diff_lld (`N/M identical` or the first
difference), and mold (why it is not timed)."""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'test', 'diff'))
from elfcmp import compare  # noqa: E402
# The same linker command lines as the differential test, so the timed
# links are the ones whose output is compared there.
from seeds import LD, first_line, layout_objects, run  # noqa: E402


# OpenBSD's ld.script names `locore0.o(.text)`, which ld.lld matches
# against the name as given on its command line: bare names, run in the
# corpus directory. The flags are those of OpenBSD's Makefile (`${SYSTEM_LD}`).
OBSD = os.environ.get('BENCH_LD_MODE') == 'openbsd'
OBSD_LLD = ['ld.lld', '-X', '--warn-common', '--no-pie']
OBSD_DIR = None  # the corpus directory, set by main()
LINKERS = ('lld',) if OBSD else ('bfd', 'lld')


def obsd_layout_objects(lk, kit, seed, objdir, w):
    """layout_objects for the openbsd corpus: (kit ELF, objects) or
    (None, error); objects relative to objdir but the gap object."""
    kelf, lay, gap_s, gap_o = (os.path.join(os.path.abspath(w), f)
                               for f in ('kit.elf', 'layout', 'gap.s', 'gap.o'))
    rc, out, err = run([lk, 'link', '--seed', seed, '--print-layout', '-o', kelf, kit])
    if rc:
        return None, 'linkkit link failed: ' + first_line(err)
    with open(lay, 'w') as f:
        f.write(out)
    rc, asm, err = run(['python3', os.path.join(HERE, '..', 'test', 'obsd', 'mkgap.py'),
                        os.path.join(HERE, '..', 'test', 'obsd', 'policy'), lay])
    if rc:
        return None, 'mkgap failed: ' + first_line(err)
    with open(gap_s, 'w') as f:
        f.write(asm)
    rc, _, err = run(['as', '--64', gap_s, '-o', gap_o])
    if rc:
        return None, 'gap object failed: ' + first_line(err)
    objs = []
    for line in out.splitlines():
        wds = line.split()
        if wds and wds[0] == 'object':
            objs.append(gap_o if wds[1] == 'gap' else wds[1])
    return kelf, objs


def order_objects(lk, kit, seed, policy, objdir, w):
    if OBSD:
        return obsd_layout_objects(lk, kit, seed, objdir, w)
    return layout_objects(lk, kit, seed, policy, objdir, w)


def compare_images(kelf, ref):
    """None when the loaded segments are equal, else the first difference."""
    if not OBSD:
        return compare(kelf, ref)
    rc, out, err = run(['python3', os.path.join(HERE, '..', 'test', 'obsd', 'segcmp.py'),
                        kelf, ref])
    return None if rc == 0 else first_line(out or err)


def child_cpu_ms():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1e3


def ld_once(linker, script, objs, out):
    """One timed link: (wall ms, CPU ms, None) or (None, None, error).
    bench/paired.py times this same command."""
    c0 = child_cpu_ms()
    t0 = time.perf_counter()
    if OBSD:
        p = subprocess.run(OBSD_LLD + ['-T', script, '-o', os.path.abspath(out)] + objs,
                           cwd=OBSD_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        rc, err = p.returncode, p.stderr
    else:
        rc, _, err = run(LD[linker] + ['-T', script, '-o', out] + objs)
    wall = (time.perf_counter() - t0) * 1e3
    if rc:
        return None, None, f'ld.{linker}: ' + first_line(err)
    return wall, child_cpu_ms() - c0, None


def time_ld(linker, script, objs, out, runs):
    """(wall ms, CPU ms) medians, or (None, error)."""
    times, cpu = [], []
    for _ in range(runs):
        wall, c, err = ld_once(linker, script, objs, out)
        if err:
            return None, err
        times.append(wall)
        cpu.append(c)
    return (statistics.median(times), statistics.median(cpu)), None


def seed_hex(i):
    """Seed i of the differential check; seed 1's order is the timed one."""
    return '%x' % (i * 2654435761)


def main():
    global OBSD_DIR
    lk, kit, objdir, policy, script, w, runs, seeds = sys.argv[1:9]
    runs, seeds = int(runs), int(seeds)
    OBSD_DIR = objdir
    os.makedirs(w, exist_ok=True)
    same = {'bfd': 0, 'lld': 0}
    bad = {'bfd': None, 'lld': None}
    for i in range(1, seeds + 1):
        kelf, objs = order_objects(lk, kit, seed_hex(i), policy, objdir, w)
        if kelf is None:
            print(f'error {objs}')
            return
        for linker in LINKERS:
            ref = os.path.join(w, f'ref-{linker}.elf')
            ms, err = time_ld(linker, script, objs, ref, runs if i == 1 else 1)
            if err:
                bad[linker] = bad[linker] or err
                continue
            if i == 1:
                print(f'ld_{linker}_ms {ms[0]:.1f}')
                print(f'ld_{linker}_cpu_ms {ms[1]:.1f}')
            msg = compare_images(kelf, ref)
            if msg:
                bad[linker] = bad[linker] or f'seed {i}: {msg}'
            else:
                same[linker] += 1
    for linker in LINKERS:
        s = f'{same[linker]}/{seeds} identical'
        if bad[linker]:
            s += f'; first difference: {bad[linker]}'
        print(f'diff_{linker} {s}')
    if shutil.which('mold'):
        print('mold not timed: mold takes no linker script with SECTIONS')
    else:
        print('mold not timed: not installed (and it takes no SECTIONS script)')


if __name__ == '__main__':
    main()
