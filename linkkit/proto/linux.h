/*
 * Linux x86-64 images as the boot protocol (Documentation/x86/boot.rst,
 * zero-page.rst) describes them: a bzImage (setup header "HdrS" at 0x1f1,
 * the protected-mode kernel after the setup sectors) or an ELF vmlinux
 * (PT_LOAD at p_paddr, e_entry the physical startup_64). Both are
 * relocatable: the stage chooses an aligned physical address and passes
 * it in the zero page. Every field read from the file is checked; a
 * refusal is one line "NAME: ..." naming the field.
 */
#ifndef LK_PROTO_LINUX_H
#define LK_PROTO_LINUX_H

#include "../lk_host.h"
#include "../lk_types.h"

#define LK_LINUX_HDR_OFF 0x1f1u /* setup header in the file and zero page */
#define LK_LINUX_HDR_MAX 0x9fu	/* up to 0x290, edd_mbr_sig_buffer */
#define LK_LINUX_ZP_SIZE 4096u	/* struct boot_params */
#define LK_LINUX_MIN_VERSION 0x020cu	 /* 2.12: xloadflags */
#define LK_LINUX_VMLINUX_ALIGN 0x200000u /* head64.c wants 2 MiB */

enum lk_linux_kind { LK_LINUX_NONE = 0, LK_LINUX_VMLINUX, LK_LINUX_BZIMAGE };

/* What the stage needs to place and enter one image. */
struct lk_linux_image {
	lk_u32 kind;	    /* enum lk_linux_kind */
	lk_u32 relocatable; /* else it must go exactly at pref */
	lk_u64 mem;	    /* bytes the kernel owns from its load address */
	lk_u64 align;	    /* of the load address (power of two) */
	lk_u64 pref;	    /* preferred (or fixed) load address */
	lk_u64 entry64;	    /* offset of the 64-bit entry, ~0: none */
	lk_u64 entry32;	    /* offset of the 32-bit entry, ~0: none */
	lk_u32 initrd_max;  /* highest address an initrd byte may have */
	lk_u32 cmdline_max; /* bytes of command line, NUL excluded */
	/* A vmlinux the stage relinked (and moved, policy random-base):
	 * KASLR_FLAG in the zero page, so that the kernel randomizes its
	 * memory regions as after its own decompressor's KASLR. */
	lk_u32 kaslr;
	/* bzImage: its setup header, copied into the zero page. */
	lk_u32 hdr_len;
	lk_u8 hdr[LK_LINUX_HDR_MAX];
};

/* Which kind the bytes look like (no checks beyond the magic: a
 * bzImage's boot_flag and "HdrS", or an ELF with a "Linux" note). */
lk_u32 lk_linux_sniff(const void *data, lk_u64 size);
/* Full checks of a bzImage / an ELF vmlinux. 0, or -1 with one line. */
int lk_linux_bzimage_check(const struct lk_host *h, const void *data,
			   lk_u64 size, const char *name,
			   struct lk_linux_image *out);
int lk_linux_vmlinux_check(const struct lk_host *h, const void *data,
			   lk_u64 size, const char *name,
			   struct lk_linux_image *out);
/* An ELF vmlinux loaded at physical [lo, hi) with its entry (startup_64)
 * at physical entry: how the stages load and place it (2 MiB aligned,
 * relocatable, 64-bit entry only); kaslr left 0. */
void lk_linux_vmlinux_describe(struct lk_linux_image *out, lk_u64 lo,
			       lk_u64 hi, lk_u64 entry);
/* bzImage if it has the magic, else vmlinux. */
int lk_linux_check(const struct lk_host *h, const void *data, lk_u64 size,
		   const char *name, struct lk_linux_image *out);
/* Writes the kernel as it runs from its load address into dst (img->mem
 * bytes; what the file does not fill is zeroed). data as checked. */
void lk_linux_load(const void *data, lk_u64 size,
		   const struct lk_linux_image *img, void *dst);

#endif
