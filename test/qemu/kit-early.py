#!/usr/bin/env python3
"""Makes a test kit that fails early: in the layout, before any image write.

    kit-early.py IN.kit OUT.kit

The entry symbol becomes a linker-script symbol (LK_SYM_PLAN) that no
plan op assigns, so lk_link_layout orders the objects, draws the gaps,
runs the whole plan, places every section and only then fails with
`entry symbol ... is undefined`: the kit was read and inflated and the
permutation and layout exist, but no image was written. The leak test
boots it to prove such a failure leaves nothing behind in the fallback
kernel's memory. The header sizes and SHA-256 are recomputed, so the
kit's own checks pass. Layouts follow linkkit/kit_format.h.
"""
import struct
import sys

from kitedit import SYMBOLS_TABLE, open_kit, repack, table

SYMBOL_SIZE = 32  # struct lk_symbol; kind is the byte at offset 4
ENTRY_SYM_AT = 16  # lk_payload_header.entry_sym
LK_SYM_PLAN = 2


def die(msg):
    sys.exit("kit-early: " + msg)


def main():
    if len(sys.argv) != 3:
        die("usage: kit-early.py IN.kit OUT.kit")
    src, dst = sys.argv[1:]
    kit, fields, payload = open_kit(src, "kit-early")
    payload = bytearray(payload)
    sym_off, nsym = table(payload, SYMBOLS_TABLE)
    entry = struct.unpack_from("<I", payload, ENTRY_SYM_AT)[0]
    if entry >= nsym or sym_off + nsym * SYMBOL_SIZE > len(payload):
        die(f"{src}: entry symbol {entry} outside the symbol table")
    payload[sym_off + entry * SYMBOL_SIZE + 4] = LK_SYM_PLAN
    with open(dst, "wb") as f:
        f.write(repack(kit, fields, payload))
    print(f"kit-early: entry symbol {entry} is now an unassigned plan symbol")


main()
