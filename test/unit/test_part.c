/*
 * The partition walker (linkkit/fs/part.c) and the ESP search on top of
 * it (linkkit/fs/fat.c lk_fat_find_esp) on in-memory disks: what each
 * walk visits (unused entries skipped, EBR-relative starts, the primary-
 * only flag, a visitor that stops early), its faults, and which partition
 * the ESP search picks from GPT, hybrid and MBR-only disks. The disklabel
 * side of the walker is test_disklabel's.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "linkkit.h"
#include "fs/fat.h"
#include "fs/part.h"
#include "tap.h"

#define NSEC 1024u
static uint8_t disk[NSEC][512];
static int nerrors;
static char last_line[200];

static int mem_read(void *ctx, lk_u64 lba, lk_u32 count, void *buf)
{
	(void)ctx;
	if (lba + count > NSEC)
		return -1;
	memcpy(buf, disk[lba], (size_t)count * 512);
	return 0;
}

static const struct lk_blockdev dev = { NULL, mem_read, NSEC };

static void h_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (level == LK_LOG_ERROR)
		nerrors++;
	snprintf(last_line, sizeof(last_line), "%s", line);
}

static const struct lk_host host = { 0, 0, 0, h_log, 0, LK_LOG_DEBUG };

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void mbr_entry(uint8_t *s, int i, uint8_t type, uint32_t start,
		      uint32_t size)
{
	uint8_t *e = s + 0x1be + 16 * i;

	e[4] = type;
	put32(e + 8, start);
	put32(e + 12, size);
	s[510] = 0x55;
	s[511] = 0xaa;
}

static const uint8_t esp_guid[16] = { 0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8,
				      0xd2, 0x11, 0xba, 0x4b, 0x00, 0xa0,
				      0xc9, 0x3e, 0xc9, 0x3b };
static const uint8_t data_guid[16] = { 0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84,
				       0x72, 0x47, 0x8e, 0x79, 0x3d, 0x69,
				       0xd8, 0x47, 0x7d, 0xe4 };

static void gpt_entry(int i, const uint8_t *guid, uint64_t first, uint64_t last)
{
	uint8_t *e = disk[2] + 128 * i;

	memcpy(e, guid, 16);
	put64(e + 32, first);
	put64(e + 40, last);
}

static void gpt_fix(void)
{
	uint8_t *h = disk[1];

	put32(h + 88, (uint32_t)crc32(0, disk[2], 128 * 128));
	put32(h + 16, 0);
	put32(h + 16, (uint32_t)crc32(0, h, 92));
}

/* GPT with no entries yet (call gpt_fix after adding some). */
static void make_gpt(void)
{
	uint8_t *h = disk[1];

	memset(disk, 0, sizeof(disk));
	mbr_entry(disk[0], 0, 0xee, 1, NSEC - 1);
	memcpy(h, "EFI PART", 8);
	put32(h + 8, 0x10000);
	put32(h + 12, 92);
	put64(h + 72, 2);
	put32(h + 80, 128);
	put32(h + 84, 128);
	gpt_fix();
}

struct seen {
	int n, stop_at;
	struct lk_part p[16];
};

static int record(void *arg, const struct lk_part *p)
{
	struct seen *s = arg;

	if (s->n < 16)
		s->p[s->n] = *p;
	return ++s->n == s->stop_at;
}

static void test_gpt_walk(void)
{
	struct seen s = { 0, 0, { { 0 } } };
	struct lk_part_fault f;
	int r;

	make_gpt();
	gpt_entry(0, esp_guid, 34, 99);
	gpt_entry(5, data_guid, 100, 199); /* entries 1..4 unused */
	gpt_fix();
	r = lk_part_walk(&dev, record, &s, &f);
	tap_check(r == 1 && s.n == 2 && s.p[0].index == 0 && s.p[0].gpt &&
			  s.p[0].lba == 34 && s.p[0].count == 66 &&
			  s.p[1].index == 5 && s.p[1].last == 199 &&
			  !memcmp(s.p[1].type_guid, data_guid, 16),
		  "part_gpt_visits_used_entries", "r %d n %d", r, s.n);
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	disk[4][7] ^= 1; /* an unused entry after the stop: still CRC'd */
	r = lk_part_walk(&dev, record, &s, &f);
	tap_check(r == -1 && s.n == 1 && f.code == LK_PART_GPT_ECRC &&
			  !strcmp(f.why, "bad GPT entry array CRC"),
		  "part_gpt_stop_still_checks_crc", "r %d n %d why %s", r, s.n,
		  f.why);
	make_gpt();
	put32(disk[1] + 84, 96);
	gpt_fix();
	r = lk_part_gpt(&dev, 0, record, &s, &f);
	tap_check(r == -1 && f.code == LK_PART_GPT_ARRAY && f.a == 128 &&
			  f.b == 96,
		  "part_gpt_entry_size_fault", "r %d code %d", r, f.code);
	memset(disk[1], 0, 512);
	r = lk_part_gpt(&dev, 0, record, &s, &f);
	tap_check(r == 0 && f.code == LK_PART_GPT_SIG, "part_gpt_absent",
		  "r %d code %d", r, f.code);
}

