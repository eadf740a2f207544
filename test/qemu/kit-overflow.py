#!/usr/bin/env python3
"""Makes a test kit that fails late: in lk_link_write, after the layout.

    kit-overflow.py IN.kit OUT.kit

Narrows the payload's first absolute relocation (R_X86_64_64, _32 or
_32S) to R_X86_64_8: its value is a kernel address, above 255 wherever
the layout puts the target, so the boot side places every object,
computes every address, writes the whole image (relocation errors do not
stop the write) and only then fails with `relocation R_X86_64_8 out of
range`. The leak test boots it to prove a
failed relink leaves nothing behind in the fallback kernel's memory.
The header sizes and SHA-256 are recomputed. Layouts follow
linkkit/kit_format.h (kit version 1, payload version 6: the relocs table is
a column of offset deltas, then a column of infos, u32 each).
"""
import struct
import sys

from kitedit import RELOCS_TABLE, open_kit, repack, table

INFO = struct.Struct("<I")  # sym << 8 | type, in the relocs table's second column
R_64, R_32, R_32S, R_8 = 1, 10, 11, 14


def die(msg):
    sys.exit("kit-overflow: " + msg)


def main():
    if len(sys.argv) != 3:
        die("usage: kit-overflow.py IN.kit OUT.kit")
    src, dst = sys.argv[1], sys.argv[2]
    kit, fields, payload = open_kit(src, "kit-overflow")
    payload = bytearray(payload)
    off, count = table(payload, RELOCS_TABLE)
    if off + count * 8 > len(payload):
        die(f"{src}: relocation table outside the payload")
    for i in range(count):
        rec = off + 4 * count + 4 * i
        (r_info,) = INFO.unpack_from(payload, rec)
        r_type, r_sym = r_info & 0xFF, r_info >> 8
        if r_type in (R_64, R_32, R_32S):
            INFO.pack_into(payload, rec, r_sym << 8 | R_8)
            break
    else:
        die(f"{src}: no absolute relocation to narrow")
    with open(dst, "wb") as f:
        f.write(repack(kit, fields, payload))
    print(f"kit-overflow: relocation {i} (type {r_type}, symbol {r_sym}) "
          f"is now R_X86_64_8")


main()
