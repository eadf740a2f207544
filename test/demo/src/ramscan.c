/*
 * Scans all usable RAM below 4 GiB (what locore identity-maps) for
 * remnants of the link kit, skipping the kernel image itself (its .bss
 * holds the decoded needles). Word-at-a-time: only words holding a
 * needle's first byte are compared byte by byte.
 */
#include "demo.h"

DEMO_OBJECT(ramscan)
DEMO_IDENT(ramscan)

#define RAMSCAN_LIMIT	    (4UL << 30)
#define RAMSCAN_MAX_REPORTS 16
#define ONES		    0x0101010101010101UL
#define HIGHS		    0x8080808080808080UL

int memmap_usable(void (*fn)(u64 addr, u64 len, void *ctx), void *ctx);

struct ramscan_state {
	const struct needle *nd;
	u32 nn;
	u64 skip_lo, skip_hi; /* the kernel image, physical */
	u32 found;
	u64 bytes;
};

static u64 ramscan_has_byte(u64 w, u8 b)
{
	u64 x = w ^ (ONES * b);

	return (x - ONES) & ~x & HIGHS;
}

static void ramscan_match(struct ramscan_state *s, const u8 *p, const u8 *lim)
{
	u32 i;

	for (i = 0; i < s->nn; i++) {
		const struct needle *n = &s->nd[i];

		if (p[0] != n->bytes[0] || (u64)(lim - p) < n->len ||
		    memcmp(p, n->bytes, n->len))
			continue;
		if (s->found < RAMSCAN_MAX_REPORTS)
			kprintf("demo: ramscan FOUND %s at 0x%lx\n", n->what,
				(u64)(uptr)p);
		s->found++;
	}
}

/* [lo, hi) physical, below 4 GiB, outside the image. */
static void ramscan_piece(struct ramscan_state *s, u64 lo, u64 hi)
{
	const u8 *p = phys_to_ptr(lo), *lim = phys_to_ptr(hi);
	u8 b0 = s->nd[0].bytes[0], b2 = s->nd[2].bytes[0];

	s->bytes += hi - lo;
	while (p < lim && ((uptr)p & 7))
		ramscan_match(s, p++, lim);
	for (; p + 8 <= lim; p += 8) {
		u64 w = *(const u64 *)p;
		u32 k;

		if (!ramscan_has_byte(w, b0) && !ramscan_has_byte(w, b2))
			continue;
		for (k = 0; k < 8; k++)
			ramscan_match(s, p + k, lim);
	}
	for (; p < lim; p++)
		ramscan_match(s, p, lim);
}

static void ramscan_range(u64 addr, u64 len, void *ctx)
{
	struct ramscan_state *s = ctx;
	u64 lo = addr, hi = addr + len;

	if (hi < lo || hi > RAMSCAN_LIMIT)
		hi = RAMSCAN_LIMIT;
	if (lo >= hi)
		return;
	if (hi <= s->skip_lo || lo >= s->skip_hi) {
		ramscan_piece(s, lo, hi);
		return;
	}
	if (lo < s->skip_lo)
		ramscan_piece(s, lo, s->skip_lo);
	if (hi > s->skip_hi)
		ramscan_piece(s, s->skip_hi, hi);
}

int ramscan_run(void)
{
	struct ramscan_state s = {
		0, 0, kva_to_phys(__kernel_start), kva_to_phys(end), 0, 0};

	s.nd = needles_get(&s.nn);
	/* The word filter assumes needles start with one of two bytes. */
	if (s.nn != 3 || s.nd[0].bytes[0] != s.nd[1].bytes[0]) {
		kprintf("demo: ramscan FOUND nothing-scanned at 0x0\n");
		return 1;
	}
	if (memmap_usable(ramscan_range, &s) <= 0 || s.bytes == 0) {
		kprintf("demo: ramscan FOUND no-usable-memory at 0x0\n");
		return 1;
	}
	if (!s.found)
		kprintf("demo: ramscan clean\n");
	return (int)s.found;
}
