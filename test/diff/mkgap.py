#!/usr/bin/env python3
"""Writes the assembly of a gap object equivalent to the kit's synthetic
`gap` object: one section per policy `gap` line, aligned to its step, with
the size `linkkit link --print-layout` printed. Usage: mkgap.py POLICY LAYOUT"""
import sys

FLAGS = {'.text': '"ax",@progbits', '.rodata': '"a",@progbits',
         '.data': '"aw",@progbits', '.bss': '"aw",@nobits'}

gaps = []
for line in open(sys.argv[1]):
    w = line.split('#')[0].split()
    if w and w[0] == 'gap':
        gaps.append((w[1], int(w[3], 0), int(w[4], 0) if len(w) > 4 else None))
sizes = {}
for line in open(sys.argv[2]):
    w = line.split()
    if w and w[0] == 'gap':
        sizes[w[1]] = int(w[2], 0)
for sec, step, fill in gaps:
    flags = FLAGS.get(sec.split('.', 2)[1] and '.' + sec.split('.')[1], '"a",@progbits')
    if fill is None:
        flags = '"aw",@nobits'
    print(f'\t.section {sec},{flags}')
    print(f'\t.balign {step}')
    if fill is None:
        print(f'\t.skip {sizes[sec]}')
    else:
        print(f'\t.fill {sizes[sec]}, 1, {fill}')
print('\t.section .note.GNU-stack,"",@progbits')
