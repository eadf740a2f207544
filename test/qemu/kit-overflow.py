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
linkkit/kit_format.h (kit version 1, payload version 3: relocations are
a byte stream of records whose header byte's low 4 bits are a type index;
the record's length does not depend on it, so one byte changes).
"""
import struct
import sys

from kitedit import RELOCS_TABLE, open_kit, repack, table

# Type indices of the stream's header byte (kit_format.h).
TIX_64, TIX_32, TIX_32S, TIX_8 = 0, 2, 3, 6
NAMES = {TIX_64: "R_X86_64_64", TIX_32: "R_X86_64_32", TIX_32S: "R_X86_64_32S"}


def varint_end(stream, at):
    """Index just past the LEB128 varint at AT."""
    while stream[at] & 0x80:
        at += 1
    return at + 1


def records(stream):
    """(start, header byte) of each record, front to back: the host writes
    the chunks' records back to back."""
    at = 0
    while at < len(stream):
        head = stream[at]
        end = varint_end(stream, varint_end(stream, at + 1))
        if (head >> 4) & 3 == 2:
            end = varint_end(stream, end)
        yield at, head
        at = end


def die(msg):
    sys.exit("kit-overflow: " + msg)


def main():
    if len(sys.argv) != 3:
        die("usage: kit-overflow.py IN.kit OUT.kit")
    src, dst = sys.argv[1], sys.argv[2]
    kit, fields, payload = open_kit(src, "kit-overflow")
    payload = bytearray(payload)
    off, count = table(payload, RELOCS_TABLE)
    if off + count > len(payload):
        die(f"{src}: relocation stream outside the payload")
    stream = payload[off:off + count]
    for i, (at, head) in enumerate(records(stream)):
        if head & 0xf in NAMES:
            payload[off + at] = (head & 0xf0) | TIX_8
            break
    else:
        die(f"{src}: no absolute relocation to narrow")
    with open(dst, "wb") as f:
        f.write(repack(kit, fields, payload))
    print(f"kit-overflow: relocation {i} ({NAMES[head & 0xf]}, stream byte "
          f"{at}) is now R_X86_64_8")


main()
