/*
 * Boot-disk disklabel lookup (linkkit/disklabel.c) on in-memory disks:
 * valid MBR, EBR and GPT labels, and every refusal (bad magic, checksum,
 * partition count, zero DUID, odd or looping partition tables, GPT header
 * and entry CRCs, ranges past the disk, read errors), plus random sector
 * mutations that must never crash or read outside the disk. The CRC is
 * checked against zlib's.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "disklabel.h"
#include "fs/part.h"
#include "linkkit.h"
#include "obsd_boot.h"
#include "tap.h"

#define NSEC 4096u
static uint8_t disk[NSEC][512];
static uint64_t disk_sectors = NSEC; /* what reads may touch */
static int fail_lba = -1;	     /* this LBA's read fails */
static unsigned reads, bad_reads;

static int mem_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	(void)ctx;
	reads++;
	if (lba + count > disk_sectors || lba + count < lba) {
		bad_reads++;
		return -1;
	}
	if (fail_lba >= 0 && lba <= (uint64_t)fail_lba &&
	    lba + count > (uint64_t)fail_lba)
		return -1;
	memcpy(buf, disk[lba], (size_t)count * 512);
	return 0;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static const uint8_t duid[8] = {
	0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0
};

static void fix_cksum(uint8_t *s)
{
	uint32_t n = s[138] | s[139] << 8, sum = 0;

	put16(s + 136, 0);
	for (uint32_t i = 0; i < 148 + 16 * n && i < 512; i += 2)
		sum ^= (uint32_t)(s[i] | s[i + 1] << 8);
	put16(s + 136, sum);
}

static void make_label(uint8_t *s, const uint8_t *id, uint16_t type)
{
	memset(s, 0, 512);
	put32(s, LK_DL_DISKMAGIC);
	put16(s + 4, type);
	memcpy(s + 8, "SCSI disk", 9);
	put32(s + 40, 512);
	memcpy(s + 64, id, 8);
	put32(s + 132, LK_DL_DISKMAGIC);
	put16(s + 138, 16);
	put32(s + 148, 1000); /* a: size */
	put32(s + 152, 64);   /* a: offset */
	s[148 + 12] = 7;      /* FS_BSDFFS */
	fix_cksum(s);
}

static void mbr_entry(uint8_t *s, int i, uint8_t type, uint32_t start,
		      uint32_t size)
{
	uint8_t *e = s + 0x1be + 16 * i;

	memset(e, 0, 16);
	e[4] = type;
	put32(e + 8, start);
	put32(e + 12, size);
	s[510] = 0x55;
	s[511] = 0xaa;
}

static void reset(void)
{
	memset(disk, 0, sizeof(disk));
	disk_sectors = NSEC;
	fail_lba = -1;
}

/* MBR: a FAT partition, then OpenBSD at 2048 with its label at 2049. */
static void make_mbr_disk(uint16_t type)
{
	reset();
	mbr_entry(disk[0], 0, 0x0c, 64, 1984);
	mbr_entry(disk[0], 1, 0xa6, 2048, 2048);
	make_label(disk[2049], duid, type);
}

static const uint8_t obsd_guid[16] = { 0xa0, 0xc7, 0x4c, 0x82, 0xa8, 0x36,
				       0xe3, 0x11, 0x89, 0x0a, 0x95, 0x25,
				       0x19, 0xad, 0x3f, 0x61 };
static const uint8_t esp_guid[16] = { 0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8,
				      0xd2, 0x11, 0xba, 0x4b, 0x00, 0xa0,
				      0xc9, 0x3e, 0xc9, 0x3b };

static void gpt_fix(void)
{
	uint8_t *h = disk[1];
	uint64_t n = h[80] | h[81] << 8 | (uint32_t)h[82] << 16,
		 esz = h[84] | h[85] << 8;

	if (n * esz <= (NSEC - 2) * 512ull)
		put32(h + 88, (uint32_t)crc32(0, disk[2], (uInt)(n * esz)));
	put32(h + 16, 0);
	put32(h + 16, (uint32_t)crc32(0, h, 92));
}

