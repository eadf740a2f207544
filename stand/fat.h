/*
 * Read-only FAT12/16/32 reader for the BIOS stage (and its host test).
 * Freestanding: 512-byte device sectors come from a callback; every value
 * read from the disk is bounds-checked, and a corrupt or hostile file
 * system yields one LK_LOG_ERROR line naming the path, never a crash or
 * an endless loop. Only 8.3 names (no LFN) are looked up.
 */
#ifndef STAND_FAT_H
#define STAND_FAT_H

#include "../linkkit/lk_host.h"
#include "../linkkit/lk_types.h"

struct fat_dev {
	void *ctx;
	/* Reads `count` 512-byte sectors at `lba`; 0 or non-zero on error. */
	int (*read)(void *ctx, lk_u64 lba, lk_u32 count, void *buf);
	lk_u64 sectors; /* device size in 512-byte sectors; 0 = unknown */
};

struct fat_fs {
	const struct lk_host *h;
	struct fat_dev dev;
	lk_u64 part_lba;  /* device sector of the boot sector */
	lk_u32 type;      /* 12, 16 or 32 */
	lk_u32 bps;       /* bytes per FAT sector: 512..4096 */
	lk_u32 bps_shift; /* log2(bps / 512) */
	lk_u32 spc;       /* FAT sectors per cluster */
	lk_u32 cluster_bytes;
	lk_u32 fat_start;  /* FAT sector of the first FAT */
	lk_u32 fat_bytes;  /* bytes of one FAT */
	lk_u32 root_start; /* FAT12/16 fixed root directory */
	lk_u32 root_sectors;
	lk_u32 root_cluster; /* FAT32 */
	lk_u32 data_start;
	lk_u32 nclusters; /* valid clusters are 2 .. nclusters+1 */
	lk_u8 *secbuf;    /* one FAT sector (FAT cache) */
	lk_u32 cached;    /* FAT sector in secbuf, or ~0 */
	lk_u8 *clbuf;     /* one cluster */
};

struct fat_file {
	lk_u32 first_cluster;
	lk_u32 size;
	lk_u32 attr;
};

#define FAT_ATTR_DIR 0x10u

/* Finds the ESP: the GPT ESP type GUID first, else an MBR FAT or 0xEF
 * partition. Gives the first sector and the sector count. */
int fat_find_esp(const struct lk_host *h, const struct fat_dev *d,
		 lk_u64 *lba, lk_u64 *count);
/* Validates the boot sector of the FAT at lba (count sectors long). */
int fat_mount(const struct lk_host *h, const struct fat_dev *d, lk_u64 lba,
	      lk_u64 count, struct fat_fs *fs);
void fat_unmount(struct fat_fs *fs);
/* Looks up a path (`\` or `/` separated, 8.3 names, any case). */
int fat_open(struct fat_fs *fs, const char *path, struct fat_file *f);
/* Reads the whole file (f->size bytes) into buf. `path` names errors. */
int fat_read(struct fat_fs *fs, const char *path, const struct fat_file *f,
	     void *buf);

#endif
