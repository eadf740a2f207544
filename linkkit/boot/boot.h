/*
 * The boot sequence both stages run (linkkit/boot/): config -> Secure
 * Boot policy -> key -> prompt -> seed -> relink -> hand-over, or one
 * `relinkboot: fallback: REASON` line and the prelinked fallback, or the
 * documented give-up. A stage is a table of platform hooks (struct
 * lk_boot_ops), in the spirit of libsa's machine-dependent block; it
 * holds no copy of this flow.
 */
#ifndef LK_BOOT_BOOT_H
#define LK_BOOT_BOOT_H

#include "../config.h"
#include "../disklabel.h"
#include "../fs/fs.h"
#include "../linkkit.h"
#include "../proto/proto.h"

#define LK_BOOT_REASON_MAX 240
/* ops->inflate: the hash and the tables are in, the rest still inflating. */
#define LK_BOOT_INFLATE_EARLY (-1)
#define LK_BOOT_CONFIG_PATH "\\EFI\\BOOT\\RELINK.CFG"
#define LK_BOOT_ROOT_KERNEL "/bsd" /* on the OpenBSD root */

struct lk_boot;

struct lk_boot_ops {
	/*
	 * A whole file from the boot volume into memory from alloc_big
	 * (secret: wiped when freed and before the jump). Non-zero on
	 * failure, with one LK_LOG_ERROR line "PATH: what went wrong"
	 * logged through b->host ("PATH: file not found" when absent).
	 */
	int (*read_file)(struct lk_boot *b, const char *path, int secret,
			 void **data, lk_u64 *size);
	/* Large buffers (kit, payload, generator); LK_NULL on failure. */
	void *(*alloc_big)(struct lk_boot *b, lk_u64 size, int secret);
	/* Wipes and frees a buffer from alloc_big or read_file. */
	void (*free_big)(struct lk_boot *b, void *p, lk_u64 size);
	/* Memory below 4 GiB the kernel keeps (the ELF-sections view). */
	void *(*alloc_kept)(struct lk_boot *b, lk_u64 size);
	/* Optional: the same, every byte below limit (<= 4 GiB): microcode
	 * under 16 MiB, a Linux initrd under initrd_addr_max. LK_NULL when
	 * there is none; callers without it use alloc_kept and check. */
	void *(*alloc_kept_below)(struct lk_boot *b, lk_u64 size,
				  lk_u64 limit);
	/* Optional: a relocatable kernel's size bytes at an align-aligned
	 * physical address below 4 GiB chosen from the memory map (pref
	 * first when free); *phys gets it. LK_NULL, one line, when none.
	 * Without it: place(pref, pref + size). */
	void *(*place_any)(struct lk_boot *b, lk_u64 size, lk_u64 align,
			   lk_u64 pref, lk_u64 *phys);
	/* Where the byte of physical address lo goes for a kernel that
	 * occupies [lo, hi), or LK_NULL (one line logged). */
	void *(*place)(struct lk_boot *b, lk_u64 lo, lk_u64 hi);
	/* Once written at dst: final placement (may move k's addresses),
	 * or -1 with one line. hdr: the bytes holding a Multiboot2 header. */
	int (*settle)(struct lk_boot *b, struct lk_kernel *k, const void *hdr,
		      lk_u64 hdr_size);
	/* Optional: lk_kit_inflate / lk_link_write done by the stage (with
	 * more processors, or the BIOS stage's in long mode). A stage's
	 * inflate gets the kit from lk_kit_open_unhashed and must pass
	 * lk_kit_check_hash before it returns 0 (it may hash on one
	 * processor while the others inflate). It may instead return
	 * LK_BOOT_INFLATE_EARLY once the hash is checked and the payload's
	 * first lk_link_prefix bytes are in, the other processors still
	 * inflating the rest: the flow then parses and lays out, and calls
	 * inflate_rest (0, or nonzero with one line logged) before the
	 * image is placed or the payload freed. */
	int (*inflate)(struct lk_boot *b, const struct lk_kit *kit,
		       const char *name, void *dst, lk_u64 size);
	int (*inflate_rest)(struct lk_boot *b);
	int (*write)(struct lk_boot *b, struct lk_link *L, void *dst,
		     struct lk_rng *rng);
	/* Optional: firmware entropy (EFI_RNG_PROTOCOL); bytes delivered.
	 * fw_rng_name names it in the warning when it delivers nothing. */
	lk_size (*firmware_rng)(struct lk_boot *b, void *buf, lk_size len);
	const char *fw_rng_name;
	/* Optional: the console moves to the UART at I/O port `port`,
	 * `speed` baud (`tty`, `stty`); called only on a change. */
	void (*console)(struct lk_boot *b, lk_u32 port, lk_u32 speed);
	/* Console: one finished line (no newline); a key or 0; a delay. */
	void (*print)(struct lk_boot *b, const char *line);
	int (*poll_key)(struct lk_boot *b);
	void (*delay_us)(struct lk_boot *b, lk_u32 us);
	/* Optional: the firmware's Secure Boot policy applied to b->cfg
	 * (one line per refusal), before the key is chosen. */
	void (*secure_boot_policy)(struct lk_boot *b);
	/* Builds the machine information, calls lk_boot_build_info once the
	 * memory map is final, wipes what the stage holds and enters the
	 * kernel. Returns only on failure, one line logged. */
	void (*enter)(struct lk_boot *b, const struct lk_kernel *k);
	/* After a failed attempt: frees (wiping) every buffer the stage
	 * still tracks, so the next attempt starts clean. */
	void (*release)(struct lk_boot *b);
	/* Optional: raw console output (the prompt's echo), the memory map
	 * printed (`machine memory`), a reset (`reboot`, does not return). */
	void (*put)(struct lk_boot *b, const char *s);
	void (*machine_memory)(struct lk_boot *b);
	void (*reboot)(struct lk_boot *b);
	/* Optional: the boot disk, whole, for its OpenBSD disklabel and
	 * root file system (read only). Non-zero when it cannot be read. */
	int (*boot_disk)(struct lk_boot *b, struct lk_blockdev *dev);
	/* Nothing bootable: returns control to the firmware (UEFI) or
	 * halts (BIOS). May return: lk_boot_main then returns too. */
	void (*give_up)(struct lk_boot *b);
};

