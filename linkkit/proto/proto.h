/*
 * Kernel hand-over protocols as a table: one file and one row each
 * (multiboot2.c, openbsd.c, none.c). Everything that differs between
 * protocols is a field of the row; the config parser, the policy parser,
 * the CLI, the kit check and both boot stages look protocols up here and
 * nowhere else. docs/CONVENTIONS.md, "Adding a kernel protocol".
 */
#ifndef LK_PROTO_PROTO_H
#define LK_PROTO_PROTO_H

#include "../lk_host.h"
#include "../config.h"
#include "../lk_types.h"
#include "../mb2.h"
#include "../obsd_boot.h"
#include "linux.h"

struct lk_link;
struct lk_elf_image;

/* What the machine tells the info builders, filled by the stage once
 * its memory map is final (UEFI: just before ExitBootServices). */
struct lk_machine {
	const struct lk_mb2_mmap_entry *map; /* normalised (lk_mb2_map_normalize) */
	lk_u32 nmap;
	const void *rsdp_old, *rsdp_new; /* ACPI 1.0 / 2.0+ RSDP, or LK_NULL */
	lk_u32 rsdp_new_len;
	/* UEFI only (efi_systab 0 under BIOS): the final EFI memory map. */
	lk_u64 efi_systab;
	const void *efi_map;
	lk_u32 efi_map_size, efi_desc_size, efi_desc_ver;
	const struct lk_obsd_efiinfo *obsd_efi; /* firmware part, map added */
	int secure_boot; /* UEFI Secure Boot enforcing (efi/secureboot.c) */
	/* The boot disk, for OpenBSD's bootdev and BOOTARG_BOOTDUID. */
	lk_u32 bootdev;
	int have_duid;
	lk_u8 duid[8];
};

/* The kernel as both stages hand it over. */
struct lk_kernel {
	const struct lk_proto *proto;
	lk_u64 entry;            /* physical entry address */
	lk_u64 load_lo, load_hi; /* its range, symbol block included */
	const char *loader_name;
	/* ELF-sections view (rows with elf_view): section headers at shdrs,
	 * in memory the kernel keeps. */
	const void *shdrs;
	lk_u32 shnum, shentsize, shstrndx;
	/* Linux (linux.c): the checked image (kind 0 for other rows), and
	 * the initrd the boot layer placed (size 0: none). load_lo is where
	 * the stage put the kernel. */
	struct lk_linux_image lx;
	lk_u64 initrd_addr, initrd_size;
};

/* How the CPU enters the kernel. LK_ENTRY_PM32 (0, every row but
 * linux): 32-bit protected mode, paging off, interrupts off, flat
 * segments 0x08/0x10, EAX = magic, EBX = info. The Linux row
 * (boot.rst): GDT with __BOOT_CS 0x10 and __BOOT_DS 0x18, interrupts
 * off, ESI/RSI = info (boot_params), EBX = EBP = EDI = 0; LINUX32 with
 * paging off, LONG64 in 64-bit mode on an identity map covering the
 * kernel, the zero page, the command line and the initrd. */
#define LK_ENTRY_PM32 0u
#define LK_ENTRY_LINUX32 1u
#define LK_ENTRY_LONG64 2u

struct lk_entry {
	lk_u32 mode;  /* LK_ENTRY_*; lk_boot_build_info zeroes the struct */
	lk_u32 entry; /* EIP */
	lk_u32 magic; /* EAX */
	lk_u32 info;  /* EBX */
	lk_u32 esp;   /* ESP, or 0: the kernel sets its own stack */
};

/* What an info builder reads. */
struct lk_handover {
	const struct lk_kernel *k;
	const struct lk_machine *m;
	const char *cmdline;
	const struct lk_obsd_opts *obsd; /* boot(8)'s options (config.h) */
	int good_seed; /* a trusted entropy source seeded the generator */
	lk_u64 ucode_addr, ucode_size; /* CPU microcode, or 0 */
};

struct lk_proto {
	const char *name; /* as RELINK.CFG, the policy and the CLI spell it */
	lk_u32 id;        /* enum lk_protocol: the kit's and the note's value */
	/* Pass the ELF-sections view (Multiboot2 tag 9). Elsewhere it would
	 * be a copy of the layout that nobody owns, left in RAM. */
	int elf_view;
	/* A Multiboot2 relocatable header tag may move the kernel when its
	 * link address is taken (UEFI placement). */
	int may_relocate;
	/* Wants the boot disk (bootdev, its disklabel's DUID) in the
	 * machine information: the stage reads its label only then. */
	int boot_disk;
	/* Takes CPU microcode from the loader (OpenBSD's BOOTARG_UCODE):
	 * the stage looks for the file only then (linkkit/boot/ucode.c). */
	int ucode;
	/* The range past the image the kernel is given (OpenBSD's symbol
	 * block): its end, and writing it. LK_NULL: the image alone. */
	lk_u64 (*link_end)(const struct lk_link *L);
	int (*link_place)(const struct lk_link *L, void *image);
	lk_u64 (*elf_end)(const void *elf, lk_u64 size,
			  const struct lk_elf_image *img);
	int (*elf_place)(const struct lk_host *h, const void *elf, lk_u64 size,
			 const char *name, const struct lk_elf_image *img,
			 void *image);
	/* Builds the boot information into buf (cap bytes, at physical
	 * address buf itself, below 4 GiB) and the entry state. Pure: no
	 * firmware calls (UEFI's map key must stay valid). 0, or -1 with
	 * one line logged through h. */
	int (*build)(const struct lk_host *h, const struct lk_handover *ho,
		     void *buf, lk_u32 cap, struct lk_entry *out);
};

/* The row with this id or name, or LK_NULL. */
const struct lk_proto *lk_proto_by_id(lk_u32 id);
const struct lk_proto *lk_proto_by_name(const char *name, lk_size len);
/* "none, multiboot2 or openbsd": every row's name, for error lines and
 * usage texts (cut at cap). */
void lk_proto_list(char *buf, lk_size cap);
/* The name of id, or "unknown". */
const char *lk_proto_name(lk_u32 id);

/* The kernel's end and symbol block through its row. */
lk_u64 lk_proto_link_end(const struct lk_proto *p, const struct lk_link *L);
int lk_proto_link_place(const struct lk_proto *p, const struct lk_link *L,
			void *image);
lk_u64 lk_proto_elf_end(const struct lk_proto *p, const void *elf,
			lk_u64 size, const struct lk_elf_image *img);
int lk_proto_elf_place(const struct lk_proto *p, const struct lk_host *h,
		       const void *elf, lk_u64 size, const char *name,
		       const struct lk_elf_image *img, void *image);

extern const struct lk_proto lk_proto_none;
extern const struct lk_proto lk_proto_multiboot2;
extern const struct lk_proto lk_proto_openbsd;
extern const struct lk_proto lk_proto_linux;

#endif
