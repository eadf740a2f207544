/*
 * GPT and MBR walks (see part.h). One sector buffer on the stack per
 * walk, wiped on the way out; no allocation; every loop bounded by a
 * limit checked before it starts.
 */
#include "part.h"
#include "../linkkit.h"

#define MBR_PARTS 0x1beu
#define GPT_MAX_LBA (1ull << 48)

struct gpt_hdr {
	lk_u64 tab;
	lk_u32 n, esz, want;
};

static const char *const part_why[] = {
	[LK_PART_OK] = "",
	[LK_PART_READ_MBR] = "cannot read sector 0",
	[LK_PART_NO_MBR] = "no MBR signature",
	[LK_PART_READ_GPT] = "cannot read the GPT header",
	[LK_PART_GPT_SIG] = "bad GPT signature or revision",
	[LK_PART_GPT_HSIZE] = "bad GPT header size",
	[LK_PART_GPT_HCRC] = "bad GPT header CRC",
	[LK_PART_GPT_ARRAY] = "bad GPT entry array",
	[LK_PART_READ_ENTRIES] = "cannot read the GPT entries",
	[LK_PART_GPT_ECRC] = "bad GPT entry array CRC",
	[LK_PART_READ_EBR] = "cannot read an extended boot record",
	[LK_PART_EBR_LOOP] = "too many extended partitions",
};

