/*
 * OpenBSD boot-argument builder (linkkit/obsd_boot.c): record layout as
 * amd64 getbootinfo() walks it, memory-map conversion, overflow
 * reporting, the stack words, and the serial-console test of the cmdline.
 */
#include <string.h>

#include "config.h"
#include "linkkit.h"
#include "obsd_boot.h"
#include "proto/proto.h"
#include "tap.h"

static void tap_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	printf("# log %d: %s\n", level, line);
}

static struct lk_host tap_host = { NULL, NULL, NULL, tap_log, NULL,
				   LK_LOG_DEBUG };

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
	memset(&a, 0, sizeof(a));
	lk_obsd_args_fill(&a, &o, 0x12345000, 0x1012345, map, NMAP);
	tap_check(a.apiver == 0xe && a.end == 0x1012348, "obsd_args_fixed",
		  "apiver 0x%x end 0x%x", a.apiver, a.end);
	tap_check(a.cnvmem == 0x9fc00 / 1024 && a.extmem == 0x7f00000 / 1024,
		  "obsd_args_memsizes", "cnv %u ext %u", a.cnvmem, a.extmem);
	tap_check(a.ac == o.len && a.av == 0x12345000, "obsd_args_list",
		  "ac %u av 0x%x", a.ac, a.av);
	lk_obsd_stack(w, &a);
	tap_check(w[0] == 0 && w[1] == a.howto && w[3] == a.apiver &&
			  w[4] == a.end && w[7] == a.ac && w[8] == a.av,
		  "obsd_stack_words", "w4 0x%x", w[4]);
}

/* The protocol row's builder (linkkit/proto/openbsd.c): howto, bootdev,
 * BOOTDUID and CONSDEV from the config's boot(8) options. */
struct built {
	uint32_t w[LK_OBSD_STACK_WORDS]; /* return address + 8 args */
	int duid, consdev, ucode;
	uint8_t duid_bytes[8];
	uint64_t uc[2];
	struct lk_obsd_consdev cd;
};

