/*
 * Read-only FFS (UFS1 and UFS2 as OpenBSD's newfs and NetBSD's makefs
 * write them) for the boot stages: the root file system's /bsd,
 * /etc/random.seed, /etc/boot.conf and the relink directory. Layout facts
 * from OpenBSD's sys/ufs/ffs/fs.h, sys/ufs/ufs/dinode.h and dir.h.
 *
 * The disk is untrusted: every address is checked against the file system
 * size (itself checked against the partition) before a sector is read,
 * every loop is bounded by a size checked the same way, and each failure
 * logs one line naming the path. Block and fragment sizes are powers of
 * two, so all 64-bit arithmetic is shifts (the i386 stage has no
 * __udivdi3); the one division left is 32-bit (inode / inodes per group).
 */
#include "fs.h"
#include "../linkkit.h"

#define SEC 512u
#define UFS1_MAGIC 0x011954u
#define UFS2_MAGIC 0x19540119u
#define FFS_MINBSIZE 4096u
#define FFS_MAXBSIZE 65536u /* OpenBSD's MAXBSIZE */
#define FFS_MAXFRAG 8u
#define FFS_NDADDR 12u
#define FFS_NIADDR 3u
/* Directory blocks kept between lookups: a stage looks up every file of
 * a 2,200-entry link directory, which without them reads that directory
 * again for each file (70 MB through INT 13h for OpenBSD's GENERIC). */
#define FFS_DCACHE 16u
/* Inode sectors likewise: each lookup walks every component again. */
#define FFS_ICACHE 16u
#define FFS_ROOTINO 2u
#define FFS_DIRBLK 512u
#define FFS_DIRHDR 8u
#define FFS_MAXNAME 255u
#define FFS_MAXPATH 1024u /* MAXPATHLEN, with the NUL */
#define FFS_MAXLINKS 8u
#define FFS_42INODEFMT (-1)
/* Longer paths are shown as "..." and their tail, so that what is wrong
 * still fits in lk_log's line. */
#define FFS_SHOWN 120u
/* The superblock fields used end with fs_magic at 1372..1375. */
#define FFS_SB_SECS 3u
/* Sectors per device read when a run of blocks is contiguous: large
 * enough that a kernel is read in few firmware calls, small enough for
 * any BIOS bounce buffer logic below us. */
#define FFS_RUN_MAX 8192u
/* Directories are scanned whole at every lookup: past this a directory
 * is taken for corruption (blocks repeated to make a lookup take
 * minutes), not for a root file system (the relink directory of a
 * GENERIC kernel, ~2,200 objects, is ~64 KiB). */
#define FFS_DIR_MAX (8ull << 20)
/* Directory bytes read from the disk (cache misses) per mount: a few MiB
 * for a stale check of a GENERIC kernel's ~2,200 objects. Past this, a
 * root whose directories repeat their blocks cannot make the lookups of
 * a boot read for hours. */
#define FFS_DIR_READ_MAX (1ull << 30)

#define IFMT 0170000u
#define IFDIR 0040000u
#define IFLNK 0120000u

/* struct fs (fs.h) byte offsets. */
enum {
	SB_IBLKNO = 16,
	SB_CGOFFSET = 24,
	SB_CGMASK = 28,
	SB_SIZE1 = 36,
	SB_NCG = 44,
	SB_BSIZE = 48,
	SB_FSIZE = 52,
	SB_FRAG = 56,
	SB_BSHIFT = 80,
	SB_FSHIFT = 84,
	SB_FRAGSHIFT = 96,
	SB_FSBTODB = 100,
	SB_NINDIR = 116,
	SB_INOPB = 120,
	SB_IPG = 184,
	SB_FPG = 188,
	SB_SIZE2 = 1080,
	SB_MAXSYMLINK = 1320,
	SB_INODEFMT = 1324,
	SB_MAGIC = 1372,
};

/* Where OpenBSD's kernel looks (ffs_vfsops.c sbtry) plus 0 (a floppy
 * layout some newfs variants write). UFS1 at 65536 is skipped as the
 * kernel skips it: with 64 KiB blocks that is not the superblock. */
static const lk_u32 ffs_sbtry[] = { 65536, 8192, 0, 262144 };

struct ffs_inode {
	lk_u32 ino, mode, uid, gid;
	lk_u64 size;
	lk_u64 db[FFS_NDADDR], ib[FFS_NIADDR];
	lk_u8 shortlink[120]; /* di_db..di_ib raw: a fast symlink's target */
};

