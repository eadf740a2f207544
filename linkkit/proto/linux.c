/*
 * Linux x86-64 (Documentation/x86/boot.rst, zero-page.rst): the checks of
 * a bzImage's setup header and of an ELF vmlinux, and the `linux` row,
 * whose builder fills a struct boot_params (the zero page): e820 (past
 * 128 entries as SETUP_E820_EXT setup_data), command line, initrd, ACPI
 * RSDP, the GOP framebuffer as screen_info, secure_boot, and under UEFI
 * efi_info with the final EFI memory map and the system table (the
 * stage has exited boot services; the kernel calls SetVirtualAddressMap
 * itself, as after GRUB's non-stub `linux`).
 */
#include "proto.h"
#include "../elf64.h"
#include "../linkkit.h"

#define LK_4G 0x100000000ull
#define LK_1G 0x40000000ull
#define LK_PT_NOTE 4u

/* Setup header fields, as offsets in the file and in the zero page. */
#define HDR_SETUP_SECTS 0x1f1
#define HDR_SYSSIZE 0x1f4
#define HDR_VID_MODE 0x1fa
#define HDR_BOOT_FLAG 0x1fe
#define HDR_JUMP 0x200
#define HDR_MAGIC 0x202
#define HDR_VERSION 0x206
#define HDR_TYPE_OF_LOADER 0x210
#define HDR_LOADFLAGS 0x211
#define HDR_CODE32_START 0x214
#define HDR_RAMDISK_IMAGE 0x218
#define HDR_RAMDISK_SIZE 0x21c
#define HDR_CMD_LINE_PTR 0x228
#define HDR_INITRD_ADDR_MAX 0x22c
#define HDR_KERNEL_ALIGNMENT 0x230
#define HDR_RELOCATABLE 0x234
#define HDR_XLOADFLAGS 0x236
#define HDR_CMDLINE_SIZE 0x238
#define HDR_SETUP_DATA 0x250
#define HDR_PREF_ADDRESS 0x258
#define HDR_INIT_SIZE 0x260
#define HDR_END_MIN 0x264 /* init_size's end: all a 2.12 header has */
#define HDR_END_MAX (LK_LINUX_HDR_OFF + LK_LINUX_HDR_MAX)

/* Zero-page fields outside the setup header. */
#define ZP_ACPI_RSDP 0x070
#define ZP_EXT_RAMDISK_IMAGE 0x0c0
#define ZP_EXT_RAMDISK_SIZE 0x0c4
#define ZP_EXT_CMD_LINE_PTR 0x0c8
#define ZP_EFI_INFO 0x1c0
#define ZP_E820_ENTRIES 0x1e8
#define ZP_SECURE_BOOT 0x1ec
#define ZP_E820_TABLE 0x2d0
#define ZP_E820_MAX 128u

#define LOADED_HIGH 0x01u
#define KASLR_FLAG 0x02u
#define XLF_KERNEL_64 0x01u
#define SETUP_E820_EXT 1u
#define E820_ENTRY 20u
#define VIDEO_TYPE_EFI 0x70u
#define EFI_SB_DISABLED 2u /* enum efi_secureboot_mode */
#define EFI_SB_ENABLED 3u

static lk_u16 lk_rd16(const lk_u8 *p)
{
	return (lk_u16)(p[0] | p[1] << 8);
}

static lk_u32 lk_rd32(const lk_u8 *p)
{
	return (lk_u32)p[0] | (lk_u32)p[1] << 8 | (lk_u32)p[2] << 16 |
	       (lk_u32)p[3] << 24;
}

static lk_u64 lk_rd64(const lk_u8 *p)
{
	return lk_rd32(p) | (lk_u64)lk_rd32(p + 4) << 32;
}

static void lk_wr16(lk_u8 *p, lk_u32 v)
{
	p[0] = (lk_u8)v;
	p[1] = (lk_u8)(v >> 8);
}

static void lk_wr32(lk_u8 *p, lk_u32 v)
{
	lk_wr16(p, v);
	lk_wr16(p + 2, v >> 16);
}

static void lk_wr64(lk_u8 *p, lk_u64 v)
{
	lk_wr32(p, (lk_u32)v);
	lk_wr32(p + 4, (lk_u32)(v >> 32));
}

static int lk_pow2(lk_u64 v)
{
	return v && (v & (v - 1)) == 0;
}

