#!/usr/bin/env python3
"""A gzip'd newc cpio initramfs for the Linux boot tests, without cpio(1):
Debian's busybox-static as /bin/busybox, the test's /init script, a
/marker file (the token the test checks from /init) and optional extra
files (kernel modules, programs: executable when the source is).

usage: mkinitramfs.py OUT BUSYBOX INIT MARKER [DEST=SRC ...]"""
import gzip
import os
import stat
import sys

ino = [300000]


def entry(name, mode, data=b"", nlink=1):
    ino[0] += 1
    n = name.encode() + b"\0"
    hdr = "070701" + "".join("%08x" % v for v in (
        ino[0], mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(n), 0))
    out = hdr.encode() + n
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def main():
    out, busybox, init, marker = sys.argv[1:5]
    blob = b""
    for d in ("bin", "dev", "proc", "sys", "lib", "lib/modules"):
        blob += entry(d, stat.S_IFDIR | 0o755, nlink=2)
    blob += entry("dev/console", stat.S_IFCHR | 0o600)
    blob += entry("bin/busybox", stat.S_IFREG | 0o755,
                  open(busybox, "rb").read())
    blob += entry("bin/sh", stat.S_IFLNK | 0o777, b"busybox")
    blob += entry("init", stat.S_IFREG | 0o755, open(init, "rb").read())
    blob += entry("marker", stat.S_IFREG | 0o644, marker.encode() + b"\n")
    for spec in sys.argv[5:]:
        dest, src = spec.split("=", 1)
        mode = 0o755 if os.access(src, os.X_OK) else 0o644
        blob += entry(dest, stat.S_IFREG | mode, open(src, "rb").read())
    blob += entry("TRAILER!!!", 0, nlink=1)
    blob += b"\0" * (-len(blob) % 512)
    with open(out, "wb") as f:
        f.write(gzip.compress(blob, 9, mtime=0))


main()
