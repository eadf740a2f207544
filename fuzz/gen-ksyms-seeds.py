#!/usr/bin/env python3
"""Seeds for fuzz_ksyms: kallsyms blobs (linkkit/linux_kallsyms.h) with
an identity token table (token c expands to the byte c), names in blob
order (by name, the type letter first in each entry), percpu symbols as
'A' between __per_cpu_start and __per_cpu_end, a weak one, a repeated
name, and one blob of 300 symbols (two marker entries).

usage: gen-ksyms-seeds.py OUTDIR"""
import os
import struct
import sys

MAGIC, VERSION = 0x736B4B4C, 1
WEAK, PROVIDE, PERCPU, SAME = 0x10, 0x20, 0x40, 0x80


def provide(name):
    return (name.startswith(("__start_", "__stop_", "__end_")) or
            (name.startswith("__") and name.endswith(("_start", "_end"))))


def blob(syms):
    syms = sorted(syms, key=lambda s: s[1].encode())
    flags, names = bytearray(), bytearray()
    pstart = pend = 0xFFFFFFFF
    prev = None
    for i, (letter, name, percpu) in enumerate(syms):
        f = min(len(name) - len(name.lstrip("_")), 15)
        f |= WEAK if letter in "wW" else 0
        f |= PROVIDE if provide(name) else 0
        f |= PERCPU if percpu else 0
        f |= SAME if name == prev else 0
        flags.append(f)
        entry = (letter + name).encode()
        names += bytes([len(entry)]) + entry
        pstart = i if name == "__per_cpu_start" else pstart
        pend = i if name == "__per_cpu_end" else pend
        prev = name
    tokens = b"\0" + b"".join(bytes([c]) + b"\0" for c in range(1, 256))
    head = struct.pack("<8I", MAGIC, VERSION, len(syms), len(names),
                       len(tokens), pstart, pend, 0)
    return head + bytes(flags) + bytes(names) + tokens


def main():
    out = os.path.join(sys.argv[1], "ksyms")
    os.makedirs(out, exist_ok=True)
    small = [("A", "__per_cpu_end", True), ("A", "__per_cpu_start", True),
             ("A", "cpu_var", True), ("T", "_stext", False),
             ("t", "a_func", False), ("d", "b_data", False),
             ("d", "b_data", False), ("W", "c_weak", False),
             ("T", "start_kernel", False), ("D", "__start_table", False)]
    big = [("t" if i % 3 else "T", "f%04d" % i, False) for i in range(300)]
    for name, syms in (("small", small), ("big", big)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob(syms))


main()
