/*
 * The boot disk's OpenBSD disklabel, for the OpenBSD hand-over's
 * BOOTARG_BOOTDUID and bootdev (both stages). Facts from OpenBSD's
 * sys/sys/disklabel.h and the amd64 boot loaders (biosdev.c, efidev.c):
 *
 * - The partition tables are walked by fs/part.c's lk_part_walk: sector
 *   0 is an MBR (0x55aa); a protective MBR (one used entry, type 0xee,
 *   starting at LBA 1) means GPT, whose header and entry array must pass
 *   their CRC32s, and the first entry with OpenBSD's type GUID
 *   824cc7a0-36a8-11e3-890a-952519ad3f61 is the OpenBSD partition.
 *   Otherwise the first MBR entry of type 0xa6 is, searched through the
 *   extended-partition chain (at most 256 boot records).
 * - The label is at offset 0 of the partition's second sector (amd64
 *   LABELSECTOR 1, LABELOFFSET 0): d_magic and d_magic2 0x82564557,
 *   d_npartitions <= 16, and the XOR of its 16-bit words up to the end of
 *   the partition table is 0. d_uid (8 bytes at 64) is the DUID.
 *
 * Everything read is untrusted: every offset and count is bounded, reads
 * stay inside the disk when its size is known, and each failure is one
 * static reason string. Read only: there is no write path.
 */
#ifndef LK_DISKLABEL_H
#define LK_DISKLABEL_H

#include "fs/blockdev.h"
#include "lk_types.h"

#define LK_DL_DISKMAGIC 0x82564557u
#define LK_DL_MAXPARTITIONS 16u /* amd64 */
#define LK_DL_DTYPE_SCSI 4u
#define LK_DL_DTYPE_ESDI 5u
#define LK_DL_DTYPE_ST506 6u
#define LK_DL_MBR_OPENBSD 0xa6u

struct lk_dl_label {
	lk_u8 duid[8];
	lk_u16 d_type;	  /* DTYPE_*: the loaders' wd/sd guess */
	lk_u64 label_lba; /* where it was found */
	int gpt;	  /* found through the GPT (else the MBR) */
	/* Partition i (< npart): disk sectors, from the label's 48-bit
	 * p_offset/p_size; fstype FS_BSDFFS (7) for an FFS. */
	lk_u32 npart;
	struct lk_dl_part {
		lk_u64 offset, size;
		lk_u8 fstype;
	} part[LK_DL_MAXPARTITIONS];
};

#define LK_DL_FS_BSDFFS 7u

/* Checks one label sector (512 bytes). 0, or -1 with *why set. A label
 * whose DUID is all zeros counts as none: the kernel ignores it too. */
int lk_dl_parse(const lk_u8 *sec, struct lk_dl_label *out, const char **why);

/* Finds and checks the disk's label. 0, or -1 with *why set. */
int lk_dl_find(const struct lk_blockdev *d, struct lk_dl_label *out,
	       const char **why);

/* The DUID as OpenBSD prints it: 16 lowercase hex digits and a NUL. */
void lk_dl_duid_hex(const lk_u8 *duid, char *out17);

#endif