/* GPT: ESP entry 0, OpenBSD entry 1 at 2048..3071, 128 entries. */
static void make_gpt_disk(void)
{
	uint8_t *h = disk[1], *e;

	reset();
	mbr_entry(disk[0], 0, 0xee, 1, NSEC - 1);
	memcpy(h, "EFI PART", 8);
	put32(h + 8, 0x10000);
	put32(h + 12, 92);
	put64(h + 24, 1);
	put64(h + 32, NSEC - 1);
	put64(h + 40, 34);
	put64(h + 48, NSEC - 34);
	put64(h + 72, 2);
	put32(h + 80, 128);
	put32(h + 84, 128);
	e = disk[2];
	memcpy(e, esp_guid, 16);
	put64(e + 32, 64);
	put64(e + 40, 2047);
	e += 128;
	memcpy(e, obsd_guid, 16);
	put64(e + 32, 2048);
	put64(e + 40, 3071);
	make_label(disk[2049], duid, LK_DL_DTYPE_SCSI);
	gpt_fix();
}

static const struct lk_blockdev dsk = { NULL, mem_read, NSEC };

/* Expects lk_dl_find to fail with a reason containing `want`. */
static void expect_fail(const char *name, const char *want)
{
	struct lk_dl_label l;
	const char *why = "";
	int rc = lk_dl_find(&dsk, &l, &why);

	tap_check(rc == -1 && strstr(why, want), name, "rc %d why '%s'", rc,
		  why);
}

static void expect_ok(const char *name, int gpt, uint16_t type)
{
	struct lk_dl_label l;
	const char *why = "";
	int rc = lk_dl_find(&dsk, &l, &why);

	tap_check(rc == 0 && !memcmp(l.duid, duid, 8) && l.gpt == gpt &&
			  l.d_type == type && l.label_lba == 2049,
		  name, "rc %d why '%s' gpt %d type %u lba %llu", rc, why,
		  l.gpt, l.d_type, (unsigned long long)l.label_lba);
}

static void test_mbr(void)
{
	make_mbr_disk(LK_DL_DTYPE_ESDI);
	expect_ok("dl_mbr_ok", 0, LK_DL_DTYPE_ESDI);
	/* The same partition through an extended chain: EBR at 1000 holds
	 * OpenBSD relative to itself (1000 + 1048 = 2048). */
	mbr_entry(disk[0], 1, 0x0f, 1000, 3000);
	mbr_entry(disk[1000], 0, 0xa6, 1048, 1000);
	expect_ok("dl_mbr_ebr_ok", 0, LK_DL_DTYPE_ESDI);
	/* An EBR without a next link ends the chain. */
	memset(disk[1000], 0, 512);
	mbr_entry(disk[1000], 0, 0x83, 10, 100);
	expect_fail("dl_mbr_ebr_end", "no OpenBSD partition in the MBR");
	/* EBR 1000 links to 1001 (ext_base 1000 + 1), which links to itself:
	 * the walk must stop after LK_PART_MAX_EBR records. */
	mbr_entry(disk[1000], 1, 0x05, 1, 100);
	mbr_entry(disk[1001], 0, 0x05, 1, 100);
	reads = 0;
	expect_fail("dl_mbr_ebr_loop", "too many extended partitions");
	tap_check(reads <= LK_PART_MAX_EBR + 2, "dl_mbr_ebr_loop_bounded",
		  "%u reads", reads);
	make_mbr_disk(4);
	mbr_entry(disk[0], 1, 0x83, 2048, 2048);
	expect_fail("dl_mbr_no_openbsd", "no OpenBSD partition");
	make_mbr_disk(4);
	disk[0][511] = 0;
	expect_fail("dl_mbr_no_signature", "no MBR signature");
	make_mbr_disk(4);
	mbr_entry(disk[0], 1, 0xa6, NSEC + 5, 100);
	bad_reads = 0;
	expect_fail("dl_mbr_past_end", "cannot read the disklabel");
	tap_check(bad_reads == 0, "dl_mbr_past_end_no_read",
		  "%u reads past "
		  "the end",
		  bad_reads);
	make_mbr_disk(4);
	mbr_entry(disk[0], 1, 0xa6, 0xffffffffu, 100);
	expect_fail("dl_mbr_start_max", "cannot read the disklabel");
	make_mbr_disk(4);
	mbr_entry(disk[0], 1, 0xa6, 0, 100);
	expect_fail("dl_mbr_start_zero", "bad OpenBSD MBR partition start");
	make_mbr_disk(4);
	fail_lba = 2049;
	expect_fail("dl_mbr_read_error", "cannot read the disklabel");
	fail_lba = 0;
	expect_fail("dl_read_error_sector0", "cannot read sector 0");
}

