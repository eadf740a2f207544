/* ACPI RSDP search the way the ACPI spec tells BIOS loaders to do it. */
#include "bios.h"
#include "../linkkit/linkkit.h"

static int rsdp_ok(const lk_u8 *p, int *v2, lk_u32 *len)
{
	lk_u8 sum = 0;

	if (lk_memcmp(p, "RSD PTR ", 8) != 0)
		return 0;
	for (int i = 0; i < 20; i++)
		sum += p[i];
	if (sum != 0)
		return 0;
	*v2 = p[15] >= 2;
	*len = 20;
	if (*v2) {
		lk_u32 l = p[20] | p[21] << 8 | (lk_u32)p[22] << 16 |
			   (lk_u32)p[23] << 24;
		/* An extended length we cannot trust: fall back to v1. */
		if (l < 36 || l > 64) {
			*v2 = 0;
			return 1;
		}
		sum = 0;
		for (lk_u32 i = 0; i < l; i++)
			sum += p[i];
		if (sum == 0)
			*len = l;
		else
			*v2 = 0;
	}
	return 1;
}

/* Through asm: GCC treats constant addresses this low as null pointers. */
static lk_u16 peek16(lk_u32 addr)
{
	lk_u16 v;

	__asm__ volatile("movw (%1), %0" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static const void *scan(lk_u32 lo, lk_u32 hi, int *v2, lk_u32 *len)
{
	for (lk_u32 a = lo; a + 36 <= hi; a += 16)
		if (rsdp_ok((const lk_u8 *)(lk_uptr)a, v2, len))
			return (const void *)(lk_uptr)a;
	return LK_NULL;
}

const void *acpi_find_rsdp(int *v2, lk_u32 *len)
{
	/* BDA word 0x40E: EBDA segment; search its first KiB. */
	lk_u32 ebda = (lk_u32)peek16(0x40e) << 4;
	const void *p = LK_NULL;

	if (ebda >= 0x80000 && ebda < 0xa0000)
		p = scan(ebda, ebda + 1024, v2, len);
	if (!p)
		p = scan(0xe0000, 0x100000, v2, len);
	return p;
}

static lk_u32 rd32(const lk_u8 *p)
{
	return p[0] | p[1] << 8 | (lk_u32)p[2] << 16 | (lk_u32)p[3] << 24;
}

/* A system description table at a below-4-GiB address: signature and a
 * checksum over a sane length (firmware tables are checked like any
 * other input), else NULL. */
static const lk_u8 *acpi_table(lk_u64 addr, const char *sig, lk_u32 *len)
{
	const lk_u8 *t = (const lk_u8 *)(lk_uptr)addr;
	lk_u8 sum = 0;

	if (addr < 0x1000 || addr >= 0xffff0000ull)
		return LK_NULL;
	*len = rd32(t + 4);
	if ((sig && lk_memcmp(t, sig, 4) != 0) || *len < 36 ||
	    *len > (1u << 20) || addr + *len > 0x100000000ull)
		return LK_NULL;
	for (lk_u32 i = 0; i < *len; i++)
		sum += t[i];
	return sum == 0 ? t : LK_NULL;
}

/* The first table named sig listed in the RSDT (entries of 4 bytes) or
 * the XSDT (8). */
static const lk_u8 *acpi_listed(lk_u64 sdt_addr, int xsdt, const char *sig,
				lk_u32 *len)
{
	lk_u32 w = xsdt ? 8 : 4, slen;
	const lk_u8 *sdt = acpi_table(sdt_addr, xsdt ? "XSDT" : "RSDT", &slen);
	const lk_u8 *t;

	for (lk_u32 o = 36; sdt && o + w <= slen; o += w) {
		lk_u64 a = rd32(sdt + o) |
			   (xsdt ? (lk_u64)rd32(sdt + o + 4) << 32 : 0);

		t = acpi_table(a, sig, len);
		if (t)
			return t;
	}
	return LK_NULL;
}

/* The MADT through the XSDT of a version 2 RSDP, else through the RSDT
 * (which every RSDP has): some firmware's XSDT is broken or lists the
 * MADT above 4 GiB only. */
static const lk_u8 *acpi_madt(lk_u32 *len)
{
	int v2 = 0;
	lk_u32 rlen = 0;
	const lk_u8 *r = acpi_find_rsdp(&v2, &rlen), *t = LK_NULL;

	if (!r)
		return LK_NULL;
	if (v2)
		t = acpi_listed((lk_u64)rd32(r + 24) | (lk_u64)rd32(r + 28) << 32,
				1, "APIC", len);
	return t ? t : acpi_listed(rd32(r + 16), 0, "APIC", len);
}

static int id_listed(const lk_u8 *ids, lk_u32 n, lk_u32 id)
{
	for (lk_u32 i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/*
 * The xAPIC IDs of the processors the MADT lists as enabled (a processor
 * that is only "online capable" waits for its OS), each once though
 * firmware may list it both as a local APIC and a local x2APIC: the
 * first max of them, in the MADT's order, into ids. Returns how many it
 * stored, 0 without a usable MADT. An x2APIC ID above 254 cannot be
 * reached by an xAPIC IPI and is left out.
 */
lk_u32 acpi_cpu_ids(lk_u8 *ids, lk_u32 max)
{
	lk_u32 len, n = 0, o, id;
	const lk_u8 *m = acpi_madt(&len);

	for (o = 44; m && n < max && o + 2 <= len && m[o + 1] >= 2 && o + m[o + 1] <= len;
	     o += m[o + 1]) {
		if (m[o] == 0 && m[o + 1] >= 8 && (m[o + 4] & 1))
			id = m[o + 3];
		else if (m[o] == 9 && m[o + 1] >= 16 && (m[o + 8] & 1))
			id = rd32(m + o + 4);
		else
			continue;
		if (id >= 0xff || id_listed(ids, n, id))
			continue;
		ids[n++] = (lk_u8)id;
	}
	return n;
}