/* A directory block as dir_find last read it (n 0: empty). */
struct ffs_dcache {
	lk_u32 ino;
	lk_u64 off, n;
	lk_u8 *buf;
};

/* One cached indirect block per depth of the walk. */
struct ffs_ind {
	lk_u64 addr; /* 0: empty */
	lk_u8 *buf;
};

struct ffs {
	int ufs2, oldnames;
	lk_u32 bsize, bshift, fsize, fshift, frag, fragshift, dbshift;
	lk_u32 nishift, psize, dsize, inoshift, ipg, ncg, maxsymlink;
	lk_u64 fpg, fs_size, iblkno, cgoffset, cgmask, maxsize, inodes;
	struct ffs_ind ind[FFS_NIADDR];
	struct ffs_dcache dc[FFS_DCACHE];
	lk_u32 dc_next;
	lk_u64 dir_read; /* directory bytes read from the disk */
	lk_u64 isec_at[FFS_ICACHE]; /* partition sector + 1; 0: empty */
	lk_u8 isec[FFS_ICACHE][SEC];
	lk_u32 isec_next;
	lk_size alloc_size;
	const char *name; /* the path being looked up or read, for errors */
	/* A pending contiguous read straight into the caller's buffer. */
	lk_u64 run_sector;
	lk_u32 run_count;
	lk_u8 *run_dst;
	lk_u8 sec[SEC];
	char path[2][FFS_MAXPATH];
	char comp[FFS_MAXNAME + 1];
	char shown[FFS_SHOWN + 1];
};

static lk_u32 rd16(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8;
}

static lk_u32 rd32(const lk_u8 *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

static lk_u64 rd64(const lk_u8 *p)
{
	return (lk_u64)rd32(p) | (lk_u64)rd32(p + 4) << 32;
}

/* UFS1 block pointers are int32: a negative one becomes an address far
 * beyond any file system, so the one bounds check refuses it. */
static lk_u64 rd_ptr(const struct ffs *p, const lk_u8 *b)
{
	if (p->ufs2)
		return rd64(b);
	return (lk_u64)(lk_i64)(lk_i32)rd32(b);
}

static int log2_exact(lk_u32 v)
{
	int s = 0;

	if (!v || (v & (v - 1)))
		return -1;
	while ((1u << s) != v)
		s++;
	return s;
}

/* ---- sectors ---- */

/* Partition-relative sectors; the one place the device is read. */
static int dev_read(struct lk_fs *fs, lk_u64 sector, lk_u32 n, void *buf)
{
	struct ffs *p = fs->priv;

	if (sector >= fs->count || n > fs->count - sector ||
	    lk_bdev_read(&fs->dev, fs->lba + sector, n, buf)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: %s: cannot read %u sectors at sector %llu of the partition",
		       p->name, n, sector);
		return -1;
	}
	return 0;
}

static int run_flush(struct lk_fs *fs)
{
	struct ffs *p = fs->priv;
	int r = 0;

	if (p->run_count)
		r = dev_read(fs, p->run_sector, p->run_count, p->run_dst);
	p->run_count = 0;
	return r;
}

/* Whole sectors into dst, merged with the pending run when both the disk
 * and the buffer continue it. */
static int run_add(struct lk_fs *fs, lk_u64 sector, lk_u32 n, lk_u8 *dst)
{
	struct ffs *p = fs->priv;

	if (p->run_count && p->run_sector + p->run_count == sector &&
	    p->run_dst + (lk_size)p->run_count * SEC == dst &&
	    p->run_count + n <= FFS_RUN_MAX) {
		p->run_count += n;
		return 0;
	}
	if (run_flush(fs))
		return -1;
	p->run_sector = sector;
	p->run_count = n;
	p->run_dst = dst;
	return 0;
}

/* n bytes starting soff bytes into sector. */
static int read_bytes(struct lk_fs *fs, lk_u64 sector, lk_u32 soff,
		      lk_u8 *dst, lk_u32 n)
{
	struct ffs *p = fs->priv;
	lk_u32 k;

	if (soff) {
		k = SEC - soff < n ? SEC - soff : n;
		if (dev_read(fs, sector, 1, p->sec))
			return -1;
		lk_memcpy(dst, p->sec + soff, k);
		dst += k;
		n -= k;
		sector++;
	}
	if (n >= SEC) {
		k = n / SEC;
		if (run_add(fs, sector, k, dst))
			return -1;
		dst += (lk_size)k * SEC;
		n -= k * SEC;
		sector += k;
	}
	if (n) {
		if (dev_read(fs, sector, 1, p->sec))
			return -1;
		lk_memcpy(dst, p->sec, n);
	}
	return 0;
}