static void test_label(void)
{
	make_mbr_disk(4);
	disk[2049][0] ^= 1;
	expect_fail("dl_bad_magic", "bad magic");
	make_mbr_disk(4);
	put32(disk[2049] + 132, 0);
	expect_fail("dl_bad_magic2", "bad magic");
	make_mbr_disk(4);
	disk[2049][70] ^= 0x40; /* inside the DUID */
	expect_fail("dl_bad_checksum", "checksum");
	make_mbr_disk(4);
	disk[2049][148 + 16 * 16 + 4] ^= 0xff; /* past the partitions */
	expect_ok("dl_checksum_covers_npartitions_only", 0, 4);
	make_mbr_disk(4);
	put16(disk[2049] + 138, 17);
	fix_cksum(disk[2049]);
	expect_fail("dl_too_many_partitions", "more than 16");
	make_mbr_disk(4);
	put16(disk[2049] + 138, 0xffff);
	expect_fail("dl_npartitions_huge", "more than 16");
	make_mbr_disk(4);
	memset(disk[2049] + 64, 0, 8);
	fix_cksum(disk[2049]);
	expect_fail("dl_zero_duid", "no DUID");
}

static void test_gpt(void)
{
	make_gpt_disk();
	expect_ok("dl_gpt_ok", 1, LK_DL_DTYPE_SCSI);
	make_gpt_disk();
	disk[1][40] ^= 1; /* first usable LBA: covered by the header CRC */
	expect_fail("dl_gpt_bad_header_crc", "bad GPT header CRC");
	make_gpt_disk();
	disk[2][200] ^= 1; /* inside entry 1's GUID */
	expect_fail("dl_gpt_bad_entry_crc", "bad GPT entry array CRC");
	make_gpt_disk();
	disk[5][3] ^= 1; /* an unused entry at the end: still covered */
	expect_fail("dl_gpt_bad_entry_crc_tail", "entry array CRC");
	make_gpt_disk();
	memset(disk[2] + 128, 0, 16);
	gpt_fix();
	expect_fail("dl_gpt_no_openbsd", "no OpenBSD partition in the GPT");
	make_gpt_disk();
	put32(disk[1] + 80, 1u << 20);
	gpt_fix(); /* (CRC over a huge array cannot be fixed: header only) */
	expect_fail("dl_gpt_too_many_entries", "bad GPT entry array");
	make_gpt_disk();
	put32(disk[1] + 84, 100);
	gpt_fix();
	expect_fail("dl_gpt_entry_size", "bad GPT entry array");
	make_gpt_disk();
	put32(disk[1] + 12, 600);
	gpt_fix();
	expect_fail("dl_gpt_header_size", "bad GPT header size");
	make_gpt_disk();
	put32(disk[1] + 8, 0x20000);
	expect_fail("dl_gpt_revision", "bad GPT signature or revision");
	make_gpt_disk();
	put64(disk[1] + 72, NSEC - 2); /* entries run past the disk end */
	gpt_fix();
	bad_reads = 0;
	expect_fail("dl_gpt_entries_past_end", "cannot read the GPT entries");
	tap_check(bad_reads == 0, "dl_gpt_entries_past_end_no_read",
		  "%u reads past the end", bad_reads);
	make_gpt_disk();
	put64(disk[2] + 128 + 40, 2000); /* end before start */
	gpt_fix();
	expect_fail("dl_gpt_bad_range", "bad OpenBSD GPT partition range");
	make_gpt_disk();
	put64(disk[2] + 128 + 32, 1ull << 40);
	put64(disk[2] + 128 + 40, (1ull << 40) + 10);
	gpt_fix();
	expect_fail("dl_gpt_start_huge", "cannot read the disklabel");
	/* An MBR with 0xee plus another entry is hybrid: OpenBSD reads the
	 * MBR, which here has no 0xa6 entry. */
	make_gpt_disk();
	mbr_entry(disk[0], 1, 0x0c, 64, 1984);
	expect_fail("dl_gpt_hybrid_is_mbr", "no OpenBSD partition in the MBR");
}

