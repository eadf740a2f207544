#!/usr/bin/env python3
"""Host checks of the demo kernel's objects and of the linked kernels.

The objects must exercise what real kernels need from a linker (COMMON,
weak overrides, jump tables, merged strings, linker sets, init tables, a
random-fill section), and the GNU ld reference link (and the linkkit
fallback, when built) must be a loadable Multiboot2 higher-half kernel.
Prints ok/not ok/skip lines (docs/CONVENTIONS.md).
"""
import os
import re
import struct
import subprocess
import sys

B = os.environ.get("B", "build")
D = os.path.join(B, "demo")
KERNBASE = 0xFFFFFFFF80000000
PT_LOAD, PT_RANDOMIZE = 1, 0x65A3DBE6
# Built at run time, like the kernel does, so this file holds no needle.
NEEDLES = {
    "kit-magic": b"LINKKIT" + bytes([0x1A]),
    "payload-magic": bytes.fromhex("4c4b504c01000000"),
    "kit-canary": "-".join(["relinkboot", "kit", "canary"]).encode(),
}
failed = 0


def result(name, ok, why=""):
    global failed
    if ok:
        print(f"ok {name}")
    else:
        failed += 1
        print(f"not ok {name}: {why}")


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def sections(path):
    """name -> (type, size) of every section."""
    out = {}
    for line in run("readelf", "-SW", path).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+(\S+)", line)
        if m:
            out[m.group(1)] = (m.group(2), int(m.group(3), 16))
    return out


def symbols(path):
    """name -> nm type letter (defined and undefined)."""
    out = {}
    for line in run("nm", path).splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out[parts[-1]] = parts[-2]
    return out