/* ---- blocks ---- */

/* [a, a + nfrags) must lie inside the file system, which mount checked
 * lies inside the partition. */
static int check_addr(struct lk_fs *fs, lk_u64 a, lk_u64 nfrags,
		      const char *what)
{
	struct ffs *p = fs->priv;

	if (a < p->fs_size && nfrags <= p->fs_size - a)
		return 0;
	lk_log(fs->h, LK_LOG_ERROR,
	       "ffs: %s: %s 0x%llx outside the partition (%llu fragments)",
	       p->name, what, a, p->fs_size);
	return -1;
}

static const lk_u8 *read_ind(struct lk_fs *fs, lk_u32 slot, lk_u64 addr)
{
	struct ffs *p = fs->priv;
	struct ffs_ind *c = &p->ind[slot];

	if (c->addr == addr)
		return c->buf;
	if (check_addr(fs, addr, p->frag, "indirect block"))
		return LK_NULL;
	c->addr = 0; /* a failed read must not leave a stale key */
	if (dev_read(fs, addr << p->dbshift, p->bsize / SEC, c->buf))
		return LK_NULL;
	c->addr = addr;
	return c->buf;
}

/* Physical fragment address of logical block lbn (0: a hole). The size
 * check in load_inode keeps lbn inside the triple-indirect range. */
static int bmap(struct lk_fs *fs, const struct ffs_inode *ip, lk_u64 lbn,
		lk_u64 *out)
{
	struct ffs *p = fs->priv;
	lk_u32 level, d, mask = (1u << p->nishift) - 1;
	lk_u64 span = 1, addr;
	const lk_u8 *b;

	if (lbn < FFS_NDADDR) {
		*out = ip->db[lbn];
		return 0;
	}
	lbn -= FFS_NDADDR;
	for (level = 0; level < FFS_NIADDR; level++) {
		span <<= p->nishift;
		if (lbn < span)
			break;
		lbn -= span;
	}
	if (level == FFS_NIADDR) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: %s: block %llu beyond the triple indirect block",
		       p->name, lbn);
		return -1;
	}
	addr = ip->ib[level];
	for (d = level + 1; d-- > 0;) {
		if (!addr)
			break;
		b = read_ind(fs, level - d, addr);
		if (!b)
			return -1;
		addr = rd_ptr(p, b + (((lbn >> (p->nishift * d)) & mask) *
				      p->psize));
	}
	*out = addr;
	return 0;
}

/* Bytes the file holds in block lbn: a whole block, or the fragments of
 * a short last direct block (fs.h blksize). */
static lk_u64 blk_extent(const struct ffs *p, lk_u64 size, lk_u64 lbn)
{
	lk_u64 tail;

	if (lbn >= FFS_NDADDR || size >= (lbn + 1) << p->bshift)
		return p->bsize;
	tail = size & (p->bsize - 1);
	return (tail + p->fsize - 1) & ~(lk_u64)(p->fsize - 1);
}

/* len bytes of the file at off (the caller checked off + len <= size). */
static int read_range(struct lk_fs *fs, const struct ffs_inode *ip,
		      lk_u64 off, lk_u8 *dst, lk_u64 len)
{
	struct ffs *p = fs->priv;
	lk_u64 lbn, a, ext;
	lk_u32 boff, n;

	while (len) {
		lbn = off >> p->bshift;
		boff = (lk_u32)(off & (p->bsize - 1));
		n = p->bsize - boff;
		if (n > len)
			n = (lk_u32)len;
		if (bmap(fs, ip, lbn, &a))
			goto fail;
		if (!a) {
			lk_memset(dst, 0, n); /* a hole reads as zeros */
		} else {
			ext = blk_extent(p, ip->size, lbn);
			if (check_addr(fs, a, ext >> p->fshift, "data block") ||
			    read_bytes(fs, (a << p->dbshift) + boff / SEC,
				       boff % SEC, dst, n))
				goto fail;
		}
		off += n;
		dst += n;
		len -= n;
	}
	return run_flush(fs);
fail:
	p->run_count = 0;
	return -1;
}

/* ---- inodes ---- */

