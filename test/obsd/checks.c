/*
 * Checks every argument the loader gave, the way OpenBSD's locore0 and
 * getbootinfo() read them (layouts of amd64 biosvar.h).
 */
#include "obsd.h"

#define APIVER_NEED 0x0au /* BAPIV_VECTOR | BAPIV_BMEMMAP */
#define B_DEVMAGIC 0xa0000000u
#define MAX_LIST 4096u

struct __attribute__((packed)) memmap {
	u64 addr, size;
	u32 type;
};

struct __attribute__((packed)) consdev {
	i32 consdev, conspeed;
	u64 consaddr;
	i32 consfreq;
	u32 flags, reg_width, reg_shift;
};

struct __attribute__((packed)) efiinfo {
	u64 config_acpi, config_smbios, fb_addr, fb_size;
	u32 fb_height, fb_width, fb_pixpsl;
	u32 fb_red_mask, fb_green_mask, fb_blue_mask, fb_reserved_mask;
	u32 flags;
	u32 mmap_desc_ver, mmap_desc_size, mmap_size;
	u64 mmap_start, system_table, config_esrt;
};

enum {
	A_RET,
	A_HOWTO,
	A_BOOTDEV,
	A_APIVER,
	A_END,
	A_EXTMEM,
	A_CNVMEM,
	A_AC,
	A_AV
};

int fail(const char *what, const char *detail, u64 v)
{
	cons_puts("obsd: FAIL ");
	cons_puts(what);
	cons_puts(" ");
	cons_puts(detail);
	cons_puts(" ");
	cons_hex(v);
	cons_puts("\n");
	return 1;
}

/* MAKEBOOTDEV fields: type (wd 0, fd 2, sd 4), unit, partition: printed
 * as `obsd: bootdev wd0a`; 0 when they do not name a disk partition. */
static int print_bootdev(u32 d)
{
	u32 type = d & 0xff, unit = (d >> 16) & 0xf, part = (d >> 8) & 0xff;
	char name[] = "wd0a\n";

	if ((type != 0 && type != 2 && type != 4) || part > 15 || unit > 9 ||
	    (d & 0x0ff00000u))
		return 0;
	name[0] = "wfs"[type / 2];
	name[2] = (char)('0' + unit);
	name[3] = (char)('a' + part);
	cons_puts("obsd: bootdev ");
	cons_puts(name);
	return 1;
}

int check_args(void)
{
	const u32 *a = obsd_stackargs;
	u64 kend = (PHYS(__kernel_bss_end) + 7) & ~7ull;

	if (obsd_entry_cr0 & 0x80000000u)
		return fail("args", "paging on at entry, cr0", obsd_entry_cr0);
	if (!(obsd_entry_cr0 & 1))
		return fail("args", "not protected mode, cr0", obsd_entry_cr0);
	/* boot(8)'s bits only: RB_ASKNAME, RB_SINGLE, RB_KDB, RB_CONFIG,
	 * RB_GOODRANDOM; the tests read which from this line. */
	if (a[A_HOWTO] & ~(0x1u | 0x2u | 0x40u | 0x400u | 0x10000u))
		return fail("args", "howto", a[A_HOWTO]);
	cons_puts("obsd: howto ");
	cons_hex(a[A_HOWTO]);
	cons_puts("\n");
	if ((a[A_BOOTDEV] & 0xf0000000u) != B_DEVMAGIC ||
	    !print_bootdev(a[A_BOOTDEV]))
		return fail("args", "bootdev", a[A_BOOTDEV]);
	if ((a[A_APIVER] & APIVER_NEED) != APIVER_NEED)
		return fail("args", "apiver", a[A_APIVER]);
	/* end is esym: past the symbol table boot(8) puts at kend (its
	 * exact value is check_symbols' business). */
	if (a[A_END] < kend || (a[A_END] & 7))
		return fail("args", "end", a[A_END]);
	if (a[A_CNVMEM] == 0 || a[A_CNVMEM] > 640)
		return fail("args", "cnvmem", a[A_CNVMEM]);
	if (a[A_EXTMEM] < 1024)
		return fail("args", "extmem", a[A_EXTMEM]);
	if (a[A_AC] < 16 || a[A_AC] > MAX_LIST)
		return fail("args", "ac", a[A_AC]);
	if (a[A_AV] < 0x1000 || (u64)a[A_AV] + a[A_AC] > 0x100000000ull)
		return fail("args", "av", a[A_AV]);
	if (a[A_AV] < a[A_END] && a[A_AV] + a[A_AC] > PHYS(start))
		return fail("args", "av inside the kernel", a[A_AV]);
	cons_puts("obsd: check args ok\n");
	return 0;
}

static int in_free(const struct memmap *m, u32 n, u64 lo, u64 hi)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (m[i].type == 1 && m[i].addr <= lo &&
		    m[i].addr + m[i].size >= hi)
			return 1;
	return 0;
}

