/*
 * The hand-over from UEFI (the enter hook): gather what the kernel's
 * protocol row needs (linkkit/proto/), build its boot information from
 * the final memory map, exit boot services, wipe every secret, leave
 * long mode and jump. Everything that needs the firmware (allocations,
 * the ACPI table walk, the boot disk) happens before GetMemoryMap, so the
 * map key stays valid up to ExitBootServices.
 */
#include "efiboot.h"
#include "../linkkit/obsd_boot.h"

#define EB_4G 0x100000000ull
#define EB_STACK_WIPE (64u * 1024) /* UEFI guarantees 128 KiB of stack */
#define EB_MAP_SLACK 32 /* descriptors the map may grow by meanwhile */

/* Mirrors eb_tramp_args in trampoline.S, field for field. */
struct eb_tramp_args {
	lk_u64 wipe_lo, wipe_len; /* the firmware stack we ran on */
	lk_u64 cr3;        /* our identity map; 0: keep the firmware's */
	lk_u64 scrub_list; /* struct eb_scrub[] */
	lk_u32 scrub_count;
	lk_u32 scrub_off;  /* 1: scrub with paging off (entries < 4 GiB) */
	lk_u32 entry, info, magic;
	lk_u32 copy_src, copy_dst, copy_len;
	lk_u32 esp;  /* kernel stack at entry, 0 = none (mb2) */
	lk_u32 mode; /* LK_ENTRY_*: LONG64 stays in long mode (Linux) */
};
_Static_assert(sizeof(struct eb_tramp_args) == 72, "trampoline args");
extern struct eb_tramp_args eb_tramp_args;

/* A physical range the trampoline zeroes. */
struct eb_scrub {
	lk_u64 addr, len;
};

struct eb_info_bufs {
	lk_u8 *info;
	lk_u32 info_cap;
	EFI_MEMORY_DESCRIPTOR *map;
	UINTN map_cap, map_size, dsz; /* map_size, dsz: of the last map */
	struct lk_mb2_mmap_entry *ents;
	lk_u32 ents_cap;
	struct lk_machine m; /* firmware parts filled before the map */
	struct lk_obsd_efiinfo ei;
	struct lk_entry entry;
};

static int eb_guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
	return lk_memcmp(a, b, sizeof(*a)) == 0;
}

static void eb_find_rsdp(struct eb_state *s, struct eb_info_bufs *b)
{
	EFI_GUID g2 = ACPI_20_TABLE_GUID, g1 = ACPI_TABLE_GUID;
	UINTN i;

	for (i = 0; i < s->st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &s->st->ConfigurationTable[i];
		if (!b->m.rsdp_new && eb_guid_eq(&t->VendorGuid, &g2))
			b->m.rsdp_new = t->VendorTable;
		if (!b->m.rsdp_old && eb_guid_eq(&t->VendorGuid, &g1))
			b->m.rsdp_old = t->VendorTable;
	}
	if (b->m.rsdp_new) {
		/* The XSDP carries its own length; trust it only within
		 * sane bounds since a bad firmware table must not crash us. */
		lk_u32 len;
		lk_memcpy(&len, (const lk_u8 *)b->m.rsdp_new + 20, 4);
		b->m.rsdp_new_len = (len >= 36 && len <= 1024) ? len : 36;
	}
}

static void eb_gop_masks(const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *mi,
			 struct lk_obsd_efiinfo *ei)
{
	if (mi->PixelFormat == PixelRedGreenBlueReserved8BitPerColor) {
		ei->fb_red_mask = 0x000000ff;
		ei->fb_blue_mask = 0x00ff0000;
	} else if (mi->PixelFormat == PixelBlueGreenRedReserved8BitPerColor) {
		ei->fb_red_mask = 0x00ff0000;
		ei->fb_blue_mask = 0x000000ff;
	} else if (mi->PixelFormat == PixelBitMask) {
		ei->fb_red_mask = mi->PixelInformation.RedMask;
		ei->fb_green_mask = mi->PixelInformation.GreenMask;
		ei->fb_blue_mask = mi->PixelInformation.BlueMask;
		ei->fb_reserved_mask = mi->PixelInformation.ReservedMask;
		return;
	} else {
		return; /* BltOnly: no linear framebuffer to describe */
	}
	ei->fb_green_mask = 0x0000ff00;
	ei->fb_reserved_mask = 0xff000000;
}

/* The SMBIOS (2.x, "_SM_") entry point from the configuration table, as
 * OpenBSD's efiboot takes it (not the SMBIOS 3 one): 0 when absent. */
static lk_u64 eb_smbios(struct eb_state *s)
{
	EFI_GUID g = SMBIOS_TABLE_GUID;
	UINTN i;

	for (i = 0; i < s->st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &s->st->ConfigurationTable[i];

		if (eb_guid_eq(&t->VendorGuid, &g))
			return (lk_u64)(lk_uptr)t->VendorTable;
	}
	return 0;
}

