#!/usr/bin/env python3
"""Makes hostile link kits for the boot stages' robustness tests (issue 7).

    kit-hostile.py IN.kit OUTDIR [LINKKIT]

Writes into OUTDIR one kit per case, each made from the valid IN.kit:
  truncated.kit  the first half of IN.kit
  zsize.kit      header payload_zsize = 0xffffffffffff
  size.kit       header payload_size = 2^40
  zflip.kit      one bit flipped mid zlib stream, SHA-256 recomputed so the
                 stage gets as far as inflate
  tabofs.kit     payload's symbols table offset pointed past the end,
                 recompressed with SHA-256 recomputed (reaches lk_link_open)
  fuzz-N.kit     (N = 1..3) deterministic random byte mutations of the
                 inflated payload, recompressed, SHA-256 recomputed; with
                 LINKKIT, the first of the seeded mutations that `LINKKIT
                 link` refuses (a mutation may hit only bytes the link
                 never reads; which ones changes with the payload format)
The seed is fixed so a failure can be replayed. Layout: linkkit/kit_format.h.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

from kitedit import SYMBOLS_TABLE, TABLES_AT, open_kit, pack

FUZZ_SEED = 0x5eed7


def die(msg):
    sys.exit("kit-hostile: " + msg)


def fuzz(payload, rng):
    """A few random byte changes, past the payload magic/version so the
    mutation reaches the table and record checks rather than the first test."""
    out = bytearray(payload)
    for _ in range(rng.randint(4, 24)):
        off = rng.randrange(8, len(out))
        out[off] = rng.choice((0, 0xff, rng.randrange(256), out[off] ^ (1 << rng.randrange(8))))
    return bytes(out)


def host_refuses(linkkit, data):
    """Whether `linkkit link` refuses the kit bytes data."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.kit")
        with open(path, "wb") as f:
            f.write(data)
        r = subprocess.run([linkkit, "link", "--seed", "0123456789abcdef0123456789abcdef",
                            "-o", os.path.join(d, "k.elf"), path], capture_output=True)
        return r.returncode != 0


def main():
    if len(sys.argv) not in (3, 4):
        die("usage: kit-hostile.py IN.kit OUTDIR [LINKKIT]")
    src, outdir = sys.argv[1], sys.argv[2]
    linkkit = sys.argv[3] if len(sys.argv) == 4 else None
    kit, fields, payload = open_kit(src, "kit-hostile")
    hsize, zsize = fields[2], fields[4]
    stream = kit[hsize:hsize + zsize]
    kits = {"truncated": kit[:len(kit) // 2],
            "zsize": pack(fields, stream, zsize=0xffffffffffff),
            "size": pack(fields, stream, size=1 << 40)}
    flipped = bytearray(stream)
    flipped[len(flipped) // 2] ^= 0x10
    kits["zflip"] = pack(fields, bytes(flipped))
    bad = bytearray(payload)
    struct.pack_into("<I", bad, TABLES_AT + 8 * SYMBOLS_TABLE, len(payload) + 0x1000)
    kits["tabofs"] = pack(fields, zlib.compress(bytes(bad), 9), size=len(bad))
    rng = random.Random(FUZZ_SEED)
    for n in (1, 2, 3):
        for _ in range(50):
            mutated = fuzz(payload, rng)
            data = pack(fields, zlib.compress(mutated, 9), size=len(mutated))
            if linkkit is None or host_refuses(linkkit, data):
                break
        else:
            die(f"fuzz-{n}: 50 mutations, none refused by {linkkit}")
        kits[f"fuzz-{n}"] = data
    for name, data in kits.items():
        if data == kit:
            die(f"{name}: the mutation left the kit unchanged")
        with open(os.path.join(outdir, name + ".kit"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
