/*
 * The Linux protocol (linkkit/proto/linux.c) against the real corpus
 * build (../shared/corpora, Linux 6.1 defconfig): its bzImage's setup
 * header and its vmlinux as the stage reads them, hand-broken copies and
 * the exact line each gives, the load, and the zero page the builder
 * makes (checked at zero-page.rst's offsets, not through our own code).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "config.h"
#include "linkkit.h"
#include "proto/proto.h"
#include "tap.h"

#ifndef LINUX_CORPUS
#define LINUX_CORPUS "."
#endif

static char last[512];

static void tap_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	snprintf(last, sizeof(last), "%s", line);
}

static struct lk_host host = { NULL, NULL, NULL, tap_log, NULL, LK_LOG_DEBUG };

static uint8_t *slurp(const char *rel, size_t *len)
{
	char path[512];
	FILE *f;
	long n;
	uint8_t *buf = NULL;

	snprintf(path, sizeof(path), "%s/%s", LINUX_CORPUS, rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* startup_64 - _text from System.map: the entry the image must give. */
static uint64_t sysmap_entry_off(void)
{
	char path[512], line[256], name[128], t;
	unsigned long long a, text = 0, s64 = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/System.map", LINUX_CORPUS);
	f = fopen(path, "r");
	if (!f)
		return ~0ull;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %127s", &a, &t, name) == 3) {
			if (!strcmp(name, "_text"))
				text = a;
			if (!strcmp(name, "startup_64"))
				s64 = a;
		}
	fclose(f);
	return text && s64 ? s64 - text : ~0ull;
}

/* One broken copy of a bzImage: expect a refusal with exactly line. */
static void bz_broken(const uint8_t *bz, size_t len, size_t cut, size_t off,
		      const void *bytes, size_t n, const char *name,
		      const char *line)
{
	uint8_t *c = malloc(len);
	struct lk_linux_image img;
	int rc;

	memcpy(c, bz, len);
	if (n)
		memcpy(c + off, bytes, n);
	last[0] = 0;
	rc = lk_linux_bzimage_check(&host, c, cut ? cut : len, "BZIMAGE", &img);
	tap_check(rc == -1 && !strcmp(last, line), name,
		  "rc %d, line '%s', "
		  "want '%s'",
		  rc, last, line);
	free(c);
}

static void test_bzimage(const uint8_t *bz, size_t len)
{
	struct lk_linux_image img;
	uint16_t v0209 = 0x0209, sys_big[2] = { 0xffff, 0x00ff };
	uint32_t align = 0x3000, zero = 0;
	uint8_t notjmp = 0x90;
	int rc;

	rc = lk_linux_bzimage_check(&host, bz, len, "BZIMAGE", &img);
	tap_check(rc == 0 && img.kind == LK_LINUX_BZIMAGE, "bz_check",
		  "rc %d kind %u: %s", rc, img.kind, last);
	/* The values boot.rst's fields hold in this build (hexdump). */
	tap_check(img.relocatable == 1 && img.align == 0x200000 &&
			  img.pref == 0x1000000 &&
			  img.mem == rd32(bz + 0x260) && img.mem == 0x2688000,
		  "bz_layout", "reloc %u align 0x%llx pref 0x%llx mem 0x%llx",
		  img.relocatable, (unsigned long long)img.align,
		  (unsigned long long)img.pref, (unsigned long long)img.mem);
	tap_check(img.entry64 == 0x200 && img.entry32 == 0 &&
			  img.initrd_max == 0x7fffffff &&
			  img.cmdline_max == 2047,
		  "bz_entries", "e64 0x%llx e32 0x%llx initrd_max 0x%x cl %u",
		  (unsigned long long)img.entry64,
		  (unsigned long long)img.entry32, img.initrd_max,
		  img.cmdline_max);
	tap_check(img.hdr_len == 0x202u + bz[0x201] - 0x1f1u &&
			  !memcmp(img.hdr, bz + 0x1f1, img.hdr_len),
		  "bz_header_copy", "hdr_len %u", img.hdr_len);
	tap_check(lk_linux_sniff(bz, len) == LK_LINUX_BZIMAGE, "bz_sniff",
		  "kind %u", lk_linux_sniff(bz, len));

	bz_broken(bz, len, 0, 0x1fe, &zero, 2, "bz_bad_boot_flag",
		  "BZIMAGE: not a bzImage: no boot_flag 0xaa55 and \"HdrS\" "
		  "(0xb15400)");
	bz_broken(bz, len, 0, 0x206, &v0209, 2, "bz_old_version",
		  "BZIMAGE: setup header: boot protocol 2.09 is older than "
		  "2.12");
	bz_broken(bz, len, 0, 0x230, &align, 4, "bz_bad_alignment",
		  "BZIMAGE: setup header: kernel_alignment is not a power of "
		  "two in 4 KiB..1 GiB (0x3000)");
	bz_broken(bz, len, 0, 0x260, &zero, 4, "bz_bad_init_size",
		  "BZIMAGE: setup header: init_size smaller than the kernel or "
		  "over 1 GiB (0x0)");
	bz_broken(bz, len, 0, 0x1f4, sys_big, 4, "bz_bad_syssize",
		  "BZIMAGE: setup header: syssize does not match the file "
		  "(0xffffff)");
	bz_broken(bz, len, 0, 0x200, &notjmp, 1, "bz_bad_jump",
		  "BZIMAGE: setup header: jump at 0x200 is not a short jmp "
		  "(0x90)");
	bz_broken(bz, len, 4096, 0, NULL, 0, "bz_truncated",
		  "BZIMAGE: setup header: setup_sects reach past the file "
		  "(0x27)");
	bz_broken(bz, len, 0, 0x211, &zero, 1, "bz_zimage",
		  "BZIMAGE: setup header: loadflags: not LOADED_HIGH (a "
		  "zImage) (0x0)");
}

