#!/usr/bin/env python3
"""Compares two ELF64 executables the way a loader sees them: every program
header (type, flags, offset, addresses, sizes, alignment), the entry point,
and every byte each PT_LOAD loads. The section-header fields of a loaded
ELF header (e_shoff, e_shnum, e_shstrndx) are left out: they describe the
non-loaded rest of the file, which differs between linkers; nor are the
bytes of PT_OPENBSD_RANDOMIZE segments (random at every link). Prints nothing
and exits 0 when equal, else prints the first difference and exits 1.
Usage: segcmp.py A.elf B.elf"""
import struct
import sys

PHDR = '<IIQQQQQQ'
RANDOMIZE = 0x65a3dbe6
NAMES = ('type', 'flags', 'offset', 'vaddr', 'paddr', 'filesz', 'memsz',
         'align')


def load(path):
    with open(path, 'rb') as f:
        d = bytearray(f.read())
    if d[:4] != b'\x7fELF' or d[4] != 2:
        raise ValueError(f'{path}: not an ELF64 file')
    entry, phoff = struct.unpack_from('<QQ', d, 24)
    phnum, = struct.unpack_from('<H', d, 56)
    if phoff + 56 * phnum > len(d):
        raise ValueError(f'{path}: program headers past the end')
    phdrs = [struct.unpack_from(PHDR, d, phoff + 56 * i) for i in range(phnum)]
    masked = bytearray(d)
    masked[40:48] = bytes(8)  # e_shoff
    masked[60:64] = bytes(4)  # e_shnum, e_shstrndx
    segs = []
    for p in phdrs:
        if p[0] == 1:
            off, fsz, msz = p[2], p[5], p[6]
            if off + fsz > len(d):
                raise ValueError(f'{path}: segment past the end of the file')
            body = bytearray(masked[off:off + fsz]) + bytes(msz - fsz)
            for r in phdrs:
                if r[0] == RANDOMIZE:
                    lo = max(r[3], p[3]) - p[3]
                    hi = min(r[3] + r[6], p[3] + msz) - p[3]
                    if lo < hi:
                        body[lo:hi] = bytes(hi - lo)
            segs.append(bytes(body))
    return entry, phdrs, segs


def compare(a, b):
    ea, pa, sa = load(a)
    eb, pb, sb = load(b)
    if ea != eb:
        return f'entry 0x{ea:x} vs 0x{eb:x}'
    if len(pa) != len(pb):
        return f'{len(pa)} vs {len(pb)} program headers'
    for i, (x, y) in enumerate(zip(pa, pb)):
        for n, u, v in zip(NAMES, x, y):
            if u != v:
                return f'phdr {i}: {n} 0x{u:x} vs 0x{v:x}'
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y:
            k = next(j for j in range(min(len(x), len(y))) if x[j] != y[j])
            return f'load segment {i}: first differing byte at +0x{k:x}'
    return None


if __name__ == '__main__':
    try:
        why = compare(sys.argv[1], sys.argv[2])
    except (OSError, ValueError, struct.error) as e:
        why = str(e)
    if why:
        print(why)
        sys.exit(1)