static void test_mbr_walk(void)
{
	struct seen s = { 0, 0, { { 0 } } };
	struct lk_part_fault f;
	int r;

	memset(disk, 0, sizeof(disk));
	mbr_entry(disk[0], 0, 0x0c, 10, 90);
	mbr_entry(disk[0], 1, 0x0f, 200, 500);
	mbr_entry(disk[0], 2, 0x83, 0, 0); /* size 0: unused */
	/* EBR 200: a logical at 200 + 5, next EBR at 200 + 100. */
	mbr_entry(disk[200], 0, 0x83, 5, 50);
	mbr_entry(disk[200], 1, 0x05, 100, 100);
	mbr_entry(disk[300], 0, 0xa6, 7, 20);
	r = lk_part_walk(&dev, record, &s, &f);
	/* The link entry in EBR 200 is relative to the first extended
	 * partition (200), the logical partitions to their own EBR. */
	tap_check(r == 0 && s.n == 5 && s.p[2].lba == 205 &&
			  s.p[2].rec == 200 && s.p[3].mbr_type == 0x05 &&
			  s.p[3].lba == 300 && s.p[4].lba == 307 &&
			  s.p[4].mbr_type == 0xa6 && s.p[4].count == 20,
		  "part_mbr_chain", "r %d n %d lba %llu %llu %llu", r, s.n,
		  (unsigned long long)s.p[2].lba,
		  (unsigned long long)s.p[3].lba,
		  (unsigned long long)s.p[4].lba);
	memset(&s, 0, sizeof(s));
	r = lk_part_mbr(&dev, LK_PART_PRIMARY, record, &s, &f);
	tap_check(r == 0 && s.n == 2, "part_mbr_primary_only", "r %d n %d", r,
		  s.n);
	disk[300][510] = 0;
	memset(&s, 0, sizeof(s));
	r = lk_part_mbr(&dev, 0, record, &s, &f);
	tap_check(r == -1 && f.code == LK_PART_READ_EBR && f.lba == 300 &&
			  s.n == 4,
		  "part_mbr_bad_ebr", "r %d code %d lba %llu", r, f.code,
		  (unsigned long long)f.lba);
}

/* Expects lk_fat_find_esp to give [lba, lba + count). */
static void expect_esp(const char *name, lk_u64 lba, lk_u64 count)
{
	lk_u64 l = 0, c = 0;
	int r;

	nerrors = 0;
	r = lk_fat_find_esp(&host, &dev, &l, &c);
	tap_check(r == 0 && l == lba && c == count && nerrors == 0, name,
		  "r %d lba %llu count %llu (%s)", r, (unsigned long long)l,
		  (unsigned long long)c, last_line);
}

static void expect_no_esp(const char *name, const char *line)
{
	lk_u64 l, c;
	int r;

	nerrors = 0;
	last_line[0] = 0;
	r = lk_fat_find_esp(&host, &dev, &l, &c);
	tap_check(r == -1 && nerrors == 1 && strstr(last_line, line), name,
		  "r %d, %d lines, last '%s'", r, nerrors, last_line);
}

static void test_esp(void)
{
	make_gpt();
	gpt_entry(0, data_guid, 34, 99);
	gpt_entry(1, esp_guid, 100, 299);
	gpt_fix();
	expect_esp("esp_gpt", 100, 200);
	/* A hybrid MBR does not matter while the GPT has an ESP. */
	mbr_entry(disk[0], 1, 0x0c, 400, 100);
	expect_esp("esp_gpt_before_mbr", 100, 200);
	/* No ESP in the GPT: the MBR's FAT entry. */
	memset(disk[2] + 128, 0, 128);
	gpt_fix();
	expect_esp("esp_hybrid_mbr", 400, 100);
	gpt_entry(1, esp_guid, 100, NSEC);
	gpt_fix();
	expect_no_esp("esp_gpt_range", "GPT: ESP entry 1 has bad range");
	disk[2][0] ^= 1;
	expect_no_esp("esp_gpt_crc", "GPT: partition entries CRC");
	/* MBR only: 0xef wins over an earlier 0x0c; then 0x01 over 0x0e. */
	memset(disk, 0, sizeof(disk));
	mbr_entry(disk[0], 0, 0x0c, 10, 90);
	mbr_entry(disk[0], 2, 0xef, 200, 100);
	expect_esp("esp_mbr_ef_first", 200, 100);
	mbr_entry(disk[0], 2, 0x0e, 200, 100);
	mbr_entry(disk[0], 3, 0x01, 300, 10);
	expect_esp("esp_mbr_type_order", 300, 10);
	/* Entries past the disk or at sector 0 are passed over. */
	mbr_entry(disk[0], 3, 0x01, 300, NSEC);
	mbr_entry(disk[0], 0, 0x0c, 0, 90);
	expect_esp("esp_mbr_skips_bad", 200, 100);
	/* Logical partitions are not searched. */
	memset(disk, 0, sizeof(disk));
	mbr_entry(disk[0], 0, 0x05, 100, 500);
	mbr_entry(disk[100], 0, 0x0c, 5, 50);
	expect_no_esp("esp_mbr_no_logical", "no EFI system partition");
	disk[0][510] = 0;
	expect_no_esp("esp_no_table", "no EFI system partition");
}

int main(void)
{
	test_gpt_walk();
	test_mbr_walk();
	test_esp();
	return tap_failed;
}
