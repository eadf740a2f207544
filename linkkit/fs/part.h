/*
 * Partition tables, walked in one place for every reader of a disk: the
 * FAT reader's ESP search (fat.c) and the OpenBSD disklabel search
 * (../disklabel.c). The walker reads and bounds the tables; what a
 * partition is for, and whether its range is acceptable, is the
 * visitor's business.
 *
 * - GPT: the header at LBA 1 ("EFI PART", size 92..512, CRC32), then the
 *   entry array (entry size a power of two 128..512 so none straddles a
 *   sector, at most LK_PART_MAX_GPT_ENTRIES, from LBA 2 to 2^48). The
 *   array's CRC32 covers every entry, so the whole array is read.
 * - MBR: sector 0 with 0x55aa; its four primary entries, then the
 *   extended chain (types 0x05, 0x0f): an EBR's entry starts are
 *   relative to that EBR, its link to the first extended partition; at
 *   most LK_PART_MAX_EBR boot records, the MBR included.
 *
 * Entries of type 0 (unused) and MBR entries of size 0 are not visited.
 * Every failure is one fault: a code, the numbers behind it and a static
 * reason (the wording of the disklabel search's reasons).
 */
#ifndef LK_FS_PART_H
#define LK_FS_PART_H

#include "blockdev.h"

#define LK_PART_MAX_EBR 256u
#define LK_PART_MAX_GPT_ENTRIES 1024u

/* One table entry, as the table gives it. */
struct lk_part {
	lk_u64 lba;	     /* first sector */
	lk_u64 last;	     /* last sector (GPT's field as stored) */
	lk_u64 count;	     /* sectors; 0 when last < lba */
	lk_u64 rec;	     /* the sector holding the entry: 0 = the MBR */
	lk_u32 index;	     /* GPT entry number, or MBR slot 0..3 */
	int gpt;	     /* type_guid is set (GPT), else mbr_type (MBR) */
	lk_u8 type_guid[16]; /* on-disk byte order */
	lk_u8 mbr_type;
};

/*
 * Called for each entry in table order; non-zero when no more entries
 * are wanted. A GPT entry is visited while the array's CRC is still
 * being summed: keep what you need and believe it only when the walk
 * succeeds.
 */
typedef int (*lk_part_visit_fn)(void *arg, const struct lk_part *p);

enum lk_part_code {
	LK_PART_OK,
	LK_PART_READ_MBR,     /* sector 0 unreadable */
	LK_PART_NO_MBR,	      /* no 0x55aa in sector 0 */
	LK_PART_READ_GPT,     /* LBA 1 unreadable */
	LK_PART_GPT_SIG,      /* no "EFI PART" (or not revision 1.0) */
	LK_PART_GPT_HSIZE,    /* header size a */
	LK_PART_GPT_HCRC,     /* header CRC a, stored b */
	LK_PART_GPT_ARRAY,    /* a entries of b bytes at LBA lba */
	LK_PART_READ_ENTRIES, /* entry sector lba unreadable */
	LK_PART_GPT_ECRC,     /* entry array CRC a, stored b */
	LK_PART_READ_EBR,     /* EBR at lba unreadable or no 0x55aa */
	LK_PART_EBR_LOOP,     /* more than LK_PART_MAX_EBR boot records */
};

struct lk_part_fault {
	enum lk_part_code code;
	const char *why; /* static text; "" while code is LK_PART_OK */
	lk_u64 lba;
	lk_u32 a, b;
};

/* Flags. */
#define LK_PART_GPT_REV1 1u /* GPT: revision must be 1.0 (OpenBSD asks) */
#define LK_PART_PRIMARY 2u  /* MBR: the four primary entries only */

/* The GPT at LBA 1: 1 walked, 0 none there (LBA 1 unreadable or not a
 * GPT header; f says which), -1 a corrupt GPT (f says why). */
int lk_part_gpt(const struct lk_blockdev *d, unsigned flags,
		lk_part_visit_fn visit, void *arg, struct lk_part_fault *f);

/* The MBR at sector 0 and, unless LK_PART_PRIMARY, its extended chain:
 * 0 walked, -1 with f set. */
int lk_part_mbr(const struct lk_blockdev *d, unsigned flags,
		lk_part_visit_fn visit, void *arg, struct lk_part_fault *f);

/* OpenBSD's rule (gpt_chk_mbr): sector 0 must be an MBR; one that is
 * protective (a single used entry, type 0xee from LBA 1, covering the
 * disk or 0xffffffff) means the GPT, revision 1.0, else the MBR with its
 * extended chain. 1 the GPT was walked, 0 the MBR, -1 with f set. */
int lk_part_walk(const struct lk_blockdev *d, lk_part_visit_fn visit, void *arg,
		 struct lk_part_fault *f);

/* CRC-32 (IEEE, reflected) as the GPT uses it; start with crc 0. */
lk_u32 lk_part_crc32(lk_u32 crc, const void *p, lk_size n);

#endif