/* The firmware parts of bios_efiinfo; the memory map is added later. */
static void eb_obsd_efiinfo(struct eb_state *s, struct eb_info_bufs *b)
{
	EFI_GUID gg = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = LK_NULL;
	struct lk_obsd_efiinfo *ei = &b->ei;

	b->m.obsd_efi = ei;
	ei->config_acpi = (lk_u64)(lk_uptr)(b->m.rsdp_new ? b->m.rsdp_new
							  : b->m.rsdp_old);
	ei->config_smbios = eb_smbios(s);
	ei->system_table = (lk_u64)(lk_uptr)s->st;
	ei->flags = LK_OBSD_EFI_64BIT;
	if (s->st->BootServices->LocateProtocol(&gg, LK_NULL, (void **)&gop) !=
		    EFI_SUCCESS ||
	    !gop || !gop->Mode || !gop->Mode->Info)
		return;
	eb_gop_masks(gop->Mode->Info, ei);
	if (!ei->fb_red_mask)
		return;
	ei->fb_addr = gop->Mode->FrameBufferBase;
	ei->fb_size = gop->Mode->FrameBufferSize;
	ei->fb_height = gop->Mode->Info->VerticalResolution;
	ei->fb_width = gop->Mode->Info->HorizontalResolution;
	ei->fb_pixpsl = gop->Mode->Info->PixelsPerScanLine;
}

/* Sizes the buffers from the current map, with room for it to grow. */
static int eb_alloc_bufs(struct eb_state *s, const struct lk_kernel *k,
			 struct eb_info_bufs *b)
{
	UINTN size = 0, key, dsz = 0;
	UINT32 ver;
	EFI_STATUS st;
	lk_u64 n;

	st = s->st->BootServices->GetMemoryMap(&size, LK_NULL, &key, &dsz,
					       &ver);
	if (st != EFI_BUFFER_TOO_SMALL || dsz < sizeof(EFI_MEMORY_DESCRIPTOR)) {
		eb_fail(s, "GetMemoryMap: %s", eb_status_str(st));
		return -1;
	}
	b->map_cap = size + EB_MAP_SLACK * dsz;
	n = b->map_cap / dsz;
	b->ents_cap = (lk_u32)n;
	b->info_cap = (lk_u32)(8192 + LK_CFG_CMDLINE_MAX + b->map_cap +
			       n * sizeof(struct lk_mb2_mmap_entry) +
			       (lk_u64)k->shnum * k->shentsize);
	b->map = eb_pages(s, b->map_cap, 0, 0);
	b->info = eb_pages(s, b->info_cap, EB_4G, 0);
	/* Below 4 GiB too: after the mb2 map it holds the scrub list, read
	 * by the trampoline with paging off. */
	b->ents = eb_pages(s, n * sizeof(*b->ents), EB_4G, 0);
	if (!b->map || !b->ents || !b->info) {
		eb_fail(s, "cannot allocate the boot information");
		return -1;
	}
	return 0;
}

static lk_u32 eb_convert_map(const struct eb_info_bufs *b, UINTN size,
			     UINTN dsz)
{
	lk_u32 n = 0;
	UINTN off;

	for (off = 0; off + dsz <= size && n < b->ents_cap; off += dsz) {
		const EFI_MEMORY_DESCRIPTOR *d =
			(const void *)((const lk_u8 *)b->map + off);
		b->ents[n].addr = d->PhysicalStart;
		b->ents[n].len = d->NumberOfPages << 12;
		b->ents[n].type = lk_mb2_type_from_efi(d->Type);
		b->ents[n].zero = 0;
		n++;
	}
	return lk_mb2_map_normalize(b->ents, n);
}

/* The protocol's info from the final map. Pure computation: must not
 * call the firmware (the map key would go). */
static int eb_build_info(struct eb_state *s, const struct lk_kernel *k,
			 struct eb_info_bufs *b, UINTN size, UINTN dsz,
			 UINT32 ver)
{
	b->m.map = b->ents;
	b->m.nmap = eb_convert_map(b, size, dsz);
	b->m.efi_systab = (lk_u64)(lk_uptr)s->st;
	b->m.efi_map = b->map;
	b->m.efi_map_size = (lk_u32)size;
	b->m.efi_desc_size = (lk_u32)dsz;
	b->m.efi_desc_ver = ver;
	b->m.secure_boot = s->boot.secure_boot;
	if (lk_boot_build_info(&s->boot, k, &b->m, b->info, b->info_cap,
			       &b->entry))
		return -1;
	/* The trampoline leaves long mode only for the PM32 state. */
	if (b->entry.mode == LK_ENTRY_LINUX32) {
		eb_fail(s, "the UEFI stage has no 32-bit Linux entry");
		return -1;
	}
	return 0;
}

