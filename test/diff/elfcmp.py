#!/usr/bin/env python3
"""Compares the PT_LOAD segments of two ELF64 files: addresses, sizes, flags
and every byte. Prints nothing and exits 0 when identical, else prints the
first difference and exits 1."""
import struct
import sys


def segments(path):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:4] != b'\x7fELF' or d[4] != 2:
        return [('not an ELF64 file',)]
    phoff, = struct.unpack_from('<Q', d, 32)
    phentsize, phnum = struct.unpack_from('<HH', d, 54)
    segs = []
    for i in range(phnum):
        t, fl, off, va, pa, fsz, msz, _ = struct.unpack_from('<IIQQQQQQ', d, phoff + i * phentsize)
        if t == 1 and msz:
            body = d[off:off + fsz] + bytes(msz - fsz)
            segs.append((va, pa, fsz, msz, fl, body))
    return segs


def compare(path_a, path_b):
    """None when the loaded segments are identical, else the first difference."""
    a, b = segments(path_a), segments(path_b)
    if len(a) != len(b):
        return f'{len(a)} vs {len(b)} loaded segments'
    for i, (x, y) in enumerate(zip(a, b)):
        if x[:5] != y[:5]:
            return 'segment %d: vaddr/paddr/filesz/memsz/flags %s vs %s' % (
                i, [hex(v) for v in x[:5]], [hex(v) for v in y[:5]])
        if x[5] != y[5]:
            k = next(j for j in range(len(x[5])) if x[5][j] != y[5][j])
            return 'segment %d: first byte difference at 0x%x (vaddr 0x%x): %s vs %s' % (
                i, k, x[0] + k, x[5][k:k + 8].hex(), y[5][k:k + 8].hex())
    return None


if __name__ == '__main__':
    msg = compare(sys.argv[1], sys.argv[2])
    if msg:
        print(msg)
    sys.exit(1 if msg else 0)
