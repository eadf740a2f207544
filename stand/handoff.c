/* Load-range checks, the machine information for the kernel's protocol
 * (linkkit/proto/) and the jump. */
#include "bios.h"
#include "stand.h"
#include "../linkkit/mb2.h"
#include "../linkkit/obsd_boot.h"
#include "../linkkit/disklabel.h"

#define ONE_MB 0x100000ull
#define FOUR_GB 0x100000000ull
#define INFO_CAP 0x10000u

/* The BIOS stage loads a kernel at its link address, in E820 RAM the
 * heap does not use; what is placed there is not moved. */
void *stand_place(struct lk_boot *b, lk_u64 lo, lk_u64 hi)
{
	struct stand *s = stand_of(b);
	const char *what = "kernel";
	/* Only the fixed start address is named: the end depends on gaps. */
	if (hi <= lo || hi > FOUR_GB || lo < ONE_MB) {
		lk_log(&b->host, LK_LOG_ERROR,
		       "%s: load address 0x%llx not in 1 MiB..4 GiB", what,
		       (unsigned long long)lo);
		return LK_NULL;
	}
	if (!mem_is_usable(lo, hi)) {
		lk_log(&b->host, LK_LOG_ERROR,
		       "%s: load range at 0x%llx is not usable RAM (E820)", what,
		       (unsigned long long)lo);
		return LK_NULL;
	}
	if (heap_reserve(&s->heap, lo, hi)) {
		lk_log(&b->host, LK_LOG_ERROR,
		       "%s: load range at 0x%llx overlaps the loader heap", what,
		       (unsigned long long)lo);
		return LK_NULL;
	}
	return (void *)(lk_uptr)lo;
}

int stand_settle(struct lk_boot *b, struct lk_kernel *k, const void *hdr,
		 lk_u64 hdr_size)
{
	(void)b;
	(void)k;
	(void)hdr;
	(void)hdr_size;
	return 0;
}

/* Kept for the kernel: from the heap itself, not host.alloc (whose
 * buffers are all freed before the jump). */
void *stand_alloc_kept(struct lk_boot *b, lk_u64 size)
{
	if (size > 0x7fffffffu)
		return LK_NULL;
	return heap_alloc(&stand_of(b)->heap, (lk_size)size);
}

static lk_u32 mb2_type(lk_u32 e820_type)
{
	return e820_type >= 1 && e820_type <= 5 ? e820_type
						 : LK_MB2_MEM_RESERVED;
}

static lk_u32 e820_to_map(struct lk_mb2_mmap_entry *map)
{
	lk_u32 n = 0;

	for (lk_u32 i = 0; i < e820_count; i++) {
		if (!e820_valid(&e820_map[i]))
			continue;
		map[n].addr = e820_map[i].addr;
		map[n].len = e820_map[i].len;
		map[n].type = mb2_type(e820_map[i].type);
		map[n].zero = 0;
		n++;
	}
	return lk_mb2_map_normalize(map, n);
}

/* The driver biosboot would guess for a hard disk: its label's d_type,
 * wd when it has no label. */
static lk_u32 drive_type(lk_u8 drive, lk_u64 sectors, struct lk_dl_label *l,
			 const char **why, int *have)
{
	struct lk_blockdev d = {&drive, disk_read_on, sectors};

	*have = lk_dl_find(&d, l, why) == 0;
	return *have ? lk_obsd_dev_type(l->d_type) : LK_OBSD_DEV_WD;
}

/*
 * bootdev and the DUID of the boot drive's disklabel (read only). Like
 * biosboot, hard disks are numbered per driver in BIOS order, so the
 * unit counts the earlier drives that get the same driver.
 */
static lk_u32 obsd_boot_disk(struct stand *s, struct lk_dl_label *l,
			     int *have)
{
	struct lk_dl_label other;
	const char *why = "", *w;
	lk_u32 type, unit = 0;
	int h;

	*have = 0;
	if (!(boot_drive & 0x80))
		return lk_obsd_bootdev_bios(boot_drive);
	type = drive_type(boot_drive, disk_sectors(), l, &why, have);
	for (lk_u8 d = 0x80; d < boot_drive; d++)
		unit += drive_type(d, 0, &other, &w, &h) == type;
	if (!*have)
		lk_log(&s->boot.host, LK_LOG_INFO,
		       "boot disk: no BOOTDUID: %s", why);
	return lk_obsd_bootdev_disk(type, unit);
}

/* What only the firmware knows, for the protocol's info builder. */
static void stand_machine(struct stand *s, const struct lk_kernel *k,
			  struct lk_mb2_mmap_entry *map, struct lk_machine *m)
{
	struct lk_dl_label l;
	int v2 = 0;
	lk_u32 rlen = 0;
	const void *rsdp = acpi_find_rsdp(&v2, &rlen);

	lk_memset(m, 0, sizeof(*m));
	m->map = map;
	m->nmap = e820_to_map(map);
	if (rsdp && v2) {
		m->rsdp_new = rsdp;
		m->rsdp_new_len = rlen;
	} else if (rsdp) {
		m->rsdp_old = rsdp;
	}
	if (k->proto->boot_disk) {
		m->bootdev = obsd_boot_disk(s, &l, &m->have_duid);
		if (m->have_duid)
			lk_memcpy(m->duid, l.duid, 8);
	}
}