/* Memory that is RAM the kernel may use and that we may zero. Linux
 * (keep_bs) reserves boot-services memory until it has called
 * SetVirtualAddressMap (efi_reserve_boot_services): not ours to zero. */
static int eb_scrub_type(UINT32 type, int keep_bs)
{
	if (keep_bs && (type == EfiBootServicesCode ||
			type == EfiBootServicesData))
		return 0;
	return type == EfiConventionalMemory || type == EfiBootServicesCode ||
	       type == EfiBootServicesData || type == EfiLoaderCode;
}

/*
 * Memory the kernel will see as free but that the firmware or this image
 * used: boot-services code/data (disk and FAT caches hold kit sectors),
 * conventional memory (freed buffers), and loader code (this application,
 * whose data holds the config and the kit magic). Our loader-data pages
 * are either kept for the kernel or wiped by us already. Page 0 (BDA/IVT)
 * stays. With below4g only memory below 4 GiB is listed (the scrub then
 * runs with paging off, see trampoline.S).
 */
static lk_u32 eb_scrub_list(const struct eb_info_bufs *b, int below4g,
			    int keep_bs, struct eb_scrub *out, lk_u32 cap)
{
	lk_u32 n = 0;
	UINTN off;

	for (off = 0; off + b->dsz <= b->map_size && n < cap; off += b->dsz) {
		const EFI_MEMORY_DESCRIPTOR *d =
			(const void *)((const lk_u8 *)b->map + off);
		lk_u64 a = d->PhysicalStart, e = a + (d->NumberOfPages << 12);
		if (!eb_scrub_type(d->Type, keep_bs))
			continue;
		a = a < 0x1000 ? 0x1000 : a;
		if (below4g && e > EB_4G)
			e = EB_4G;
		if (a >= e)
			continue;
		out[n].addr = a;
		out[n].len = e - a;
		n++;
	}
	return n;
}

#define EB_PT_MAX_GIB 512 /* one PDPT: enough for any machine we boot */

/*
 * An identity map of all RAM with 2 MiB pages, in loader-data pages, so
 * the trampoline can scrub every byte of firmware memory (page tables
 * included) before leaving long mode. Returns the CR3 value or 0 when we
 * must keep the firmware's tables (5-level paging, huge memory, no pages).
 */
static lk_u64 eb_identity_map(struct eb_state *s, struct eb_info_bufs *b)
{
	UINTN key, off;
	UINT32 ver;
	lk_u64 top = 0, cr4, *pml4, *pdpt, *pd;
	lk_u32 ngib, i, j;

	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	b->map_size = b->map_cap;
	if ((cr4 & (1u << 12)) ||
	    s->st->BootServices->GetMemoryMap(&b->map_size, b->map, &key,
					      &b->dsz, &ver) != EFI_SUCCESS)
		return 0;
	for (off = 0; off + b->dsz <= b->map_size; off += b->dsz) {
		const EFI_MEMORY_DESCRIPTOR *d =
			(const void *)((const lk_u8 *)b->map + off);
		lk_u64 e = d->PhysicalStart + (d->NumberOfPages << 12);
		/* Loader data too: a Linux kernel enters on this map, its
		 * image, zero page and initrd must be mapped. */
		if ((eb_scrub_type(d->Type, 0) || d->Type == EfiLoaderData) &&
		    e > top)
			top = e;
	}
	ngib = (lk_u32)((top + (1ull << 30) - 1) >> 30);
	if (ngib == 0 || ngib > EB_PT_MAX_GIB)
		return 0;
	pml4 = eb_pages(s, (2 + (lk_u64)ngib) << 12, 0, 0);
	if (!pml4)
		return 0;
	pdpt = pml4 + 512;
	pd = pdpt + 512;
	lk_memset(pml4, 0, (2 + (lk_size)ngib) << 12);
	pml4[0] = (lk_u64)(lk_uptr)pdpt | 3; /* present, writable */
	for (i = 0; i < ngib; i++) {
		pdpt[i] = (lk_u64)(lk_uptr)(pd + i * 512) | 3;
		for (j = 0; j < 512; j++)
			pd[i * 512 + j] = ((lk_u64)i << 30 | (lk_u64)j << 21) |
					  0x83; /* present, writable, 2 MiB */
	}
	return (lk_u64)(lk_uptr)pml4;
}

static int eb_exit_boot_services(struct eb_state *s, const struct lk_kernel *k,
				 struct eb_info_bufs *b)
{
	EFI_STATUS st = EFI_INVALID_PARAMETER;
	int tries;

