/* Questions about the E820 map that start.S read in real mode. */
#include "bios.h"

#define FOUR_GB 0x100000000ull
#define ONE_MB 0x100000ull
#define E820_USABLE 1u

/* ACPI 3.0 extended attributes: bit 0 clear means "ignore this entry"
 * (start.S presets it for BIOSes that return only 20 bytes). */
int e820_valid(const struct e820_entry *e)
{
	return (e->attr & 1) && e->len != 0;
}

/* Entries may overlap and disagree; a range counts as usable only if no
 * non-usable entry touches it and usable entries cover all of it. */
static int touches_reserved(lk_u64 lo, lk_u64 hi)
{
	for (lk_u32 i = 0; i < e820_count; i++) {
		const struct e820_entry *e = &e820_map[i];
		lk_u64 end = e->addr + e->len;

		if (e820_valid(e) && e->type != E820_USABLE && e->addr < hi &&
		    end > lo)
			return 1;
	}
	return 0;
}

int mem_is_usable(lk_u64 lo, lk_u64 hi)
{
	lk_u64 at = lo;
	int progress = 1;

	if (hi <= lo || touches_reserved(lo, hi))
		return 0;
	/* Walk forward through usable entries until hi is covered. */
	while (at < hi && progress) {
		progress = 0;
		for (lk_u32 i = 0; i < e820_count; i++) {
			const struct e820_entry *e = &e820_map[i];
			lk_u64 end = e->addr + e->len;

			if (e820_valid(e) && e->type == E820_USABLE &&
			    e->addr <= at && end > at) {
				at = end;
				progress = 1;
			}
		}
	}
	return at >= hi;
}

int mem_top_region(lk_u32 *lo, lk_u32 *hi)
{
	lk_u64 best_lo = 0, best_hi = 0;

	for (lk_u32 i = 0; i < e820_count; i++) {
		const struct e820_entry *e = &e820_map[i];
		lk_u64 a = e->addr, b = e->addr + e->len;

		if (!e820_valid(e) || e->type != E820_USABLE || b < a)
			continue;
		if (a < ONE_MB)
			a = ONE_MB;
		if (b > FOUR_GB)
			b = FOUR_GB;
		b &= ~0xfffull; /* page-aligned ends keep the allocator simple */
		a = (a + 0xfff) & ~0xfffull;
		if (b <= a || touches_reserved(a, b))
			continue;
		if (b > best_hi) {
			best_lo = a;
			best_hi = b;
		}
	}
	if (best_hi == 0)
		return -1;
	*lo = (lk_u32)best_lo;
	*hi = (lk_u32)(best_hi - 1) + 1; /* 4 GiB itself wraps to 0 */
	if (*hi == 0)
		*hi = 0xfffff000u;
	return 0;
}
