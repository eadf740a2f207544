#!/usr/bin/env python3
"""Makes the two kits of issue 23's last gaps from a valid unsigned kit.

    kit-gaps.py entry0 IN.kit OUT.kit
    kit-gaps.py segshift IN.kit OUT.kit

entry0    the entry symbol (payload header entry_sym) turned into an
          absolute symbol of value 0: defined, but outside every output
          section. The stages must refuse it and boot the fallback.
segshift  a segmented kit (LK_KIT_F_SEGMENTS) whose index record 1 (the
          start of segment 2) is one byte late: the stream still inflates
          whole, but segments 1 and 2 do not. An unsegmented IN.kit is
          first cut into 4 segments with zlib's full flush, as
          tools/kitwrite.c cuts them.
The header's sizes and SHA-256 are recomputed, so only the check under
test can refuse the kit. Layouts: linkkit/kit_format.h.
"""
import struct
import sys
import zlib

from kitedit import SYMBOLS_TABLE, open_kit, pack, repack, table

SYMBOL = struct.Struct("<IBBBBIIQQ")  # struct lk_symbol, 32 bytes
ENTRY_SYM_AT = 16  # lk_payload_header.entry_sym
LK_SYM_ABS = 1
LK_KIT_F_SEGMENTS = 2
SEGMENTS = 4


def die(msg):
    sys.exit("kit-gaps: " + msg)


def entry0(kit, fields, payload):
    payload = bytearray(payload)
    entry, = struct.unpack_from("<I", payload, ENTRY_SYM_AT)
    sym_off, nsym = table(payload, SYMBOLS_TABLE)
    if entry >= nsym:
        die(f"entry symbol {entry} out of range")
    rec = sym_off + entry * SYMBOL.size
    f = list(SYMBOL.unpack_from(payload, rec))
    f[1], f[7] = LK_SYM_ABS, 0  # kind, value
    SYMBOL.pack_into(payload, rec, *f)
    return repack(kit, fields, payload)


def cut(payload, n):
    """A zlib stream of payload cut into n segments, and its index
    records [(zoff, off)] for segments 1..n-1."""
    c = zlib.compressobj(9)
    out, index = bytearray(), []
    bounds = [len(payload) * i // n for i in range(n)] + [len(payload)]
    for i in range(n):
        if i:
            index.append((len(out), bounds[i]))
        out += c.compress(payload[bounds[i]:bounds[i + 1]])
        out += c.flush(zlib.Z_FULL_FLUSH if i + 1 < n else zlib.Z_FINISH)
    return bytes(out), index


def segshift(kit, fields, payload):
    hsize, flags, zsize = fields[2], fields[3], fields[4]
    if flags & LK_KIT_F_SEGMENTS:
        z = kit[hsize:hsize + zsize]
        count, = struct.unpack_from("<I", z, len(z) - 8)
        at = len(z) - 8 - 16 * count
        stream = z[:at]
        index = [struct.unpack_from("<QQ", z, at + 16 * i) for i in range(count)]
    else:
        stream, index = cut(payload, SEGMENTS)
    if len(index) < 2:
        die("needs at least 3 segments")
    index[1] = (index[1][0] + 1, index[1][1])
    body = stream + b"".join(struct.pack("<QQ", *r) for r in index)
    body += struct.pack("<II", len(index), 0)
    head = (fields[0], fields[1], hsize, flags | LK_KIT_F_SEGMENTS) + fields[4:]
    return pack(head, body) + kit[hsize + zsize:]


def main():
    modes = {"entry0": entry0, "segshift": segshift}
    if len(sys.argv) != 4 or sys.argv[1] not in modes:
        die("usage: kit-gaps.py entry0|segshift IN.kit OUT.kit")
    kit, fields, payload = open_kit(sys.argv[2], "kit-gaps")
    out = modes[sys.argv[1]](kit, fields, payload)
    if out == kit:
        die("the edit left the kit unchanged")
    with open(sys.argv[3], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
