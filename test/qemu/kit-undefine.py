#!/usr/bin/env python3
"""Makes a test kit with an undefined symbol.

    kit-undefine.py IN.kit SYMBOL OUT.kit

`linkkit create` refuses objects with undefined symbols at pre-flight, so
the tests build a kit where SYMBOL is defined (by a stub object) and then
turn SYMBOL into a linker-script symbol (LK_SYM_PLAN) that no plan op ever
assigns: to the boot side that is exactly an unresolved symbol. The header
sizes and SHA-256 are recomputed so only the link itself can fail.
Layouts follow linkkit/kit_format.h (version 1).
"""
import hashlib
import struct
import sys
import zlib

KIT_MAGIC = b"LINKKIT\x1a"
HEADER = struct.Struct("<8sHHIQQ32s")  # struct lk_kit_header, 64 bytes
SYMBOL = struct.Struct("<IBBBBIIQQ")  # struct lk_symbol, 32 bytes
LK_KIT_F_SIGNED = 1
LK_SYM_PLAN = 2
TABLES_AT = 24  # six u32 fields, then struct lk_table {off, count} pairs
SYMBOLS_TABLE, STRTAB_TABLE = 5, 11


def die(msg):
    sys.exit("kit-undefine: " + msg)


def table(payload, index):
    return struct.unpack_from("<II", payload, TABLES_AT + 8 * index)


def find_symbol(payload, name):
    sym_off, nsym = table(payload, SYMBOLS_TABLE)
    str_off, str_len = table(payload, STRTAB_TABLE)
    strtab = payload[str_off:str_off + str_len]
    hits = []
    for i in range(nsym):
        rec = sym_off + i * SYMBOL.size
        s_name = SYMBOL.unpack_from(payload, rec)[0]
        end = strtab.find(b"\0", s_name)
        if end >= 0 and strtab[s_name:end] == name:
            hits.append(rec)
    return hits


def main():
    if len(sys.argv) != 4:
        die("usage: kit-undefine.py IN.kit SYMBOL OUT.kit")
    src, name, dst = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
    kit = open(src, "rb").read()
    magic, version, hsize, flags, zsize, size, _ = HEADER.unpack_from(kit)
    if magic != KIT_MAGIC or version != 1 or hsize != HEADER.size:
        die(f"{src}: not a version 1 link kit")
    if flags & LK_KIT_F_SIGNED:
        die(f"{src}: signed kits cannot be edited")
    payload = bytearray(zlib.decompress(kit[hsize:hsize + zsize]))
    if len(payload) != size:
        die(f"{src}: payload size does not match the header")
    hits = find_symbol(payload, name)
    if not hits:
        die(f"{src}: no symbol {name.decode()}")
    for rec in hits:
        payload[rec + 4] = LK_SYM_PLAN
    z = zlib.compress(bytes(payload), 9)
    header = HEADER.pack(KIT_MAGIC, version, hsize, flags, len(z),
                         len(payload), hashlib.sha256(z).digest())
    open(dst, "wb").write(header + z + kit[hsize + zsize:])


main()
