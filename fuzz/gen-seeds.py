#!/usr/bin/env python3
"""Builds the fuzz seed corpora from the real demo kit, fallback kernel,
linker scripts and config (build products, so nothing big is committed).

usage: gen-seeds.py OUTDIR KIT FALLBACK_ELF CONFIG SCRIPT...
Writes OUTDIR/NAME/* per target and OUTDIR/demo.payload (the plan target's
base payload)."""
import base64
import os
import struct
import sys
import zlib

KIT_HDR = 64
PAYLOAD_HDR = 24  # six u32 before the tables
PLAN_TABLE = 7    # index of `plan` among the lk_table entries
OP_SIZE = 16
CHUNK_TABLE, SYMBOL_TABLE, RELOC_TABLE = 1, 5, 6
CHUNK_SIZE = 72   # struct lk_chunk: size at 16, reloc_first/count at 40


def put(outdir, target, name, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def mmap_seed():
    # A q35-like map: low RAM, EBDA hole, BIOS ROM, RAM above 1 MiB with an
    # out-of-order and an overlapping entry to exercise normalisation.
    ents = [(0x100000, 0xeef0000, 1), (0, 0x9fc00, 1), (0x9fc00, 0x400, 2),
            (0xf0000, 0x10000, 2), (0xeff0000, 0x10000, 3),
            (0xfeffc000, 0x4000, 2), (0x100000000, 0x1000, 1),
            (0x200000, 0x1000, 1)]
    return b"".join(struct.pack("<QQII", a, l, t, 0) for a, l, t in ents)


def rstream_seeds(outdir, payload):
    """fuzz_rstream: header (u64 chunk size, u32 symbols, u32 records,
    u32 first byte, u32 salt) + stream bytes. Real chunks of the demo kit
    (each alone, and one inside the whole stream), plus a record of each
    kind the decoder refuses."""
    def table(i):
        return struct.unpack_from("<II", payload, PAYLOAD_HDR + 8 * i)
    coff, nchunk = table(CHUNK_TABLE)
    _, nsym = table(SYMBOL_TABLE)
    roff, nrel = table(RELOC_TABLE)
    rel = payload[roff:roff + nrel]
    chunks = []
    for i in range(nchunk):
        at = coff + CHUNK_SIZE * i
        size, = struct.unpack_from("<Q", payload, at + 16)
        first, count = struct.unpack_from("<II", payload, at + 40)
        if count:
            chunks.append((first, count, size))
    assert chunks, "the demo kit has no relocations"
    starts = sorted({c[0] for c in chunks}) + [nrel]
    hdr = lambda size, ns, count, first, salt: struct.pack(
        "<QIIII", size, ns, count, first, salt)
    # The chunks with the most records first; 24 is plenty for a seed set.
    for k, (first, count, size) in enumerate(
            sorted(chunks, key=lambda c: -c[1])[:24]):
        end = starts[starts.index(first) + 1]
        put(outdir, "rstream", "chunk%02d" % k,
            hdr(size, nsym, count, 0, k) + rel[first:end])
    first, count, size = chunks[len(chunks) // 2]
    put(outdir, "rstream", "whole", hdr(size, nsym, count, first, 5) + rel)
    refused = {
        "type": b"\x09\x00\x00", "reserved": b"\x41\x00\x00",
        "form3": b"\x31\x00\x00", "varint11": b"\x01" + b"\x80" * 10 + b"\x00\x00",
        "varint65": b"\x01\x00" + b"\xff" * 9 + b"\x02",
        "symbol": b"\x01\x00\x90\x4e", "offset": b"\x00\x09\x00",
        "cut": b"\x00\x00\x00\x21\x04\x02\x80",
        "long": b"\x20" + b"\xff" * 9 + b"\x01" + b"\x02" + b"\x80" * 9 + b"\x01",
    }
    for name, rec in refused.items():
        put(outdir, "rstream", "refuse-" + name,
            hdr(16, 3, 3, 0, 1) + rec + b"\x01\x04\x01")


def main():
    outdir, kit_path, elf_path, cfg_path = sys.argv[1:5]
    scripts = sys.argv[5:]
    kit = open(kit_path, "rb").read()
    elf = open(elf_path, "rb").read()
    zsize, psize = struct.unpack_from("<QQ", kit, 16)
    stream = kit[KIT_HDR:KIT_HDR + zsize]
    payload = zlib.decompress(stream)
    assert len(payload) == psize, "payload size mismatch"
    with open(os.path.join(outdir, "demo.payload"), "wb") as f:
        f.write(payload)

    put(outdir, "kit", "demo", b"\0" + kit)
    put(outdir, "kit", "demo-hashcheck", b"\1" + kit)
    put(outdir, "payload", "demo", b"\1\0\0\0" + payload)
    rstream_seeds(outdir, payload)
    off, count = struct.unpack_from("<II", payload,
                                    PAYLOAD_HDR + 8 * PLAN_TABLE)
    put(outdir, "plan", "demo", payload[off:off + count * OP_SIZE])
    put(outdir, "elf", "fallback", elf)
    put(outdir, "inflate", "kit-stream", b"\xff" + stream)
    put(outdir, "inflate", "text", b"\x00" + zlib.compress(
        open(cfg_path, "rb").read() * 8, 9))
    put(outdir, "inflate", "stored", b"\x00" + zlib.compress(b"", 0))
    cfg = open(cfg_path, "rb").read()
    put(outdir, "config", "relink.cfg", cfg)
    put(outdir, "config", "all-keys", cfg + b"seed_file = /RELINK/SEED.BIN\r\n"
        b"debug_seed = 00112233445566778899aabbccddeeff\n"
        b"protocol = openbsd # c\nverbose = 2\nbogus = 1\n  \ntimeout=5")
    for s in scripts:
        put(outdir, "ldscript", os.path.basename(s), open(s, "rb").read())
    put(outdir, "mb2", "fallback", b"\0" + elf)
    sig = (b"untrusted comment: verify with fuzz.pub\n" +
           base64.b64encode(b"Ed" + b"fuzzkey!" + bytes(range(64))) + b"\n")
    signed = bytearray(kit[:KIT_HDR + zsize])
    signed[12] |= 1  # LK_KIT_F_SIGNED
    put(outdir, "sig", "kit", b"\0" + bytes(signed) + sig)
    put(outdir, "sig", "pub", b"\1untrusted comment: fuzz public key\n" +
        base64.b64encode(b"Ed" + b"fuzzkey!" + bytes(32)) + b"\n")
    put(outdir, "sig", "detached", b"\2" + sig)
    put(outdir, "sig", "path", b"\3\\RELINK\\FALLBACK.ELF")
    put(outdir, "mb2", "mmap", b"\1" + mmap_seed())


if __name__ == "__main__":
    main()
