/*
 * Where the kernel goes in physical memory. A kernel is linked for one
 * physical range; the firmware may hold part of it. What each kind of
 * memory allows (docs/CONVENTIONS.md, "Kernel placement"):
 *  - conventional memory: taken now with AllocateAddress;
 *  - boot-services code/data: free once ExitBootServices returns, so the
 *    image is staged elsewhere and the trampoline copies it into place;
 *  - a kernel with a Multiboot2 relocatable header tag (10) that cannot go
 *    at its link address goes to free pages inside its allowed range
 *    instead (it finds its base in info tag 21), like GRUB does;
 *  - ACPI NVS only for a kernel that cannot move (no tag 10: OpenBSD, whose
 *    physical address is fixed by its link), copied over after
 *    ExitBootServices as OpenBSD's efiboot does, with one warning line,
 *    and never when the FACS lies there (the kernel reads it at boot);
 *  - anything else (reserved, runtime services, ACPI tables, MMIO, holes)
 *    is refused with one line naming the range and its type.
 */
#include "efiboot.h"

#define EB_4G 0x100000000ull

/* The firmware's current memory map in pool memory (freed by the caller
 * through host.free with *cap). */
static lk_u8 *eb_get_map(struct eb_state *s, UINTN *size, UINTN *dsz,
			 lk_size *cap)
{
	EFI_BOOT_SERVICES *bs = s->st->BootServices;
	UINTN key;
	UINT32 ver;
	lk_u8 *map;

	*size = 0;
	if (bs->GetMemoryMap(size, LK_NULL, &key, dsz, &ver) !=
		    EFI_BUFFER_TOO_SMALL ||
	    *dsz == 0)
		return LK_NULL;
	*size += 8 * *dsz;
	*cap = *size;
	map = s->boot.host.alloc(s->boot.host.ctx, *cap);
	if (map && bs->GetMemoryMap(size, (void *)map, &key, dsz, &ver) !=
			   EFI_SUCCESS) {
		s->boot.host.free(s->boot.host.ctx, map, *cap);
		return LK_NULL;
	}
	return map;
}

/* What a fixed-address kernel may do with memory of this type, from the
 * most to the least acceptable. */
enum eb_use { EB_USE_NOW, EB_USE_LATER, EB_USE_NVS, EB_USE_NEVER };

static enum eb_use eb_use_of(UINT32 type)
{
	if (type == EfiConventionalMemory)
		return EB_USE_NOW;
	if (type == EfiBootServicesCode || type == EfiBootServicesData)
		return EB_USE_LATER;
	if (type == EfiACPIMemoryNVS)
		return EB_USE_NVS;
	return EB_USE_NEVER;
}

struct eb_scan {
	enum eb_use worst;
	lk_u64 nvs_lo, nvs_hi; /* the first ACPI NVS descriptor met */
	char why[96];	       /* the first descriptor that is not RAM */
};

/*
 * Classifies [lo, hi) by the firmware's map: the least usable type in it
 * (EB_USE_NEVER also for holes or no map), and what to say about it.
 */
static void eb_scan_range(struct eb_state *s, lk_u64 lo, lk_u64 hi,
			  struct eb_scan *sc)
{
	UINTN size, dsz, off;
	lk_size mcap = 0;
	lk_u8 *map = eb_get_map(s, &size, &dsz, &mcap);
	lk_u64 covered = 0;