static void vm_broken(const uint8_t *vm, size_t len, size_t off,
		      const void *bytes, size_t n, const char *name,
		      const char *line)
{
	uint8_t *c = malloc(len);
	struct lk_linux_image img;
	int rc;

	memcpy(c, vm, len);
	memcpy(c + off, bytes, n);
	last[0] = 0;
	rc = lk_linux_vmlinux_check(&host, c, len, "VMLINUX", &img);
	tap_check(rc == -1 && !strcmp(last, line), name,
		  "rc %d, line '%s', "
		  "want '%s'",
		  rc, last, line);
	free(c);
}

static void test_vmlinux(const uint8_t *vm, size_t len)
{
	struct lk_linux_image img;
	uint64_t bad_entry = 0xffffffff81000000ull, off = 0x20000000000ull;
	uint64_t want = sysmap_entry_off();
	int rc;

	rc = lk_linux_vmlinux_check(&host, vm, len, "VMLINUX", &img);
	tap_check(rc == 0 && img.kind == LK_LINUX_VMLINUX, "vm_check",
		  "rc %d: %s", rc, last);
	/* readelf: PT_LOADs from p_paddr 0x1000000 to 0x2fe0000+0x450000. */
	tap_check(img.pref == 0x1000000 && img.mem == 0x2430000 &&
			  img.align == 0x200000,
		  "vm_layout", "pref 0x%llx mem 0x%llx",
		  (unsigned long long)img.pref, (unsigned long long)img.mem);
	tap_check(img.entry64 == want, "vm_entry_is_startup_64",
		  "entry off 0x%llx, System.map says 0x%llx",
		  (unsigned long long)img.entry64, (unsigned long long)want);
	tap_check(lk_linux_sniff(vm, len) == LK_LINUX_VMLINUX, "vm_sniff",
		  "kind %u", lk_linux_sniff(vm, len));
	vm_broken(vm, len, 24, &bad_entry, 8, "vm_bad_entry",
		  "VMLINUX: e_entry (physical startup_64) outside every "
		  "PT_LOAD (0xffffffff81000000)");
	vm_broken(vm, len, 32, &off, 8, "vm_bad_phoff",
		  "VMLINUX: program headers outside the file (e_phoff) "
		  "(0x20000000000)");
	vm_broken(vm, len, 64 + 8, &off, 8, "vm_bad_segment",
		  "VMLINUX: PT_LOAD outside the file or too large at offset "
		  "(0x20000000000)");
}

static void test_load(const uint8_t *bz, size_t bzlen, const uint8_t *vm,
		      size_t vmlen)
{
	struct lk_linux_image img;
	uint8_t *dst;
	size_t off = ((size_t)bz[0x1f1] + 1) * 512;

	lk_linux_bzimage_check(&host, bz, bzlen, "BZIMAGE", &img);
	dst = malloc(img.mem);
	memset(dst, 0xee, img.mem);
	lk_linux_load(bz, bzlen, &img, dst);
	tap_check(!memcmp(dst, bz + off, bzlen - off) &&
			  dst[bzlen - off] == 0 && dst[img.mem - 1] == 0,
		  "bz_load", "protected-mode kernel not at offset 0");
	free(dst);
	lk_linux_vmlinux_check(&host, vm, vmlen, "VMLINUX", &img);
	dst = malloc(img.mem);
	memset(dst, 0xee, img.mem);
	lk_linux_load(vm, vmlen, &img, dst);
	/* .text (file 0x200000) at 0, .data (file 0x1a00000) at
	 * 0x2800000 - 0x1000000, bss zeroed at the end. */
	tap_check(!memcmp(dst, vm + 0x200000, 0x1000) &&
			  !memcmp(dst + 0x1800000, vm + 0x1a00000, 0x1000) &&
			  dst[img.mem - 1] == 0,
		  "vm_load", "segments not at p_paddr - 0x1000000");
	free(dst);
}