/* The OpenBSD root of the boot disk (root.c): partition a of its
 * disklabel, FFS, opened on first use. */
struct lk_boot_root {
	int tried, ok;
	struct lk_blockdev dev;
	struct lk_dl_label label;
	struct lk_fs fs;
	char why[LK_BOOT_REASON_MAX]; /* why there is none */
};

struct lk_boot {
	const struct lk_boot_ops *ops;
	void *stage; /* the stage's own state */
	/* The core's host: alloc/free from the stage, log through
	 * lk_boot_log (capture into reason, or print). */
	struct lk_host host;
	struct lk_config cfg;
	const char *builtin_key; /* base64 line compiled in, or LK_NULL */
	int have_key;
	struct lk_pubkey key;
	int secure_boot; /* set by the stage's policy hook */
	/* While set, error lines become the fallback reason (the first
	 * one) instead of console lines. */
	int capture;
	char reason[LK_BOOT_REASON_MAX];
	struct lk_rng *rng; /* seeded on first use, wiped before a jump */
	lk_u32 warned; /* entropy warnings printed once per boot */
	int good_seed; /* a trusted source served the last seeding */
	int seeded_data; /* lk_boot_seed_data ran for this generator */
	lk_u64 ucode_addr, ucode_size; /* microcode kept for the kernel */
	lk_u32 con_port, con_speed; /* the console hook's last values */
	struct lk_boot_root root;
	int stale; /* the kit does not match the root's link directory */
	/* What the prompt or boot.conf chose: the fallback, or a kernel on
	 * the OpenBSD root (image, e.g. /bsd.rd); neither: relink. */
	int want_fallback;
	char image[64];
	lk_u64 t;      /* TSC at the start of the current phase */
	/* Leak-test -neg build only: nothing a failed relink held is wiped
	 * or freed (the negative control of the relink cleanup). */
	int keep_failed_relink;
};

/* Runs the sequence. Returns only when even the fallback failed and the
 * stage's give_up returned. */
void lk_boot_main(struct lk_boot *b);

/* Sets up b->host around the stage's allocator: logging through the
 * boot layer, RDSEED/RDRAND as the core's entropy callback. */
void lk_boot_host(struct lk_boot *b, void *(*alloc)(void *ctx, lk_size size),
		  void (*release)(void *ctx, void *ptr, lk_size size));

