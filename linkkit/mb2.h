/*
 * Multiboot2 boot information builder shared by the UEFI and BIOS stages.
 * Firmware-neutral: callers convert their memory map into
 * struct lk_mb2_mmap_entry (see lk_mb2_type_from_efi for UEFI) and pass
 * plain bytes for everything else. The builder writes into one caller
 * buffer, which must be 8-byte aligned and lie below 4 GiB when handed to
 * the kernel (EBX is 32-bit). Every tag is 8-byte aligned (padding zeroed).
 *
 * Usage:
 *   struct lk_mb2 m;
 *   lk_mb2_begin(&m, buf, cap);
 *   lk_mb2_cmdline(&m, "console=com0"); ... ;
 *   if (lk_mb2_end(&m) != LK_OK) -> buffer too small (m.need says how big)
 * Add functions after a failed one are no-ops; lk_mb2_end reports it.
 */
#ifndef LK_MB2_H
#define LK_MB2_H

#include "lk_types.h"

#define LK_MB2_BOOT_MAGIC 0x36d76289u /* EAX at the kernel entry */

enum lk_mb2_tag_type {
	LK_MB2_TAG_END = 0,
	LK_MB2_TAG_CMDLINE = 1,
	LK_MB2_TAG_LOADER_NAME = 2,
	LK_MB2_TAG_BASIC_MEMINFO = 4,
	LK_MB2_TAG_MMAP = 6,
	LK_MB2_TAG_ELF_SECTIONS = 9,
	LK_MB2_TAG_ACPI_OLD = 14,
	LK_MB2_TAG_ACPI_NEW = 15,
	LK_MB2_TAG_EFI64 = 12,
	LK_MB2_TAG_EFI_MMAP = 17,
	LK_MB2_TAG_LOAD_BASE_ADDR = 21,
};

/* Multiboot2 memory types (tag 6). */
enum lk_mb2_mem_type {
	LK_MB2_MEM_AVAILABLE = 1,
	LK_MB2_MEM_RESERVED = 2,
	LK_MB2_MEM_ACPI_RECLAIMABLE = 3,
	LK_MB2_MEM_NVS = 4,
	LK_MB2_MEM_BADRAM = 5,
};

/* Exactly the layout of one tag-6 entry (24 bytes). */
struct lk_mb2_mmap_entry {
	lk_u64 addr;
	lk_u64 len;
	lk_u32 type; /* enum lk_mb2_mem_type */
	lk_u32 zero;
};
_Static_assert(sizeof(struct lk_mb2_mmap_entry) == 24, "mb2 mmap entry");

struct lk_mb2 {
	lk_u8 *buf;
	lk_u32 cap;
	lk_u32 len;  /* bytes written so far (8-aligned) */
	lk_u32 need; /* bytes the info would need (valid even on overflow) */
	int error;   /* non-zero after an overflow or bad argument */
};

/* Starts the info (total_size + reserved header). buf must be 8-aligned. */
void lk_mb2_begin(struct lk_mb2 *m, void *buf, lk_u32 cap);
/* Tag 1 / 2: NUL-terminated strings (copied with their NUL). */
void lk_mb2_cmdline(struct lk_mb2 *m, const char *s);
void lk_mb2_loader_name(struct lk_mb2 *m, const char *s);
/* Tag 4: KiB of memory below 1 MiB / above 1 MiB (up to the first hole). */
void lk_mb2_basic_meminfo(struct lk_mb2 *m, lk_u32 lower_kb, lk_u32 upper_kb);
/* Computes tag-4 values from a memory map (available RAM from 0 and from
 * 1 MiB, contiguous only, as the spec defines them). */
void lk_mb2_meminfo_from_map(const struct lk_mb2_mmap_entry *e, lk_u32 n,
			     lk_u32 *lower_kb, lk_u32 *upper_kb);
/* Tag 6: entry_size 24, entry_version 0. */
void lk_mb2_mmap(struct lk_mb2 *m, const struct lk_mb2_mmap_entry *e,
		 lk_u32 n);