static int lk_linux_bad(const struct lk_host *h, const char *name,
			const char *what, lk_u64 v)
{
	lk_log(h, LK_LOG_ERROR, "%s: %s (0x%llx)", name, what, v);
	return -1;
}

/* ---- bzImage ---- */

static int lk_is_bzimage(const lk_u8 *d, lk_u64 size)
{
	return size >= HDR_MAGIC + 4 && lk_rd16(d + HDR_BOOT_FLAG) == 0xaa55 &&
	       lk_memcmp(d + HDR_MAGIC, "HdrS", 4) == 0;
}

/* The header's own extent: 0x202 plus the short jump's displacement. */
static int lk_bz_extent(const struct lk_host *h, const lk_u8 *d, lk_u64 size,
			const char *name, lk_u32 *end)
{
	lk_u32 e = HDR_MAGIC + d[HDR_JUMP + 1];

	if (d[HDR_JUMP] != 0xeb)
		return lk_linux_bad(h, name,
				    "setup header: jump at 0x200 is "
				    "not a short jmp",
				    d[HDR_JUMP]);
	if (e < HDR_END_MIN || e > HDR_END_MAX || e > size)
		return lk_linux_bad(h, name,
				    "setup header: length outside "
				    "0x264..0x290 or the file",
				    e);
	*end = e;
	return 0;
}

static int lk_bz_version(const struct lk_host *h, const lk_u8 *d,
			 const char *name)
{
	lk_u32 v = lk_rd16(d + HDR_VERSION);

	if (v < LK_LINUX_MIN_VERSION) {
		lk_log(h, LK_LOG_ERROR,
		       "%s: setup header: boot protocol "
		       "%u.%02u is older than 2.12",
		       name, v >> 8, v & 0xff);
		return -1;
	}
	if (!(d[HDR_LOADFLAGS] & LOADED_HIGH))
		return lk_linux_bad(h, name,
				    "setup header: loadflags: not "
				    "LOADED_HIGH (a zImage)",
				    d[HDR_LOADFLAGS]);
	return 0;
}

/* Where the protected-mode kernel is in the file and how big it is. */
static int lk_bz_payload(const struct lk_host *h, const lk_u8 *d, lk_u64 size,
			 const char *name, lk_u64 *off, lk_u64 *len)
{
	lk_u32 sects = d[HDR_SETUP_SECTS] ? d[HDR_SETUP_SECTS] : 4;
	lk_u64 sys = (lk_u64)lk_rd32(d + HDR_SYSSIZE) * 16;

	*off = ((lk_u64)sects + 1) * 512;
	if (*off >= size)
		return lk_linux_bad(h, name,
				    "setup header: setup_sects "
				    "reach past the file",
				    sects);
	*len = size - *off;
	if (sys == 0 || sys > ((*len + 15) & ~15ull))
		return lk_linux_bad(h, name,
				    "setup header: syssize does "
				    "not match the file",
				    sys / 16);
	if (*len <= 0x200)
		return lk_linux_bad(h, name, "protected-mode kernel too small",
				    *len);
	return 0;
}

static int lk_bz_layout(const struct lk_host *h, const lk_u8 *d,
			const char *name, lk_u64 pm_len,
			struct lk_linux_image *o)
{
	o->relocatable = d[HDR_RELOCATABLE] != 0;
	o->align = lk_rd32(d + HDR_KERNEL_ALIGNMENT);
	o->pref = lk_rd64(d + HDR_PREF_ADDRESS);
	o->mem = lk_rd32(d + HDR_INIT_SIZE);
	if (!lk_pow2(o->align) || o->align < 4096 || o->align > LK_1G)
		return lk_linux_bad(h, name,
				    "setup header: kernel_alignment "
				    "is not a power of two in 4 KiB..1 GiB",
				    o->align);
	if (o->mem < pm_len || o->mem > LK_1G)
		return lk_linux_bad(h, name,
				    "setup header: init_size smaller "
				    "than the kernel or over 1 GiB",
				    o->mem);
	if (o->pref >= LK_4G || o->mem > LK_4G - o->pref ||
	    (o->pref & (o->align - 1)))
		return lk_linux_bad(h, name,
				    "setup header: pref_address not "
				    "aligned or not below 4 GiB",
				    o->pref);
	return 0;
}

