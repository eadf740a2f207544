/*
 * Read-only FAT12/16/32 (the ESP) as a row of the file-system table:
 * lk_fs_fat (fs.h). Only 8.3 names are looked up (no long names); files
 * are mode 0100444 and directories 040555, owner 0. Every value read
 * from the disk is bounds-checked, and a corrupt or hostile file system
 * yields one LK_LOG_ERROR line naming the path, never a crash or an
 * endless loop.
 */
#ifndef LK_FS_FAT_H
#define LK_FS_FAT_H

#include "fs.h"

/* Finds the ESP as the firmware would: the first GPT entry with the ESP
 * type GUID (the GPT found by its signature at LBA 1, its CRCs checked),
 * else the first primary MBR entry of the most specific FAT type (0xef,
 * then 0x01, 0x04, 0x06, 0x0b, 0x0c, 0x0e) inside the disk. Gives its
 * first sector and sector count; -1 with one line logged. */
int lk_fat_find_esp(const struct lk_host *h, const struct lk_blockdev *d,
		    lk_u64 *lba, lk_u64 *count);

/* Where a mounted FAT keeps things, for tests that damage it on purpose
 * (sectors of the device). */
struct lk_fat_geom {
	lk_u32 type;	 /* 12, 16 or 32 */
	lk_u32 bps;	 /* bytes per FAT sector */
	lk_u32 spc;	 /* FAT sectors per cluster */
	lk_u64 fat_lba;	 /* the FAT in use */
	lk_u64 data_lba; /* cluster 2 */
};

/* 0, or -1 when fs is not a mounted FAT. */
int lk_fat_geometry(const struct lk_fs *fs, struct lk_fat_geom *g);

#endif
