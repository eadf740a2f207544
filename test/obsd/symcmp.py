#!/usr/bin/env python3
"""symcmp.py OURS.elf LLD.elf [--text-only]: the .symtab of `linkkit link`
against ld.lld's for the same object order. The same symbols (name, type,
binding, visibility, size) must be there, each with the same value; with
--text-only values are compared only for symbols in .text (real kernels:
merged strings are placed differently, docs/kit-format.md). Prints the
first difference and exits 1, or exits 0."""
import collections
import struct
import sys


def symbols(path):
    d = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", d, 0x3C)
    sh = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + 64 * i) for i in range(shnum)]
    names = sh[shstrndx]
    secname = lambda s: d[names[4] + s[0]:d.index(b"\0", names[4] + s[0])].decode()
    text = [s for s in sh if secname(s) == ".text"][0]
    out = []
    for s in sh:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        st = sh[s[6]]
        for off in range(s[4] + 24, s[4] + s[5], 24):
            n, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", d, off)
            name = d[st[4] + n:d.index(b"\0", st[4] + n)].decode()
            out.append((name, info & 15, info >> 4, other & 3, size, value,
                        text[3] <= value < text[3] + text[5]))
    return out


def main():
    ours, lld = symbols(sys.argv[1]), symbols(sys.argv[2])
    text_only = "--text-only" in sys.argv
    key = lambda s: s[:5] + ((s[5],) if not text_only or s[6] else ())
    a, b = collections.Counter(map(key, ours)), collections.Counter(map(key, lld))
    if a != b:
        only = sorted((a - b).elements())[:1] or ["-"]
        other = sorted((b - a).elements())[:1] or ["-"]
        print(f"symbols differ ({len(ours)} against {len(lld)}): ours {only[0]}, "
              f"ld.lld {other[0]}")
        return 1
    return 0


sys.exit(main())