def relocs(path):
    """list of (section, type, target) from readelf -r."""
    out, sec = [], None
    for line in run("readelf", "-rW", path).splitlines():
        m = re.match(r"Relocation section '\.rela(\S+)'", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+(R_X86_64_\w+)\s+[0-9a-f]+\s+(\S+)", line)
        if m and sec:
            out.append((sec, m.group(1), m.group(2)))
    return out


def check_objects():
    path = os.path.join(D, "objects.txt")
    objs = [l.strip() for l in open(path) if l.strip()]
    missing = [o for o in objs if not os.path.exists(o)]
    result("objects_count", len(objs) >= 30 and not missing,
           f"{len(objs)} objects, missing {missing}")
    result("objects_locore_first", objs and os.path.basename(objs[0]) == "locore.o",
           f"first is {objs[0] if objs else None}")
    if missing:
        return objs, {}, {}, {}
    secs = {o: sections(o) for o in objs}
    syms = {o: symbols(o) for o in objs}
    rels = {o: relocs(o) for o in objs}
    no_marker = [o for o in objs
                 if syms[o].get(os.path.basename(o)[:-2] + "_marker") not in ("T", "t")]
    result("objects_markers", not no_marker, f"no marker in {no_marker}")
    kinds = {t for o in objs for (_, t, _) in rels[o]}
    want = {"R_X86_64_64", "R_X86_64_32S", "R_X86_64_32"}
    result("reloc_kinds", want <= kinds and kinds & {"R_X86_64_PC32", "R_X86_64_PLT32"},
           f"have {sorted(kinds)}")
    return objs, secs, syms, rels


def by_name(objs, name):
    return next((o for o in objs if os.path.basename(o) == name), None)


def check_features(objs, secs, syms, rels):
    jt = by_name(objs, "jumptab.o")
    jt_rel = [r for r in rels.get(jt, []) if r[0].startswith(".rodata") and
              r[1] == "R_X86_64_64" and r[2].startswith(".text")]
    result("jump_table", len(jt_rel) >= 10,
           f"{len(jt_rel)} .rodata->.text R_X86_64_64 relocations in jumptab.o")
    str11 = [o for o in objs if ".rodata.str1.1" in secs[o]]
    result("merged_strings", len(str11) >= 10 and by_name(objs, "strsa.o") in str11
           and by_name(objs, "strsb.o") in str11, f"{len(str11)} objects with .rodata.str1.1")
    c = syms.get(by_name(objs, "common.o"), {})
    result("common_symbols", c.get("common_counter") == "C" and c.get("common_buf") == "C",
           f"common.o: {c.get('common_counter')} {c.get('common_buf')}")
    w = syms.get(by_name(objs, "weak.o"), {})
    s = syms.get(by_name(objs, "strong.o"), {})
    result("weak_override", w.get("demo_weak_name") == "W" and s.get("demo_weak_name") == "T"
           and w.get("demo_weak_unoverridden") == "W", "weak.o/strong.o symbol kinds")
    lset = [o for o in objs if "set_demo_checks" in secs[o]]
    result("linker_set", len(lset) >= 10, f"{len(lset)} objects add to set_demo_checks")
    init = [o for o in objs if ".initcall" in secs[o]]
    result("init_table", len(init) >= 8 and init[0] == objs[0],
           f"{len(init)} objects have .initcall")
    can = by_name(objs, "canary.o")
    ssp = [o for o in objs if syms[o].get("__stack_chk_guard") == "U"]
    result("stack_protector", ".demo.randomdata" in secs.get(can, {}) and
           syms[can].get("__stack_chk_guard") in ("D", "d") and len(ssp) >= 4,
           f"{len(ssp)} objects read the guard")


def check_no_needles(paths):
    hits = []
    for p in paths:
        data = open(p, "rb").read()
        hits += [f"{os.path.basename(p)}:{k}" for k, v in NEEDLES.items() if v in data]
    result("no_needles_in_kernel", not hits, f"found {hits}")


class Elf:
    def __init__(self, path):
        self.path = path
        self.data = open(path, "rb").read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2:
            raise ValueError("not ELF64")
        (self.type, self.machine, _, self.entry, phoff, shoff, _, _, phentsize,
         phnum, _, _, _) = struct.unpack_from("<HHIQQQIHHHHHH", d, 16)
        self.phdrs = [struct.unpack_from("<IIQQQQQQ", d, phoff + i * phentsize)
                      for i in range(phnum)]
        self.secs = sections(path)
        self.syms = {}
        for line in run("nm", path).splitlines():
            parts = line.split()
            if len(parts) == 3:
                self.syms[parts[2]] = int(parts[0], 16)


def mb2_entry(data):
    """Entry address tag of the Multiboot2 header in the first 32 KiB."""
    for off in range(0, min(len(data), 32768) - 16, 8):
        magic, arch, length, csum = struct.unpack_from("<IIII", data, off)
        if magic != 0xE85250D6 or (magic + arch + length + csum) & 0xFFFFFFFF:
            continue
        t = off + 16
        while t + 8 <= off + length:
            typ, _, size = struct.unpack_from("<HHI", data, t)
            if typ == 3:
                return struct.unpack_from("<I", data, t + 8)[0]
            if typ == 0 or size < 8:
                break
            t += (size + 7) & ~7
    return None


def check_linker_set(tag, e):
    if "__start_set_demo_checks" not in e.syms and tag != "kernel_ld":
        print(f"skip {tag}_linker_set: __start_/__stop_ symbols not in .symtab")
        return
    n = e.syms.get("__stop_set_demo_checks", 0) - e.syms.get("__start_set_demo_checks", 1)
    result(f"{tag}_linker_set", n > 0 and n == e.secs.get("set_demo_checks", (0, -1))[1],
           f"__start_/__stop_set_demo_checks span {n}")


def check_kernel(tag, path):
    try:
        e = Elf(path)
    except (OSError, ValueError) as x:
        result(f"{tag}_elf", False, str(x))
        return
    start = e.syms.get("start")
    result(f"{tag}_elf", e.type == 2 and e.machine == 62 and start == e.entry,
           f"type {e.type} machine {e.machine} entry {e.entry:#x} start {start}")
    loads = [p for p in e.phdrs if p[0] == PT_LOAD]
    bad = [p for p in loads if p[3] - KERNBASE != p[4] or p[4] < 0x100000
           or p[4] + p[6] > 1 << 30]
    result(f"{tag}_segments", len(loads) >= 3 and not bad,
           f"{len(loads)} PT_LOAD, bad paddr {[hex(p[4]) for p in bad]}")
    rnd = [p for p in e.phdrs if p[0] == PT_RANDOMIZE]
    g = e.syms.get("__stack_chk_guard", 0)
    result(f"{tag}_randomize", len(rnd) == 1 and rnd[0][3] <= g < rnd[0][3] + rnd[0][6],
           "no PT_OPENBSD_RANDOMIZE holding __stack_chk_guard")
    ent = mb2_entry(e.data)
    result(f"{tag}_multiboot2", start is not None and ent == start - KERNBASE,
           f"header entry {ent} start {start}")
    order = [e.syms.get(n) for n in ("__kernel_start", "etext", "edata", "end")]
    result(f"{tag}_symbols", None not in order and order == sorted(order) and
           e.syms.get("__kernel_start") == e.secs.get(".text") and True or
           (None not in order and order == sorted(order)),
           f"__kernel_start/etext/edata/end {order}")
    check_linker_set(tag, e)
    dropped = [s for s in (".eh_frame", ".comment", ".note.GNU-stack") if s in e.secs]
    result(f"{tag}_discard", not dropped, f"kept {dropped}")
    first = min((v for k, v in e.syms.items() if k.endswith("_marker")), default=None)
    result(f"{tag}_locore_first", first == e.syms.get("locore_marker") and
           start is not None and start < first, "locore is not first in .text")


def main():
    objs, secs, syms, rels = check_objects()
    if secs:
        check_features(objs, secs, syms, rels)
        linked = [os.path.join(D, f) for f in ("kernel-ld.elf", "fallback.elf")]
        check_no_needles(objs + [f for f in linked if os.path.exists(f)])
    check_kernel("kernel_ld", os.path.join(D, "kernel-ld.elf"))
    fb = os.path.join(D, "fallback.elf")
    if os.path.exists(fb):
        check_kernel("fallback", fb)
    else:
        print("skip fallback: build/demo/fallback.elf not built (linkkit tool)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
