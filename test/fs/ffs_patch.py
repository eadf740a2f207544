#!/usr/bin/env python3
"""Breaks and rebuilds FFS images made by makefs, for test/fs/test-ffs.sh.

Layout facts from OpenBSD's sys/ufs/ffs/fs.h and sys/ufs/ufs/dinode.h,
dir.h; this is an independent little writer, so the reader under test is
not checked against itself.

usage: ffs_patch.py IMAGE batch OUTDIR   (patches read from stdin)
       ffs_patch.py IMAGE query            (queries read from stdin)
       ffs_patch.py IMAGE triple PATH
         makes inode INO (a file of at least seven blocks) a sparse file
         whose only data sits behind its triple indirect block, built in
         the file's own blocks; prints "OFF LEN SHA256" of a
         range that covers a hole and that data.

batch: each line "NAME PATCH..." writes OUTDIR/NAME.img, a copy of IMAGE
with the patches (separated by ";") applied:
       sb FIELD VALUE
       inode PATH FIELD VALUE       (mode size db0..11 ib0..2)
       dirent DIRPATH ENTRY FIELD VALUE   (ino reclen namlen)
       copy FROM TO LEN             (bytes of the image)
query: each line "VAR ino PATH", "VAR dirpos DIRPATH ENTRY" (byte offset
of the record in the directory's first block) or "VAR sb FIELD" prints
"VAR=VALUE". Paths are walked without following a final symlink, in
direct directory blocks only (the test's directories are small).
"""
import hashlib
import os
import struct
import sys

SB_FIELDS = {  # name: (offset, struct format)
    'magic': (1372, '<I'), 'bsize': (48, '<i'), 'fsize': (52, '<i'),
    'frag': (56, '<i'), 'ncg': (44, '<I'), 'ipg': (184, '<I'),
    'fpg': (188, '<i'), 'inopb': (120, '<I'), 'nindir': (116, '<i'),
    'size1': (36, '<i'), 'size2': (1080, '<q'), 'iblkno': (16, '<i'),
    'maxsymlinklen': (1320, '<i'), 'fsbtodb': (100, '<i'),
}


