/*
 * Internal interface of the UEFI boot stage (efi/). One boot state struct
 * is passed around; everything secret lives in memory it records, so the
 * final wipe can find it.
 */
#ifndef EFIBOOT_H
#define EFIBOOT_H

#include <efi.h>
#include <efilib.h>

#include "../linkkit/boot/boot.h"
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
	/* The shared boot sequence (linkkit/boot/): config, key, reason,
	 * the core's host. boot.stage points back here. */
	struct lk_boot boot;
	int boot_services_gone;
	UINTN watchdog_s; /* EB_WATCHDOG_S (the hang-test build: 5) */
	struct eb_region regions[EB_MAX_REGIONS];
	UINTN nregions;
	lk_u64 stack_hi; /* efi_main's frame: the stack wipe starts below it */
	/* Staged kernel: the trampoline copies it into place once the
	 * firmware has let go of that memory, then wipes the staging copy. */
	lk_u64 copy_src, copy_dst, copy_len;
	struct eb_place place;
	/* Leak-test builds only (efi/leaktest.c): sees every page region
	 * as it is allocated. LK_NULL in production. */
	void (*page_hook)(struct eb_state *s, struct eb_region *r, lk_u64 size);
	/* mp.c: the event the firmware signals once the APs that inflate
	 * and write for the boot processor are back (closed by
	 * eb_mp_settle). */
	EFI_EVENT mp_event;
	int mp_event_done;
	/* `tty` named a UART other than COM1 (where PC firmware keeps its
	 * own serial console): lines and keys go there too; 0: none. */
	lk_u32 uart;
};

static inline struct eb_state *eb_of(struct lk_boot *b)
{
	return b->stage;
}

/* efi_host.c */
void eb_host_init(struct eb_state *s);
/* Called at the end of eb_host_init: a weak no-op here, the canary
 * allocator of the leak-test build (efi/leaktest.c) there. */
void eb_variant_init(struct eb_state *s);
#define eb_print(s, ...) lk_boot_print(&(s)->boot, __VA_ARGS__)
#define eb_fail(s, ...) lk_boot_fail(&(s)->boot, __VA_ARGS__)
const char *eb_status_str(EFI_STATUS st);
/* The stage's hooks of the shared sequence (struct lk_boot_ops). */
void *eb_alloc_big(struct lk_boot *b, lk_u64 size, int secret);
void eb_free_big(struct lk_boot *b, void *p, lk_u64 size);
void *eb_alloc_kept(struct lk_boot *b, lk_u64 size);
void eb_console(struct lk_boot *b, lk_u32 port, lk_u32 speed);
void *eb_alloc_kept_below(struct lk_boot *b, lk_u64 size, lk_u64 limit);
void eb_release(struct lk_boot *b);
void eb_print_line(struct lk_boot *b, const char *line);
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

/* efi_file.c: whole-file read from the boot volume into fresh pages
 * (the read_file hook: one error line "PATH: ..." on failure). */
int eb_open_root(struct eb_state *s);
int eb_read_file(struct lk_boot *b, const char *path, int secret,
		 void **data, lk_u64 *size);

/* prompt.c: the console input and delay hooks. */
/* The firmware's watchdog while the stage runs unattended (efi/prompt.c):
 * 5 minutes, a code outside the firmware's reserved 0..0xffff. */
#define EB_WATCHDOG_S 300
#define EB_WATCHDOG_CODE 0x524c4b42u /* "RLKB" */
void eb_watchdog(struct eb_state *s, int on);
int eb_poll_key(struct lk_boot *b);
void eb_put(struct lk_boot *b, const char *str);
void eb_memory(struct lk_boot *b);
void eb_reboot(struct lk_boot *b);
void eb_delay_us(struct lk_boot *b, lk_u32 us);

/* entropy.c: EFI_RNG_PROTOCOL, the firmware_rng hook. */
lk_size eb_firmware_rng(struct lk_boot *b, void *buf, lk_size len);

/* bootdisk.c: bootdev of the boot disk and, when its OpenBSD disklabel
 * is found (read only), its DUID; else one line saying why not. */
int eb_boot_blockdev(struct lk_boot *b, struct lk_blockdev *dev);
void eb_boot_disk(struct eb_state *s, lk_u32 *bootdev, lk_u8 *duid,
		  int *have);

/* handoff.c: the enter hook: gathers the machine information, builds
 * the kernel's boot information (lk_boot_build_info) from the final
 * memory map, exits boot services, wipes, jumps. Returns only on failure
 * before ExitBootServices (reason set). */
void eb_enter(struct lk_boot *b, const struct lk_kernel *k);

/* place.c: pages for the kernel's link-time range [lo, hi), or a staging
 * buffer when the firmware holds part of it (returns where lo's byte goes).
 * Once the image is written, eb_settle_kernel decides for a staged one:
 * copied into place at the jump, moved to free memory (relocatable
 * Multiboot2 kernels; k's addresses then shift), or refused with the
 * reason set. hdr: the bytes holding the Multiboot2 header (the file). */
void *eb_place_kernel(struct lk_boot *b, lk_u64 lo, lk_u64 hi);
int eb_settle_kernel(struct lk_boot *b, struct lk_kernel *k, const void *hdr,
		     lk_u64 hdr_size);
/* place.c: the place_any hook (a relocatable Linux kernel: at pref, else
 * the lowest aligned free fit below 4 GiB in the firmware's map). */
void *eb_place_any(struct lk_boot *b, lk_u64 size, lk_u64 align, lk_u64 pref,
		   lk_u64 *phys);

/* secureboot.c: reads SecureBoot/SetupMode, then applies the Secure Boot
 * policy to the parsed config (one line per refusal), against the
 * built-in key b->builtin_key. */
void eb_secure_boot_policy(struct lk_boot *b);

/* mp.c: lk_kit_inflate, with the application processors (EFI MP
 * Services) taking segments of a segmented kit alongside this one;
 * returns LK_BOOT_INFLATE_EARLY once the hash and the tables are in, and
 * eb_inflate_rest waits for the rest (linkkit/boot/boot.h). */
int eb_inflate_kit(struct lk_boot *b, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 size);
int eb_inflate_rest(struct lk_boot *b);
/* mp.c: lk_link_write, with the application processors writing parts
 * of the image while this one writes the rest (lk_link_write_begin). */
int eb_write_image(struct lk_boot *b, struct lk_link *L, void *dst,
		   struct lk_rng *rng);
/* Before ExitBootServices or returning to the firmware: lets the MP
 * library see the APs back, closes the event. */
void eb_mp_settle(struct eb_state *s);

/* trampoline.S */
extern const lk_u8 eb_tramp_start[], eb_tramp_end[];
/* Offsets inside the trampoline blob (see trampoline.S). */
#define EB_TRAMP_ENTRY_OFF 0 /* 64-bit entry: (blob, wipe_lo, wipe_len) */
#endif
