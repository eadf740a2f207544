/*
 * OpenBSD amd64 boot protocol (boot(8)/efiboot to locore0), shared by the
 * UEFI and BIOS stages. Firmware-neutral like mb2.h: callers convert
 * their memory map to struct lk_mb2_mmap_entry and pass plain values.
 *
 * The kernel entry is called in 32-bit protected mode, paging off, as a
 * cdecl function: at entry (%esp) is a return address and 4(%esp) ..
 * 32(%esp) hold the eight 32-bit words of struct lk_obsd_args. `av`
 * points at the boot-argument list: records {int type; int size (12 +
 * payload); int next (0); payload}, back to back, ended by an int -1.
 * Layouts follow OpenBSD's sys/arch/amd64/include/biosvar.h.
 */
#ifndef LK_OBSD_BOOT_H
#define LK_OBSD_BOOT_H

#include "lk_types.h"
#include "mb2.h"

/* BAPIV_VECTOR | BAPIV_ENV | BAPIV_BMEMMAP: bootarg vector, memory map
 * sizes in bytes. */
#define LK_OBSD_APIVER 0x0000000eu
#define LK_OBSD_BOOTARG_MEMMAP 0
#define LK_OBSD_BOOTARG_CONSDEV 5
#define LK_OBSD_BOOTARG_BOOTDUID 9
#define LK_OBSD_BOOTARG_EFIINFO 11
#define LK_OBSD_BOOTARG_UCODE 12
#define LK_OBSD_BOOTARG_END (-1)
/* bootdev magic (B_DEVMAGIC) with type wd, unit 0, partition a. */
#define LK_OBSD_BOOTDEV_WD0A 0xa0000000u
/* makedev(8, 0): com0 on amd64. */
#define LK_OBSD_DEV_COM0 0x0800
#define LK_OBSD_EFI_64BIT 0x1u /* bios_efiinfo flags: BEI_64BIT */
#define LK_OBSD_MAX_LIST 4096u /* locore0 copies at most one page */

/* The eight stack words after the return address. */
struct lk_obsd_args {
	lk_u32 howto, bootdev, apiver, end, extmem, cnvmem, ac, av;
};

/* bios_memmap_t: types 1 free, 2 reserved, 3 ACPI, 4 NVS; 0 ends. */
struct __attribute__((packed)) lk_obsd_memmap {
	lk_u64 addr, size;
	lk_u32 type;
};
_Static_assert(sizeof(struct lk_obsd_memmap) == 20, "bios_memmap_t");

/* bios_consdev_t */
struct __attribute__((packed)) lk_obsd_consdev {
	lk_i32 consdev, conspeed;
	lk_u64 consaddr;
	lk_i32 consfreq;
	lk_u32 flags, reg_width, reg_shift;
};
_Static_assert(sizeof(struct lk_obsd_consdev) == 32, "bios_consdev_t");

/* bios_efiinfo_t (7.3): the memory map's version and sizes are 32-bit,
 * so mmap_start sits at offset 76 and system_table at 84. The real
 * GENERIC kernel's efi_machdep.o reads flags at 0x3c, mmap_desc_ver at
 * 0x40, mmap_desc_size 0x44, mmap_size 0x48, system_table 0x54 and
 * config_esrt 0x5c (docs/CONVENTIONS.md, "OpenBSD boot arguments"). */
struct __attribute__((packed)) lk_obsd_efiinfo {
	lk_u64 config_acpi, config_smbios, fb_addr, fb_size;
	lk_u32 fb_height, fb_width, fb_pixpsl;
	lk_u32 fb_red_mask, fb_green_mask, fb_blue_mask, fb_reserved_mask;
	lk_u32 flags;
	lk_u32 mmap_desc_ver, mmap_desc_size, mmap_size;
	lk_u64 mmap_start, system_table, config_esrt;
};
_Static_assert(sizeof(struct lk_obsd_efiinfo) == 100, "bios_efiinfo_t");
_Static_assert(__builtin_offsetof(struct lk_obsd_efiinfo, system_table) == 0x54,
	       "bios_efiinfo_t system_table");

/* Builder over one caller buffer; a failed add makes later ones no-ops
 * and lk_obsd_end report it (need says how big it had to be). */
struct lk_obsd {
	lk_u8 *buf;
	lk_u32 cap, len, need;
	int error;
};

void lk_obsd_begin(struct lk_obsd *o, void *buf, lk_u32 cap);
/* BOOTARG_MEMMAP from a normalized map (badram becomes reserved). */
void lk_obsd_memmap(struct lk_obsd *o, const struct lk_mb2_mmap_entry *e,
		    lk_u32 n);
/* BOOTARG_CONSDEV: serial com`unit` at `speed` baud, I/O port `port`. */
void lk_obsd_consdev_com(struct lk_obsd *o, lk_u32 unit, lk_u32 speed,
			 lk_u64 port);
void lk_obsd_efiinfo(struct lk_obsd *o, const struct lk_obsd_efiinfo *ei);
/* Appends the end marker. 0 (LK_OK) or non-zero if anything overflowed
 * or the list is larger than a kernel copies (LK_OBSD_MAX_LIST). */
int lk_obsd_end(struct lk_obsd *o);

/* 1 if the kernel command line asks for a serial console (console=com*). */
int lk_obsd_wants_serial(const char *cmdline);
/* N of the command line's console=comN (0..3), or -1. */
int lk_obsd_serial_unit(const char *cmdline);

/*
 * Fills the stack arguments: end is the physical end of the loaded kernel
 * (rounded to 8 like boot(8)'s marks), memory sizes come from the map;
 * howto and bootdev are the caller's (set before or after).
 */
void lk_obsd_args_fill(struct lk_obsd_args *a, const struct lk_obsd *o,
		       lk_u32 list_addr, lk_u64 kernel_end,
		       const struct lk_mb2_mmap_entry *e, lk_u32 n);

/* The kernel's initial stack: words[0] a zero return address, then the
 * arguments; the stage enters with ESP = the address of words[0]. */
#define LK_OBSD_STACK_WORDS 9
/* MAKEBOOTDEV device types (B_TYPE): majors of wd, fd, sd. */
#define LK_OBSD_DEV_WD 0u
#define LK_OBSD_DEV_FD 2u
#define LK_OBSD_DEV_SD 4u
/* BOOTARG_UCODE: CPU microcode at physical addr, size bytes
 * (bios_ucode_t: two packed u64). */
void lk_obsd_ucode(struct lk_obsd *o, lk_u64 addr, lk_u64 size);
/* BOOTARG_BOOTDUID: the boot disk's 8-byte disklabel DUID (d_uid). */
void lk_obsd_bootduid(struct lk_obsd *o, const lk_u8 *duid);
/* The loaders' guess of a labelled disk's driver from d_type: SCSI is
 * sd, everything else (ESDI, ST506, unknown) wd. */
lk_u32 lk_obsd_dev_type(lk_u32 d_type);
/* bootdev of partition a of disk `type` unit `unit`. */
lk_u32 lk_obsd_bootdev_disk(lk_u32 type, lk_u32 unit);
/* bootdev for a BIOS drive number, as biosboot names a disk without an
 * OpenBSD disklabel: hard disk 0x80+n is wd<n>a, floppy n is fd<n>a. */
lk_u32 lk_obsd_bootdev_bios(lk_u8 drive);
void lk_obsd_stack(lk_u32 *words, const struct lk_obsd_args *a);

#endif