class Fs:
    def __init__(self, path):
        self.path = path
        self.f = open(path, 'r+b')
        for loc in (65536, 8192, 0, 262144):
            self.f.seek(loc + 1372)
            m = self.f.read(4)
            if len(m) == 4 and struct.unpack('<I', m)[0] in (0x011954, 0x19540119):
                if loc == 65536 and struct.unpack('<I', m)[0] == 0x011954:
                    continue
                self.sbloc = loc
                break
        else:
            sys.exit('ffs_patch: no superblock')
        self.ufs2 = self.sb('magic') == 0x19540119
        self.bsize, self.fsize = self.sb('bsize'), self.sb('fsize')
        self.frag, self.ipg, self.fpg = self.sb('frag'), self.sb('ipg'), self.sb('fpg')
        self.inopb, self.iblkno = self.sb('inopb'), self.sb('iblkno')
        self.size = self.sb('size2') if self.ufs2 else self.sb('size1')
        self.psize = 8 if self.ufs2 else 4
        self.dsize = 256 if self.ufs2 else 128
        self.nindir = self.bsize // self.psize
        self.db = 112 if self.ufs2 else 40
        self.pfmt = '<q' if self.ufs2 else '<i'

    def rd(self, off, fmt):
        self.f.seek(off)
        return struct.unpack(fmt, self.f.read(struct.calcsize(fmt)))[0]

    def wr(self, off, fmt, val):
        self.f.seek(off)
        self.f.write(struct.pack(fmt, val))

    def sb(self, name):
        off, fmt = SB_FIELDS[name]
        return self.rd(self.sbloc + off, fmt)

    def inode_off(self, ino):
        cg, rel = divmod(ino, self.ipg)
        fsba = self.fpg * cg + self.iblkno + (rel // self.inopb) * self.frag
        return fsba * self.fsize + (rel % self.inopb) * self.dsize

    def inode_field(self, name):
        if name == 'mode':
            return 0, '<H'
        if name == 'size':
            return (16 if self.ufs2 else 8), '<Q'
        if name.startswith('db'):
            return self.db + int(name[2:]) * self.psize, self.pfmt
        if name.startswith('ib'):
            return self.db + (12 + int(name[2:])) * self.psize, self.pfmt
        sys.exit('ffs_patch: inode field ' + name)

    def iget(self, ino, name):
        off, fmt = self.inode_field(name)
        return self.rd(self.inode_off(ino) + off, fmt)

    def iset(self, ino, name, val):
        off, fmt = self.inode_field(name)
        self.wr(self.inode_off(ino) + off, fmt, val)

    def dirent(self, dirino, name):
        """Byte offset in the image of the record named name (direct
        blocks only: the test directories are small)."""
        size = self.iget(dirino, 'size')
        for lbn in range((size + self.bsize - 1) // self.bsize):
            a = self.iget(dirino, 'db%d' % lbn)
            base = a * self.fsize
            n = min(self.bsize, size - lbn * self.bsize)
            self.f.seek(base)
            blk = self.f.read(n)
            pos = 0
            while pos < n:
                ino, reclen, _typ, namlen = struct.unpack_from('<IHBB', blk, pos)
                if ino and blk[pos + 8:pos + 8 + namlen] == name.encode():
                    return base + pos
                if reclen == 0:
                    break
                pos += reclen
        sys.exit('ffs_patch: no entry ' + name)

    def lookup(self, path):
        ino = 2
        for comp in [p for p in path.split('/') if p]:
            ino = self.rd(self.dirent(ino, comp), '<I')
        return ino

    def patch(self, words):
        cmd, args = words[0], words[1:]
        if cmd == 'sb':
            off, fmt = SB_FIELDS[args[0]]
            self.wr(self.sbloc + off, fmt, num(args[1]))
        elif cmd == 'inode':
            self.iset(self.lookup(args[0]), args[1], num(args[2]))
        elif cmd == 'dirent':
            at = self.dirent(self.lookup(args[0]), args[1])
            field = {'ino': (0, '<I'), 'reclen': (4, '<H'), 'namlen': (7, '<B')}
            off, fmt = field[args[2]]
            self.wr(at + off, fmt, num(args[3]))
        elif cmd == 'copy':
            self.f.seek(num(args[0]))
            b = self.f.read(num(args[2]))
            self.f.seek(num(args[1]))
            self.f.write(b)
        else:
            sys.exit('ffs_patch: unknown patch ' + cmd)

    def query(self, words):
        var, cmd, args = words[0], words[1], words[2:]
        if cmd == 'ino':
            val = self.lookup(args[0])
        elif cmd == 'dirpos':
            d = self.lookup(args[0])
            val = self.dirent(d, args[1]) - self.iget(d, 'db0') * self.fsize
        elif cmd == 'sb':
            val = self.sb(args[0])
        else:
            sys.exit('ffs_patch: unknown query ' + cmd)
        print('%s=%d' % (var, val))

    def triple(self, ino):
        """Sparse file: holes up to the triple indirect range, then
        three data blocks at logical blocks first, first + 1 and
        first + nindir + 5 (two single indirect blocks)."""
        n = self.nindir
        first = 12 + n + n * n
        # The inode's own first seven direct blocks (the file must have
        # at least seven full blocks): no other file can be using them.
        blocks = [self.iget(ino, 'db%d' % i) for i in range(7)]
        tind, dind, s0, s1, d0, d1, d2 = blocks
        zero = b'\0' * self.bsize

        def put_ptrs(blk, pairs):
            data = bytearray(zero)
            for idx, val in pairs:
                struct.pack_into(self.pfmt, data, idx * self.psize, val)
            self.f.seek(blk * self.fsize)
            self.f.write(data)

        put_ptrs(tind, [(0, dind)])
        # s0 covers logical blocks first .. first + n - 1; s1 the next n.
        put_ptrs(dind, [(0, s0), (1, s1)])
        put_ptrs(s0, [(0, d0), (1, d1)])
        put_ptrs(s1, [(5, d2)])
        datas = {}
        for lbn, blk, seed in ((first, d0, 1), (first + 1, d1, 2),
                               (first + n + 5, d2, 3)):
            data = hashlib.sha256(b'seed%d' % seed).digest() * (self.bsize // 32)
            self.f.seek(blk * self.fsize)
            self.f.write(data)
            datas[lbn] = data
        for i in range(12):
            self.iset(ino, 'db%d' % i, 0)
        self.iset(ino, 'ib0', 0)
        self.iset(ino, 'ib1', 0)
        self.iset(ino, 'ib2', tind)
        last = first + n + 5
        size = (last + 1) * self.bsize - 100  # a partial last block
        self.iset(ino, 'size', size)
        # The range: the end of the double-indirect hole, the three
        # blocks and the holes between them, to the end of the file.
        off = (first - 2) * self.bsize + 77
        h = hashlib.sha256()
        pos = off
        while pos < size:
            lbn, boff = divmod(pos, self.bsize)
            blk = datas.get(lbn, zero)
            take = min(self.bsize - boff, size - pos)
            h.update(blk[boff:boff + take])
            pos += take
        print(off, size - off, h.hexdigest())


def num(s):
    return int(s, 0)


def main():
    image, cmd = sys.argv[1], sys.argv[2]
    if cmd == 'batch':
        with open(image, 'rb') as f:
            orig = f.read()
        for line in sys.stdin:
            if not line.strip():
                continue
            name, rest = line.split(None, 1)
            out = os.path.join(sys.argv[3], name + '.img')
            with open(out, 'wb') as f:
                f.write(orig)
            fs = Fs(out)
            for p in rest.split(';'):
                fs.patch(p.split())
            fs.f.close()
        return
    fs = Fs(image)
    if cmd == 'query':
        for line in sys.stdin:
            if line.strip():
                fs.query(line.split())
    elif cmd == 'triple':
        fs.triple(fs.lookup(sys.argv[3]))
    else:
        sys.exit('ffs_patch: unknown command ' + cmd)
    fs.f.close()


if __name__ == '__main__':
    main()