/* Tag 14 (v1 RSDP, 20 bytes) or 15 (v2 XSDP, its length field); `rsdp`
 * is copied as is, `len` bytes. */
void lk_mb2_acpi_rsdp(struct lk_mb2 *m, int v2, const void *rsdp,
		      lk_u32 len);
/*
 * Tag 9: num, entsize, shndx as u32 each (GRUB's layout, which kernels use;
 * the spec text shows u16 fields but GRUB and every kernel parse u32),
 * then `num` section headers copied from shdrs (num * entsize bytes).
 * Sections the kernel should see (.symtab/.strtab) must already have
 * sh_addr pointing at memory the caller keeps (see lk_link_elf_emit and
 * lk_mb2_elf_view_from_file).
 */
void lk_mb2_elf_sections(struct lk_mb2 *m, lk_u32 num, lk_u32 entsize,
			 lk_u32 shndx, const void *shdrs);
/* Tag 12: EFI 64-bit system table pointer. */
void lk_mb2_efi64(struct lk_mb2 *m, lk_u64 systab);
/* Tag 17: the raw EFI memory map (descriptor size/version as given). */
void lk_mb2_efi_mmap(struct lk_mb2 *m, lk_u32 desc_size, lk_u32 desc_version,
		     const void *map, lk_u32 size);
/* Tag 21: physical load base of the image. */
void lk_mb2_load_base(struct lk_mb2 *m, lk_u32 base);
/* Adds the end tag and writes total_size. Returns 0 (LK_OK) or non-zero
 * when anything did not fit (m->need then gives the size needed). */
int lk_mb2_end(struct lk_mb2 *m);

/*
 * The relocatable header tag (10) of a kernel's Multiboot2 header: the
 * kernel accepts any physical base in [min_addr, max_addr - size] that is
 * a multiple of align, and finds out where it is from info tag 21.
 */
struct lk_mb2_reloc {
	lk_u32 min_addr, max_addr, align, preference;
};
/*
 * Looks for a valid Multiboot2 header (magic, i386, checksum, length
 * inside the buffer) 8-aligned in the first 32 KiB of buf (a file, or an
 * image whose first bytes are the file's) and for tag 10 in it. Every
 * tag is bounds-checked. Returns 1 with *out set when the tag is there
 * and sane (align 0 or a power of two up to 1 GiB, min_addr <= max_addr),
 * else 0.
 */
int lk_mb2_header_reloc(const void *buf, lk_u64 size, struct lk_mb2_reloc *out);

/* UEFI memory type (EfiConventionalMemory = 7, ...) to a Multiboot2 type:
 * loader/boot-services code/data and conventional memory are available
 * (boot services are gone at the jump), ACPI reclaim -> 3, NVS -> 4,
 * unusable -> 5, everything else reserved. */
lk_u32 lk_mb2_type_from_efi(lk_u32 efi_type);

/*
 * Converts a memory map in place: sorts by address and merges adjacent
 * entries of the same type. Returns the new count.
 */
lk_u32 lk_mb2_map_normalize(struct lk_mb2_mmap_entry *e, lk_u32 n);

/*
 * ELF-sections view of a fallback ELF64 file: copies its section headers
 * into `out` and every non-SHF_ALLOC SHT_SYMTAB/SHT_STRTAB section
 * (.symtab, .strtab, .shstrtab) after them, setting those sh_addr to
 * out_addr + offset (where `out` will be for the kernel). Allocated
 * sections keep their sh_addr; other non-allocated ones (debug info) are
 * not copied and keep the file's sh_addr (0). Every offset/size is bounds-checked
 * against `size`. Returns 0 and sets num, entsize, shndx and used, or
 * non-zero (bad ELF, or out too small: *used = bytes needed).
 * With out == LK_NULL only computes *used.
 */
int lk_mb2_elf_view_from_file(const void *elf, lk_u64 size, void *out,
			      lk_u64 out_size, lk_u64 out_addr, lk_u32 *num,
			      lk_u32 *entsize, lk_u32 *shndx, lk_u64 *used);

#endif
