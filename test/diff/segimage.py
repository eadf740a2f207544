#!/usr/bin/env python3
"""Prints what a boot stage should load from an ELF64 file: the p_paddr
range of the PT_LOAD segments, the entry, their count and the SHA-256 of
the image (segment bytes, zeros elsewhere). Usage: segimage.py ELF"""
import hashlib
import struct
import sys

d = open(sys.argv[1], 'rb').read()
entry, phoff = struct.unpack_from('<QQ', d, 24)
phnum, = struct.unpack_from('<H', d, 56)
segs = []
for i in range(phnum):
    t, _, off, _, pa, fsz, msz, _ = struct.unpack_from('<IIQQQQQQ', d, phoff + 56 * i)
    if t == 1:
        segs.append((pa, d[off:off + fsz] + bytes(msz - fsz)))
lo = min(p for p, _ in segs)
hi = max(p + len(b) for p, b in segs)
img = bytearray(hi - lo)
for p, b in segs:
    img[p - lo:p - lo + len(b)] = b
print('load 0x%x 0x%x entry 0x%x nload %d sha256 %s' % (
    lo, hi, entry, len(segs), hashlib.sha256(img).hexdigest()))