lk_u32 lk_part_crc32(lk_u32 crc, const void *p, lk_size n)
{
	const lk_u8 *b = p;

	crc = ~crc;
	while (n--) {
		crc ^= *b++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void fault_clear(struct lk_part_fault *f)
{
	lk_memset(f, 0, sizeof(*f));
	f->why = part_why[LK_PART_OK];
}

/* Records a fault; returns -1 for the callers' convenience. */
static int fault(struct lk_part_fault *f, enum lk_part_code code, lk_u64 lba,
		 lk_u32 a, lk_u32 b)
{
	f->code = code;
	f->why = part_why[code];
	f->lba = lba;
	f->a = a;
	f->b = b;
	return -1;
}

/* ---- GPT ---- */

/* 1: a header to believe, g filled; 0: none at LBA 1; -1: corrupt. */
static int gpt_header(const struct lk_blockdev *d, unsigned flags, lk_u8 *sec,
		      struct gpt_hdr *g, struct lk_part_fault *f)
{
	lk_u32 hsize, want, got;

	if (lk_bdev_read(d, 1, 1, sec)) {
		fault(f, LK_PART_READ_GPT, 1, 0, 0);
		return 0;
	}
	if (lk_memcmp(sec, "EFI PART", 8) ||
	    ((flags & LK_PART_GPT_REV1) && lk_le32(sec + 8) != 0x10000u)) {
		fault(f, LK_PART_GPT_SIG, 1, 0, 0);
		return 0;
	}
	hsize = lk_le32(sec + 12);
	if (hsize < 92 || hsize > LK_SECTOR)
		return fault(f, LK_PART_GPT_HSIZE, 1, hsize, 0);
	want = lk_le32(sec + 16);
	lk_memset(sec + 16, 0, 4); /* the CRC is over the header with it 0 */
	got = lk_part_crc32(0, sec, hsize);
	if (got != want)
		return fault(f, LK_PART_GPT_HCRC, 1, got, want);
	g->tab = lk_le64(sec + 72);
	g->n = lk_le32(sec + 80);
	g->esz = lk_le32(sec + 84);
	g->want = lk_le32(sec + 88);
	if (g->esz < 128 || g->esz > LK_SECTOR || (g->esz & (g->esz - 1)) ||
	    g->n > LK_PART_MAX_GPT_ENTRIES || g->tab < 2 ||
	    g->tab > GPT_MAX_LBA)
		return fault(f, LK_PART_GPT_ARRAY, g->tab, g->n, g->esz);
	return 1;
}

static int guid_unused(const lk_u8 *guid)
{
	for (int i = 0; i < 16; i++)
		if (guid[i])
			return 0;
	return 1;
}

static void gpt_part(const lk_u8 *e, lk_u64 rec, lk_u32 i, struct lk_part *p)
{
	lk_memset(p, 0, sizeof(*p));
	p->gpt = 1;
	lk_memcpy(p->type_guid, e, 16);
	p->lba = lk_le64(e + 32);
	p->last = lk_le64(e + 40);
	p->count = p->last >= p->lba ? p->last - p->lba + 1 : 0;
	p->rec = rec;
	p->index = i;
}

/* Reads the whole array (the CRC covers every entry), visiting the used
 * entries until the visitor has enough. */
static int gpt_entries(const struct lk_blockdev *d, lk_u8 *sec,
		       const struct gpt_hdr *g, lk_part_visit_fn visit,
		       void *arg, struct lk_part_fault *f)
{
	lk_u32 per = LK_SECTOR / g->esz, crc = 0;
	int more = 1;

	for (lk_u32 i = 0; i < g->n; i++) {
		lk_u64 lba = g->tab + i / per;
		const lk_u8 *e = sec + (i % per) * g->esz;
		struct lk_part p;

		if (i % per == 0 && lk_bdev_read(d, lba, 1, sec))
			return fault(f, LK_PART_READ_ENTRIES, lba, 0, 0);
		crc = lk_part_crc32(crc, e, g->esz);
		if (!more || guid_unused(e))
			continue;
		gpt_part(e, lba, i, &p);
		more = !visit(arg, &p);
	}
	if (crc != g->want)
		return fault(f, LK_PART_GPT_ECRC, g->tab, crc, g->want);
	return 1;
}

int lk_part_gpt(const struct lk_blockdev *d, unsigned flags,
		lk_part_visit_fn visit, void *arg, struct lk_part_fault *f)
{
	lk_u8 sec[LK_SECTOR] __attribute__((aligned(16)));
	struct gpt_hdr g;
	int r;

	fault_clear(f);
	r = gpt_header(d, flags, sec, &g, f);
	if (r == 1)
		r = gpt_entries(d, sec, &g, visit, arg, f);
	lk_wipe(sec, sizeof(sec));
	return r;
}

/* ---- MBR ---- */

static int mbr_read(const struct lk_blockdev *d, lk_u8 *sec,
		    struct lk_part_fault *f)
{
	if (lk_bdev_read(d, 0, 1, sec))
		return fault(f, LK_PART_READ_MBR, 0, 0, 0);
	if (lk_le16(sec + 510) != 0xaa55)
		return fault(f, LK_PART_NO_MBR, 0, 0, 0);
	return 0;
}

static int mbr_is_extended(lk_u8 type)
{
	return type == 0x05 || type == 0x0f;
}

/* In an EBR, a partition starts relative to the EBR itself, the link to
 * the next EBR relative to the first extended partition (ext_base). */
static void mbr_part(const lk_u8 *e, lk_u64 rec, lk_u64 ext_base, lk_u32 i,
		     struct lk_part *p)
{
	lk_u64 base = rec && mbr_is_extended(e[4]) ? ext_base : rec;

	lk_memset(p, 0, sizeof(*p));
	p->mbr_type = e[4];
	p->lba = base + lk_le32(e + 8);
	p->count = lk_le32(e + 12);
	p->last = p->lba + p->count - 1;
	p->rec = rec;
	p->index = i;
}

/* sec holds sector 0. Each record's link (its first extended entry) is
 * relative to the first extended partition, ext_base. */
static int mbr_chain(const struct lk_blockdev *d, unsigned flags, lk_u8 *sec,
		     lk_part_visit_fn visit, void *arg, struct lk_part_fault *f)
{
	lk_u64 off = 0, ext_base = 0;

	for (lk_u32 hops = 0; hops < LK_PART_MAX_EBR; hops++) {
		lk_u64 next = 0;

		if (hops && (lk_bdev_read(d, off, 1, sec) ||
			     lk_le16(sec + 510) != 0xaa55))
			return fault(f, LK_PART_READ_EBR, off, 0, 0);
		for (lk_u32 i = 0; i < 4; i++) {
			const lk_u8 *e = sec + MBR_PARTS + 16 * i;
			lk_u32 start = lk_le32(e + 8);
			struct lk_part p;

			if (!e[4] || !lk_le32(e + 12))
				continue;
			mbr_part(e, off, ext_base, i, &p);
			if (visit(arg, &p))
				return 0;
			if (!next && mbr_is_extended(e[4]) && start)
				next = ext_base + start;
		}
		if (!next || (flags & LK_PART_PRIMARY))
			return 0;
		if (!ext_base)
			ext_base = next;
		off = next;
	}
	return fault(f, LK_PART_EBR_LOOP, off, 0, 0);
}

int lk_part_mbr(const struct lk_blockdev *d, unsigned flags,
		lk_part_visit_fn visit, void *arg, struct lk_part_fault *f)
{
	lk_u8 sec[LK_SECTOR] __attribute__((aligned(16)));
	int r;

	fault_clear(f);
	r = mbr_read(d, sec, f);
	if (r == 0)
		r = mbr_chain(d, flags, sec, visit, arg, f);
	lk_wipe(sec, sizeof(sec));
	return r;
}

/* OpenBSD's gpt_chk_mbr: exactly one used entry, type 0xee, from LBA 1,
 * covering the disk (or 0xffffffff) when the disk size is known. */
static int mbr_is_protective(const lk_u8 *sec, lk_u64 sectors)
{
	int used = 0, efi = 0;

	for (lk_u32 i = 0; i < 4; i++) {
		const lk_u8 *e = sec + MBR_PARTS + 16 * i;
		lk_u64 size = lk_le32(e + 12);

		if (e[4] == 0)
			continue;
		used++;
		if (e[4] != 0xee || lk_le32(e + 8) != 1)
			continue;
		if (!sectors || size == 0xffffffffu || size == sectors - 1)
			efi++;
	}
	return used == 1 && efi == 1;
}

int lk_part_walk(const struct lk_blockdev *d, lk_part_visit_fn visit, void *arg,
		 struct lk_part_fault *f)
{
	lk_u8 sec[LK_SECTOR] __attribute__((aligned(16)));
	int r, gpt = 0;

	fault_clear(f);
	r = mbr_read(d, sec, f);
	if (r == 0) {
		gpt = mbr_is_protective(sec, d->sectors);
		r = gpt ? lk_part_gpt(d, LK_PART_GPT_REV1, visit, arg, f)
			: mbr_chain(d, 0, sec, visit, arg, f);
	}
	lk_wipe(sec, sizeof(sec));
	/* With a protective MBR, "no GPT at LBA 1" is a fault too. */
	if (r < 0 || (gpt && r == 0))
		return -1;
	return gpt;
}
