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
import struct
import sys

from kitedit import STRTAB_TABLE, SYMBOLS_TABLE, open_kit, repack, table

SYMBOL = struct.Struct("<IBBBBIIQQ")  # struct lk_symbol, 32 bytes
LK_SYM_PLAN = 2


def die(msg):
    sys.exit("kit-undefine: " + msg)


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
    kit, fields, payload = open_kit(src, "kit-undefine")
    payload = bytearray(payload)
    hits = find_symbol(payload, name)
    if not hits:
        die(f"{src}: no symbol {name.decode()}")
    for rec in hits:
        payload[rec + 4] = LK_SYM_PLAN
    open(dst, "wb").write(repack(kit, fields, payload))


main()
