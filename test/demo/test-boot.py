#!/usr/bin/env python3
"""Boots the demo kernel under QEMU through mb2shim (a test-only Multiboot2
loader, test/demo/mb2shim) and checks what it prints and how it exits:
good boots PASS with only the allowed lines, every broken hand-over (no
Multiboot2 magic, no symbols, no random fill, no ACPI, kit bytes left in
RAM) makes it FAIL with the matching line. Kernels linked by linkkit from
the kit with different seeds must pass and differ in their fingerprint.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

B = os.environ.get("B", "build")
D = os.path.join(B, "demo")
SHIM = os.path.join(D, "mb2shim.elf")
KERNEL = os.path.join(D, "kernel-ld.elf")
LINKKIT = os.path.join(B, "tools", "linkkit")
KIT = os.path.join(D, "kernel.kit")
QEMU = shutil.which("qemu-system-x86_64")
PASS_RC, FAIL_RC = 33, 35
CHECKS = ["mbinfo", "symtab", "objranges", "linkerset", "initorder", "fptrs",
          "bss", "canary", "weak", "common", "jumptab", "strmerge", "acpi",
          "memmap", "cpu", "crc32", "sort", "heap"]
# Every line a passing boot may print: nothing that reveals the layout
# (the physical base is where the loader put the image, chosen from the
# memory map, not from the random layout).
ALLOWED = re.compile(r"demo: (loader (relinked|fallback)|fingerprint [0-9a-f]{16}|"
                     r"physical base [0-9a-f]+|check \w+ ok|ramscan clean|PASS)$")
failed = 0


def payload_version():
    """LK_PAYLOAD_VERSION from linkkit/kit_format.h (the needle follows it)."""
    hdr = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "linkkit", "kit_format.h")
    with open(hdr) as f:
        return int(re.search(r"#define LK_PAYLOAD_VERSION (\d+)", f.read()).group(1))


def result(name, ok, why=""):
    global failed
    if ok:
        print(f"ok {name}")
    else:
        failed += 1
        print(f"not ok {name}: {why}")


def boot(kernel, opts="", extra=(), devices=(), mem=128):
    """Returns (exit status, serial lines)."""
    initrd = f"{kernel} {opts}".strip()
    for m in extra:
        initrd += "," + m
    cmd = ["timeout", "60", QEMU, "-accel", "tcg", "-m", str(mem),
           "-display", "none", "-no-reboot", "-serial", "stdio",
           "-monitor", "none", "-net", "none",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
           "-kernel", SHIM, "-initrd", initrd]
    cmd += list(devices)
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    return p.returncode, [l.rstrip("\r") for l in p.stdout.splitlines()]


def expect_pass(name, rc, lines, loader="fallback"):
    bad = [l for l in lines if not ALLOWED.match(l)]
    checks = [c for c in CHECKS if f"demo: check {c} ok" in lines]
    ok = (rc == PASS_RC and lines[-1:] == ["demo: PASS"] and not bad and
          f"demo: loader {loader}" in lines and "demo: ramscan clean" in lines
          and len(checks) == len(CHECKS))
    result(name, ok, f"exit {rc}, unexpected {bad[:3]}, "
           f"missing {sorted(set(CHECKS) - set(checks))}")


def expect_fail(name, rc, lines, want):
    ok = rc == FAIL_RC and lines[-1:] == ["demo: FAIL"] and any(
        re.match(want, l) for l in lines)
    result(name, ok, f"exit {rc}, no line matching {want!r}: {lines[-4:]}")


def fingerprint(lines):
    return next((l.split()[-1] for l in lines if l.startswith("demo: fingerprint")), None)


def main():
    if not QEMU:
        print("skip boot: qemu-system-x86_64 not installed")
        return 0
    for f in (SHIM, KERNEL):
        if not os.path.exists(f):
            print(f"not ok boot: {f} missing")
            return 1
    tmp = tempfile.mkdtemp(prefix="demo-boot.")
    try:
        run_all(tmp)
    finally:
        shutil.rmtree(tmp)
    return 1 if failed else 0


def run_all(tmp):
    rc, lines = boot(KERNEL)
    expect_pass("boot_ld_kernel", rc, lines)
    rc, lines = boot(KERNEL, "loader=relinkboot_relinked")
    expect_pass("boot_loader_relinked", rc, lines, loader="relinked")

    rc, lines = boot(KERNEL, "badmagic")
    expect_fail("boot_bad_magic", rc, lines, r"demo: check mbinfo FAIL bad magic")
    rc, lines = boot(KERNEL, "nosyms")
    expect_fail("boot_no_symbols", rc, lines, r"demo: check symtab FAIL")
    rc, lines = boot(KERNEL, "norandom")
    expect_fail("boot_no_random_fill", rc, lines, r"demo: check canary FAIL")
    rc, lines = boot(KERNEL, "noacpi")
    expect_fail("boot_no_acpi", rc, lines, r"demo: check acpi FAIL")

    # Kit remnants left in RAM: a module low, and a blob near the top.
    needles = (b"LINKKIT" + bytes([0x1A]), b"LKPL" + payload_version().to_bytes(4, "little"),
               "-".join(["relinkboot", "kit", "canary"]).encode())
    leak = os.path.join(tmp, "leak.bin")
    with open(leak, "wb") as f:
        f.write(b"x" * 5 + needles[0] + b"y" * 3 + needles[1] + b"z" + needles[2])
    rc, lines = boot(KERNEL, "", [leak])
    found = {w for w in ("kit-magic", "payload-magic", "kit-canary")
             if any(l.startswith(f"demo: ramscan FOUND {w} at 0x") for l in lines)}
    result("ramscan_finds_module", rc == FAIL_RC and len(found) == 3,
           f"exit {rc}, found {sorted(found)}")
    rc, lines = boot(KERNEL, devices=["-device", f"loader,file={leak},addr=0x7e00003"])
    result("ramscan_finds_high_ram", rc == FAIL_RC and
           "demo: ramscan FOUND kit-canary at 0x7e0001c" in lines,
           f"exit {rc}: {[l for l in lines if 'ramscan' in l]}")

    boot_reversed(tmp)

    fb = os.path.join(D, "fallback.elf")
    if os.path.exists(fb):
        rc, lines = boot(fb)
        expect_pass("boot_fallback", rc, lines)
    else:
        print("skip boot_fallback: fallback.elf not built")
    boot_seeds(tmp)


def boot_reversed(tmp):
    """GNU ld with the objects after locore reversed: the code still works
    and still passes the range checks, but the init table now runs in the
    wrong order, which only a keep-order policy prevents."""
    objs = [l.strip() for l in open(os.path.join(D, "objects.txt")) if l.strip()]
    out = os.path.join(tmp, "reversed.elf")
    p = subprocess.run(["ld", "-nostdlib", "-static", "--build-id=none",
                        "-z", "max-page-size=0x1000", "-z", "noexecstack",
                        "-T", "test/demo/kernel.ld", "-o", out,
                        objs[0]] + objs[:0:-1], capture_output=True, text=True)
    if p.returncode:
        result("boot_reversed_order", False, f"ld: {p.stderr.strip()}")
        return
    rc, lines = boot(out)
    others = [l for l in lines if l.startswith("demo: check ") and
              not l.startswith("demo: check initorder") and not l.endswith(" ok")]
    expect_fail("boot_reversed_order", rc, lines, r"demo: check initorder FAIL .* ran after")
    result("boot_reversed_other_checks", not others, f"also failed: {others}")


def boot_seeds(tmp):
    """Two seeds give two layouts that both pass; a seed repeats exactly."""
    if not (os.path.exists(LINKKIT) and os.path.exists(KIT)):
        print("skip boot_seeds: linkkit or kernel.kit not built")
        return
    prints = {}
    for name, seed in (("a", "01" * 32), ("b", "02" * 32), ("a2", "01" * 32)):
        out = os.path.join(tmp, f"k{name}.elf")
        p = subprocess.run([LINKKIT, "link", "--seed", seed, "-o", out, KIT],
                           capture_output=True, text=True)
        if p.returncode:
            result("boot_seeds", False, f"linkkit link: {p.stderr.strip()}")
            return
        rc, lines = boot(out)
        if name != "a2":
            expect_pass(f"boot_seed_{name}", rc, lines)
        prints[name] = fingerprint(lines)
    result("seed_layouts_differ", prints["a"] and prints["a"] != prints["b"],
           f"fingerprints {prints}")
    result("seed_layout_repeats", prints["a"] and prints["a"] == prints["a2"],
           f"fingerprints {prints}")


if __name__ == "__main__":
    sys.exit(main())
