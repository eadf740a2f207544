#!/usr/bin/env python3
"""The source tree of test/fs/test-ffs.sh's makefs images, and what the
reader must report for it (one fork instead of thousands: the shell
version took minutes on these machines).

usage: ffs_tree.py make SRC      build the tree (run as root: owners)
       ffs_tree.py expected SRC  "PATH size=N mode=OCT uid=N gid=N
                                 sha256=HEX" for every file and every
                                 symlink that resolves to a file inside
                                 the tree (followed the way the reader
                                 does: absolute targets from SRC)
"""
import hashlib
import os
import stat
import sys


def data(name, n):
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b'%s%d' % (name.encode(), i)).digest()
        i += 1
    return bytes(out[:n])


def put(path, content, mode=0o644, owner=None):
    with open(path, 'wb') as f:
        f.write(content)
    os.chmod(path, mode)
    if owner:
        os.chown(path, *owner)


def make(src):
    for d in ('etc', 'a/b/c/d/e', 'bigdir', 'empty',
              'usr/share/relink/kernel/GENERIC.MP'):
        os.makedirs(os.path.join(src, d), exist_ok=True)
    j = lambda *p: os.path.join(src, *p)
    put(j('etc/boot.conf'), b'set tty com0\nboot -s\n', 0o644, (1000, 1001))
    put(j('etc/random.seed'), data('seed', 512), 0o1600)
    put(j('etc/empty'), b'')
    # Sizes around sector, fragment and block edges, and past the 12
    # direct blocks into the single indirect ones.
    for n in (1, 511, 512, 513, 2047, 2048, 2049, 4095, 4096, 4097, 16383,
              16384, 16385, 196607, 196608, 196609, 250000):
        put(j('usr/share/relink/kernel/GENERIC.MP/f%d.o' % n), data('f%d' % n, n))
    # Past the double indirect block with 4 KiB blocks (FFS1 from
    # (12 + 1024) * 4 KiB, FFS2 from (12 + 512) * 4 KiB).
    put(j('bsd'), data('big', 5000000), 0o4751)
    # Seven full blocks at any block size: the triple-indirect patch.
    put(j('tri'), data('tri', 458752), 0o602)
    put(j('a/b/c/d/e/deep.txt'), b'deep\n', 0o640, (4000000000, 7))
    put(j('a', 'n' * 255), b'longest name\n')
    # A directory over several blocks, names of many lengths.
    for i in range(1, 401):
        put(j('bigdir', 'file%04d_%s' % (i, 'x' * (i % 200))), b'%d\n' % i)
    # Symlinks: fast (in the inode), slow (longer than 120 bytes: in a
    # block), absolute, relative, through a directory, a chain of eight
    # (the most the reader follows), nine, a loop, a dangling one.
    links = {
        'etc/fast': 'boot.conf',
        'etc/slow': './' * 80 + '../a/b/c/d/e/deep.txt',
        'a/abs': '/etc/boot.conf',
        'dirlink': 'a/b',
        'a/b/c/up': '../../..',
        'chain8': 'l1',
        'l7': 'etc/boot.conf',
        'chain9': 'chain8',
        'loop1': 'loop2',
        'loop2': 'loop1',
        'dangling': '/nowhere',
    }
    for i in range(1, 7):
        links['l%d' % i] = 'l%d' % (i + 1)
    for name, target in links.items():
        os.symlink(target, j(name))


def resolve(src, rel, depth=0):
    """The file a path names inside src, or None (as the reader: at most
    eight links, absolute targets from src)."""
    parts = [p for p in rel.split('/') if p]
    cur = []
    while parts:
        p = parts.pop(0)
        if p == '.':
            continue
        if p == '..':
            cur = cur[:-1]
            continue
        full = os.path.join(src, *cur, p)
        if os.path.islink(full):
            depth += 1
            if depth > 8:
                return None
            t = os.readlink(full)
            if t.startswith('/'):
                cur = []
            parts = [q for q in t.split('/') if q] + parts
            continue
        if not os.path.exists(full):
            return None
        cur.append(p)
    return os.path.join(src, *cur)


def expected(src):
    for root, dirs, files in os.walk(src):
        for name in sorted(files + [d for d in dirs
                                    if os.path.islink(os.path.join(root, d))]):
            full = os.path.join(root, name)
            rel = '/' + os.path.relpath(full, src)
            real = resolve(src, rel)
            if real is None or not os.path.isfile(real):
                continue
            st = os.stat(real)
            with open(real, 'rb') as f:
                h = hashlib.sha256(f.read()).hexdigest()
            print('%s size=%d mode=%o uid=%d gid=%d sha256=%s' %
                  (rel, st.st_size, st.st_mode, st.st_uid, st.st_gid, h))


if __name__ == '__main__':
    {'make': make, 'expected': expected}[sys.argv[1]](sys.argv[2])