int lk_linux_bzimage_check(const struct lk_host *h, const void *data,
			   lk_u64 size, const char *name,
			   struct lk_linux_image *o)
{
	const lk_u8 *d = data;
	lk_u64 off = 0, len = 0;
	lk_u32 end = 0;

	lk_memset(o, 0, sizeof(*o));
	if (!lk_is_bzimage(d, size))
		return lk_linux_bad(h, name,
				    "not a bzImage: no boot_flag "
				    "0xaa55 and \"HdrS\"",
				    size);
	if (lk_bz_extent(h, d, size, name, &end) || lk_bz_version(h, d, name) ||
	    lk_bz_payload(h, d, size, name, &off, &len) ||
	    lk_bz_layout(h, d, name, len, o))
		return -1;
	o->kind = LK_LINUX_BZIMAGE;
	o->entry32 = 0;
	o->entry64 =
		lk_rd16(d + HDR_XLOADFLAGS) & XLF_KERNEL_64 ? 0x200 : ~0ull;
	o->initrd_max = lk_rd32(d + HDR_INITRD_ADDR_MAX);
	o->cmdline_max = lk_rd32(d + HDR_CMDLINE_SIZE);
	if (o->initrd_max == 0)
		o->initrd_max = 0x37ffffff; /* boot.rst: before 2.03 */
	if (o->cmdline_max == 0 || o->cmdline_max > 0x100000)
		o->cmdline_max = 255;
	o->hdr_len = end - LK_LINUX_HDR_OFF;
	lk_memcpy(o->hdr, d + LK_LINUX_HDR_OFF, o->hdr_len);
	return 0;
}

/* ---- vmlinux ---- */

static int lk_vm_ehdr(const struct lk_host *h, const lk_u8 *d, lk_u64 size,
		      const char *name, struct lk_elf64_ehdr *e)
{
	static const lk_u8 mag[4] = { 0x7f, 'E', 'L', 'F' };

	if (size < sizeof(*e))
		return lk_linux_bad(h, name, "too small for an ELF header",
				    size);
	lk_memcpy(e, d, sizeof(*e));
	if (lk_memcmp(e->e_ident, mag, 4) || e->e_ident[4] != LK_ELFCLASS64 ||
	    e->e_ident[5] != LK_ELFDATA2LSB || e->e_type != LK_ET_EXEC ||
	    e->e_machine != LK_EM_X86_64)
		return lk_linux_bad(h, name, "not an x86-64 ELF executable",
				    e->e_type);
	if (e->e_phentsize != sizeof(struct lk_elf64_phdr) || e->e_phnum == 0 ||
	    e->e_phnum > 64 || e->e_phoff > size ||
	    size - e->e_phoff < (lk_u64)e->e_phnum * e->e_phentsize)
		return lk_linux_bad(h, name,
				    "program headers outside the "
				    "file (e_phoff)",
				    e->e_phoff);
	return 0;
}

static void lk_vm_phdr(const lk_u8 *d, const struct lk_elf64_ehdr *e, lk_u32 i,
		       struct lk_elf64_phdr *p)
{
	lk_memcpy(p, d + e->e_phoff + (lk_u64)i * sizeof(*p), sizeof(*p));
}

static int lk_vm_segment(const struct lk_host *h, const char *name,
			 const struct lk_elf64_phdr *p, lk_u64 size)
{
	if (p->p_filesz > p->p_memsz || p->p_memsz > LK_1G ||
	    p->p_offset > size || size - p->p_offset < p->p_filesz)
		return lk_linux_bad(h, name,
				    "PT_LOAD outside the file or "
				    "too large at offset",
				    p->p_offset);
	if (p->p_paddr >= LK_4G || p->p_memsz > LK_4G - p->p_paddr)
		return lk_linux_bad(h, name, "PT_LOAD p_paddr not below 4 GiB",
				    p->p_paddr);
	return 0;
}

/* Segments must not overlap: each is copied to p_paddr's place. */
static int lk_vm_overlap(const lk_u8 *d, const struct lk_elf64_ehdr *e,
			 lk_u32 i, const struct lk_elf64_phdr *p)
{
	struct lk_elf64_phdr q;
	lk_u32 j;

	for (j = 0; j < i; j++) {
		lk_vm_phdr(d, e, j, &q);
		if (q.p_type == LK_PT_LOAD && q.p_memsz && p->p_memsz &&
		    p->p_paddr < q.p_paddr + q.p_memsz &&
		    q.p_paddr < p->p_paddr + p->p_memsz)
			return 1;
	}
	return 0;
}

