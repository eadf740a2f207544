#!/usr/bin/env python3
"""Writes a copy of a Linux vmlinux.lds in which every input-section
description the kit keeps in canonical order (`keep-order` patterns of
`linkkit create --linux`'s built-in policy, read from tools/kblinux.c) names
its objects one by one, in canonical order: `KEEP(*(.initcall6.init))`
becomes `KEEP(a.o(.initcall6.init)) KEEP(b.o(.initcall6.init)) ...`. GNU ld
given the shuffled object order and this script then lays those tables out
as the kit does, everything else in command-line order.
Usage: keeporder.py KBLINUX_C BUILD_DIR CANONICAL_LIST OUT.lds
(CANONICAL_LIST: object paths relative to BUILD_DIR, one a line)."""
import fnmatch
import os
import re
import struct
import sys


def patterns(src):
    text = open(src).read()
    pats = []
    for m in re.finditer(r'"keep-order ([^"\\]+)\\n"', text):
        pats += m.group(1).split()
    if not pats:
        raise SystemExit(f'{src}: no keep-order lines found')
    return pats


def section_names(path):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:4] != b'\x7fELF':
        raise SystemExit(f'{path}: not ELF')
    shoff, = struct.unpack_from('<Q', d, 40)
    shnum, shstrndx = struct.unpack_from('<HH', d, 60)
    hdrs = [struct.unpack_from('<IIQQQQ', d, shoff + 64 * i) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    names = set()
    for h in hdrs[1:]:
        e = d.index(b'\0', stroff + h[0])
        names.add(d[stroff + h[0]:e].decode('latin-1'))
    return names


def main():
    src, build, listf, out = sys.argv[1:5]
    pats = patterns(src)
    objs = [l.strip() for l in open(listf) if l.strip()]
    secs = {o: section_names(os.path.join(build, o)) for o in objs}
    lds = open(os.path.join(build, 'arch/x86/kernel/vmlinux.lds')).read()
    count = 0

    def expand(m):
        nonlocal count
        keep, sec = m.group(1) is not None, m.group(2)
        if not any(fnmatch.fnmatchcase(sec, p) for p in pats):
            return m.group(0)
        have = [o for o in objs if sec in secs[o]]
        count += len(have)
        parts = [f'{o}({sec})' for o in have]
        return ' '.join(f'KEEP({p})' if keep else p for p in parts)

    lds = re.sub(r'(KEEP\()?\*\(([^()\s*]+)\)(?(1)\))', expand, lds)
    open(out, 'w').write(lds)
    print(f'keeporder: {count} input sections named in canonical order')


main()
