#!/usr/bin/env python3
"""Writes the assembly of a gap object equivalent to the kit's synthetic
`gap` object: one section per policy `gap` line, aligned to its step, with
the size `linkkit link --print-layout` printed. Usage: mkgap.py POLICY LAYOUT"""
import sys


FLAGS = {'.text': '"ax",@progbits', '.rodata': '"a",@progbits',
         '.data': '"aw",@progbits', '.bss': '"aw",@nobits'}

def gap_asm(policy_lines, layout_lines):
    """Assembly of the gap object for one printed layout."""
    gaps, sizes, out = [], {}, []
    for line in policy_lines:
        w = line.split('#')[0].split()
        if w and w[0] == 'gap':
            gaps.append((w[1], int(w[3], 0), int(w[4], 0) if len(w) > 4 else None))
    for line in layout_lines:
        w = line.split()
        if w and w[0] == 'gap':
            sizes[w[1]] = int(w[2], 0)
    for sec, step, fill in gaps:
        base = '.' + sec.split('.')[1] if sec.count('.') else sec
        flags = FLAGS.get(base, '"a",@progbits') if fill is not None else '"aw",@nobits'
        out.append(f'\t.section {sec},{flags}')
        out.append(f'\t.balign {step}')
        if fill is None:
            out.append(f'\t.skip {sizes[sec]}')
        else:
            out.append(f'\t.fill {sizes[sec]}, 1, {fill}')
    out.append('\t.section .note.GNU-stack,"",@progbits')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    print(gap_asm(open(sys.argv[1]), open(sys.argv[2])), end='')
