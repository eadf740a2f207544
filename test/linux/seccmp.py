#!/usr/bin/env python3
"""Compares the loaded sections of two ELF64 kernels section by section:
for every SHF_ALLOC section of either file (by name), its address, load
address (through the PT_LOAD holding it), size, type and, for PROGBITS,
every byte. Prints one line per section that differs:

  differ NAME: N of SIZE bytes differ, first at +0xOFF (A 0x.. vs B 0x..)
  differ NAME: address 0x.. vs 0x.. | size 0x.. vs 0x.. | only in A|B

and a last line `sections: N compared, M differ`. A NOBITS section compares
as that many zero bytes; a different section type (NOTE vs PROGBITS,
NOBITS vs PROGBITS: header fields, not loaded bytes) is one `note` line
and does not count. --mask-build-id: the id of a GNU build-id note
(NT_GNU_BUILD_ID 3) in a section whose name starts with .note or is .notes
counts as zero bytes in both (ld's is a SHA-1 of the whole file, the kit's
names the kit); it must be 20 bytes in both. --ignore NAME (repeated)
lists sections that may differ: they are reported as `expected NAME: ...`
and do not count. Exits 0 when nothing else differs, 1 otherwise.
Usage: seccmp.py [--mask-build-id] [--ignore NAME]... A.elf B.elf"""
import struct
import sys

SHF_ALLOC = 2
SHT_NOBITS = 8


def mask_build_id(body):
    b, off = bytearray(body), 0
    while off + 12 <= len(b):
        namesz, descsz, typ = struct.unpack_from('<III', b, off)
        name_end = off + 12 + ((namesz + 3) & ~3)
        if typ == 3 and b[off + 12:off + 12 + namesz] == b'GNU\0':
            if descsz != 20:
                raise ValueError(f'build-id note with a {descsz}-byte id')
            b[name_end:name_end + descsz] = bytes(descsz)
        off = name_end + ((descsz + 3) & ~3)
    return bytes(b)


def load(path, mask=False):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:4] != b'\x7fELF' or d[4] != 2 or d[5] != 1:
        raise ValueError(f'{path}: not a little-endian ELF64 file')
    phoff, shoff = struct.unpack_from('<QQ', d, 32)
    phnum, shentsize, shnum, shstrndx = struct.unpack_from('<HHHH', d, 56)
    if shentsize != 64 or shoff + 64 * shnum > len(d) or shstrndx >= shnum:
        raise ValueError(f'{path}: bad section headers')
    phdrs = [struct.unpack_from('<IIQQQQQQ', d, phoff + 56 * i)
             for i in range(phnum)]
    shdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i)
             for i in range(shnum)]
    stroff = shdrs[shstrndx][4]
    secs = {}
    for sh in shdrs[1:]:
        name_off, typ, flags, addr, off, size = sh[:6]
        if not flags & SHF_ALLOC:
            continue
        end = d.index(b'\0', stroff + name_off)
        name = d[stroff + name_off:end].decode('ascii', 'replace')
        lma = None
        for p in phdrs:
            # The PT_LOAD whose file range holds the section gives its LMA.
            if p[0] == 1 and p[2] <= off and (typ == SHT_NOBITS or off + size <= p[2] + p[5]) \
                    and p[3] <= addr < p[3] + max(p[6], 1) + (1 if size == 0 else 0):
                lma = p[4] + (addr - p[3])
                break
        body = bytes(size) if typ == SHT_NOBITS else d[off:off + size]
        if mask and (name == '.notes' or name.startswith('.note')):
            body = mask_build_id(body)
        if typ != SHT_NOBITS and off + size > len(d):
            raise ValueError(f'{path}: section {name} past the end')
        secs.setdefault(name, (typ, addr, lma, size, body))
    return secs


def compare(a, b, ignore, mask):
    sa, sb = load(a, mask), load(b, mask)
    bad = n = 0
    for name in list(sa) + [x for x in sb if x not in sa]:
        n += 1
        why = None
        if name not in sa or name not in sb:
            why = 'only in ' + ('B' if name not in sa else 'A')
        else:
            ta, aa, la, za, ba = sa[name]
            tb, ab, lb, zb, bb = sb[name]
            if ta != tb:
                print(f'note {name}: section type {ta} vs {tb}')
            if aa != ab:
                why = f'address 0x{aa:x} vs 0x{ab:x}'
            elif la != lb:
                why = f'load address {la} vs {lb}'
            elif za != zb:
                why = f'size 0x{za:x} vs 0x{zb:x}'
            elif ba != bb:
                diff = [i for i in range(za) if ba[i] != bb[i]]
                k = diff[0]
                why = (f'{len(diff)} of {za} bytes differ, first at +0x{k:x} '
                       f'(A 0x{ba[k]:02x} vs B 0x{bb[k]:02x})')
        if why:
            if name in ignore:
                print(f'expected {name}: {why}')
            else:
                print(f'differ {name}: {why}')
                bad += 1
    print(f'sections: {n} compared, {bad} differ')
    return bad


if __name__ == '__main__':
    args, ignore, mask = sys.argv[1:], set(), False
    while len(args) > 2 and args[0] in ('--ignore', '--mask-build-id'):
        if args[0] == '--mask-build-id':
            mask = True
            args = args[1:]
            continue
        ignore.add(args[1])
        args = args[2:]
    if len(args) != 2:
        print(__doc__.split('\n\n')[0], file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(1 if compare(args[0], args[1], ignore, mask) else 0)
    except (OSError, ValueError, struct.error) as e:
        print(f'seccmp: {e}')
        sys.exit(1)
