#!/usr/bin/env python3
"""Seeds for fuzz_fat: real disk images made by tools/mkimage.sh (GPT +
FAT32, GPT + FAT16, and the FAT32 one with the GPT gone and an MBR FAT
partition instead; GPT and MBR images with an OpenBSD partition and
disklabel for the label search) and a FAT12 volume in an MBR partition (mkimage makes
no FAT12; mkfs.fat + mtools do, with the same files), stored as the sparse sector lists fuzz_fat.c reads:
u32 device sectors, u32 failing LBA + 1 (0: none), then {u32 lba, 512 bytes} per non-zero sector.

usage: gen-fat-seeds.py OUTDIR MKIMAGE KIT CONFIG [LINKKIT]
With LINKKIT (and signify-openbsd installed) the images also hold a signed
fallback, FALLBACK.SIG and a config naming the key, so the seed reaches
the signature check the stage does."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SEC = 512


def sectors(img):
    data = open(img, "rb").read()
    out = bytearray()
    for lba in range(len(data) // SEC):
        s = data[lba * SEC:(lba + 1) * SEC]
        if any(s):
            out += struct.pack("<I", lba) + s
    return len(data) // SEC, bytes(out)


def seed(total, body, bad=0):
    return struct.pack("<II", total, bad) + body


def mbr_only(img, out):
    """The GPT is wiped and MBR entry 0 becomes a FAT32-LBA partition over
    the ESP (the stage's fallback when there is no GPT)."""
    shutil.copyfile(img, out)
    with open(out, "r+b") as f:
        f.seek(SEC)
        f.write(bytes(SEC))  # primary GPT header
        f.seek(0x1be)
        ent = bytearray(f.read(16))
        start, count = 2048, 64 * 2048
        ent[4] = 0x0c
        ent[8:16] = struct.pack("<II", start, count)
        f.seek(0x1be)
        f.write(ent)


def fat12(t, files, out):
    """4 MiB FAT12 volume at LBA 63 behind an MBR entry of type 0x01."""
    fs = os.path.join(t, "fat12.fs")
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    if os.path.exists(fs):
        os.remove(fs)
    subprocess.run(["mkfs.fat", "-C", "-F", "12", "-s", "4", fs, "4096"],
                   check=True, stdout=subprocess.DEVNULL, env=env)
    subprocess.run(["mmd", "-i", fs, "::/EFI", "::/EFI/BOOT", "::/RELINK"],
                   check=True, env=env)
    for src, dst in files:
        subprocess.run(["mcopy", "-i", fs, src, "::" + dst], check=True, env=env)
    vol = open(fs, "rb").read()
    mbr = bytearray(SEC)
    mbr[0x1be + 4] = 0x01
    mbr[0x1be + 8:0x1be + 16] = struct.pack("<II", 63, len(vol) // SEC)
    mbr[510:512] = b"\x55\xaa"
    with open(out, "wb") as f:
        f.write(bytes(mbr) + bytes(62 * SEC) + vol)


def main():
    outdir, mkimage, kit, cfg = sys.argv[1:5]
    linkkit = sys.argv[5] if len(sys.argv) > 5 else None
    d = os.path.join(outdir, "fat")
    os.makedirs(d, exist_ok=True)
    t = tempfile.mkdtemp()
    try:
        efi = os.path.join(t, "BOOTX64.EFI")
        elf = os.path.join(t, "fallback.elf")
        seedf = os.path.join(t, "seed.bin")
        conf = os.path.join(t, "relink.cfg")
        open(efi, "wb").write(b"MZ" + bytes(range(256)) * 3)
        # Spans a few 512-byte clusters, so the seed has real chains.
        open(elf, "wb").write(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 9)
        open(seedf, "wb").write(bytes(range(64)))
        text = open(cfg, "rb").read() + b"seed_file = \\RELINK\\SEED.BIN\n"
        extra = []
        if linkkit and shutil.which("signify-openbsd"):
            pub, sec, sig = (os.path.join(t, n) for n in ("k.pub", "k.sec", "fb.sig"))
            subprocess.run(["signify-openbsd", "-G", "-n", "-p", pub, "-s", sec],
                           check=True)
            subprocess.run([linkkit, "sign", "-s", sec, "-o", sig, elf], check=True)
            text += b"pubkey = " + open(pub, "rb").read().split(b"\n")[1] + b"\n"
            extra = ["--fallback-sig", sig]
        open(conf, "wb").write(text)
        common = ["--efi", efi, "--kit", kit, "--fallback", elf, "--cfg", conf,
                  "--seed", seedf] + extra
        files = [(efi, "/EFI/BOOT/BOOTX64.EFI"), (conf, "/EFI/BOOT/RELINK.CFG"),
                 (kit, "/RELINK/KERNEL.KIT"), (elf, "/RELINK/FALLBACK.ELF"),
                 (seedf, "/RELINK/SEED.BIN")]
        if extra:
            files.append((extra[1], "/RELINK/FALLBACK.SIG"))
        img = os.path.join(t, "fat12.img")
        fat12(t, files, img)
        total, body = sectors(img)
        open(os.path.join(d, "mbr-fat12"), "wb").write(seed(total, body))
        obsd = ["--openbsd-duid", "0123456789abcdef"]
        imgs = {"fat32": [], "fat16": ["--fat", "16", "--esp-mib", "16"],
                "gpt-obsd": obsd + ["--esp-mib", "34"],
                "mbr-obsd": obsd + ["--esp-mib", "34", "--table", "mbr",
                                    "--openbsd-dtype", "5"]}
        for name, opts in imgs.items():
            img = os.path.join(t, name + ".img")
            subprocess.run([mkimage, "create", "-o", img] + common + opts, check=True)
            total, body = sectors(img)
            open(os.path.join(d, name), "wb").write(seed(total, body))
            if name == "fat32":
                # Size unknown, and a read error in the first FAT sector.
                open(os.path.join(d, "fat32-nosize-ioerr"), "wb").write(
                    seed(0, body, 1 + 2048 + 32))
                mbr = os.path.join(t, "mbr.img")
                mbr_only(img, mbr)
                total, body = sectors(mbr)
                open(os.path.join(d, "mbr-fat32"), "wb").write(seed(total, body))
    finally:
        shutil.rmtree(t)


if __name__ == "__main__":
    main()