/* Random damage to the interesting sectors: any outcome but a crash, a
 * read outside the disk or an unbounded number of reads. */
static void test_mutations(void)
{
	static const unsigned secs[] = { 0, 1, 2, 3, 1000, 2049 };
	unsigned bad = 0, found = 0, worst = 0;

	tap_seed();
	for (int round = 0; round < 4000; round++) {
		struct lk_dl_label l;
		const char *why = "";

		if (round & 1)
			make_gpt_disk();
		else
			make_mbr_disk(4);
		for (int k = 0; k < 1 + (int)(tap_rand() % 6); k++) {
			unsigned s = secs[tap_rand() % 6];
			disk[s][tap_rand() % 512] = (uint8_t)tap_rand();
		}
		if (round % 3 == 0)
			gpt_fix();
		reads = bad_reads = 0;
		if (lk_dl_find(&dsk, &l, &why) == 0)
			found++;
		else if (!why || !*why)
			bad++;
		bad += bad_reads;
		worst = reads > worst ? reads : worst;
	}
	tap_check(bad == 0 && worst <= LK_PART_MAX_EBR + 40 && found > 0,
		  "dl_mutations", "%u bad, %u found, worst %u reads", bad,
		  found, worst);
}

static void test_misc(void)
{
	static const uint8_t buf[] = "123456789";
	char hex[17];
	uint8_t rec[64];
	struct lk_obsd o;

	tap_check(lk_part_crc32(0, buf, 9) == 0xcbf43926u &&
			  lk_part_crc32(0, disk, 3000) ==
				  (uint32_t)crc32(0, (void *)disk, 3000),
		  "dl_crc32", "%08x", lk_part_crc32(0, buf, 9));
	lk_dl_duid_hex(duid, hex);
	tap_check(!strcmp(hex, "123456789abcdef0"), "dl_duid_hex", "%s", hex);
	lk_obsd_begin(&o, rec, sizeof(rec));
	lk_obsd_bootduid(&o, duid);
	tap_check(lk_obsd_end(&o) == LK_OK && o.len == 24 && rec[0] == 9 &&
			  rec[4] == 20 && !memcmp(rec + 12, duid, 8),
		  "dl_bootduid_record", "len %u type %u size %u", o.len, rec[0],
		  rec[4]);
	tap_check(lk_obsd_bootdev_disk(lk_obsd_dev_type(4), 0) == 0xa0000004u &&
			  lk_obsd_bootdev_disk(lk_obsd_dev_type(5), 1) ==
				  0xa0010000u &&
			  lk_obsd_bootdev_disk(lk_obsd_dev_type(0), 0) ==
				  0xa0000000u,
		  "dl_bootdev_from_dtype", "sd0a %08x",
		  lk_obsd_bootdev_disk(lk_obsd_dev_type(4), 0));
}

int main(void)
{
	test_mbr();
	test_label();
	test_gpt();
	test_mutations();
	test_misc();
	return tap_failed;
}
