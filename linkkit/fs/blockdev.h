/*
 * A read-only block device as the disk and file-system layer sees it: the
 * BIOS stage's INT 13h drive, a UEFI Block I/O handle, or a host image
 * file in tests and tools. Every reader on top of it (partition tables,
 * disklabels, FAT, FFS) gets its sectors through lk_bdev_read, which keeps
 * reads inside the device when its size is known. There is no write path.
 */
#ifndef LK_FS_BLOCKDEV_H
#define LK_FS_BLOCKDEV_H

#include "../lk_types.h"

#define LK_SECTOR 512u

struct lk_blockdev {
	void *ctx;
	/* Reads `count` 512-byte sectors at `lba`; 0, or non-zero on error. */
	int (*read)(void *ctx, lk_u64 lba, lk_u32 count, void *buf);
	lk_u64 sectors; /* device size in 512-byte sectors; 0 = unknown */
};

/* d->read, refused (non-zero, nothing read) when [lba, lba + count) is
 * not inside a device of known size or count is 0. */
int lk_bdev_read(const struct lk_blockdev *d, lk_u64 lba, lk_u32 count,
		 void *buf);

/* Little-endian fields of on-disk structures (partition tables, boot
 * sectors, disklabels), read bytewise: the layout owes us no alignment. */
static inline lk_u32 lk_le16(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8;
}

static inline lk_u32 lk_le32(const lk_u8 *p)
{
	return lk_le16(p) | lk_le16(p + 2) << 16;
}

static inline lk_u64 lk_le64(const lk_u8 *p)
{
	return (lk_u64)lk_le32(p) | (lk_u64)lk_le32(p + 4) << 32;
}

#endif
