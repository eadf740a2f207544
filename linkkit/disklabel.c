/*
 * OpenBSD disklabel lookup on the boot disk (see disklabel.h). One
 * 512-byte sector buffer on the stack; no allocation, bounded loops.
 */
#include "disklabel.h"
#include "linkkit.h"

#define SEC 512u
#define MBR_PARTS 0x1beu
#define GPT_MAX_HDR 512u

/* On-disk byte order of GUID 824cc7a0-36a8-11e3-890a-952519ad3f61. */
static const lk_u8 obsd_guid[16] = { 0xa0, 0xc7, 0x4c, 0x82, 0xa8, 0x36,
				     0xe3, 0x11, 0x89, 0x0a, 0x95, 0x25,
				     0x19, 0xad, 0x3f, 0x61 };

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

lk_u32 lk_dl_crc32(lk_u32 crc, const void *p, lk_size n)
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

void lk_dl_duid_hex(const lk_u8 *duid, char *out17)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 8; i++) {
		out17[2 * i] = hex[duid[i] >> 4];
		out17[2 * i + 1] = hex[duid[i] & 15];
	}
	out17[16] = 0;
}

int lk_dl_parse(const lk_u8 *sec, struct lk_dl_label *out, const char **why)
{
	lk_u32 npart = rd16(sec + 138), end, sum = 0;
	static const lk_u8 zero[8];

	if (rd32(sec) != LK_DL_DISKMAGIC ||
	    rd32(sec + 132) != LK_DL_DISKMAGIC) {
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
		sum ^= rd16(sec + i);
	if (sum) {
		*why = "disklabel checksum mismatch";
		return -1;
	}
	if (!lk_memcmp(sec + 64, zero, 8)) {
		*why = "disklabel has no DUID (all zero)";
		return -1;
	}
	lk_memcpy(out->duid, sec + 64, 8);
	out->d_type = (lk_u16)rd16(sec + 4);
	return 0;
}

/* Reads one sector, refusing any LBA outside a disk of known size. */
static int rd_sec(const struct lk_dl_disk *d, lk_u64 lba, lk_u8 *sec)
{
	if (d->sectors && lba >= d->sectors)
		return -1;
	return d->read(d->ctx, lba, 1, sec) ? -1 : 0;
}

/* OpenBSD's gpt_chk_mbr: exactly one used entry, type 0xee, from LBA 1,
 * covering the disk (or 0xffffffff) when the disk size is known. */
static int mbr_is_protective(const lk_u8 *sec, lk_u64 sectors)
{
	int used = 0, efi = 0;

	for (lk_u32 i = 0; i < 4; i++) {
		const lk_u8 *e = sec + MBR_PARTS + 16 * i;
		lk_u64 size = rd32(e + 12);

		if (e[4] == 0)
			continue;
		used++;
		if (e[4] != 0xee || rd32(e + 8) != 1)
			continue;
		if (!sectors || size == 0xffffffffu || size == sectors - 1)
			efi++;
	}
	return used == 1 && efi == 1;
}

static int gpt_header(const struct lk_dl_disk *d, lk_u8 *sec, const char **why)
{
	lk_u32 hsize, want;

	if (rd_sec(d, 1, sec)) {
		*why = "cannot read the GPT header";
		return -1;
	}
	if (lk_memcmp(sec, "EFI PART", 8) || rd32(sec + 8) != 0x10000u) {
		*why = "bad GPT signature or revision";
		return -1;
	}
	hsize = rd32(sec + 12);
	if (hsize < 92 || hsize > GPT_MAX_HDR) {
		*why = "bad GPT header size";
		return -1;
	}
	want = rd32(sec + 16);
	lk_memset(sec + 16, 0, 4);
	if (lk_dl_crc32(0, sec, hsize) != want) {
		*why = "bad GPT header CRC";
		return -1;
	}
	return 0;
}

/* Walks the whole entry array (its CRC covers every entry) and returns
 * the first OpenBSD partition's start LBA, or 0. */
static lk_u64 gpt_scan(const struct lk_dl_disk *d, lk_u8 *sec, lk_u64 tab,
		       lk_u32 n, lk_u32 esz, lk_u32 want, const char **why)
{
	lk_u32 per = SEC / esz, crc = 0;
	lk_u64 start = 0;

	for (lk_u32 i = 0; i < n; i++) {
		const lk_u8 *e;

		if (i % per == 0 && rd_sec(d, tab + i / per, sec)) {
			*why = "cannot read the GPT entries";
			return 0;
		}
		e = sec + (i % per) * esz;
		crc = lk_dl_crc32(crc, e, esz);
		if (!start && !lk_memcmp(e, obsd_guid, 16)) {
			start = rd64(e + 32);
			/* An OpenBSD entry that cannot hold a label. */
			if (!start || rd64(e + 40) <= start)
				start = ~0ull;
		}
	}
	if (crc != want) {
		*why = "bad GPT entry array CRC";
		return 0;
	}
	if (!start)
		*why = "no OpenBSD partition in the GPT";
	else if (start == ~0ull)
		*why = "bad OpenBSD GPT partition range";
	return start == ~0ull ? 0 : start;
}

static lk_u64 gpt_find(const struct lk_dl_disk *d, lk_u8 *sec, const char **why)
{
	lk_u64 tab;
	lk_u32 n, esz, want;

	if (gpt_header(d, sec, why))
		return 0;
	tab = rd64(sec + 72);
	n = rd32(sec + 80);
	esz = rd32(sec + 84);
	want = rd32(sec + 88);
	/* Entries must tile a sector so none straddles two. */
	if (esz < 128 || esz > SEC || (esz & (esz - 1)) ||
	    n > LK_DL_MAX_GPT_ENTRIES || tab < 2 || tab > (1ull << 48)) {
		*why = "bad GPT entry array";
		return 0;
	}
	return gpt_scan(d, sec, tab, n, esz, want, why);
}

/* The first 0xa6 entry through the extended chain: EBR entry starts are
 * relative to the EBR, the next EBR's to the first extended partition. */
static lk_u64 mbr_find(const struct lk_dl_disk *d, lk_u8 *sec, const char **why)
{
	lk_u64 off = 0, ext_base = 0;

	for (lk_u32 hops = 0; hops < LK_DL_MAX_EBR; hops++) {
		lk_u64 next = 0;

		if (hops &&
		    (rd_sec(d, off, sec) || rd16(sec + 510) != 0xaa55)) {
			*why = "cannot read an extended boot record";
			return 0;
		}
		for (lk_u32 i = 0; i < 4; i++) {
			const lk_u8 *e = sec + MBR_PARTS + 16 * i;
			lk_u64 start = rd32(e + 8);

			if (!rd32(e + 12))
				continue;
			if (e[4] == LK_DL_MBR_OPENBSD) {
				if (off + start)
					return off + start;
				*why = "bad OpenBSD MBR partition start";
				return 0;
			}
			if (!next && (e[4] == 0x05 || e[4] == 0x0f) && start)
				next = ext_base + start;
		}
		if (!next) {
			*why = "no OpenBSD partition in the MBR";
			return 0;
		}
		if (!ext_base)
			ext_base = next;
		off = next;
	}
	*why = "too many extended partitions";
	return 0;
}

int lk_dl_find(const struct lk_dl_disk *d, struct lk_dl_label *out,
	       const char **why)
{
	lk_u8 sec[SEC] __attribute__((aligned(16)));
	lk_u64 start;
	int gpt, rc = -1;

	lk_memset(out, 0, sizeof(*out));
	if (rd_sec(d, 0, sec)) {
		*why = "cannot read sector 0";
		return -1;
	}
	if (rd16(sec + 510) != 0xaa55) {
		*why = "no MBR signature";
		return -1;
	}
	gpt = mbr_is_protective(sec, d->sectors);
	start = gpt ? gpt_find(d, sec, why) : mbr_find(d, sec, why);
	if (!start)
		return -1;
	/* OpenBSD's loaders take only labels within the first 2^32 sectors. */
	if (start >= 0xffffffffull || rd_sec(d, start + 1, sec)) {
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