int lk_linux_vmlinux_check(const struct lk_host *h, const void *data,
			   lk_u64 size, const char *name,
			   struct lk_linux_image *o)
{
	const lk_u8 *d = data;
	struct lk_elf64_ehdr e;
	struct lk_elf64_phdr p;
	lk_u64 lo = ~0ull, hi = 0;
	int entry_in = 0;
	lk_u32 i;

	lk_memset(o, 0, sizeof(*o));
	if (lk_vm_ehdr(h, d, size, name, &e))
		return -1;
	for (i = 0; i < e.e_phnum; i++) {
		lk_vm_phdr(d, &e, i, &p);
		if (p.p_type != LK_PT_LOAD)
			continue;
		if (lk_vm_segment(h, name, &p, size))
			return -1;
		if (lk_vm_overlap(d, &e, i, &p))
			return lk_linux_bad(h, name,
					    "overlapping PT_LOAD at "
					    "physical address",
					    p.p_paddr);
		lo = p.p_paddr < lo ? p.p_paddr : lo;
		hi = p.p_paddr + p.p_memsz > hi ? p.p_paddr + p.p_memsz : hi;
		/* e_entry is physical (phys_startup_64). */
		entry_in |= e.e_entry >= p.p_paddr &&
			    e.e_entry - p.p_paddr < p.p_memsz;
	}
	if (hi <= lo || hi - lo > LK_1G)
		return lk_linux_bad(h, name,
				    "no PT_LOAD or load range over "
				    "1 GiB",
				    hi > lo ? hi - lo : 0);
	if (!entry_in)
		return lk_linux_bad(h, name,
				    "e_entry (physical startup_64) "
				    "outside every PT_LOAD",
				    e.e_entry);
	if (lo & (LK_LINUX_VMLINUX_ALIGN - 1))
		return lk_linux_bad(h, name,
				    "lowest PT_LOAD p_paddr not 2 MiB "
				    "aligned",
				    lo);
	lk_linux_vmlinux_describe(o, lo, hi, e.e_entry);
	return 0;
}

void lk_linux_vmlinux_describe(struct lk_linux_image *o, lk_u64 lo, lk_u64 hi,
			       lk_u64 entry)
{
	lk_memset(o, 0, sizeof(*o));
	o->kind = LK_LINUX_VMLINUX;
	o->relocatable = 1; /* __startup_64 fixes its tables for any base */
	o->mem = hi - lo;
	o->align = LK_LINUX_VMLINUX_ALIGN;
	o->pref = lo;
	o->entry64 = entry - lo;
	o->entry32 = ~0ull;
	o->initrd_max = 0x7fffffff; /* what every 64-bit bzImage says */
	o->cmdline_max = 2047;
}

/* A PT_NOTE holding a note named "Linux" (LINUX_ELFNOTE_*). */
static int lk_has_linux_note(const lk_u8 *d, lk_u64 size,
			     const struct lk_elf64_phdr *p)
{
	lk_u64 off = 0, end;

	if (p->p_offset > size || size - p->p_offset < p->p_filesz)
		return 0;
	end = p->p_filesz;
	d += p->p_offset;
	while (end - off >= 12) {
		lk_u32 nsz = lk_rd32(d + off), dsz = lk_rd32(d + off + 4);
		lk_u64 n4 = ((lk_u64)nsz + 3) & ~3ull,
		       d4 = ((lk_u64)dsz + 3) & ~3ull;
		if (n4 > end - off - 12 || d4 > end - off - 12 - n4)
			return 0;
		if (nsz == 6 && lk_memcmp(d + off + 12, "Linux", 6) == 0)
			return 1;
		off += 12 + n4 + d4;
	}
	return 0;
}

lk_u32 lk_linux_sniff(const void *data, lk_u64 size)
{
	const lk_u8 *d = data;
	struct lk_elf64_ehdr e;
	struct lk_elf64_phdr p;
	lk_u32 i;

	if (lk_is_bzimage(d, size))
		return LK_LINUX_BZIMAGE;
	if (size < sizeof(e))
		return LK_LINUX_NONE;
	lk_memcpy(&e, d, sizeof(e));
	if (lk_memcmp(e.e_ident, "\177ELF", 4) || e.e_phentsize != sizeof(p) ||
	    e.e_phnum > 64 || e.e_phoff > size ||
	    size - e.e_phoff < (lk_u64)e.e_phnum * sizeof(p))
		return LK_LINUX_NONE;
	for (i = 0; i < e.e_phnum; i++) {
		lk_vm_phdr(d, &e, i, &p);
		if (p.p_type == LK_PT_NOTE && lk_has_linux_note(d, size, &p))
			return LK_LINUX_VMLINUX;
	}
	return LK_LINUX_NONE;
}