/* A zero page from the builder, read at zero-page.rst's offsets. */
struct zp_case {
	struct lk_kernel k;
	struct lk_machine m;
	struct lk_mb2_mmap_entry map[130];
	struct lk_entry e;
	uint8_t *buf;
	uint8_t *zp;
};

static int zp_build(struct zp_case *c, int uefi, int sb, const char *cl)
{
	struct lk_handover ho;
	struct lk_obsd_opts opts;
	uint32_t i;

	memset(&opts, 0, sizeof(opts));
	memset(&c->m, 0, sizeof(c->m));
	for (i = 0; i < 130; i++) {
		c->map[i].addr = (uint64_t)i << 24;
		c->map[i].len = 1 << 20;
		c->map[i].type = 1 + i % 4;
	}
	c->m.map = c->map;
	c->m.nmap = 130;
	c->m.rsdp_new = (void *)(uintptr_t)0x7fe14014;
	c->m.rsdp_new_len = 36;
	if (uefi) {
		c->m.efi_systab = 0x7f9ee018;
		c->m.efi_map = (void *)(uintptr_t)0x123456789000ull;
		c->m.efi_map_size = 48 * 100;
		c->m.efi_desc_size = 48;
		c->m.efi_desc_ver = 1;
	}
	c->k.proto = &lk_proto_linux;
	c->k.load_lo = 0x4000000;
	c->k.initrd_addr = 0x7000000;
	c->k.initrd_size = 0x123456;
	memset(&ho, 0, sizeof(ho));
	ho.k = &c->k;
	ho.m = &c->m;
	ho.cmdline = cl;
	ho.obsd = &opts;
	c->m.secure_boot = sb;
	memset(&c->e, 0, sizeof(c->e));
	memset(c->buf, 0xee, 0x4000);
	last[0] = 0;
	return lk_proto_linux.build(&host, &ho, c->buf + 8, 0x3ff8, &c->e);
}

