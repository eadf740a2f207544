#!/usr/bin/env python3
"""Seeds for fuzz/fuzz_ffs.c: small FFS1 and FFS2 images made by Debian's
makefs from a tree holding the paths the target looks up (a file past the
direct blocks, fast and slow symlinks, a symlink loop, nested
directories), written as the target's sparse sector list (only the
non-zero sectors). Without makefs no seeds are written (the target still
fuzzes from scratch) and one line says so.

usage: gen-ffs-seeds.py CORPUS_DIR
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

MAX_SEED = 262144  # run-fuzz.sh's -max_len


def tree(src):
    j = lambda *p: os.path.join(src, *p)
    for d in ('etc', 'a/b/c/d', 'usr/share/relink/kernel/GENERIC.MP'):
        os.makedirs(j(d))
    with open(j('etc/boot.conf'), 'w') as f:
        f.write('set tty com0\nboot -s\n')
    with open(j('etc/random.seed'), 'wb') as f:
        f.write(bytes(range(256)) * 2)
    # 13 blocks of 4 KiB: the single indirect block, and a short tail.
    with open(j('bsd'), 'wb') as f:
        f.write(bytes((i * 7 + 3) & 255 for i in range(13 * 4096 + 1000)))
    with open(j('usr/share/relink/kernel/GENERIC.MP/f1.o'), 'wb') as f:
        f.write(b'\x7fELF' + bytes(600))
    for i in range(20):
        with open(j('a/b/entry%02d_%s' % (i, 'y' * i)), 'w') as f:
            f.write('%d\n' % i)
    os.symlink('boot.conf', j('etc/fast'))
    os.symlink('./' * 70 + '../bsd', j('etc/slow'))
    os.symlink('loop', j('etc/loop'))
    os.symlink('/bsd', j('a/b/c/d/up'))


def sparse(img):
    with open(img, 'rb') as f:
        data = f.read()
    out = bytearray(struct.pack('<II', len(data) // 512, 0))
    zero = bytes(512)
    for lba in range(len(data) // 512):
        sec = data[lba * 512:(lba + 1) * 512]
        if sec != zero:
            out += struct.pack('<I', lba) + sec
    return bytes(out)


def main():
    corpus = os.path.join(sys.argv[1], 'ffs')
    os.makedirs(corpus, exist_ok=True)
    makefs = shutil.which('makefs') or '/usr/sbin/makefs'
    if not os.access(makefs, os.X_OK):
        print('gen-ffs-seeds: makefs not installed: no ffs seeds')
        return
    tmp = tempfile.mkdtemp()
    try:
        src = os.path.join(tmp, 'src')
        tree(src)
        for v in (1, 2):
            for bs, fs in ((4096, 512), (16384, 2048)):
                img = os.path.join(tmp, 'img')
                subprocess.run([makefs, '-t', 'ffs', '-o',
                                'version=%d,bsize=%d,fsize=%d,density=16384'
                                % (v, bs, fs), '-M', '1m', img, src],
                               check=True, stdout=subprocess.DEVNULL)
                seed = sparse(img)
                if len(seed) > MAX_SEED:
                    sys.exit('gen-ffs-seeds: seed of %d bytes' % len(seed))
                with open(os.path.join(corpus, 'ffs%d-%d' % (v, bs)), 'wb') as f:
                    f.write(seed)
    finally:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
