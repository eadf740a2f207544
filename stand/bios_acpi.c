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
