#!/usr/bin/env python3
"""Corpus 2 of `make bench`: a synthetic kernel of many assembly objects.

Each object has functions in .text that call, load from and take the
address of globals in other objects (PLT32, PC32, 32S, 64 relocations, as
real kernels mostly have), plus .rodata, .data and .bss. Function bodies
repeat snippets from a shared pool, so the text compresses about as well as
compiled code does rather than like zeros or noise. Deterministic: the same
arguments give the same files.

Usage: gen-kernel.py OUTDIR [NOBJ] [FUNCS_PER_OBJ]
Writes OUTDIR/oN.s and OUTDIR/sources.txt (o0.s first: it is pinned)."""
import os
import random
import sys


def snippet_pool(rng):
    return [bytes(rng.randrange(256) for _ in range(rng.choice((8, 12, 16, 24))))
            for _ in range(512)]


def body(rng, pool, nbytes):
    out, n = [], 0
    while n < nbytes:
        s = pool[min(int(rng.expovariate(1 / 60)), len(pool) - 1)]
        out.append(s)
        n += len(s)
    data = b''.join(out)
    return '\t.byte ' + ','.join(str(b) for b in data) + '\n'


def one_object(rng, pool, k, nobj, nfunc):
    lines = ['\t.text']
    for f in range(nfunc):
        name = f'f{k}_{f}'
        lines += [f'\t.globl {name}', f'\t.type {name},@function', '\t.balign 16', f'{name}:']
        for _ in range(6):
            t = rng.randrange(nobj)
            lines.append(f'\tcall f{t}_{rng.randrange(nfunc)}')
            lines.append(f'\tmovq d{rng.randrange(nobj)}(%rip), %rax')
            lines.append(f'\tmovq $r{rng.randrange(nobj)}, %rcx')
            lines.append(body(rng, pool, rng.randrange(64, 256)))
        lines.append('\tret')
        lines.append(f'\t.size {name}, .-{name}')
    lines += ['\t.section .rodata,"a",@progbits', '\t.balign 16', f'\t.globl r{k}', f'r{k}:',
              body(rng, pool, rng.randrange(1024, 3072))]
    lines += ['\t.section .data,"aw",@progbits', '\t.balign 16', f'\t.globl d{k}', f'd{k}:']
    for _ in range(32):
        lines.append(f'\t.quad f{rng.randrange(nobj)}_{rng.randrange(nfunc)}')
    lines.append(body(rng, pool, rng.randrange(256, 768)))
    lines += ['\t.bss', '\t.balign 16', f'b{k}:', f'\t.skip {rng.randrange(256, 4096)}']
    lines.append('\t.section .note.GNU-stack,"",@progbits')
    if k == 0:
        lines[1:1] = ['\t.globl _start', '_start:']
    return '\n'.join(lines) + '\n'


def main():
    out = sys.argv[1]
    nobj = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    nfunc = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    rng = random.Random(20261203)
    pool = snippet_pool(rng)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'sources.txt'), 'w') as lst:
        for k in range(nobj):
            with open(os.path.join(out, f'o{k}.s'), 'w') as f:
                f.write(one_object(rng, pool, k, nobj, nfunc))
            lst.write(f'o{k}.s\n')


main()
