#!/usr/bin/env python3
"""Runs the differential check of one kit for many seeds in one process:
`linkkit link --seed S --print-layout`, a gap object of the printed sizes,
GNU ld (bfd or lld) on the objects in the printed order, and a comparison
of every loaded segment. Prints one result line for the test runner.

Usage: seeds.py NAME LINKKIT KIT OBJDIR LINKER SEEDS POLICY SCRIPT WORKDIR"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elfcmp import compare  # noqa: E402
from mkgap import gap_asm  # noqa: E402

LD = {
    'bfd': ['ld.bfd', '-static', '-nostdlib', '--build-id=none', '-z', 'noexecstack'],
    'lld': ['ld.lld', '-static', '-nostdlib', '--build-id=none'],
}


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def first_line(s):
    return (s.strip().split('\n') or [''])[0]


def layout_objects(lk, kit, seed, policy, objdir, w):
    """Links the kit with the seed; returns (kit ELF, the objects in the
    printed order with a gap object of the printed sizes) or (None, error)."""
    kelf, gap_s, gap_o = (os.path.join(w, f) for f in ('kit.elf', 'gap.s', 'gap.o'))
    rc, out, err = run([lk, 'link', '--seed', seed, '--print-layout', '-o', kelf, kit])
    if rc:
        return None, 'linkkit link failed: ' + first_line(err)
    layout = out.splitlines()
    with open(policy) as f, open(gap_s, 'w') as g:
        g.write(gap_asm(f, layout))
    rc, _, err = run(['as', '--64', gap_s, '-o', gap_o])
    if rc:
        return None, 'gap object failed: ' + first_line(err)
    objs = []
    for line in layout:
        wds = line.split()
        if wds and wds[0] == 'object':
            if wds[1] == 'gap':
                objs.append(gap_o)
            elif wds[1] != '<got>':
                objs.append(os.path.join(objdir, wds[1]))
    return kelf, objs


def one_seed(a, seed):
    name, lk, kit, objdir, linker, _, policy, script, w = a
    ref = os.path.join(w, 'ref.elf')
    kelf, objs = layout_objects(lk, kit, seed, policy, objdir, w)
    if kelf is None:
        return objs
    rc, _, err = run(LD[linker] + ['-T', script, '-o', ref] + objs)
    if rc:
        return f'ld.{linker} failed: ' + first_line(err)
    return compare(kelf, ref)


def main():
    a = sys.argv[1:]
    name, linker, nseeds, w = a[0], a[4], int(a[5]), a[8]
    os.makedirs(w, exist_ok=True)
    bad, first = 0, None
    for i in range(1, nseeds + 1):
        msg = one_seed(a, '%x' % (i * 2654435761))
        if msg:
            bad += 1
            first = first or f'seed {i}: {msg}'
    if bad:
        print(f'not ok diff-{linker}-{name}: {bad} of {nseeds} seeds differ; {first}')
    else:
        print(f'ok diff-{linker}-{name} ({nseeds} seeds identical)')


if __name__ == '__main__':
    main()