int lk_linux_check(const struct lk_host *h, const void *data, lk_u64 size,
		   const char *name, struct lk_linux_image *out)
{
	if (lk_is_bzimage(data, size))
		return lk_linux_bzimage_check(h, data, size, name, out);
	return lk_linux_vmlinux_check(h, data, size, name, out);
}

void lk_linux_load(const void *data, lk_u64 size,
		   const struct lk_linux_image *img, void *dst)
{
	const lk_u8 *d = data;
	lk_u8 *out = dst;
	struct lk_elf64_ehdr e;
	struct lk_elf64_phdr p;
	lk_u64 lo = img->pref; /* the file's lowest p_paddr */
	lk_u32 i;

	lk_memset(out, 0, (lk_size)img->mem);
	if (img->kind == LK_LINUX_BZIMAGE) {
		lk_u32 sects = d[HDR_SETUP_SECTS] ? d[HDR_SETUP_SECTS] : 4;
		lk_u64 off = ((lk_u64)sects + 1) * 512;
		lk_memcpy(out, d + off, (lk_size)(size - off));
		return;
	}
	lk_memcpy(&e, d, sizeof(e));
	for (i = 0; i < e.e_phnum; i++) {
		lk_vm_phdr(d, &e, i, &p);
		if (p.p_type == LK_PT_LOAD && p.p_filesz)
			lk_memcpy(out + (p.p_paddr - lo), d + p.p_offset,
				  (lk_size)p.p_filesz);
	}
}

/* ---- the zero page ---- */

/* A vmlinux has no setup header: the one a 2.15 bzImage would carry,
 * with the fields the kernel reads after the decompressor. */
static void lk_zp_synth_hdr(lk_u8 *zp, const struct lk_linux_image *img)
{
	lk_wr16(zp + HDR_BOOT_FLAG, 0xaa55);
	zp[HDR_JUMP] = 0xeb;
	zp[HDR_JUMP + 1] = 0x6a; /* header up to 0x26c */
	lk_memcpy(zp + HDR_MAGIC, "HdrS", 4);
	lk_wr16(zp + HDR_VERSION, 0x020f);
	zp[HDR_LOADFLAGS] = LOADED_HIGH;
	lk_wr32(zp + HDR_INITRD_ADDR_MAX, img->initrd_max);
	lk_wr32(zp + HDR_KERNEL_ALIGNMENT, (lk_u32)img->align);
	zp[HDR_RELOCATABLE] = 1;
	lk_wr16(zp + HDR_XLOADFLAGS, XLF_KERNEL_64);
	lk_wr32(zp + HDR_CMDLINE_SIZE, img->cmdline_max);
	lk_wr64(zp + HDR_PREF_ADDRESS, img->pref);
	lk_wr32(zp + HDR_INIT_SIZE, (lk_u32)img->mem);
}

static void lk_zp_header(lk_u8 *zp, const struct lk_kernel *k)
{
	const struct lk_linux_image *img = &k->lx;

	if (img->kind == LK_LINUX_BZIMAGE)
		lk_memcpy(zp + LK_LINUX_HDR_OFF, img->hdr, img->hdr_len);
	else
		lk_zp_synth_hdr(zp, img);
	lk_wr16(zp + HDR_VID_MODE, 0xffff); /* "normal" */
	zp[HDR_TYPE_OF_LOADER] = 0xff;	    /* no assigned id */
	zp[HDR_LOADFLAGS] &= LOADED_HIGH;   /* no heap, not quiet */
	if (img->kaslr) /* set for a relinked vmlinux only */
		zp[HDR_LOADFLAGS] |= KASLR_FLAG;
	lk_wr32(zp + HDR_CODE32_START, (lk_u32)k->load_lo);
	lk_wr64(zp + HDR_SETUP_DATA, 0);
}

