#!/usr/bin/env python3
"""Makes a test kit with an undefined symbol.

    kit-undefine.py IN.kit SYMBOL OUT.kit

`linkkit create` refuses objects with undefined symbols at pre-flight, so
the tests build a kit where SYMBOL is defined (by a stub object) and then
turn SYMBOL into a linker-script symbol (LK_SYM_PLAN) that no plan op ever
assigns: to the boot side that is exactly an unresolved symbol. A Linux
kit keeps a kallsyms-listed symbol's name only in its ksyms table, so the
name is looked for there too (kallsyms_names expanded through the token
table, kit_format.h and linkkit/linux_kallsyms.h). The header
sizes and SHA-256 are recomputed so only the link itself can fail.
Layouts follow linkkit/kit_format.h (version 1).
"""
import struct
import sys

from kitedit import KSYMS_TABLE, STRTAB_TABLE, SYMBOLS_TABLE, open_kit, repack, table

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


def ksyms_symbols(payload, name):
    """Kit symbol indices the ksyms table lists under `name`."""
    off, size = table(payload, KSYMS_TABLE)
    if size == 0:
        return []
    n, = struct.unpack_from("<I", payload, off + 4)
    refs = struct.unpack_from("<%dI" % n, payload, off + 8)
    blob = off + 8 + 4 * n
    _, _, nsyms, names_len, tok_len = struct.unpack_from("<5I", payload, blob)
    names = blob + 32 + nsyms
    tokens = payload[names + names_len:names + names_len + tok_len].split(b"\0")
    hits, at = [], names
    for i in range(nsyms):
        length = payload[at]
        hdr = 1
        if length & 0x80:
            length = (length & 0x7F) | payload[at + 1] << 7
            hdr = 2
        full = b"".join(tokens[c] for c in payload[at + hdr:at + hdr + length])
        if full[1:] == name:
            hits.append(refs[i])
        at += hdr + length
    return hits


def main():
    if len(sys.argv) != 4:
        die("usage: kit-undefine.py IN.kit SYMBOL OUT.kit")
    src, name, dst = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
    kit, fields, payload = open_kit(src, "kit-undefine")
    payload = bytearray(payload)
    hits = find_symbol(payload, name)
    sym_off, _ = table(payload, SYMBOLS_TABLE)
    listed = [sym_off + i * SYMBOL.size for i in ksyms_symbols(payload, name)]
    print(f"{name.decode()}: {len(hits)} by strtab name, {len(listed)} by kallsyms name")
    hits += [rec for rec in listed if rec not in hits]
    if not hits:
        die(f"{src}: no symbol {name.decode()}")
    for rec in hits:
        payload[rec + 4] = LK_SYM_PLAN
    open(dst, "wb").write(repack(kit, fields, payload))


main()