/* End of the free memory that runs without a gap from `from`. */
static u64 free_run(const struct memmap *m, u32 n, u64 from)
{
	u64 e = from;
	u32 i;

	for (i = 0; i < n; i++)
		if (m[i].type == 1 && m[i].addr <= e &&
		    m[i].addr + m[i].size > e)
			e = m[i].addr + m[i].size;
	return e;
}

/* cnvmem/extmem must be what the map says (KiB from 0 and from 1 MiB). */
static int check_memsizes(const struct memmap *m, u32 n)
{
	u64 lo = free_run(m, n, 0), hi = free_run(m, n, 0x100000);

	lo = lo > 0xa0000 ? 0xa0000 : lo;
	if (obsd_stackargs[A_CNVMEM] != lo / 1024)
		return fail("memmap", "cnvmem differs from the map, map KiB",
			    lo / 1024);
	if (obsd_stackargs[A_EXTMEM] != (hi - 0x100000) / 1024)
		return fail("memmap", "extmem differs from the map, map KiB",
			    (hi - 0x100000) / 1024);
	return 0;
}

static int check_memmap(const u8 *p, u32 size)
{
	const struct memmap *m = (const void *)p;
	u32 n, max = size / sizeof(*m), i;
	u64 free = 0;

	for (n = 0; n < max && m[n].type != 0; n++)
		;
	if (n == max || n == 0)
		return fail("memmap", "no end entry or empty, entries", n);
	for (i = 0; i < n; i++) {
		if (m[i].size == 0 || m[i].addr + m[i].size < m[i].addr)
			return fail("memmap", "bad entry at", m[i].addr);
		if (i && m[i].addr < m[i - 1].addr + m[i - 1].size)
			return fail("memmap", "overlap or unsorted at",
				    m[i].addr);
		if (m[i].type > 4)
			return fail("memmap", "bad type", m[i].type);
		if (m[i].type == 1)
			free += m[i].size;
	}
	if (!in_free(m, n, PHYS(start), PHYS(__kernel_bss_end)))
		return fail("memmap", "kernel not in free memory", PHYS(start));
	if (check_memsizes(m, n))
		return 1;
	if (free < 64ull << 20 || free > 256ull << 20)
		return fail("memmap", "free bytes", free);
	cons_puts("obsd: check memmap ok, entries ");
	cons_dec(n);
	cons_puts("\n");
	return 0;
}

static int check_consdev(const u8 *p, u32 size)
{
	static const u64 ports[4] = {0x3f8, 0x2f8, 0x3e8, 0x2e8};
	const struct consdev *c = (const void *)p;
	u32 unit = (u32)c->consdev - 0x800;
	i32 sp = c->conspeed;

	if (size != sizeof(*c))
		return fail("consdev", "size", size);
	/* com(4) is major 8: dev 0x800 + unit, at the PC's port. */
	if (unit > 3 || c->consaddr != ports[unit])
		return fail("consdev", "not a PC com port, dev",
			    (u32)c->consdev);
	if (sp != 9600 && sp != 19200 && sp != 38400 && sp != 57600 &&
	    sp != 115200)
		return fail("consdev", "speed", (u32)sp);
	cons_puts("obsd: consdev com");
	cons_dec(unit);
	cons_puts(" speed ");
	cons_dec((u32)sp);
	cons_puts("\nobsd: check consdev ok\n");
	return 0;
}

/* BOOTARG_UCODE: {addr, size}, below 16 MiB as OpenBSD's loaders put it;
 * printed with the FNV-1a of its bytes for the test to compare with the
 * file it put on the disk. */
static int check_ucode(const u8 *p, u32 size)
{
	const u64 *uc = (const u64 *)p;
	const u8 *b;
	u64 fnv = 0xcbf29ce484222325ull, i;

	if (size != 16)
		return fail("ucode", "size", size);
	if (!uc[0] || !uc[1] || uc[1] > 0x1000000 ||
	    uc[0] > 0x1000000 - uc[1])
		return fail("ucode", "not below 16 MiB, at", uc[0]);
	b = (const u8 *)uc[0];
	for (i = 0; i < uc[1]; i++)
		fnv = (fnv ^ b[i]) * 0x100000001b3ull;
	cons_puts("obsd: ucode ");
	cons_dec(uc[1]);
	cons_puts(" bytes, fnv ");
	cons_hex(fnv);
	cons_puts("\n");
	return 0;
}

/* config_smbios: 0, or the SMBIOS 2 entry point ("_SM_", its length
 * byte at +5 covered by a zero checksum) below 4 GiB. */
