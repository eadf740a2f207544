/*
 * File systems as one operations table, so the stages read files the same
 * way whatever holds them (FAT on the ESP, FFS on an OpenBSD root). A file
 * system is mounted on a window [lba, lba + count) of a block device; the
 * reader keeps its own state behind `priv` (from h->alloc, wiped and freed
 * by unmount). Everything read from the disk is untrusted: each failure is
 * one LK_LOG_ERROR line through h naming the path and what is wrong, never
 * a crash or an unbounded loop.
 */
#ifndef LK_FS_FS_H
#define LK_FS_FS_H

#include "../lk_host.h"
#include "../lk_types.h"
#include "blockdev.h"

/* What a lookup finds. mode has POSIX's layout (S_IFMT bits and the
 * permission bits); a file system without owners reports uid 0, gid 0
 * and mode 0100444 for files, 040555 for directories. */
struct lk_file {
	lk_u64 size;
	lk_u32 mode, uid, gid;
	lk_u64 ino; /* the reader's own handle: inode, first cluster */
	lk_u64 aux; /* more of it, if the reader needs it */
};

#define LK_S_IFMT 0170000u
#define LK_S_IFDIR 0040000u
#define LK_S_IFREG 0100000u
#define LK_S_IFLNK 0120000u
#define LK_S_ISVTX 0001000u /* sticky: OpenBSD marks a used random.seed */
#define LK_S_IXUSR 0000100u

struct lk_fs;

struct lk_fs_ops {
	const char *name; /* "fat", "ffs" */
	/* Checks the superblock/boot sector; fs->priv set on success. */
	int (*mount)(struct lk_fs *fs);
	/* Looks a path up (`/` or `\` separated, from the root). */
	int (*lookup)(struct lk_fs *fs, const char *path, struct lk_file *f);
	/* len bytes at off (off + len <= f->size) into buf. */
	int (*read)(struct lk_fs *fs, const char *path, const struct lk_file *f,
		    lk_u64 off, void *buf, lk_u64 len);
	/* Wipes and frees priv (buffers may hold secret file contents). */
	void (*unmount)(struct lk_fs *fs);
};

struct lk_fs {
	const struct lk_fs_ops *ops;
	const struct lk_host *h;
	struct lk_blockdev dev;
	lk_u64 lba, count; /* the partition, in device sectors */
	void *priv;
};

/* Mounts ops' file system on [lba, lba + count) of d. 0 or non-zero
 * (one error line logged by the reader). */
int lk_fs_mount(struct lk_fs *fs, const struct lk_fs_ops *ops,
		const struct lk_host *h, const struct lk_blockdev *d,
		lk_u64 lba, lk_u64 count);
void lk_fs_unmount(struct lk_fs *fs);
/* For the readers' unmount: wipes and frees priv (size bytes). */
void lk_fs_free_priv(struct lk_fs *fs, lk_size size);

extern const struct lk_fs_ops lk_fs_fat;
extern const struct lk_fs_ops lk_fs_ffs;

#endif