static void lk_zp_cmdline(lk_u8 *zp, lk_u8 *dst, const char *cmdline,
			  lk_u32 max)
{
	lk_size n = lk_strlen(cmdline);
	lk_u64 a = (lk_u64)(lk_uptr)dst;

	n = n > max ? max : n;
	lk_memcpy(dst, cmdline, n);
	dst[n] = 0;
	lk_wr32(zp + HDR_CMD_LINE_PTR, (lk_u32)a);
	lk_wr32(zp + ZP_EXT_CMD_LINE_PTR, (lk_u32)(a >> 32));
}

static void lk_zp_initrd(lk_u8 *zp, const struct lk_kernel *k)
{
	if (!k->initrd_size)
		return;
	lk_wr32(zp + HDR_RAMDISK_IMAGE, (lk_u32)k->initrd_addr);
	lk_wr32(zp + HDR_RAMDISK_SIZE, (lk_u32)k->initrd_size);
	lk_wr32(zp + ZP_EXT_RAMDISK_IMAGE, (lk_u32)(k->initrd_addr >> 32));
	lk_wr32(zp + ZP_EXT_RAMDISK_SIZE, (lk_u32)(k->initrd_size >> 32));
}

static void lk_e820_put(lk_u8 *p, const struct lk_mb2_mmap_entry *e)
{
	lk_wr64(p, e->addr);
	lk_wr64(p + 8, e->len);
	lk_wr32(p + 16, e->type); /* Multiboot2's types are e820's */
}

/* The first 128 entries in the zero page, the rest as one
 * SETUP_E820_EXT setup_data at ext (8-aligned): its size. */
static lk_u32 lk_zp_e820(lk_u8 *zp, lk_u8 *ext, const struct lk_machine *m)
{
	lk_u32 i, n = m->nmap < ZP_E820_MAX ? m->nmap : ZP_E820_MAX;
	lk_u32 rest = m->nmap - n;

	for (i = 0; i < n; i++)
		lk_e820_put(zp + ZP_E820_TABLE + i * E820_ENTRY, &m->map[i]);
	zp[ZP_E820_ENTRIES] = (lk_u8)n;
	if (!rest)
		return 0;
	lk_wr64(ext, 0); /* next */
	lk_wr32(ext + 8, SETUP_E820_EXT);
	lk_wr32(ext + 12, rest * E820_ENTRY);
	for (i = 0; i < rest; i++)
		lk_e820_put(ext + 16 + i * E820_ENTRY, &m->map[n + i]);
	lk_wr64(zp + HDR_SETUP_DATA, (lk_u64)(lk_uptr)ext);
	return 16 + rest * E820_ENTRY;
}

static void lk_zp_efi(lk_u8 *zp, const struct lk_machine *m, int sb)
{
	lk_u8 *ei = zp + ZP_EFI_INFO;
	lk_u64 map = (lk_u64)(lk_uptr)m->efi_map;

	if (!m->efi_systab)
		return;
	lk_memcpy(ei, "EL64", 4);
	lk_wr32(ei + 4, (lk_u32)m->efi_systab);
	lk_wr32(ei + 8, m->efi_desc_size);
	lk_wr32(ei + 12, m->efi_desc_ver);
	lk_wr32(ei + 16, (lk_u32)map);
	lk_wr32(ei + 20, m->efi_map_size);
	lk_wr32(ei + 24, (lk_u32)(m->efi_systab >> 32));
	lk_wr32(ei + 28, (lk_u32)(map >> 32));
	zp[ZP_SECURE_BOOT] = sb ? EFI_SB_ENABLED : EFI_SB_DISABLED;
}

/* Size and position of a colour from its mask (0: none). */
static void lk_mask_bits(lk_u32 mask, lk_u8 *size, lk_u8 *pos)
{
	lk_u8 s = 0, p = 0;

	while (mask && !(mask & 1)) {
		mask >>= 1;
		p++;
	}
	while (mask & 1) {
		mask >>= 1;
		s++;
	}
	*size = s;
	*pos = s ? p : 0;
}