static int check_smbios(u64 a)
{
	const u8 *p = (const u8 *)a;
	u32 i, len;
	u8 sum = 0;

	if (!a) {
		cons_puts("obsd: smbios none\n");
		return 0;
	}
	if (a >= 0x100000000ull || p[0] != '_' || p[1] != 'S' || p[2] != 'M' ||
	    p[3] != '_')
		return fail("smbios", "entry point", a);
	len = p[5];
	if (len < 0x1f || len > 0x40)
		return fail("smbios", "entry length", len);
	for (i = 0; i < len; i++)
		sum += p[i];
	if (sum)
		return fail("smbios", "checksum", sum);
	cons_puts("obsd: check smbios ok\n");
	return 0;
}

static int check_efiinfo(const u8 *p, u32 size)
{
	const struct efiinfo *e = (const void *)p;
	const u64 *st;

	/* 100 bytes and the offsets below are what the real 7.3 GENERIC
	 * kernel reads (efi_machdep.o: flags 0x3c, mmap_desc_ver 0x40, ...,
	 * system_table 0x54), not this file's struct: a check written from
	 * the loader's own struct shared its mistake once. */
	if (size != 100 || sizeof(*e) != 100)
		return fail("efiinfo", "size", size);
	if (e->mmap_desc_ver != 1) /* efi_attach() requires version 1 */
		return fail("efiinfo", "memory map version", e->mmap_desc_ver);
	if (!e->system_table || e->system_table >= 0x100000000ull)
		return fail("efiinfo", "system table", e->system_table);
	st = (const u64 *)e->system_table;
	if (*st != 0x5453595320494249ull) /* "IBI SYST" */
		return fail("efiinfo", "system table signature", *st);
	if (!e->config_acpi || e->config_acpi >= 0x100000000ull ||
	    *(const u64 *)e->config_acpi != 0x2052545020445352ull)
		return fail("efiinfo", "ACPI RSDP", e->config_acpi);
	if (e->mmap_desc_size < 40 || e->mmap_size == 0 ||
	    e->mmap_size % e->mmap_desc_size || !e->mmap_start)
		return fail("efiinfo", "memory map", e->mmap_size);
	if (!(e->flags & 1))
		return fail("efiinfo", "flags", e->flags);
	if (check_smbios(e->config_smbios))
		return 1;
	cons_puts("obsd: check efiinfo ok, framebuffer ");
	cons_puts(e->fb_addr ? "yes\n" : "no\n");
	return 0;
}

/* BOOTARG_BOOTDUID: 8 bytes, printed as `obsd: bootduid HEX16` for the
 * test to compare with the DUID it put in the disk's label. A zero DUID
 * would mean "none" to OpenBSD's setroot: a loader must not send it. */
static int check_bootduid(const u8 *p, u32 size)
{
	static const char hex[] = "0123456789abcdef";
	char s[] = "obsd: bootduid 0000000000000000\n";
	u32 i, any = 0;

	if (size != 8)
		return fail("bootduid", "size", size);
	for (i = 0; i < 8; i++) {
		s[15 + 2 * i] = hex[p[i] >> 4];
		s[16 + 2 * i] = hex[p[i] & 15];
		any |= p[i];
	}
	if (!any)
		return fail("bootduid", "all zero", 0);
	cons_puts(s);
	return 0;
}

/* Walks the list like getbootinfo(): records of {type, size, next}. */
int check_bootargs(void)
{
	const u8 *p = (const u8 *)(u64)obsd_stackargs[A_AV];
	u32 ac = obsd_stackargs[A_AC], off = 0, seen = 0;
	int bad = 0;

	while (off + 4 <= ac) {
		i32 type = *(const i32 *)(p + off), size;
		if (type == -1)
			break;
		if (off + 12 > ac)
			return fail("bootargs", "truncated at", off);
		size = *(const i32 *)(p + off + 4);
		if (size < 12 || (u32)size > ac - off)
			return fail("bootargs", "bad size at", off);
		if (type == 0)
			bad |= check_memmap(p + off + 12, (u32)size - 12);
		else if (type == 5)
			bad |= check_consdev(p + off + 12, (u32)size - 12);
		else if (type == 12)
			bad |= check_ucode(p + off + 12, (u32)size - 12);
		else if (type == 11)
			bad |= check_efiinfo(p + off + 12, (u32)size - 12);
		else if (type == 9 && (seen & (1u << 9)))
			bad |= fail("bootduid", "twice at", off);
		else if (type == 9)
			bad |= check_bootduid(p + off + 12, (u32)size - 12);
		if (type >= 0 && type < 32)
			seen |= 1u << type;
		off += (u32)size;
	}
	if (off + 4 != ac)
		return fail("bootargs", "end marker not at ac-4, at", off);
	if (!(seen & 1))
		return fail("bootargs", "no memmap", seen);
	if (!(seen & (1u << 5)))
		return fail("bootargs", "no consdev", seen);
	if (!(seen & (1u << 11)))
		cons_puts("obsd: efiinfo none\n");
	if (!(seen & (1u << 9)))
		cons_puts("obsd: bootduid none\n");
	if (!(seen & (1u << 12)))
		cons_puts("obsd: ucode none\n");
	return bad;
}