static void parse_inode(const struct ffs *p, const lk_u8 *d,
			struct ffs_inode *ip)
{
	lk_u32 db = p->ufs2 ? 112 : 40, i;

	ip->mode = rd16(d);
	if (p->ufs2) {
		ip->uid = rd32(d + 4);
		ip->gid = rd32(d + 8);
		ip->size = rd64(d + 16);
	} else {
		ip->size = rd64(d + 8);
		ip->uid = rd32(d + 112);
		ip->gid = rd32(d + 116);
	}
	for (i = 0; i < FFS_NDADDR; i++)
		ip->db[i] = rd_ptr(p, d + db + i * p->psize);
	for (i = 0; i < FFS_NIADDR; i++)
		ip->ib[i] = rd_ptr(p, d + db + (FFS_NDADDR + i) * p->psize);
	lk_memcpy(ip->shortlink, d + db, (FFS_NDADDR + FFS_NIADDR) * p->psize);
}

static int check_inode(struct lk_fs *fs, const struct ffs_inode *ip)
{
	struct ffs *p = fs->priv;
	const char *why = LK_NULL;

	if (!(ip->mode & IFMT))
		why = "is not in use (mode 0)";
	else if (ip->size > p->maxsize)
		why = "has a size beyond what its blocks can map";
	else if ((ip->mode & IFMT) == IFDIR &&
		 ((ip->size & (FFS_DIRBLK - 1)) ||
		  ip->size > p->fs_size << p->fshift ||
		  ip->size > FFS_DIR_MAX))
		why = "is a directory of impossible size";
	if (!why)
		return 0;
	lk_log(fs->h, LK_LOG_ERROR, "ffs: %s: inode %u %s (size %llu)",
	       p->name, ip->ino, why, ip->size);
	return -1;
}

/* ino_to_fsba / ino_to_fsbo (fs.h), then the one sector holding it:
 * 128- and 256-byte dinodes never straddle a sector. */
/* The sector holding an inode, cached (see FFS_ICACHE). */
static const lk_u8 *inode_sector(struct lk_fs *fs, lk_u64 sector)
{
	struct ffs *p = fs->priv;
	lk_u32 i;

	for (i = 0; i < FFS_ICACHE; i++)
		if (p->isec_at[i] == sector + 1)
			return p->isec[i];
	i = p->isec_next++ % FFS_ICACHE;
	p->isec_at[i] = 0;
	if (dev_read(fs, sector, 1, p->isec[i]))
		return LK_NULL;
	p->isec_at[i] = sector + 1;
	return p->isec[i];
}

static int load_inode(struct lk_fs *fs, lk_u64 ino, struct ffs_inode *ip)
{
	struct ffs *p = fs->priv;
	const lk_u8 *sec;
	lk_u32 cg, rel, boff;
	lk_u64 fsba;

	if (ino < FFS_ROOTINO || ino >= p->inodes) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: %s: inode number %llu out of range (2..%llu)",
		       p->name, ino, p->inodes - 1);
		return -1;
	}
	cg = (lk_u32)ino / p->ipg;
	rel = (lk_u32)ino - cg * p->ipg;
	fsba = p->fpg * cg + p->cgoffset * (cg & ~p->cgmask) + p->iblkno +
	       ((lk_u64)(rel >> p->inoshift) << p->fragshift);
	boff = (rel & ((1u << p->inoshift) - 1)) * p->dsize;
	if (check_addr(fs, fsba + (boff >> p->fshift), 1, "inode block") ||
	    !(sec = inode_sector(fs, (fsba << p->dbshift) + boff / SEC)))
		return -1;
	lk_memset(ip, 0, sizeof(*ip));
	ip->ino = (lk_u32)ino;
	parse_inode(p, sec + boff % SEC, ip);
	return check_inode(fs, ip);
}

static int is_fast_link(const struct ffs *p, const struct ffs_inode *ip)
{
	return (ip->mode & IFMT) == IFLNK && ip->size < p->maxsymlink;
}

/* ---- directories ---- */

/* One DIRBLKSIZ chunk (dir.h): records tile it exactly. 1 found,
 * 0 not here, -1 corrupt. */