	lk_memset(sc, 0, sizeof(*sc));
	sc->worst = EB_USE_NOW;
	if (!map) {
		sc->worst = EB_USE_NEVER;
		lk_snprintf(sc->why, sizeof(sc->why), " (no memory map)");
		return;
	}
	for (off = 0; off + dsz <= size; off += dsz) {
		EFI_MEMORY_DESCRIPTOR *d = (void *)(map + off);
		lk_u64 a = d->PhysicalStart, e = a + (d->NumberOfPages << 12);
		enum eb_use u = eb_use_of(d->Type);
		if (e <= lo || a >= hi)
			continue;
		if (u == EB_USE_NVS && !sc->nvs_hi) {
			sc->nvs_lo = a;
			sc->nvs_hi = e;
		}
		if (u > sc->worst)
			sc->worst = u;
		if (u >= EB_USE_NVS && !sc->why[0])
			lk_snprintf(sc->why, sizeof(sc->why),
				    " (memory type %u at [0x%llx, 0x%llx))",
				    d->Type, a, e);
		a = a < lo ? lo : a;
		e = e > hi ? hi : e;
		covered += e - a;
	}
	s->boot.host.free(s->boot.host.ctx, map, mcap);
	if (covered != hi - lo) {
		sc->worst = EB_USE_NEVER;
		if (!sc->why[0])
			lk_snprintf(sc->why, sizeof(sc->why),
				    " (not all of it is RAM)");
	}
}

/* Takes the conventional parts of [lo, hi) so nothing else lands there
 * before the jump; the rest is the firmware's until ExitBootServices. */
static int eb_claim_range(struct eb_state *s, lk_u64 lo, lk_u64 hi)
{
	UINTN size, dsz, off;
	lk_size mcap = 0;
	lk_u8 *map = eb_get_map(s, &size, &dsz, &mcap);
	int bad = map == LK_NULL;

	for (off = 0; !bad && off + dsz <= size; off += dsz) {
		EFI_MEMORY_DESCRIPTOR *d = (void *)(map + off);
		lk_u64 a = d->PhysicalStart, e = a + (d->NumberOfPages << 12);
		EFI_STATUS st;
		if (e <= lo || a >= hi || d->Type != EfiConventionalMemory)
			continue;
		a = a < lo ? lo : a;
		e = e > hi ? hi : e;
		bad = !eb_pages_at(s, a, e - a, 0, &st);
		if (!bad)
			s->regions[s->nregions - 1].kernel = 1;
	}
	if (map)
		s->boot.host.free(s->boot.host.ctx, map, mcap);
	return bad ? -1 : 0;
}

static int eb_guid_is(const EFI_GUID *a, const EFI_GUID *b)
{
	return lk_memcmp(a, b, sizeof(*a)) == 0;
}

/*
 * The FACS address from the FADT (0 when there is none). The tables are
 * the firmware's, in memory it identity-maps; lengths are still bounded
 * so a broken table cannot send us far.
 */
static lk_u64 eb_facs(struct eb_state *s)
{
	EFI_GUID g2 = ACPI_20_TABLE_GUID;
	const lk_u8 *rsdp = LK_NULL, *xsdt;
	lk_u32 len, i;
	UINTN t;

	for (t = 0; t < s->st->NumberOfTableEntries; t++)
		if (eb_guid_is(&s->st->ConfigurationTable[t].VendorGuid, &g2))
			rsdp = s->st->ConfigurationTable[t].VendorTable;
	if (!rsdp || rsdp[15] < 2)
		return 0;
	{
		lk_u64 x;
		lk_memcpy(&x, rsdp + 24, 8);
		if (!x || x >= EB_4G)
			return 0;
		xsdt = (const lk_u8 *)(lk_uptr)x;
	}
	lk_memcpy(&len, xsdt + 4, 4);
	if (lk_memcmp(xsdt, "XSDT", 4) != 0 || len < 36 || len > 36 + 8 * 1024)
		return 0;
	for (i = 36; i + 8 <= len; i += 8) {
		lk_u64 a, x = 0;
		const lk_u8 *f;
		lk_u32 flen, fc;
		lk_memcpy(&a, xsdt + i, 8);
		if (!a || a >= EB_4G)
			continue;
		f = (const lk_u8 *)(lk_uptr)a;
		if (lk_memcmp(f, "FACP", 4) != 0)
			continue;
		lk_memcpy(&flen, f + 4, 4);
		if (flen < 40)
			return 0;
		lk_memcpy(&fc, f + 36, 4);
		if (flen >= 140)
			lk_memcpy(&x, f + 132, 8);
		return x ? x : fc;
	}
	return 0;
}