	eb_mp_settle(s);
	/* A retry is normal: an event may allocate between the two calls. */
	for (tries = 0; tries < 8 && st == EFI_INVALID_PARAMETER; tries++) {
		UINTN key = 0;
		UINT32 ver = 0;
		b->map_size = b->map_cap;
		st = s->st->BootServices->GetMemoryMap(&b->map_size, b->map,
						       &key, &b->dsz, &ver);
		if (st != EFI_SUCCESS)
			break;
		if (eb_build_info(s, k, b, b->map_size, b->dsz, ver))
			return -1;
		st = s->st->BootServices->ExitBootServices(s->image, key);
	}
	if (st != EFI_SUCCESS) {
		eb_fail(s, "ExitBootServices: %s", eb_status_str(st));
		return -1;
	}
	s->boot_services_gone = 1;
	return 0;
}

/*
 * A staged kernel lands on memory the firmware held when we looked; if it
 * freed some of it and handed it to one of our later allocations, the
 * copy would destroy that buffer. Refuse rather than corrupt.
 */
static int eb_staging_clash(struct eb_state *s)
{
	lk_u64 lo = s->copy_dst, hi = s->copy_dst + s->copy_len;
	UINTN i;

	for (i = 0; s->copy_len && i < s->nregions; i++) {
		const struct eb_region *r = &s->regions[i];
		lk_u64 e = r->addr + ((lk_u64)r->pages << 12);
		if (!r->kernel && r->addr < hi && e > lo) {
			eb_fail(s, "a boot buffer at 0x%llx overlaps the kernel "
				   "at [0x%llx, 0x%llx)", (lk_u64)r->addr, lo, hi);
			return -1;
		}
	}
	return 0;
}

/* What only the firmware knows, gathered before the final map. */
static void eb_machine(struct eb_state *s, const struct lk_kernel *k,
		       struct eb_info_bufs *b)
{
	eb_find_rsdp(s, b);
	eb_obsd_efiinfo(s, b);
	if (k->proto->boot_disk)
		eb_boot_disk(s, &b->m.bootdev, b->m.duid, &b->m.have_duid);
}

static void eb_jump(struct eb_state *s, lk_u8 *tramp,
		    const struct eb_info_bufs *b, lk_u64 cr3)
{
	struct eb_tramp_args *ta;
	void (*jump)(lk_u8 *base);
	int long64;

	ta = (struct eb_tramp_args *)(tramp + ((const lk_u8 *)&eb_tramp_args -
					       eb_tramp_start));
	ta->wipe_lo = s->stack_hi - EB_STACK_WIPE;
	ta->wipe_len = EB_STACK_WIPE;
	ta->entry = b->entry.entry;
	ta->info = b->entry.info;
	ta->magic = b->entry.magic;
	ta->esp = b->entry.esp;
	ta->mode = b->entry.mode;
	ta->copy_src = (lk_u32)s->copy_src;
	ta->copy_dst = (lk_u32)s->copy_dst;
	ta->copy_len = (lk_u32)s->copy_len;
	/* The mb2 entries were copied into the info: reuse their space. */
	ta->cr3 = cr3;
	/* A 64-bit entry scrubs in long mode on whichever tables are
	 * loaded (the firmware's live in boot-services memory, kept). */
	long64 = b->entry.mode == LK_ENTRY_LONG64;
	ta->scrub_off = cr3 == 0 && !long64;
	ta->scrub_list = (lk_u64)(lk_uptr)b->ents;
	ta->scrub_count = eb_scrub_list(b, ta->scrub_off,
					b->entry.mode != LK_ENTRY_PM32,
					(struct eb_scrub *)b->ents,
					b->ents_cap * 3 / 2);
	jump = (void (*)(lk_u8 *))(lk_uptr)tramp;
	jump(tramp);
	for (;;)
		__asm__ volatile("hlt");
}

void eb_enter(struct lk_boot *lb, const struct lk_kernel *k)
{
	struct eb_state *s = eb_of(lb);
	struct eb_info_bufs b;
	lk_size tsize = (lk_size)(eb_tramp_end - eb_tramp_start);
	lk_u8 *tramp;
	lk_u64 cr3;

	lk_memset(&b, 0, sizeof(b));
	tramp = eb_pages(s, tsize, EB_4G, 0);
	if (!tramp) {
		eb_fail(s, "cannot allocate the trampoline below 4 GiB");
		return;
	}
	lk_memcpy(tramp, eb_tramp_start, tsize);
	eb_machine(s, k, &b);
	if (eb_alloc_bufs(s, k, &b))
		return;
	cr3 = eb_identity_map(s, &b);
	if (eb_staging_clash(s) || eb_exit_boot_services(s, k, &b))
		return;
	/* No firmware from here on. Wipe, then go. */
	eb_wipe_secret_regions(s);
	lk_config_wipe(&s->boot.cfg);
	eb_jump(s, tramp, &b, cr3);
}