static int scan_chunk(struct lk_fs *fs, const struct ffs_inode *dir,
		      const lk_u8 *b, lk_u64 at, lk_u32 nlen, lk_u32 *ino)
{
	struct ffs *p = fs->priv;
	lk_u32 pos = 0, reclen, namlen;
	const char *why;

	while (pos < FFS_DIRBLK) {
		why = LK_NULL;
		reclen = FFS_DIRBLK - pos < FFS_DIRHDR ? 0 : rd16(b + pos + 4);
		namlen = reclen ? b[pos + (p->oldnames ? 6 : 7)] : 0;
		if (reclen < FFS_DIRHDR || (reclen & 3))
			why = "bad record length";
		else if (reclen > FFS_DIRBLK - pos)
			why = "record crosses its 512-byte block";
		else if (FFS_DIRHDR + namlen + 1 > reclen)
			why = "name longer than its record";
		if (why) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "ffs: %s: directory inode %u: %s (reclen %u at byte %llu)",
			       p->name, dir->ino, why, reclen, at + pos);
			return -1;
		}
		if (rd32(b + pos) && namlen == nlen &&
		    !lk_memcmp(b + pos + FFS_DIRHDR, p->comp, nlen)) {
			*ino = rd32(b + pos);
			return 1;
		}
		pos += reclen;
	}
	return 0;
}

/* n bytes of directory dir at off, from the cache or read into its
 * oldest slot (the file system is read only: nothing goes stale). */
static const lk_u8 *dir_block(struct lk_fs *fs, const struct ffs_inode *dir,
			      lk_u64 off, lk_u64 n)
{
	struct ffs *p = fs->priv;
	struct ffs_dcache *c;
	lk_u32 i;

	for (i = 0; i < FFS_DCACHE; i++) {
		c = &p->dc[i];
		if (c->n == n && c->ino == dir->ino && c->off == off)
			return c->buf;
	}
	c = &p->dc[p->dc_next++ % FFS_DCACHE];
	c->n = 0;
	p->dir_read += n;
	if (p->dir_read > FFS_DIR_READ_MAX) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: over %llu MiB of directory reads: the file system "
		       "is taken for corrupt", FFS_DIR_READ_MAX >> 20);
		return LK_NULL;
	}
	if (read_range(fs, dir, off, c->buf, n))
		return LK_NULL;
	c->ino = dir->ino;
	c->off = off;
	c->n = n;
	return c->buf;
}

static int dir_find(struct lk_fs *fs, const struct ffs_inode *dir,
		    lk_u32 nlen, lk_u32 *ino)
{
	struct ffs *p = fs->priv;
	const lk_u8 *b;
	lk_u64 off, n;
	lk_u32 c;
	int r;

	for (off = 0; off < dir->size; off += n) {
		n = dir->size - off < p->bsize ? dir->size - off : p->bsize;
		b = dir_block(fs, dir, off, n);
		if (!b)
			return -1;
		for (c = 0; c < n; c += FFS_DIRBLK) {
			r = scan_chunk(fs, dir, b + c, off + c, nlen, ino);
			if (r)
				return r;
		}
	}
	return 0;
}

/* ---- paths ---- */

static int is_sep(char c)
{
	return c == '/' || c == '\\';
}

/* Replaces the path left to walk (rest, inside path[0]) by the link's
 * target followed by rest. */
static int follow_link(struct lk_fs *fs, const struct ffs_inode *ip,
		       const char *rest)
{
	struct ffs *p = fs->priv;
	char *t = p->path[1];
	lk_size rlen = lk_strlen(rest);
	lk_u64 i;

	if (!ip->size || ip->size + 1 + rlen >= FFS_MAXPATH) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: %s: symbolic link inode %u: target of %llu bytes empty or too long",
		       p->name, ip->ino, ip->size);
		return -1;
	}
	if (is_fast_link(p, ip))
		lk_memcpy(t, ip->shortlink, (lk_size)ip->size);
	else if (read_range(fs, ip, 0, (lk_u8 *)t, ip->size))
		return -1;
	for (i = 0; i < ip->size; i++) {
		if (!t[i]) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "ffs: %s: symbolic link inode %u: NUL byte in its target",
			       p->name, ip->ino);
			return -1;
		}
	}
	t[ip->size] = '/';
	lk_memcpy(t + ip->size + 1, rest, rlen + 1);
	lk_memcpy(p->path[0], t, (lk_size)ip->size + 2 + rlen);
	return 0;
}