void *eb_place_kernel(struct lk_boot *b, lk_u64 lo, lk_u64 hi)
{
	struct eb_state *s = eb_of(b);
	struct eb_place *pl = &s->place;
	lk_u64 base = lo & ~4095ull, top = (hi + 4095) & ~4095ull;
	EFI_STATUS st = EFI_INVALID_PARAMETER;
	lk_u8 *p;

	lk_memset(pl, 0, sizeof(*pl));
	if (hi <= lo || hi > EB_4G) {
		eb_fail(s, "kernel range [0x%llx, 0x%llx) is not below 4 GiB",
			lo, hi);
		return LK_NULL;
	}
	pl->lo = lo;
	pl->hi = hi;
	pl->base = base;
	pl->top = top;
	p = eb_pages_at(s, base, top - base, 0, &st);
	if (!p) {
		/* Built elsewhere; eb_settle_kernel decides where it goes. */
		p = eb_pages(s, top - base, EB_4G, 0);
		if (!p) {
			eb_fail(s,
				"cannot allocate %llu bytes to stage the "
				"kernel",
				top - base);
			return LK_NULL;
		}
		pl->pending = 1;
		pl->status = st;
	}
	pl->buf = p;
	return p + (lo - base);
}

/*
 * A relocatable kernel goes to free pages below its max_addr, aligned as
 * it asks (at least a page); the staging copy is then wiped and freed.
 */
static int eb_relocate(struct eb_state *s, const struct lk_mb2_reloc *r,
		       struct lk_kernel *k, char *why, lk_size cap)
{
	struct eb_place *pl = &s->place;
	lk_u64 size = pl->top - pl->base, head = pl->lo - pl->base;
	lk_u64 align = r->align > 4096 ? r->align : 4096;
	lk_u64 limit = r->max_addr, q, lo, nb, delta;
	lk_u8 *p;

	if (size > r->max_addr || r->min_addr > r->max_addr - size) {
		lk_snprintf(why, cap,
			    "; its relocatable range [0x%x, 0x%x) is "
			    "too small",
			    r->min_addr, r->max_addr);
		return -1;
	}
	p = eb_pages(s, size + align, limit, 0);
	if (!p) {
		lk_snprintf(why, cap, "; no free memory for it below 0x%x",
			    r->max_addr);
		return -1;
	}
	q = (lk_u64)(lk_uptr)p;
	lo = (q + head + align - 1) & ~(align - 1);
	nb = lo - head;
	if (lo < r->min_addr || nb + size > r->max_addr) {
		eb_pages_free(s, p);
		lk_snprintf(why, cap, "; no free memory for it in [0x%x, 0x%x)",
			    r->min_addr, r->max_addr);
		return -1;
	}
	lk_memcpy((void *)(lk_uptr)nb, pl->buf, size);
	eb_pages_free(s, pl->buf); /* wipes: it is the kernel's layout */
	pl->buf = (lk_u8 *)(lk_uptr)nb;
	delta = lo - pl->lo;
	k->load_lo += delta;
	k->load_hi += delta;
	k->entry += delta;
	return 0;
}

