#!/usr/bin/env python3
"""Seeds for fuzz_linux: a bzImage's setup sectors with a short payload
(syssize patched to match) and a vmlinux's ELF and program headers with
its notes and small segments, both cut from the Linux corpus when it is
there; synthetic ones of the same shape otherwise.

usage: gen-linux-seeds.py OUTDIR [BZIMAGE VMLINUX]"""
import os
import struct
import sys


def bz_seed(bz):
    sects = bz[0x1F1] or 4
    off = (sects + 1) * 512
    out = bytearray(bz[: off + 4096])
    struct.pack_into("<I", out, 0x1F4, 4096 // 16)
    return bytes(out)


def bz_synth():
    out = bytearray(2 * 512 + 4096)
    out[0x1F1] = 1
    struct.pack_into("<H", out, 0x1FE, 0xAA55)
    out[0x200:0x202] = b"\xeb\x6a"
    out[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", out, 0x206, 0x20F)
    out[0x211] = 1
    struct.pack_into("<I", out, 0x1F4, 4096 // 16)
    struct.pack_into("<I", out, 0x22C, 0x7FFFFFFF)
    struct.pack_into("<I", out, 0x230, 0x200000)
    out[0x234] = 1
    struct.pack_into("<H", out, 0x236, 0x7F)
    struct.pack_into("<I", out, 0x238, 2047)
    struct.pack_into("<Q", out, 0x258, 0x1000000)
    struct.pack_into("<I", out, 0x260, 0x100000)
    return bytes(out)


def vm_seed(vm):
    phoff, = struct.unpack_from("<Q", vm, 32)
    phnum, = struct.unpack_from("<H", vm, 56)
    hdrs = bytearray(vm[: phoff + 56 * phnum])
    struct.pack_into("<Q", hdrs, 40, 0)  # no section headers
    struct.pack_into("<H", hdrs, 60, 0)
    data = bytearray()
    base = len(hdrs)
    for i in range(phnum):
        o = phoff + 56 * i
        typ, = struct.unpack_from("<I", hdrs, o)
        off, = struct.unpack_from("<Q", hdrs, o + 8)
        fsz, = struct.unpack_from("<Q", hdrs, o + 32)
        keep = fsz if typ == 4 else min(fsz, 256)
        struct.pack_into("<Q", hdrs, o + 8, base + len(data))
        struct.pack_into("<Q", hdrs, o + 32, keep)
        data += vm[off: off + keep]
    return bytes(hdrs + data)


def vm_synth():
    note = struct.pack("<III", 6, 4, 0x100) + b"Linux\0\0\0" + b"\0" * 4
    eh = bytearray(64)
    eh[0:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 2, 62, 1, 0x1000000, 64, 0, 0,
                     64, 56, 2, 64, 0, 0)
    data_off = 64 + 2 * 56
    ph = struct.pack("<IIQQQQQQ", 1, 5, data_off, 0xFFFFFFFF81000000,
                     0x1000000, 256, 0x400000, 0x200000)
    ph += struct.pack("<IIQQQQQQ", 4, 4, data_off + 256, 0, 0x1000100,
                      len(note), len(note), 4)
    return bytes(eh) + ph + b"\x90" * 256 + note


def main():
    out = os.path.join(sys.argv[1], "linux")
    os.makedirs(out, exist_ok=True)
    seeds = {"bz-synth": bz_synth(), "vm-synth": vm_synth()}
    if len(sys.argv) == 4 and os.path.exists(sys.argv[2]):
        seeds["bz-corpus"] = bz_seed(open(sys.argv[2], "rb").read())
        seeds["vm-corpus"] = vm_seed(open(sys.argv[3], "rb").read())
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


main()