/* For the stages' hooks. */
void lk_boot_log(void *ctx, int level, const char *line);
void lk_boot_print(struct lk_boot *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records the fallback reason (the first one wins: it is the cause). */
void lk_boot_fail(struct lk_boot *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The info for k's protocol into buf, and the entry state (pure). */
int lk_boot_build_info(struct lk_boot *b, const struct lk_kernel *k,
		       const struct lk_machine *m, void *buf, lk_u32 cap,
		       struct lk_entry *out);
/* cmd.c: one boot(8) command line (prompt, boot.conf). */
#define LK_CMD_DONE 0
#define LK_CMD_BOOT 1
#define LK_CMD_REBOOT 2
#define LK_CMD_BAD (-1)
int lk_boot_command(struct lk_boot *b, const char *line, lk_size n);
/* bootconf.c: /etc/boot.conf from the OpenBSD root, as boot(8) reads it
 * (owner root, not world-writable); LK_CMD_BOOT when it says boot. */
int lk_boot_conf(struct lk_boot *b);

/* Seeds rng from every source (entropy.c); sets b->good_seed. */
void lk_boot_seed(struct lk_boot *b, struct lk_rng *rng);
/* The console hook, when tty/stty changed what it was given last. */
void lk_boot_console(struct lk_boot *b);
/* ucode.c: CPU microcode for k, when its protocol takes it. */
void lk_boot_ucode(struct lk_boot *b, const struct lk_kernel *k);
/* Before the kernel's random data is drawn from rng (debug_seed only). */
void lk_boot_seed_data(struct lk_boot *b, struct lk_rng *rng);
/* The countdown and the boot> prompt (prompt.c): returns when the
 * operator (or the timeout) said boot; b->want_fallback / b->image say
 * what. */
void lk_boot_prompt(struct lk_boot *b);

/* For a stage's inflate hook when it does the work on this processor
 * alone: the kit's hash (phase "verify"), then lk_kit_inflate. */
int lk_boot_inflate_here(struct lk_boot *b, const struct lk_kit *kit,
			 const char *name, void *dst, lk_u64 size);
/* verbose >= 1, with application processors: how a job was shared, e.g.
 * "write: 32 parts, 12 of them by 1 application processor". */
void lk_boot_mp_report(struct lk_boot *b, const char *what, lk_u32 n,
		       const char *items, lk_u32 by_ap, lk_u32 aps);

/* Internal to the boot layer. */
void lk_boot_phase(struct lk_boot *b, const char *name);
void lk_boot_relink(struct lk_boot *b);
void lk_boot_fallback(struct lk_boot *b);
/* gzip.c: a gzip'd file replaced by its contents (one line when
 * corrupt); anything else left as it is. */
int lk_boot_gunzip(struct lk_boot *b, const char *name, void **data,
		   lk_u64 *size);
/* fallback.c: the detached signature PATH's .SIG (a key configured);
 * -1 with the reason set. */
int lk_boot_check_sig(struct lk_boot *b, const char *name, const void *data,
		      lk_u64 size);
/* linux.c: a bzImage or vmlinux checked, placed where the stage finds
 * room, its initrd (`initrd` in RELINK.CFG) loaded; -1, reason set. */
int lk_boot_is_linux(struct lk_boot *b, const char *name, const void *data,
		     lk_u64 size);
/* A relinked `protocol linux` kit: where its image goes (k moved there;
 * kaslr: tell the kernel to randomize its memory regions), then its
 * initrd once the image is written. */
void *lk_boot_linux_place_link(struct lk_boot *b, const char *name,
			       struct lk_kernel *k, int kaslr);
int lk_boot_linux_initrd(struct lk_boot *b, struct lk_kernel *k);
/* A Linux kit whose command line has `nokaslr`: no base shift. */
int lk_boot_linux_nokaslr(struct lk_boot *b, const struct lk_link *L);
int lk_boot_linux_load(struct lk_boot *b, const char *name, const void *data,
		       lk_u64 size, struct lk_kernel *k);
/* A prelinked kernel file (ESP `\` or root `/` path, gzip'd or not)
 * booted like the fallback; returns only on failure. */
void lk_boot_kernel_file(struct lk_boot *b, const char *path);
/* root.c: the root file system (0 when mounted, else -1 with
 * b->root.why), reading a whole file from it into a big buffer (one
 * error line), and the file reader every path goes through: `\` paths
 * are on the boot volume (the stage's read_file), `/` paths on the
 * root. */
int lk_boot_root_open(struct lk_boot *b);
/* A quiet lookup on the root: absent is no line (optional files). */
int lk_boot_root_stat(struct lk_boot *b, const char *path, struct lk_file *f);
void lk_boot_root_close(struct lk_boot *b);
int lk_boot_read(struct lk_boot *b, const char *path, int secret, void **data,
		 lk_u64 *size);
/* stale.c: checks the kit's provenance record against the root's link
 * directory. -1 (the reason set, b->stale) when it does not match; 0
 * when it does or cannot be told (one line then). */
int lk_boot_kit_fresh(struct lk_boot *b, const struct lk_kit *kit);
/* kernel.c: the generator (seeded on first use; LK_NULL, one line, when
 * there is no memory for it), its wipe, and the common last steps. */
struct lk_rng *lk_boot_rng(struct lk_boot *b);
void lk_boot_drop_rng(struct lk_boot *b);
/* Checks what every stage needs (entry and range below 4 GiB), drops
 * the generator and calls the stage's enter: returns only on failure. */
void lk_boot_enter(struct lk_boot *b, const struct lk_kernel *k);
/* The ELF-sections view for rows that pass it, in kept memory: from the
 * link (L) or from an ELF file's own tables (elf, size; none there: no
 * view). view and view_size record it for a wipe on failure. */
int lk_boot_link_view(struct lk_boot *b, struct lk_kernel *k,
		      const struct lk_link *L, void **view, lk_u64 *view_size);
int lk_boot_file_view(struct lk_boot *b, struct lk_kernel *k,
		      const void *elf, lk_u64 size, const char *name);

#endif