int eb_settle_kernel(struct lk_boot *b, struct lk_kernel *k, const void *hdr,
		     lk_u64 hdr_size)
{
	struct eb_state *s = eb_of(b);
	struct eb_place *pl = &s->place;
	struct lk_mb2_reloc r;
	struct eb_scan sc;
	char why[96];
	int reloc;
	lk_u64 facs;

	if (!pl->pending)
		return 0;
	pl->pending = 0;
	why[0] = 0;
	reloc = k->proto->may_relocate &&
		lk_mb2_header_reloc(hdr, hdr_size, &r);
	eb_scan_range(s, pl->base, pl->top, &sc);
	if (sc.worst <= EB_USE_LATER) {
		if (eb_claim_range(s, pl->base, pl->top))
			goto refuse;
		s->copy_src = (lk_u64)(lk_uptr)pl->buf;
		s->copy_dst = pl->base;
		s->copy_len = pl->top - pl->base;
		return 0;
	}
	if (reloc) {
		if (eb_relocate(s, &r, k, why, sizeof(why)) == 0)
			return 0;
		goto refuse;
	}
	if (sc.worst != EB_USE_NVS)
		goto refuse;
	facs = eb_facs(s);
	if (facs >= pl->base && facs < pl->top) {
		lk_snprintf(why, sizeof(why), "; the FACS at 0x%llx is there",
			    facs);
		goto refuse;
	}
	if (eb_claim_range(s, pl->base, pl->top))
		goto refuse;
	eb_print(s,
		 "warning: the kernel's fixed range [0x%llx, 0x%llx) "
		 "overlaps ACPI NVS [0x%llx, 0x%llx): copied over it at the "
		 "jump; ACPI S3 resume may fail",
		 pl->lo, pl->hi, sc.nvs_lo, sc.nvs_hi);
	s->copy_src = (lk_u64)(lk_uptr)pl->buf;
	s->copy_dst = pl->base;
	s->copy_len = pl->top - pl->base;
	return 0;
refuse:
	eb_fail(s, "cannot allocate the kernel at [0x%llx, 0x%llx): %s%s%s",
		pl->lo, pl->hi, eb_status_str(pl->status), sc.why, why);
	return -1;
}

/* [a, a + size) inside one conventional descriptor of the map, a the
 * lowest align-aligned address there at or above 1 MiB, below 4 GiB. */
static int eb_fit(const EFI_MEMORY_DESCRIPTOR *d, lk_u64 size, lk_u64 align,
		  lk_u64 *a)
{
	lk_u64 lo = d->PhysicalStart, hi = lo + (d->NumberOfPages << 12);

	if (d->Type != EfiConventionalMemory)
		return 0;
	lo = lo < 0x100000 ? 0x100000 : lo;
	hi = hi > EB_4G ? EB_4G : hi;
	lo = (lo + align - 1) & ~(align - 1);
	if (lo >= hi || hi - lo < size)
		return 0;
	*a = lo;
	return 1;
}

static void *eb_take_kernel(struct eb_state *s, lk_u64 a, lk_u64 size)
{
	EFI_STATUS st;
	void *p = eb_pages_at(s, a, size, 0, &st);

	if (p)
		s->regions[s->nregions - 1].kernel = 1;
	return p;
}

/*
 * A relocatable kernel (Linux) at pref when that is free conventional
 * memory, else at the lowest aligned fit in the firmware's map: the
 * kernel is at its final address before ExitBootServices, nothing is
 * staged, nothing copied over memory the firmware still owns.
 */
void *eb_place_any(struct lk_boot *b, lk_u64 size, lk_u64 align, lk_u64 pref,
		   lk_u64 *phys)
{
	struct eb_state *s = eb_of(b);
	UINTN msize, dsz, off;
	lk_size mcap = 0;
	lk_u8 *map;
	void *p = LK_NULL;

	lk_memset(&s->place, 0, sizeof(s->place));
	align = align < 4096 ? 4096 : align;
	if (pref && !(pref & (align - 1)) && pref < EB_4G &&
	    size <= EB_4G - pref && (p = eb_take_kernel(s, pref, size))) {
		*phys = pref;
		return p;
	}
	map = eb_get_map(s, &msize, &dsz, &mcap);
	for (off = 0; map && !p && off + dsz <= msize; off += dsz)
		if (eb_fit((const void *)(map + off), size, align, phys))
			p = eb_take_kernel(s, *phys, size);
	if (map)
		s->boot.host.free(s->boot.host.ctx, map, mcap);
	if (!p)
		eb_fail(s, "no free memory for the kernel's %llu bytes aligned "
			   "to 0x%llx below 4 GiB", size, align);
	return p;
}