/* screen_info for efifb, as the EFI stub fills it from the GOP. */
static void lk_zp_screen(lk_u8 *zp, const struct lk_machine *m)
{
	const struct lk_obsd_efiinfo *fb = m->obsd_efi;
	lk_u32 masks[4], i;

	if (!fb || !fb->fb_addr || !fb->fb_width || !fb->fb_height)
		return;
	masks[0] = fb->fb_red_mask;
	masks[1] = fb->fb_green_mask;
	masks[2] = fb->fb_blue_mask;
	masks[3] = fb->fb_reserved_mask;
	zp[0x0f] = VIDEO_TYPE_EFI;
	lk_wr16(zp + 0x12, fb->fb_width);
	lk_wr16(zp + 0x14, fb->fb_height);
	lk_wr16(zp + 0x16, 32);
	lk_wr32(zp + 0x18, (lk_u32)fb->fb_addr);
	lk_wr32(zp + 0x1c, (lk_u32)fb->fb_size);
	lk_wr16(zp + 0x24, fb->fb_pixpsl * 4);
	for (i = 0; i < 4; i++)
		lk_mask_bits(masks[i], zp + 0x26 + 2 * i, zp + 0x27 + 2 * i);
	if (fb->fb_addr >> 32) {
		lk_wr32(zp + 0x3a, (lk_u32)(fb->fb_addr >> 32));
		lk_wr32(zp + 0x36, 2); /* VIDEO_CAPABILITY_64BIT_BASE */
	}
}

static void lk_zp_acpi(lk_u8 *zp, const struct lk_machine *m)
{
	const void *r = m->rsdp_new ? m->rsdp_new : m->rsdp_old;

	lk_wr64(zp + ZP_ACPI_RSDP, (lk_u64)(lk_uptr)r);
}

/* The entry the stage can make: 64-bit under UEFI (it runs in long
 * mode) and for every vmlinux, the 32-bit one of a bzImage under BIOS. */
static int lk_linux_entry(const struct lk_host *h, const struct lk_kernel *k,
			  const struct lk_machine *m, struct lk_entry *out)
{
	const struct lk_linux_image *img = &k->lx;

	if (img->kind == LK_LINUX_VMLINUX || m->efi_systab) {
		if (img->entry64 == ~0ull) {
			lk_log(h, LK_LOG_ERROR,
			       "bzImage: no 64-bit entry "
			       "(xloadflags without XLF_KERNEL_64)");
			return -1;
		}
		out->mode = LK_ENTRY_LONG64;
		out->entry = (lk_u32)(k->load_lo + img->entry64);
		return 0;
	}
	out->mode = LK_ENTRY_LINUX32;
	out->entry = (lk_u32)(k->load_lo + img->entry32);
	return 0;
}

static int lk_linux_build(const struct lk_host *h, const struct lk_handover *ho,
			  void *buf, lk_u32 cap, struct lk_entry *out)
{
	const struct lk_kernel *k = ho->k;
	const struct lk_machine *m = ho->m;
	lk_u64 base = (lk_u64)(lk_uptr)buf;
	lk_u8 *zp = (lk_u8 *)(lk_uptr)((base + 4095) & ~4095ull);
	lk_u64 cl = (lk_u64)k->lx.cmdline_max + 8;
	lk_u64 ext = m->nmap > ZP_E820_MAX
			     ? 16 + (lk_u64)(m->nmap - ZP_E820_MAX) * E820_ENTRY
			     : 0;
	lk_u64 need = (lk_u64)(zp - (lk_u8 *)buf) + LK_LINUX_ZP_SIZE +
		      ((cl + 7) & ~7ull) + ext;

	if (k->lx.kind == LK_LINUX_NONE || base + cap > LK_4G) {
		lk_log(h, LK_LOG_ERROR, "linux: not a checked Linux image");
		return -1;
	}
	if (need > cap) {
		lk_log(h, LK_LOG_ERROR,
		       "boot_params need %llu bytes (room "
		       "for %u)",
		       need, cap);
		return -1;
	}
	if (lk_linux_entry(h, k, m, out))
		return -1;
	lk_memset(zp, 0, LK_LINUX_ZP_SIZE);
	lk_zp_header(zp, k);
	lk_zp_cmdline(zp, zp + LK_LINUX_ZP_SIZE, ho->cmdline,
		      k->lx.cmdline_max);
	lk_zp_e820(zp, zp + LK_LINUX_ZP_SIZE + ((cl + 7) & ~7ull), m);
	lk_zp_initrd(zp, k);
	lk_zp_acpi(zp, m);
	lk_zp_efi(zp, m, m->secure_boot);
	lk_zp_screen(zp, m);
	out->info = (lk_u32)(lk_uptr)zp;
	return 0;
}

const struct lk_proto lk_proto_linux = {
	.name = "linux",
	.id = LK_PROTO_LINUX,
	.build = lk_linux_build,
};
