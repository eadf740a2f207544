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

/* The MADT through the RSDT (or the XSDT of a version 2 RSDP). */
static const lk_u8 *acpi_madt(lk_u32 *len)
{
	int v2 = 0;
	lk_u32 rlen = 0, slen, w;
	const lk_u8 *r = acpi_find_rsdp(&v2, &rlen), *sdt, *t;
	lk_u64 a;

	if (!r)
		return LK_NULL;
	w = v2 ? 8 : 4;
	a = v2 ? (lk_u64)rd32(r + 24) | (lk_u64)rd32(r + 28) << 32 : rd32(r + 16);
	sdt = acpi_table(a, v2 ? "XSDT" : "RSDT", &slen);
	if (!sdt)
		return LK_NULL;
	for (lk_u32 o = 36; o + w <= slen; o += w) {
		a = rd32(sdt + o) | (w == 8 ? (lk_u64)rd32(sdt + o + 4) << 32 : 0);
		t = acpi_table(a, "APIC", len);
		if (t)
			return t;
	}
	return LK_NULL;
}

/* Processors the MADT lists as enabled, or 0 when there is no usable
 * MADT: the local APIC entries or the local x2APIC ones, whichever are
 * more (firmware may list each processor in both). */
lk_u32 acpi_count_cpus(void)
{
	lk_u32 len, n0 = 0, n9 = 0, o;
	const lk_u8 *m = acpi_madt(&len);

	if (!m)
		return 0;
	for (o = 44; o + 2 <= len && m[o + 1] >= 2 && o + m[o + 1] <= len;
	     o += m[o + 1]) {
		if (m[o] == 0 && m[o + 1] >= 8 && (m[o + 4] & 1))
			n0++;
		else if (m[o] == 9 && m[o + 1] >= 16 && (m[o + 8] & 1))
			n9++;
	}
	return n0 > n9 ? n0 : n9;
}
