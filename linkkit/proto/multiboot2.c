/*
 * Multiboot2 (the demo kernel, GRUB-style kernels): EAX the magic, EBX the
 * boot information; the ELF-sections view as tag 9; under UEFI also the
 * system table and the final EFI memory map (tags 12 and 17).
 */
#include "proto.h"
#include "../linkkit.h"

#define LK_4G 0x100000000ull

static void lk_mb2_add_memory(struct lk_mb2 *mb, const struct lk_machine *m)
{
	lk_u32 lo = 0, hi = 0;

	lk_mb2_meminfo_from_map(m->map, m->nmap, &lo, &hi);
	lk_mb2_basic_meminfo(mb, lo, hi);
	lk_mb2_mmap(mb, m->map, m->nmap);
}

static void lk_mb2_add_acpi(struct lk_mb2 *mb, const struct lk_machine *m)
{
	if (m->rsdp_old)
		lk_mb2_acpi_rsdp(mb, 0, m->rsdp_old, 20);
	if (m->rsdp_new)
		lk_mb2_acpi_rsdp(mb, 1, m->rsdp_new, m->rsdp_new_len);
}

static int lk_mb2_build(const struct lk_host *h, const struct lk_handover *ho,
			void *buf, lk_u32 cap, struct lk_entry *out)
{
	const struct lk_kernel *k = ho->k;
	const struct lk_machine *m = ho->m;
	struct lk_mb2 mb;

	lk_mb2_begin(&mb, buf, cap);
	lk_mb2_cmdline(&mb, ho->cmdline);
	lk_mb2_loader_name(&mb, k->loader_name);
	lk_mb2_add_memory(&mb, m);
	lk_mb2_add_acpi(&mb, m);
	if (k->shdrs)
		lk_mb2_elf_sections(&mb, k->shnum, k->shentsize, k->shstrndx,
				    k->shdrs);
	if (m->efi_systab) {
		lk_mb2_efi64(&mb, m->efi_systab);
		lk_mb2_efi_mmap(&mb, m->efi_desc_size, m->efi_desc_ver,
				m->efi_map, m->efi_map_size);
	}
	if (k->load_lo < LK_4G)
		lk_mb2_load_base(&mb, (lk_u32)k->load_lo);
	if (lk_mb2_end(&mb) != LK_OK) {
		lk_log(h, LK_LOG_ERROR,
		       "boot information needs %u bytes (room for %u)", mb.need,
		       cap);
		return -1;
	}
	out->entry = (lk_u32)k->entry;
	out->magic = LK_MB2_BOOT_MAGIC;
	out->info = (lk_u32)(lk_uptr)buf;
	out->esp = 0;
	return 0;
}

const struct lk_proto lk_proto_multiboot2 = {
	.name = "multiboot2",
	.id = LK_PROTO_MULTIBOOT2,
	.elf_view = 1,
	.may_relocate = 1,
	.build = lk_mb2_build,
};