/* Cuts the next component into p->comp; returns its length, or -1. */
static int next_comp(struct lk_fs *fs, const char **restp)
{
	struct ffs *p = fs->priv;
	const char *s = *restp;
	lk_u32 n = 0;

	while (s[n] && !is_sep(s[n]))
		n++;
	if (n > FFS_MAXNAME) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: %s: a name is longer than %u bytes", p->name,
		       FFS_MAXNAME);
		return -1;
	}
	lk_memcpy(p->comp, s, n);
	p->comp[n] = 0;
	*restp = s + n;
	return (int)n;
}

static int walk(struct lk_fs *fs, const char *path, struct ffs_inode *ip)
{
	struct ffs *p = fs->priv;
	struct ffs_inode child;
	const char *rest;
	lk_u32 links = 0, ino;
	int n, r;

	if (lk_strnlen(path, FFS_MAXPATH) >= FFS_MAXPATH) {
		lk_log(fs->h, LK_LOG_ERROR, "ffs: %s: path longer than %u bytes",
		       p->name, FFS_MAXPATH - 1);
		return -1;
	}
	lk_memcpy(p->path[0], path, lk_strlen(path) + 1);
	rest = p->path[0];
	if (load_inode(fs, FFS_ROOTINO, ip))
		return -1;
	for (;;) {
		while (is_sep(*rest))
			rest++;
		if (!*rest)
			return 0;
		if ((ip->mode & IFMT) != IFDIR) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "ffs: %s: inode %u on the way is not a directory",
			       p->name, ip->ino);
			return -1;
		}
		n = next_comp(fs, &rest);
		if (n < 0)
			return -1;
		r = dir_find(fs, ip, (lk_u32)n, &ino);
		if (r < 0)
			return -1;
		if (!r) {
			lk_log(fs->h, LK_LOG_ERROR, "ffs: %s: %s not found",
			       p->name, p->comp);
			return -1;
		}
		if (load_inode(fs, ino, &child))
			return -1;
		if ((child.mode & IFMT) != IFLNK) {
			*ip = child;
			continue;
		}
		if (++links > FFS_MAXLINKS) {
			lk_log(fs->h, LK_LOG_ERROR,
			       "ffs: %s: more than %u symbolic links", p->name,
			       FFS_MAXLINKS);
			return -1;
		}
		if (follow_link(fs, &child, rest))
			return -1;
		rest = p->path[0];
		/* A relative target goes on from the link's directory (ip). */
		if (is_sep(*rest) && load_inode(fs, FFS_ROOTINO, ip))
			return -1;
	}
}

/* ---- superblock ---- */

struct sb_check {
	const char *why;
	lk_u64 val;
};

static int sb_bad(struct sb_check *c, const char *why, lk_u64 val)
{
	c->why = why;
	c->val = val;
	return -1;
}

/* The sizes every later shift and mask relies on. */
static int sb_sizes(struct ffs *p, const lk_u8 *sb, struct sb_check *c)
{
	lk_u32 bsize = rd32(sb + SB_BSIZE), fsize = rd32(sb + SB_FSIZE);
	int bs = log2_exact(bsize), fs = log2_exact(fsize);

	if (bs < 0 || bsize < FFS_MINBSIZE || bsize > FFS_MAXBSIZE)
		return sb_bad(c, "block size", bsize);
	if (fs < 0 || fsize < SEC || fsize > bsize ||
	    bsize / fsize > FFS_MAXFRAG)
		return sb_bad(c, "fragment size", fsize);
	if (rd32(sb + SB_BSHIFT) != (lk_u32)bs)
		return sb_bad(c, "fs_bshift", rd32(sb + SB_BSHIFT));
	if (rd32(sb + SB_FSHIFT) != (lk_u32)fs)
		return sb_bad(c, "fs_fshift", rd32(sb + SB_FSHIFT));
	if (rd32(sb + SB_FRAG) != bsize / fsize)
		return sb_bad(c, "fs_frag", rd32(sb + SB_FRAG));
	if (rd32(sb + SB_FRAGSHIFT) != (lk_u32)(bs - fs))
		return sb_bad(c, "fs_fragshift", rd32(sb + SB_FRAGSHIFT));
	if (rd32(sb + SB_FSBTODB) != (lk_u32)fs - 9)
		return sb_bad(c, "fs_fsbtodb", rd32(sb + SB_FSBTODB));
	if (rd32(sb + SB_NINDIR) != bsize / p->psize)
		return sb_bad(c, "fs_nindir", rd32(sb + SB_NINDIR));
	if (rd32(sb + SB_INOPB) != bsize / p->dsize)
		return sb_bad(c, "fs_inopb", rd32(sb + SB_INOPB));
	p->bsize = bsize;
	p->bshift = (lk_u32)bs;
	p->fsize = fsize;
	p->fshift = (lk_u32)fs;
	p->frag = bsize / fsize;
	p->fragshift = (lk_u32)(bs - fs);
	p->dbshift = (lk_u32)fs - 9;
	p->nishift = (lk_u32)log2_exact(bsize / p->psize);
	p->inoshift = (lk_u32)log2_exact(bsize / p->dsize);
	return 0;
}

