#!/usr/bin/env python3
"""Breaks a Linux kit's ksyms table (linkkit/kit_format.h,
LK_PAYLOAD_F_LINUX_KALLSYMS) one way, for the refusal tests.

    kit-ksyms-break.py MODE IN.kit OUT.kit

MODE: chunk (its chunk index past the chunk table), count (one symbol
fewer than the blob has), ref (a symbol index past the symbol table),
flag (the flag cleared, the table kept), blob (the blob's magic).
The payload is recompressed at level 1 (the test needs speed, not size).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qemu"))
from kitedit import (FLAGS_AT, KSYMS_TABLE, LK_PAYLOAD_F_LINUX_KALLSYMS,  # noqa: E402
                     open_kit, repack, table)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: kit-ksyms-break.py chunk|count|ref|flag|blob IN.kit OUT.kit")
    mode, src, dst = sys.argv[1:]
    kit, fields, payload = open_kit(src, "kit-ksyms-break")
    payload = bytearray(payload)
    off, count = table(payload, KSYMS_TABLE)
    if count < 8:
        sys.exit(f"kit-ksyms-break: {src}: no ksyms table")
    n = struct.unpack_from("<I", payload, off + 4)[0]
    if mode == "chunk":
        struct.pack_into("<I", payload, off, 0xFFFFFF)
    elif mode == "count":
        struct.pack_into("<I", payload, off + 4, n - 1)
    elif mode == "ref":
        struct.pack_into("<I", payload, off + 8 + 4 * (n // 2), 0xFFFFFF)
    elif mode == "flag":
        flags = struct.unpack_from("<I", payload, FLAGS_AT)[0]
        struct.pack_into("<I", payload, FLAGS_AT, flags & ~LK_PAYLOAD_F_LINUX_KALLSYMS)
    elif mode == "blob":
        payload[off + 8 + 4 * n] ^= 0xFF
    else:
        sys.exit(f"kit-ksyms-break: unknown mode {mode}")
    with open(dst, "wb") as f:
        f.write(repack(kit, fields, payload, level=1))


main()
