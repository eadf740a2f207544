/*
 * OpenBSD boot-argument builder (linkkit/obsd_boot.c): record layout as
 * amd64 getbootinfo() walks it, memory-map conversion, overflow
 * reporting, the stack words, and the serial-console test of the cmdline.
 */
#include <string.h>

#include "linkkit.h"
#include "obsd_boot.h"
#include "tap.h"

static int32_t rd32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static const struct lk_mb2_mmap_entry map[] = {
	{0, 0x9fc00, 1, 0},
	{0x9fc00, 0x400, 2, 0},
	{0x100000, 0x7f00000, 1, 0},
	{0x8000000, 0x1000, 5, 0}, /* bad RAM: no OpenBSD type */
	{0xfee00000, 0x1000, 4, 0},
};
#define NMAP (sizeof(map) / sizeof(map[0]))

static void test_list(void)
{
	uint8_t buf[1024];
	struct lk_obsd o;
	struct lk_obsd_efiinfo ei;
	struct lk_obsd_memmap m;
	struct lk_obsd_consdev c;
	uint32_t off, size;
	int rc;

	memset(buf, 0xee, sizeof(buf));
	memset(&ei, 0, sizeof(ei));
	ei.system_table = 0x7f000000;
	lk_obsd_begin(&o, buf, sizeof(buf));
	lk_obsd_memmap(&o, map, NMAP);
	lk_obsd_consdev_com(&o, 0, 115200, 0x3f8);
	lk_obsd_efiinfo(&o, &ei);
	rc = lk_obsd_end(&o);
	tap_check(rc == LK_OK && o.len == o.need, "obsd_list_fits",
		  "rc %d len %u need %u", rc, o.len, o.need);
	/* memmap record: 12-byte header, NMAP + 1 entries of 20 bytes */
	size = (uint32_t)rd32(buf + 4);
	tap_check(rd32(buf) == 0 && size == 12 + 20 * (NMAP + 1) &&
			  rd32(buf + 8) == 0,
		  "obsd_memmap_header", "type %d size %u", rd32(buf), size);
	memcpy(&m, buf + 12 + 20 * 3, sizeof(m));
	tap_check(m.addr == 0x8000000 && m.type == 2, "obsd_memmap_badram_reserved",
		  "type %u", m.type);
	memcpy(&m, buf + 12 + 20 * NMAP, sizeof(m));
	tap_check(m.type == 0 && m.addr == 0 && m.size == 0, "obsd_memmap_end",
		  "type %u", m.type);
	off = size;
	memcpy(&c, buf + off + 12, sizeof(c));
	tap_check(rd32(buf + off) == LK_OBSD_BOOTARG_CONSDEV &&
			  rd32(buf + off + 4) == 12 + 32 && c.consdev == 0x800 &&
			  c.conspeed == 115200 && c.consaddr == 0x3f8,
		  "obsd_consdev", "dev 0x%x speed %d", c.consdev, c.conspeed);
	off += 12 + 32;
	/* 100 bytes, system_table at 0x54: what the real 7.3 GENERIC
	 * kernel's efi_machdep.o reads (docs/CONVENTIONS.md). */
	tap_check(rd32(buf + off) == LK_OBSD_BOOTARG_EFIINFO &&
			  rd32(buf + off + 4) == 12 + 100 &&
			  rd32(buf + off + 12 + 0x54) == 0x7f000000,
		  "obsd_efiinfo", "type %d size %d", rd32(buf + off),
		  rd32(buf + off + 4));
	off += 12 + 100;
	tap_check(rd32(buf + off) == -1 && off + 4 == o.len, "obsd_end_marker",
		  "at %u of %u", off, o.len);
}

static void test_overflow(void)
{
	uint8_t buf[64];
	struct lk_obsd o;
	static struct lk_mb2_mmap_entry big[300];
	int rc;

	lk_obsd_begin(&o, buf, sizeof(buf));
	lk_obsd_memmap(&o, map, NMAP);
	lk_obsd_consdev_com(&o, 0, 115200, 0x3f8);
	rc = lk_obsd_end(&o);
	tap_check(rc != LK_OK && o.need == 12 + 20 * (NMAP + 1) + 44 + 4 &&
			  o.len <= sizeof(buf),
		  "obsd_overflow_reports_need", "rc %d need %u", rc, o.need);
	/* A list longer than the page the kernel copies is refused. */
	memset(big, 0, sizeof(big));
	lk_obsd_begin(&o, malloc(16384), 16384);
	lk_obsd_memmap(&o, big, 300);
	rc = lk_obsd_end(&o);
	tap_check(rc != LK_OK, "obsd_list_over_one_page", "accepted %u", o.len);
	free(o.buf);
}

static void test_args(void)
{
	uint8_t buf[512];
	struct lk_obsd o;
	struct lk_obsd_args a;
	uint32_t w[LK_OBSD_STACK_WORDS];

	lk_obsd_begin(&o, buf, sizeof(buf));
	lk_obsd_memmap(&o, map, NMAP);
	lk_obsd_end(&o);
	lk_obsd_args_fill(&a, &o, 0x12345000, 0x1012345, map, NMAP);
	tap_check(a.howto == 0 && (a.bootdev >> 28) == 0xa &&
			  a.apiver == 0xe && a.end == 0x1012348,
		  "obsd_args_fixed", "bootdev 0x%x apiver 0x%x end 0x%x",
		  a.bootdev, a.apiver, a.end);
	tap_check(a.cnvmem == 0x9fc00 / 1024 && a.extmem == 0x7f00000 / 1024,
		  "obsd_args_memsizes", "cnv %u ext %u", a.cnvmem, a.extmem);
	tap_check(a.ac == o.len && a.av == 0x12345000, "obsd_args_list",
		  "ac %u av 0x%x", a.ac, a.av);
	lk_obsd_stack(w, &a);
	tap_check(w[0] == 0 && w[1] == a.howto && w[3] == a.apiver &&
			  w[4] == a.end && w[7] == a.ac && w[8] == a.av,
		  "obsd_stack_words", "w4 0x%x", w[4]);
}

static void test_bootdev(void)
{
	tap_check(lk_obsd_bootdev_bios(0x80) == 0xa0000000u &&
			  lk_obsd_bootdev_bios(0x81) == 0xa0010000u &&
			  lk_obsd_bootdev_bios(0x00) == 0xa0000002u &&
			  lk_obsd_bootdev_bios(0x01) == 0xa0010002u,
		  "obsd_bootdev_bios", "0x81 -> 0x%x, 0x00 -> 0x%x",
		  lk_obsd_bootdev_bios(0x81), lk_obsd_bootdev_bios(0x00));
}

static void test_serial(void)
{
	tap_check(lk_obsd_wants_serial("console=com0") &&
			  lk_obsd_wants_serial("-s console=com1") &&
			  !lk_obsd_wants_serial("") &&
			  !lk_obsd_wants_serial("xconsole=com0") &&
			  !lk_obsd_wants_serial("console=vga"),
		  "obsd_wants_serial", "wrong answer");
}

int main(void)
{
	test_list();
	test_overflow();
	test_args();
	test_bootdev();
	test_serial();
	return tap_failed;
}
