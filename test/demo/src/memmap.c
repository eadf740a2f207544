/* Memory map (tag 6): well-formed, and the kernel image lies in RAM the
 * map calls usable. Also the iterator used by the RAM scan. */
#include "demo.h"

DEMO_OBJECT(memmap)
DEMO_IDENT(memmap)

struct memmap_entry {
	u64 addr, len;
	u32 type, zero;
};

/* Calls fn for each usable range; returns the count, -1 if malformed. */
int memmap_usable(void (*fn)(u64 addr, u64 len, void *ctx), void *ctx)
{
	const struct mb2_tag *t = mbinfo_find(6, NULL);
	const u8 *p;
	u32 esz, off;
	int n = 0;

	if (!t || t->size < 16)
		return -1;
	p = (const u8 *)t;
	esz = *(const u32 *)(p + 8);
	if (esz < sizeof(struct memmap_entry) || esz > 256)
		return -1;
	for (off = 16; off + esz <= t->size; off += esz) {
		const struct memmap_entry *e = (const void *)(p + off);

		if (e->type != 1 || e->len == 0)
			continue;
		if (fn)
			fn(e->addr, e->len, ctx);
		n++;
	}
	return n;
}

struct memmap_cover {
	u64 lo, hi;
	int covered;
	u64 total;
};

static void memmap_cover_fn(u64 addr, u64 len, void *ctx)
{
	struct memmap_cover *c = ctx;

	c->total += len;
	if (addr <= c->lo && c->hi <= addr + len)
		c->covered = 1;
}

static int memmap_check(char *detail, size_t cap)
{
	struct memmap_cover c = {kva_to_phys(__kernel_start), kva_to_phys(end),
				 0, 0};
	int n = memmap_usable(memmap_cover_fn, &c);
	const struct mb2_tag *t;

	if (n <= 0) {
		ksnprintf(detail, cap,
			  "memory map missing or without usable RAM");
		return -1;
	}
	if (!c.covered) {
		ksnprintf(detail, cap,
			  "kernel image not inside one usable range");
		return -1;
	}
	/* Tag 21 is what locore moved the kernel's mapping by: it must be
	 * where the image really is. */
	t = mbinfo_find(21, NULL);
	if (t && (t->size < 12 || ((const u32 *)t)[2] != c.lo)) {
		ksnprintf(detail, cap, "load base tag 21 is not 0x%lx", c.lo);
		return -1;
	}
	if (c.total < (16UL << 20)) {
		ksnprintf(detail, cap, "only %lu KiB usable", c.total >> 10);
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_MEMMAP, "memmap", memmap_check);
