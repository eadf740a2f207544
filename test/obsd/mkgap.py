#!/usr/bin/env python3
"""Assembly of a gap.o for ld.lld equal to the kit's synthetic `gap` object:
one input section per policy `gap` line, in policy order (`.text.gap0`,
`.text.gap1`, ... so that two gaps in one section stay two sections),
aligned to the line's step, as large as `linkkit link --print-layout`
printed, filled with the fill byte (NOBITS without one), and a global
symbol at its start when the line names one (endboot).
Usage: mkgap.py POLICY LAYOUT"""
import sys

FLAGS = {'.text': '"ax",@progbits', '.rodata': '"a",@progbits',
         '.data': '"aw",@progbits', '.bss': '"aw",@nobits'}


def main(policy, layout):
    gaps = []
    for line in open(policy):
        w = line.split('#')[0].split()
        if w and w[0] == 'gap':
            gaps.append((w[1], int(w[3], 0),
                         int(w[4], 0) if len(w) > 4 else None,
                         w[5] if len(w) > 5 else None))
    sizes = [int(w[2]) for w in (l.split() for l in open(layout))
             if len(w) == 3 and w[0] == 'gap']
    if len(sizes) != len(gaps):
        sys.exit(f'mkgap: {len(gaps)} gap lines, {len(sizes)} printed sizes')
    out = []
    for i, ((sec, step, fill, sym), size) in enumerate(zip(gaps, sizes)):
        out.append(f'\t.section {sec}.gap{i},{FLAGS[sec]}')
        out.append(f'\t.balign {step}')
        if sym:
            out += [f'\t.globl {sym}', f'{sym}:']
        if fill is None:
            out.append(f'\t.skip {size}')
        else:
            out.append(f'\t.fill {size}, 1, {fill}')
    print('\n'.join(out))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