static int build(const char *cfg, int have_duid, int good, struct built *out)
{
	static uint8_t buf[8192] __attribute__((aligned(16)));
	struct lk_config c;
	struct lk_kernel k = { 0 };
	struct lk_machine m = { 0 };
	struct lk_handover ho = { &k, &m, "", &c.obsd, good, 0, 0 };
	struct lk_entry e;
	const uint8_t *p;

	memset(out, 0, sizeof(*out));
	lk_config_defaults(&c);
	lk_config_parse(&tap_host, "T", cfg, strlen(cfg), &c);
	ho.cmdline = c.cmdline;
	if (strstr(cfg, "# ucode")) {
		ho.ucode_addr = 0x100000;
		ho.ucode_size = 0x2c00;
	}
	k.proto = &lk_proto_openbsd;
	k.load_hi = 0x2000000;
	m.map = map;
	m.nmap = NMAP;
	m.bootdev = lk_obsd_bootdev_disk(LK_OBSD_DEV_SD, 0);
	m.have_duid = have_duid;
	memcpy(m.duid, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
	if (lk_proto_openbsd.build(&tap_host, &ho, buf, sizeof(buf), &e))
		return -1;
	/* The stack words end the buffer; esp is their (32-bit) address. */
	memcpy(out->w, buf + sizeof(buf) - sizeof(out->w), sizeof(out->w));
	if (e.esp != (uint32_t)(uintptr_t)(buf + sizeof(buf) - sizeof(out->w)))
		return -1;
	out->duid = out->consdev = 0;
	for (p = buf; (p - buf) + 12 <= (long)sizeof(buf);) {
		int32_t type, size;
		memcpy(&type, p, 4);
		if (type == -1)
			break;
		memcpy(&size, p + 4, 4);
		if (type == LK_OBSD_BOOTARG_BOOTDUID) {
			out->duid = 1;
			memcpy(out->duid_bytes, p + 12, 8);
		}
		if (type == LK_OBSD_BOOTARG_UCODE && size == 12 + 16) {
			out->ucode++;
			memcpy(out->uc, p + 12, 16);
		}
		if (type == LK_OBSD_BOOTARG_CONSDEV) {
			out->consdev = 1;
			memcpy(&out->cd, p + 12, sizeof(out->cd));
		}
		p += size;
	}
	return 0;
}

static void test_builder(void)
{
	struct built b = { 0 };

	tap_check(build("", 1, 1, &b) == 0 && b.w[1] == 0x10000 && b.duid &&
			  !memcmp(b.duid_bytes, "\x11\x22\x33\x44\x55\x66\x77\x88", 8) &&
			  b.w[2] == 0xa0000004 && !b.consdev,
		  "obsd_build_default", "howto 0x%x bootdev 0x%x duid %d", b.w[1],
		  b.w[2], b.duid);
	tap_check(build("", 1, 0, &b) == 0 && b.w[1] == 0, "obsd_build_tsc_only",
		  "howto 0x%x (no trusted seed: no RB_GOODRANDOM)", b.w[1]);
	tap_check(build("howto = -acsd\n", 1, 1, &b) == 0 &&
			  b.w[1] == (0x10000 | 0x1 | 0x2 | 0x40 | 0x400),
		  "obsd_build_howto", "howto 0x%x", b.w[1]);
	tap_check(build("", 0, 1, &b) == 0 && b.w[1] == (0x10000 | 0x1) &&
			  !b.duid,
		  "obsd_build_no_label_asks", "howto 0x%x duid %d", b.w[1], b.duid);
	tap_check(build("root = 0123456789abcdef.d\n", 0, 1, &b) == 0 &&
			  b.duid && b.duid_bytes[0] == 0x01 && b.duid_bytes[7] == 0xef &&
			  ((b.w[2] >> 8) & 0xff) == 3 && b.w[1] == 0x10000,
		  "obsd_build_root_duid", "howto 0x%x bootdev 0x%x", b.w[1], b.w[2]);
	tap_check(build("root = sd1b\n", 1, 1, &b) == 0 && !b.duid &&
			  b.w[2] == (0xa0000004u | 1u << 16 | 1u << 8),
		  "obsd_build_root_dev", "bootdev 0x%x duid %d", b.w[2], b.duid);
	tap_check(build("root = sd1\nroot = 00000000000000000.a\n", 0, 1, &b) == 0 &&
			  (b.w[1] & 1),
		  "obsd_build_root_bad_asks", "howto 0x%x", b.w[1]);
	tap_check(build("cmdline = console=com1\n", 1, 1, &b) == 0 && b.consdev &&
			  b.cd.consdev == 0x801 && b.cd.consaddr == 0x2f8 &&
			  b.cd.conspeed == 115200,
		  "obsd_build_console_cmdline", "consdev 0x%x addr 0x%llx",
		  b.cd.consdev, (unsigned long long)b.cd.consaddr);
	tap_check(build("tty = com2\nstty = com2 9600\n", 1, 1, &b) == 0 &&
			  b.consdev && b.cd.consdev == 0x802 &&
			  b.cd.consaddr == 0x3e8 && b.cd.conspeed == 9600,
		  "obsd_build_console_tty", "consdev 0x%x speed %d", b.cd.consdev,
		  b.cd.conspeed);
	tap_check(build("stty = com0 9601\ntty = com4\nhowto = -x\n", 1, 1, &b) == 0 &&
			  !b.consdev && b.w[1] == 0x10000,
		  "obsd_build_bad_values_ignored", "consdev %d howto 0x%x",
		  b.consdev, b.w[1]);
}

/* BOOTARG_UCODE: present exactly when the stage kept microcode, as
 * bios_ucode_t {uc_addr, uc_size}. */
static void test_ucode(void)
{
	struct built b = { 0 };

	tap_check(build("", 1, 1, &b) == 0 && b.ucode == 0, "obsd_ucode_none",
		  "%d records", b.ucode);
	tap_check(build("# ucode\n", 1, 1, &b) == 0 && b.ucode == 1 &&
			  b.uc[0] == 0x100000 && b.uc[1] == 0x2c00,
		  "obsd_ucode", "%d records, 0x%llx + 0x%llx", b.ucode,
		  (unsigned long long)b.uc[0], (unsigned long long)b.uc[1]);
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
	test_builder();
	test_ucode();
	test_serial();
	return tap_failed;
}
