/*
 * Internal interface of the UEFI boot stage (efi/). One boot state struct
 * is passed around; everything secret lives in memory it records, so the
 * final wipe can find it.
 */
#ifndef EFIBOOT_H
#define EFIBOOT_H

#include <efi.h>
#include <efilib.h>

#include "../linkkit/config.h"
#include "../linkkit/linkkit.h"
#include "../linkkit/mb2.h"

#define EB_REASON_MAX 240
#define EB_MAX_REGIONS 64

/* A page allocation we own: wiped before the jump, freed on failure. */
struct eb_region {
	EFI_PHYSICAL_ADDRESS addr;
	UINTN pages;
	int wipe; /* holds secrets (kit, payload, seed): wipe before the jump */
	int kernel; /* part of the staged kernel's destination */
};

/* Where the kernel image is being built (place.c). */
struct eb_place {
	lk_u64 lo, hi;	   /* its link-time physical range */
	lk_u64 base, top;  /* the same, page-rounded */
	lk_u8 *buf;	   /* base's bytes are written here */
	int pending;	   /* not at base yet: eb_settle_kernel decides */
	EFI_STATUS status; /* of the AllocateAddress at base */
};

struct eb_state {
	EFI_HANDLE image;
	EFI_SYSTEM_TABLE *st;
	EFI_FILE_HANDLE root;
	struct lk_host host;
	struct lk_config cfg;
	char reason[EB_REASON_MAX]; /* first error line: the fallback reason */
	int boot_services_gone;
	int quiet_errors;
	lk_u32 entropy_warned; /* entropy.c: warnings already printed */ /* collect errors as the reason instead of printing */
	struct eb_region regions[EB_MAX_REGIONS];
	UINTN nregions;
	lk_u64 stack_hi; /* efi_main's frame: the stack wipe starts below it */
	/* Staged kernel: the trampoline copies it into place once the
	 * firmware has let go of that memory, then wipes the staging copy. */
	lk_u64 copy_src, copy_dst, copy_len;
	struct eb_place place;
	/* UEFI Secure Boot enforcing (secureboot.c): the stage refuses what
	 * would break the chain of trust. */
	int secure_boot;
	/* Signature key (lk_config_pubkey): when set, the kit and the
	 * fallback must be signed by it. */
	int have_key;
	struct lk_pubkey key;
	/* Leak-test builds only (efi/leaktest.c): sees every page region
	 * as it is allocated. LK_NULL in production. */
	void (*page_hook)(struct eb_state *s, struct eb_region *r, lk_u64 size);
	/* Leak-test -neg build only: eb_release_all neither wipes nor frees
	 * (what a failed relink held stays, as if it were forgotten). */
	int keep_released;
	/* mp.c: the event the firmware signals once the APs that inflate
	 * and write for the boot processor are back (closed by
	 * eb_mp_settle). */
	EFI_EVENT mp_event;
	int mp_event_done;
};

/* efi_host.c */
void eb_host_init(struct eb_state *s);
/* Called at the end of eb_host_init: a weak no-op here, the canary
 * allocator of the leak-test build (efi/leaktest.c) there. */
void eb_variant_init(struct eb_state *s);
void eb_print(struct eb_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void eb_fail(struct eb_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *eb_status_str(EFI_STATUS st);
lk_u64 eb_rdtsc(void);
/* Pages anywhere (max_addr 0) or below max_addr, or exactly at *addr
 * with exact != 0. Records the region; returns LK_NULL on failure. */
void *eb_pages(struct eb_state *s, lk_u64 size, lk_u64 max_addr, int wipe);
void *eb_pages_at(struct eb_state *s, lk_u64 addr, lk_u64 size, int wipe,
		  EFI_STATUS *st);
/* Wipes and frees the region that starts at p (and forgets it). */
void eb_pages_free(struct eb_state *s, void *p);
/* Wipes and frees every recorded region. */
void eb_release_all(struct eb_state *s);
/* Wipes every region marked as secret (usable after ExitBootServices). */
void eb_wipe_secret_regions(struct eb_state *s);

/* efi_file.c: whole-file read from the boot volume into fresh pages. */
int eb_open_root(struct eb_state *s);
int eb_read_file(struct eb_state *s, const char *path, int wipe, void **data,
		 lk_u64 *size, EFI_STATUS *err);

/* prompt.c: non-zero when the operator chose the fallback (timeout > 0). */
int eb_prompt_fallback(struct eb_state *s);

/* entropy.c: gathers every available source into the generator. */
void eb_entropy_seed(struct eb_state *s, struct lk_rng *rng);

/* bootdisk.c: bootdev of the boot disk and, when its OpenBSD disklabel
 * is found (read only), its DUID; else one line saying why not. */
void eb_boot_disk(struct eb_state *s, lk_u32 *bootdev, lk_u8 *duid,
		  int *have);

/* handoff.c */
struct eb_kernel {
	lk_u64 entry;     /* physical entry address */
	lk_u64 load_lo, load_hi;
	const char *loader_name;
	/* ELF-sections view: section headers at shdrs (in pages we keep). */
	const void *shdrs;
	lk_u32 shnum, shentsize, shstrndx;
	lk_u32 protocol;
};
/* Builds the Multiboot2 info, exits boot services, wipes, jumps. Returns
 * only on failure before ExitBootServices (reason set). `cleanup` runs
 * after ExitBootServices to wipe what the caller still holds. */
void eb_handoff(struct eb_state *s, const struct eb_kernel *k,
		void (*cleanup)(struct eb_state *s, void *arg), void *arg);

/* place.c: pages for the kernel's link-time range [lo, hi), or a staging
 * buffer when the firmware holds part of it (returns where lo's byte goes).
 * Once the image is written, eb_settle_kernel decides for a staged one:
 * copied into place at the jump, moved to free memory (relocatable
 * Multiboot2 kernels; k's addresses then shift), or refused with the
 * reason set. hdr: the bytes holding the Multiboot2 header (the file). */
void *eb_place_kernel(struct eb_state *s, lk_u64 lo, lk_u64 hi);
int eb_settle_kernel(struct eb_state *s, struct eb_kernel *k, const void *hdr,
		     lk_u64 hdr_size);

/* secureboot.c: reads SecureBoot/SetupMode, then applies the Secure Boot
 * policy to the parsed config (one line per refusal). builtin: the
 * built-in key's base64 line or LK_NULL. */
void eb_secure_boot_policy(struct eb_state *s, const char *builtin);

/* mp.c: lk_kit_inflate, with the application processors (EFI MP
 * Services) taking segments of a segmented kit alongside this one. */
int eb_inflate_kit(struct eb_state *s, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 size);
/* mp.c: lk_link_write, with the application processors writing parts
 * of the image while this one writes the rest (lk_link_write_begin). */
int eb_write_image(struct eb_state *s, struct lk_link *L, void *dst,
		   struct lk_rng *rng);
/* Before ExitBootServices or returning to the firmware: lets the MP
 * library see the APs back, closes the event. */
void eb_mp_settle(struct eb_state *s);

/* trampoline.S */
extern const lk_u8 eb_tramp_start[], eb_tramp_end[];
/* Offsets inside the trampoline blob (see trampoline.S). */
#define EB_TRAMP_ENTRY_OFF 0 /* 64-bit entry: (blob, wipe_lo, wipe_len) */
#endif
