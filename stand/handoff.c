/* Load-range checks, the Multiboot2 info and the jump to the kernel. */
#include "bios.h"
#include "stand.h"
#include "../linkkit/mb2.h"
#include "../linkkit/obsd_boot.h"
#include "../linkkit/disklabel.h"

#define ONE_MB 0x100000ull
#define FOUR_GB 0x100000000ull
#define MB2_CAP 0x10000u

int stand_check_range(struct stand *s, const char *what, lk_u64 lo,
		      lk_u64 hi)
{
	/* Only the fixed start address is named: the end depends on gaps. */
	if (hi <= lo || hi > FOUR_GB || lo < ONE_MB) {
		lk_log(&s->host, LK_LOG_ERROR,
		       "%s: load address 0x%llx not in 1 MiB..4 GiB", what,
		       (unsigned long long)lo);
		return -1;
	}
	if (!mem_is_usable(lo, hi)) {
		lk_log(&s->host, LK_LOG_ERROR,
		       "%s: load range at 0x%llx is not usable RAM (E820)", what,
		       (unsigned long long)lo);
		return -1;
	}
	if (heap_reserve(&s->heap, lo, hi)) {
		lk_log(&s->host, LK_LOG_ERROR,
		       "%s: load range at 0x%llx overlaps the loader heap", what,
		       (unsigned long long)lo);
		return -1;
	}
	return 0;
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

static void add_memory(struct lk_mb2 *m, struct lk_mb2_mmap_entry *map)
{
	lk_u32 n = e820_to_map(map), lower, upper;

	lk_mb2_meminfo_from_map(map, n, &lower, &upper);
	lk_mb2_basic_meminfo(m, lower, upper);
	lk_mb2_mmap(m, map, n);
}

static void build_info(struct stand *s, const struct handoff *ho,
		       struct lk_mb2 *m, struct lk_mb2_mmap_entry *map)
{
	int v2 = 0;
	lk_u32 rlen = 0;
	const void *rsdp = acpi_find_rsdp(&v2, &rlen);

	lk_mb2_cmdline(m, s->cfg.cmdline);
	lk_mb2_loader_name(m, ho->loader);
	add_memory(m, map);
	if (rsdp)
		lk_mb2_acpi_rsdp(m, v2, rsdp, rlen);
	if (ho->shdrs)
		lk_mb2_elf_sections(m, ho->shnum, ho->shentsize, ho->shstrndx,
				    ho->shdrs);
	lk_mb2_load_base(m, (lk_u32)ho->load_lo);
}

/* The driver biosboot would guess for a hard disk: its label's d_type,
 * wd when it has no label. */
static lk_u32 drive_type(lk_u8 drive, lk_u64 sectors, struct lk_dl_label *l,
			 const char **why, int *have)
{
	struct lk_dl_disk d = {&drive, disk_read_on, sectors};

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
		lk_log(&s->host, LK_LOG_INFO, "boot disk: no BOOTDUID: %s",
		       why);
	return lk_obsd_bootdev_disk(type, unit);
}

/*
 * OpenBSD protocol: the bootarg list goes into `info`, the stack words
 * (return address + 8 arguments) at its end; returns the kernel's ESP.
 */
static lk_u32 build_obsd(struct stand *s, const struct handoff *ho,
			 lk_u8 *info, struct lk_mb2_mmap_entry *map)
{
	struct lk_obsd o;
	struct lk_obsd_args a;
	struct lk_dl_label l;
	lk_u32 n = e820_to_map(map);
	lk_u32 *words = (lk_u32 *)(info + MB2_CAP) - LK_OBSD_STACK_WORDS;
	int have_duid;
	lk_u32 bootdev = obsd_boot_disk(s, &l, &have_duid);

	lk_obsd_begin(&o, info, LK_OBSD_MAX_LIST);
	lk_obsd_memmap(&o, map, n);
	if (lk_obsd_wants_serial(s->cfg.cmdline))
		lk_obsd_consdev_com(&o, 0, 115200, 0x3f8);
	if (have_duid)
		lk_obsd_bootduid(&o, l.duid);
	if (lk_obsd_end(&o) != LK_OK) {
		lk_log(&s->host, LK_LOG_ERROR,
		       "OpenBSD boot arguments need %u bytes (max %u)", o.need,
		       LK_OBSD_MAX_LIST);
		return 0;
	}
	lk_obsd_args_fill(&a, &o, (lk_u32)(lk_uptr)info, ho->load_hi, map, n);
	a.bootdev = bootdev; /* the disk we came from */
	lk_obsd_stack(words, &a);
	return (lk_u32)(lk_uptr)words;
}

int stand_boot(struct stand *s, const struct handoff *ho)
{
	struct lk_mb2 m;
	struct lk_mb2_mmap_entry *map;
	void *info;
	lk_u32 magic = 0, esp = 0;

	if (ho->entry >= FOUR_GB) {
		lk_log(&s->host, LK_LOG_ERROR, "entry point above 4 GiB");
		return -1;
	}
	/* Kept for the kernel: from the heap itself, not host.alloc. */
	map = heap_alloc(&s->heap, sizeof(*map) * (e820_count + 1));
	info = heap_alloc(&s->heap, MB2_CAP);
	if (!map || !info) {
		lk_log(&s->host, LK_LOG_ERROR, "no memory for the boot information");
		return -1;
	}
	if (ho->protocol == LK_PROTO_MULTIBOOT2) {
		lk_mb2_begin(&m, info, MB2_CAP);
		build_info(s, ho, &m, map);
		if (lk_mb2_end(&m) != LK_OK) {
			lk_log(&s->host, LK_LOG_ERROR,
			       "boot information needs %u bytes", m.need);
			return -1;
		}
		magic = LK_MB2_BOOT_MAGIC;
	} else if (ho->protocol == LK_PROTO_OPENBSD) {
		esp = build_obsd(s, ho, info, map);
		if (!esp)
			return -1;
	} else if (ho->protocol != LK_PROTO_NONE) {
		lk_log(&s->host, LK_LOG_ERROR,
		       "protocol %u is not supported by the BIOS stage",
		       ho->protocol);
		return -1;
	}
	/* Secrets left: the config (debug seed) and the FAT buffers. */
	fat_unmount(&s->fs);
	lk_config_wipe(&s->cfg);
	lk_rng_wipe(&s->rng);
	disk_wipe_bounce();
	stand_enter((lk_u32)ho->entry, (lk_u32)(lk_uptr)info, magic,
		    (lk_u32)(lk_uptr)_start,
		    (lk_u32)(_stage_end - _start), esp);
}