static void test_zero_page(const uint8_t *bz, size_t bzlen, const uint8_t *vm,
			   size_t vmlen)
{
	static struct zp_case c;
	uint8_t *zp, *sd;
	char longcl[3000];
	int rc;

	c.buf = mmap(NULL, 0x4000, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (c.buf == MAP_FAILED) {
		printf("skip zp_*: no memory below 4 GiB\n");
		return;
	}
	lk_linux_bzimage_check(&host, bz, bzlen, "BZIMAGE", &c.k.lx);
	rc = zp_build(&c, 1, 1, "console=ttyS0 quiet");
	zp = (uint8_t *)(uintptr_t)c.e.info;
	tap_check(rc == 0 && c.e.mode == LK_ENTRY_LONG64 &&
			  c.e.entry == 0x4000200 &&
			  ((uintptr_t)zp & 4095) == 0 && zp > c.buf,
		  "zp_uefi_entry", "rc %d mode %u entry 0x%x info 0x%x: %s", rc,
		  c.e.mode, c.e.entry, c.e.info, last);
	if (rc)
		return;
	tap_check(!memcmp(zp + 0x202, "HdrS", 4) && rd16(zp + 0x206) == 0x20f &&
			  zp[0x210] == 0xff && rd32(zp + 0x214) == 0x4000000 &&
			  rd32(zp + 0x230) == 0x200000,
		  "zp_header", "setup header not copied and updated");
	tap_check(!strcmp((char *)(uintptr_t)rd32(zp + 0x228),
			  "console=ttyS0 quiet") &&
			  rd32(zp + 0xc8) == 0,
		  "zp_cmdline", "cmd_line_ptr 0x%x", rd32(zp + 0x228));
	tap_check(rd32(zp + 0x218) == 0x7000000 &&
			  rd32(zp + 0x21c) == 0x123456 &&
			  rd32(zp + 0xc0) == 0 && rd32(zp + 0xc4) == 0,
		  "zp_initrd", "ramdisk 0x%x+0x%x", rd32(zp + 0x218),
		  rd32(zp + 0x21c));
	tap_check(zp[0x1e8] == 128 &&
			  rd64(zp + 0x2d0 + 127 * 20) == 127ull << 24 &&
			  rd32(zp + 0x2d0 + 5 * 20 + 16) == 2,
		  "zp_e820", "entries %u", zp[0x1e8]);
	sd = (uint8_t *)(uintptr_t)rd64(zp + 0x250);
	tap_check(sd && rd64(sd) == 0 && rd32(sd + 8) == 1 &&
			  rd32(sd + 12) == 40 &&
			  rd64(sd + 16) == 128ull << 24 &&
			  rd64(sd + 36) == 129ull << 24,
		  "zp_e820_ext", "setup_data %p", (void *)sd);
	tap_check(rd64(zp + 0x70) == 0x7fe14014, "zp_acpi_rsdp", "0x%llx",
		  (unsigned long long)rd64(zp + 0x70));
	tap_check(!memcmp(zp + 0x1c0, "EL64", 4) &&
			  rd32(zp + 0x1c4) == 0x7f9ee018 &&
			  rd32(zp + 0x1c8) == 48 && rd32(zp + 0x1cc) == 1 &&
			  rd32(zp + 0x1d0) == 0x56789000 &&
			  rd32(zp + 0x1d4) == 4800 && rd32(zp + 0x1d8) == 0 &&
			  rd32(zp + 0x1dc) == 0x1234 && zp[0x1ec] == 3,
		  "zp_efi_info", "efi_info/secure_boot wrong");
	zp_build(&c, 1, 0, "");
	zp = (uint8_t *)(uintptr_t)c.e.info;
	tap_check(zp[0x1ec] == 2, "zp_secure_boot_off", "secure_boot %u",
		  zp[0x1ec]);
	memset(longcl, 'a', sizeof(longcl) - 1);
	longcl[sizeof(longcl) - 1] = 0;
	zp_build(&c, 0, 0, longcl);
	zp = (uint8_t *)(uintptr_t)c.e.info;
	tap_check(c.e.mode == LK_ENTRY_LINUX32 && c.e.entry == 0x4000000 &&
			  zp[0x1c0] == 0 && zp[0x1ec] == 0 &&
			  strlen((char *)(uintptr_t)rd32(zp + 0x228)) == 2047,
		  "zp_bios_entry", "mode %u entry 0x%x", c.e.mode, c.e.entry);
	c.k.lx.entry64 = ~0ull; /* as without XLF_KERNEL_64 */
	rc = zp_build(&c, 1, 0, "");
	tap_check(rc == -1 &&
			  !strcmp(last, "bzImage: no 64-bit entry "
					"(xloadflags without XLF_KERNEL_64)"),
		  "zp_uefi_needs_64bit", "rc %d: %s", rc, last);
	lk_linux_vmlinux_check(&host, vm, vmlen, "VMLINUX", &c.k.lx);
	rc = zp_build(&c, 0, 0, "x");
	zp = (uint8_t *)(uintptr_t)c.e.info;
	tap_check(rc == 0 && c.e.mode == LK_ENTRY_LONG64 &&
			  c.e.entry == 0x4000000 + c.k.lx.entry64 &&
			  !memcmp(zp + 0x202, "HdrS", 4) &&
			  rd16(zp + 0x1fe) == 0xaa55 &&
			  rd16(zp + 0x206) >= 0x20c && zp[0x210] == 0xff &&
			  zp[0x211] == 1,
		  "zp_vmlinux", "rc %d mode %u entry 0x%x", rc, c.e.mode,
		  c.e.entry);
	munmap(c.buf, 0x4000);
}

static void test_names(void)
{
	struct lk_config cfg;
	const char *t = "protocol = linux\ninitrd = /RELINK/INITRD.IMG\n";
	int w;

	lk_config_defaults(&cfg);
	w = lk_config_parse(&host, "RELINK.CFG", t, strlen(t), &cfg);
	tap_check(w == 0 && cfg.protocol == LK_PROTO_LINUX &&
			  !strcmp(cfg.initrd, "\\RELINK\\INITRD.IMG"),
		  "config_linux_initrd", "warnings %d protocol %u initrd %s", w,
		  cfg.protocol, cfg.initrd);
	tap_check(lk_proto_by_name("linux", 5) == &lk_proto_linux &&
			  lk_proto_by_id(LK_PROTO_LINUX) == &lk_proto_linux,
		  "proto_row", "no linux row");
}

int main(void)
{
	size_t bzlen = 0, vmlen = 0;
	uint8_t *bz = slurp("arch/x86/boot/bzImage", &bzlen);
	uint8_t *vm = slurp("vmlinux", &vmlen);

	test_names();
	if (!bz || !vm) {
		printf("skip linux_corpus: %s has no bzImage/vmlinux "
		       "(../shared/corpora absent)\n",
		       LINUX_CORPUS);
		return tap_failed;
	}
	test_bzimage(bz, bzlen);
	test_vmlinux(vm, vmlen);
	test_load(bz, bzlen, vm, vmlen);
	test_zero_page(bz, bzlen, vm, vmlen);
	free(bz);
	free(vm);
	return tap_failed;
}
