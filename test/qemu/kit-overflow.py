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
linkkit/kit_format.h (kit version 1).
"""
import hashlib
import struct
import sys
import zlib

KIT_MAGIC = b"LINKKIT\x1a"
HEADER = struct.Struct("<8sHHIQQ32s")  # struct lk_kit_header, 64 bytes
RELOC = struct.Struct("<QIIq")  # struct lk_reloc, 24 bytes
LK_KIT_F_SIGNED = 1
TABLES_AT = 24  # six u32 fields, then struct lk_table {off, count} pairs
RELOCS_TABLE = 6
R_64, R_32, R_32S, R_8 = 1, 10, 11, 14


def die(msg):
    sys.exit("kit-overflow: " + msg)


def main():
    if len(sys.argv) != 3:
        die("usage: kit-overflow.py IN.kit OUT.kit")
    src, dst = sys.argv[1], sys.argv[2]
    kit = open(src, "rb").read()
    if len(kit) < HEADER.size:
        die(f"{src}: too short")
    magic, version, hsize, flags, zsize, size, _ = HEADER.unpack_from(kit)
    if magic != KIT_MAGIC or version != 1 or hsize != HEADER.size:
        die(f"{src}: not a version 1 link kit")
    if flags & LK_KIT_F_SIGNED:
        die(f"{src}: signed kits cannot be edited")
    payload = bytearray(zlib.decompress(kit[hsize:hsize + zsize]))
    if len(payload) != size:
        die(f"{src}: payload size does not match the header")
    off, count = struct.unpack_from("<II", payload, TABLES_AT + 8 * RELOCS_TABLE)
    if off + count * RELOC.size > len(payload):
        die(f"{src}: relocation table outside the payload")
    for i in range(count):
        rec = off + i * RELOC.size
        r_off, r_type, r_sym, r_add = RELOC.unpack_from(payload, rec)
        if r_type in (R_64, R_32, R_32S):
            RELOC.pack_into(payload, rec, r_off, R_8, r_sym, r_add)
            break
    else:
        die(f"{src}: no absolute relocation to narrow")
    z = zlib.compress(bytes(payload), 9)
    header = HEADER.pack(KIT_MAGIC, version, hsize, flags, len(z),
                         len(payload), hashlib.sha256(z).digest())
    with open(dst, "wb") as f:
        f.write(header + z + kit[hsize + zsize:])
    print(f"kit-overflow: relocation {i} (type {r_type}, symbol {r_sym}) "
          f"is now R_X86_64_8")


main()
