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
    # LK_KIT_F_PROV: a record of two files after the stream (kit_format.h).
    names = b"GENERIC\0a.o\0Makefile\0"
    rec = (struct.pack("<QII32s", 10, 8, 0, b"\1" * 32) +
           struct.pack("<QII32s", 20, 12, 0, b"\2" * 32) + names +
           struct.pack("<IIIHHI", 2, len(names), 0, 1, 0, 0x56504b4c))
    prov = bytearray(kit[:KIT_HDR + zsize]) + rec
    flags, = struct.unpack_from("<I", kit, 12)
    struct.pack_into("<IQ", prov, 12, flags | 4, zsize + len(rec))
    put(outdir, "kit", "prov", b"\0" + bytes(prov))
    put(outdir, "payload", "demo", b"\1\0\0\0" + payload)
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
