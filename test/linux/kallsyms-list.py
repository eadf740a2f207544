#!/usr/bin/env python3
"""The core lines of /proc/kallsyms a Linux 6.1 kernel prints from the
kallsyms tables linked into ELF (KALLSYMS_BASE_RELATIVE and
KALLSYMS_ABSOLUTE_PERCPU, as x86-64 SMP builds are), decoded the way
kernel/kallsyms.c reads them: kallsyms_names entries (a one- or two-byte
length, then tokens expanded through kallsyms_token_table at
kallsyms_token_index), the type letter first; addresses from
kallsyms_offsets (non-negative: absolute, negative: relative_base - 1 -
offset); printed as s_show does, "%px %c %s".

    kallsyms-list.py VMLINUX.elf > list
"""
import struct
import sys


def elf_sections(d):
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = \
            struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
        secs.append(dict(type=typ, addr=addr, off=off, size=size, link=link,
                         entsize=entsize))
    return secs


def symbols(d, secs):
    out = {}
    for s in secs:
        if s["type"] != 2:  # SHT_SYMTAB
            continue
        strs = secs[s["link"]]
        for i in range(s["size"] // 24):
            name, info, other, shndx, value, size = struct.unpack_from(
                "<IBBHQQ", d, s["off"] + 24 * i)
            end = d.index(b"\0", strs["off"] + name)
            n = d[strs["off"] + name:end].decode()
            if n.startswith("kallsyms_"):
                out[n] = value
    return out


def reader(d, secs):
    def at(vma, n):
        for s in secs:
            if s["type"] == 1 and s["addr"] <= vma and vma + n <= s["addr"] + s["size"]:
                o = s["off"] + vma - s["addr"]
                return d[o:o + n]
        sys.exit(f"kallsyms-list: 0x{vma:x}: not in a PROGBITS section")
    return at


def main():
    d = open(sys.argv[1], "rb").read()
    secs = elf_sections(d)
    sym = symbols(d, secs)
    at = reader(d, secs)
    need = ["kallsyms_offsets", "kallsyms_relative_base", "kallsyms_num_syms",
            "kallsyms_names", "kallsyms_token_table", "kallsyms_token_index"]
    for n in need:
        if n not in sym:
            sys.exit(f"kallsyms-list: no symbol {n}")
    num, = struct.unpack("<I", at(sym["kallsyms_num_syms"], 4))
    base, = struct.unpack("<Q", at(sym["kallsyms_relative_base"], 8))
    offs = struct.unpack(f"<{num}i", at(sym["kallsyms_offsets"], 4 * num))
    index = struct.unpack("<256H", at(sym["kallsyms_token_index"], 512))
    ttab = sym["kallsyms_token_table"]
    tokens = []
    for i in range(256):
        s = at(ttab + index[i], 1)
        out = b""
        while s != b"\0":
            out += s
            s = at(ttab + index[i] + len(out), 1)
        tokens.append(out)
    names_at = sym["kallsyms_names"]
    # The name stream is at most 32 bytes per name on average here: read
    # what the table's neighbours leave, then walk it.
    lines = []
    off = 0
    chunk = at(names_at, sym["kallsyms_markers"] - names_at) \
        if "kallsyms_markers" in sym else None
    if chunk is None:
        sys.exit("kallsyms-list: no symbol kallsyms_markers")
    for i in range(num):
        n = chunk[off]
        off += 1
        if n & 0x80:
            n = (n & 0x7F) | (chunk[off] << 7)
            off += 1
        name = b"".join(tokens[t] for t in chunk[off:off + n])
        off += n
        o = offs[i]
        addr = o if o >= 0 else (base - 1 - o) & 0xFFFFFFFFFFFFFFFF
        lines.append("%016x %c %s\n" % (addr, name[0], name[1:].decode()))
    sys.stdout.write("".join(lines))


main()