/* Cylinder groups and the file system size, against the partition. */
static int sb_groups(struct lk_fs *fs, struct ffs *p, const lk_u8 *sb,
		     struct sb_check *c)
{
	lk_u64 size = p->ufs2 ? rd64(sb + SB_SIZE2) :
				(lk_u64)(lk_i64)(lk_i32)rd32(sb + SB_SIZE1);
	lk_u32 fpg = rd32(sb + SB_FPG), cgoff = rd32(sb + SB_CGOFFSET);

	p->ncg = rd32(sb + SB_NCG);
	p->ipg = rd32(sb + SB_IPG);
	p->fpg = fpg;
	p->iblkno = rd32(sb + SB_IBLKNO);
	/* Below 2^47 fragments every byte offset fits in 64 bits. */
	if (!size || size > fs->count >> p->dbshift || size >> 47)
		return sb_bad(c, "size (fragments) outside the partition", size);
	if (!p->ncg)
		return sb_bad(c, "fs_ncg", 0);
	if (fpg < p->frag || fpg > 0x7fffffffu)
		return sb_bad(c, "fs_fpg", fpg);
	if (p->fpg * (p->ncg - 1) >= size || p->fpg * p->ncg < size)
		return sb_bad(c, "fs_ncg for the size", p->ncg);
	if (!p->ipg || (p->ipg & ((1u << p->inoshift) - 1)))
		return sb_bad(c, "fs_ipg", p->ipg);
	if (p->iblkno >= fpg)
		return sb_bad(c, "fs_iblkno", p->iblkno);
	if (cgoff > fpg)
		return sb_bad(c, "fs_cgoffset", cgoff);
	p->fs_size = size;
	p->cgoffset = cgoff;
	p->cgmask = rd32(sb + SB_CGMASK);
	p->inodes = (lk_u64)p->ncg * p->ipg;
	return 0;
}

static int sb_check(struct lk_fs *fs, struct ffs *p, const lk_u8 *sb,
		    struct sb_check *c)
{
	lk_u32 maxlink = (FFS_NDADDR + FFS_NIADDR) * p->psize;
	lk_i32 sym = (lk_i32)rd32(sb + SB_MAXSYMLINK);
	lk_u64 n;

	if (sb_sizes(p, sb, c) || sb_groups(fs, p, sb, c))
		return -1;
	p->oldnames = (lk_i32)rd32(sb + SB_INODEFMT) == FFS_42INODEFMT;
	if (p->oldnames)
		sym = 0;
	if (sym < 0 || (lk_u32)sym > maxlink)
		return sb_bad(c, "fs_maxsymlinklen", (lk_u32)sym);
	p->maxsymlink = (lk_u32)sym;
	/* Blocks the inode maps: 12 direct, then nindir^1..3. */
	n = FFS_NDADDR + (1ull << p->nishift) + (1ull << 2 * p->nishift) +
	    (1ull << 3 * p->nishift);
	p->maxsize = n << p->bshift;
	return 0;
}

/* 1: a superblock found and checked; 0: none here; -1: one that fails. */
static int sb_try(struct lk_fs *fs, struct ffs *p, lk_u32 loc, lk_u8 *sb,
		  struct sb_check *c)
{
	lk_u32 magic;

	if ((lk_u64)(loc / SEC) + FFS_SB_SECS > fs->count ||
	    lk_bdev_read(&fs->dev, fs->lba + loc / SEC, FFS_SB_SECS, sb))
		return 0;
	magic = rd32(sb + SB_MAGIC);
	if (magic == UFS2_MAGIC)
		p->ufs2 = 1;
	else if (magic == UFS1_MAGIC && loc != 65536)
		p->ufs2 = 0;
	else
		return 0;
	p->psize = p->ufs2 ? 8 : 4;
	p->dsize = p->ufs2 ? 256 : 128;
	return sb_check(fs, p, sb, c) ? -1 : 1;
}

