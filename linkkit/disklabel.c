/*
 * OpenBSD disklabel lookup on the boot disk (see disklabel.h): the
 * partition tables through fs/part.c, then the label sector. One
 * 512-byte sector buffer on the stack; no allocation, bounded loops.
 */
#include "disklabel.h"
#include "fs/part.h"
#include "linkkit.h"

#define SEC 512u

/* On-disk byte order of GUID 824cc7a0-36a8-11e3-890a-952519ad3f61. */
static const lk_u8 obsd_guid[16] = { 0xa0, 0xc7, 0x4c, 0x82, 0xa8, 0x36,
				     0xe3, 0x11, 0x89, 0x0a, 0x95, 0x25,
				     0x19, 0xad, 0x3f, 0x61 };

void lk_dl_duid_hex(const lk_u8 *duid, char *out17)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 8; i++) {
		out17[2 * i] = hex[duid[i] >> 4];
		out17[2 * i + 1] = hex[duid[i] & 15];
	}
	out17[16] = 0;
}

/* struct partition (16 bytes from 148): p_size, p_offset, p_offseth,
 * p_sizeh, p_fstype. Labels of a sector size other than 512 are not
 * described (every disk the stages read has 512-byte sectors). */
static void lk_dl_parts(const lk_u8 *sec, lk_u32 npart,
			struct lk_dl_label *out)
{
	lk_u32 i;

	out->npart = npart;
	for (i = 0; i < npart; i++) {
		const lk_u8 *p = sec + 148 + 16 * i;
		struct lk_dl_part *q = &out->part[i];

		q->size = lk_le32(p) | (lk_u64)lk_le16(p + 10) << 32;
		q->offset = lk_le32(p + 4) | (lk_u64)lk_le16(p + 8) << 32;
		q->fstype = p[12];
	}
}

int lk_dl_parse(const lk_u8 *sec, struct lk_dl_label *out, const char **why)
{
	lk_u32 npart = lk_le16(sec + 138), end, sum = 0;
	static const lk_u8 zero[8];

	if (lk_le32(sec) != LK_DL_DISKMAGIC ||
	    lk_le32(sec + 132) != LK_DL_DISKMAGIC) {
		*why = "no disklabel (bad magic)";
		return -1;
	}
	if (npart > LK_DL_MAXPARTITIONS) {
		*why = "disklabel has more than 16 partitions";
		return -1;
	}
	/* dkcksum: header (148 bytes) plus the partitions it claims. */
	end = 148 + 16 * npart;
	for (lk_u32 i = 0; i < end; i += 2)
		sum ^= lk_le16(sec + i);
	if (sum) {
		*why = "disklabel checksum mismatch";
		return -1;
	}
	if (!lk_memcmp(sec + 64, zero, 8)) {
		*why = "disklabel has no DUID (all zero)";
		return -1;
	}
	lk_memcpy(out->duid, sec + 64, 8);
	out->d_type = (lk_u16)lk_le16(sec + 4);
	lk_dl_parts(sec, npart, out);
	return 0;
}

/* The first OpenBSD entry of the walked table. */
struct obsd_part {
	int found;
	int bad; /* it cannot hold a label */
	lk_u64 start;
};

static int obsd_visit(void *arg, const struct lk_part *p)
{
	struct obsd_part *o = arg;

	if (p->gpt ? lk_memcmp(p->type_guid, obsd_guid, 16) != 0
		   : p->mbr_type != LK_DL_MBR_OPENBSD)
		return 0;
	o->found = 1;
	o->start = p->lba;
	o->bad = !p->lba || (p->gpt && p->last <= p->lba);
	return 1;
}

/* The OpenBSD partition's first sector, or 0 with *why set. */
static lk_u64 obsd_find(const struct lk_blockdev *d, int *gpt, const char **why)
{
	struct obsd_part o = { 0, 0, 0 };
	struct lk_part_fault f;

	*gpt = lk_part_walk(d, obsd_visit, &o, &f);
	if (*gpt < 0) {
		*why = f.why;
		return 0;
	}
	if (!o.found)
		*why = *gpt ? "no OpenBSD partition in the GPT"
			    : "no OpenBSD partition in the MBR";
	else if (o.bad)
		*why = *gpt ? "bad OpenBSD GPT partition range"
			    : "bad OpenBSD MBR partition start";
	return o.found && !o.bad ? o.start : 0;
}

int lk_dl_find(const struct lk_blockdev *d, struct lk_dl_label *out,
	       const char **why)
{
	lk_u8 sec[SEC] __attribute__((aligned(16)));
	lk_u64 start;
	int gpt, rc = -1;

	lk_memset(out, 0, sizeof(*out));
	start = obsd_find(d, &gpt, why);
	if (!start)
		return -1;
	/* OpenBSD's loaders take only labels within the first 2^32 sectors. */
	if (start >= 0xffffffffull || lk_bdev_read(d, start + 1, 1, sec)) {
		*why = "cannot read the disklabel sector";
		return -1;
	}
	if (lk_dl_parse(sec, out, why) == 0) {
		out->label_lba = start + 1;
		out->gpt = gpt;
		rc = 0;
	}
	return rc;
}