/*
 * Linux's 64-bit entry needs paging on with everything it is given
 * identity-mapped: the first 4 GiB (the stage keeps all of it there)
 * with 2 MiB pages, PML4 + PDPT + 4 page directories, in heap memory
 * the kernel leaves alone until it runs on its own tables.
 */
static lk_u32 identity_4g(struct stand *s)
{
	lk_u8 *raw = heap_alloc(&s->heap, 7 * 4096);

	if (!raw)
		return 0;
	return stand_identity_4g(
		(void *)(((lk_uptr)raw + 4095) & ~(lk_uptr)4095));
}

/* [a, a + size) is E820 RAM above 1 MiB ending at or below limit, not
 * the placed kernel, not handed out by the heap (kept from it now). */
static int stand_take(struct stand *s, lk_u64 a, lk_u64 size, lk_u64 align,
		      lk_u64 limit)
{
	if (a < ONE_MB || a >= limit || size > limit - a || (a & (align - 1)) ||
	    (a < s->kern_hi && s->kern_lo < a + size) ||
	    !mem_is_usable(a, a + size) ||
	    heap_reserve(&s->heap, a, a + size) != 0)
		return 0;
	return 1;
}

/* try first, else the lowest aligned start of an E820 RAM entry (the
 * heap grows down from the top of the highest one). */
static lk_u64 stand_find(struct stand *s, lk_u64 size, lk_u64 align,
			 lk_u64 try, lk_u64 limit)
{
	lk_u64 a = try;
	lk_u32 i = 0;

	for (;;) {
		if (stand_take(s, a, size, align, limit))
			return a;
		while (i < e820_count && (!e820_valid(&e820_map[i]) ||
					  e820_map[i].type != 1))
			i++;
		if (i == e820_count)
			return 0;
		a = (e820_map[i++].addr + align - 1) & ~(align - 1);
		a = a < ONE_MB ? (ONE_MB + align - 1) & ~(align - 1) : a;
	}
}

/* A relocatable kernel (Linux) at pref, else the lowest fit. */
void *stand_place_any(struct lk_boot *b, lk_u64 size, lk_u64 align,
		      lk_u64 pref, lk_u64 *phys)
{
	struct stand *s = stand_of(b);
	lk_u64 a;

	align = align < 4096 ? 4096 : align;
	a = stand_find(s, size, align, pref, FOUR_GB);
	if (!a) {
		lk_log(&b->host, LK_LOG_ERROR, "no E820 RAM for the kernel's "
		       "%llu bytes aligned to 0x%llx", (unsigned long long)size,
		       (unsigned long long)align);
		return LK_NULL;
	}
	s->kern_lo = a;
	s->kern_hi = a + size;
	*phys = a;
	return (void *)(lk_uptr)a;
}

/* Kept memory below limit: from the heap when its top is low enough
 * (a Linux initrd, usually), else the lowest E820 fit from 1 MiB, where
 * biosboot puts microcode: above the stage and the BIOS, beside the
 * placed kernel. */
void *stand_alloc_kept_below(struct lk_boot *b, lk_u64 size, lk_u64 limit)
{
	struct stand *s = stand_of(b);
	lk_u64 top = s->heap.top;

	limit = limit < FOUR_GB ? limit : FOUR_GB;
	if (size == 0 || size > limit)
		return LK_NULL;
	if (top <= limit)
		return stand_alloc_kept(b, size);
	return (void *)(lk_uptr)stand_find(s, size, 4096, ONE_MB, limit);
}

void stand_enter_kernel(struct lk_boot *b, const struct lk_kernel *k)
{
	struct stand *s = stand_of(b);
	struct lk_mb2_mmap_entry *map;
	struct lk_machine m;
	struct lk_entry e;
	void *info;
	lk_u32 cr3 = 0;

	stand_mp_stop(b); /* no processor but this one runs the stage */
	/* Kept for the kernel: from the heap itself, not host.alloc. */
	map = heap_alloc(&s->heap, sizeof(*map) * (e820_count + 1));
	info = heap_alloc(&s->heap, INFO_CAP);
	if (!map || !info) {
		lk_log(&b->host, LK_LOG_ERROR,
		       "no memory for the boot information");
		return;
	}
	stand_machine(s, k, map, &m);
	if (lk_boot_build_info(b, k, &m, info, INFO_CAP, &e))
		return;
	if (e.mode == LK_ENTRY_LONG64 && !(cr3 = identity_4g(s))) {
		lk_log(&b->host, LK_LOG_ERROR, "no memory for page tables");
		return;
	}
	/* Secrets left: the config (debug seed) and the FAT buffers. */
	lk_fs_unmount(&s->fs);
	lk_config_wipe(&b->cfg);
	disk_wipe_bounce();
	if (e.mode != LK_ENTRY_PM32)
		stand_enter_linux(e.entry, e.info, e.mode,
				  (lk_u32)(lk_uptr)_start,
				  (lk_u32)(_stage_end - _start), cr3);
	stand_enter(e.entry, e.info, e.magic, (lk_u32)(lk_uptr)_start,
		    (lk_u32)(_stage_end - _start), e.esp);
}