static int ffs_alloc_bufs(struct lk_fs *fs, struct ffs *tmp)
{
	lk_size size = sizeof(*tmp) +
		       (lk_size)tmp->bsize * (FFS_NIADDR + FFS_DCACHE);
	lk_u8 *m = fs->h->alloc(fs->h->ctx, size);
	struct ffs *p;

	if (!m) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: partition at LBA %llu: out of memory for %u-byte blocks",
		       fs->lba, tmp->bsize);
		return -1;
	}
	p = (struct ffs *)m;
	*p = *tmp;
	p->alloc_size = size;
	m += sizeof(*p);
	for (int i = 0; i < (int)FFS_NIADDR; i++, m += p->bsize)
		p->ind[i].buf = m;
	for (int i = 0; i < (int)FFS_DCACHE; i++, m += p->bsize)
		p->dc[i].buf = m;
	fs->priv = p;
	return 0;
}

static int ffs_mount(struct lk_fs *fs)
{
	lk_u8 sb[FFS_SB_SECS * SEC];
	struct sb_check c = { LK_NULL, 0 };
	struct ffs tmp;
	lk_u32 bad = 0;
	int r = 0;

	if (fs->lba + fs->count < fs->lba) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: partition at LBA %llu: size %llu wraps around",
		       fs->lba, fs->count);
		return -1;
	}
	for (lk_u32 i = 0; i < sizeof(ffs_sbtry) / sizeof(ffs_sbtry[0]); i++) {
		lk_memset(&tmp, 0, sizeof(tmp));
		r = sb_try(fs, &tmp, ffs_sbtry[i], sb, &c);
		if (r > 0)
			return ffs_alloc_bufs(fs, &tmp);
		if (r < 0 && !bad)
			bad = ffs_sbtry[i] + 1; /* report the first bad one */
	}
	if (bad)
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: partition at LBA %llu: superblock at byte %u: bad %s (%llu)",
		       fs->lba, bad - 1, c.why, c.val);
	else
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: partition at LBA %llu: no FFS superblock at byte 65536, 8192, 0 or 262144",
		       fs->lba);
	return -1;
}

/* ---- operations ---- */

static void set_name(struct ffs *p, const char *path)
{
	lk_size n = lk_strnlen(path, FFS_MAXPATH);

	p->name = path;
	if (n <= FFS_SHOWN)
		return;
	lk_memcpy(p->shown, "...", 3);
	lk_memcpy(p->shown + 3, path + n - (FFS_SHOWN - 3), FFS_SHOWN - 3);
	p->shown[FFS_SHOWN] = 0;
	p->name = p->shown;
}

static void fill_file(const struct ffs_inode *ip, struct lk_file *f)
{
	lk_memset(f, 0, sizeof(*f));
	f->size = ip->size;
	f->mode = ip->mode;
	f->uid = ip->uid;
	f->gid = ip->gid;
	f->ino = ip->ino;
}

static int ffs_lookup(struct lk_fs *fs, const char *path, struct lk_file *f)
{
	struct ffs *p = fs->priv;
	struct ffs_inode ip;

	set_name(p, path);
	if (walk(fs, path, &ip))
		return -1;
	fill_file(&ip, f);
	return 0;
}

static int ffs_read(struct lk_fs *fs, const char *path,
		    const struct lk_file *f, lk_u64 off, void *buf, lk_u64 len)
{
	struct ffs *p = fs->priv;
	struct ffs_inode ip;

	set_name(p, path);
	if (load_inode(fs, f->ino, &ip))
		return -1;
	if (off > ip.size || len > ip.size - off || (!buf && len)) {
		lk_log(fs->h, LK_LOG_ERROR,
		       "ffs: %s: read of %llu bytes at %llu beyond the size %llu",
		       p->name, len, off, ip.size);
		return -1;
	}
	if (is_fast_link(p, &ip)) {
		lk_memcpy(buf, ip.shortlink + off, (lk_size)len);
		return 0;
	}
	return read_range(fs, &ip, off, buf, len);
}

static void ffs_unmount(struct lk_fs *fs)
{
	const struct ffs *p = fs->priv;

	if (p)
		lk_fs_free_priv(fs, p->alloc_size);
}

const struct lk_fs_ops lk_fs_ffs = {
	.name = "ffs",
	.mount = ffs_mount,
	.lookup = ffs_lookup,
	.read = ffs_read,
	.unmount = ffs_unmount,
};
