/*
 * RELINK.CFG parser shared by the UEFI (efi/) and BIOS (stand/) stages.
 * Freestanding, firmware-neutral: the caller reads the file into memory
 * and passes the bytes; nothing here touches a disk or a console except
 * through lk_host.log.
 *
 * Format (docs/CONVENTIONS.md): one `key = value` per line, `#` starts a
 * comment (whole line, or after whitespace in a value), blank lines ignored,
 * CR LF accepted, a missing final newline accepted. Unknown keys, malformed
 * lines and bad values give ONE LK_LOG_WARN line each ("NAME:LINE: ...")
 * and are otherwise ignored (the default stays). The config never makes
 * the boot fail: a broken config still boots with the defaults.
 */
#ifndef LK_CONFIG_H
#define LK_CONFIG_H

#include "lk_host.h"
#include "lk_types.h"

#define LK_CFG_PATH_MAX 128    /* bytes including the NUL */
#define LK_CFG_CMDLINE_MAX 512 /* bytes including the NUL */
#define LK_CFG_SEED_MAX 64     /* debug_seed bytes (128 hex digits) */
#define LK_CFG_LINE_MAX 1024   /* longer lines are rejected whole */

struct lk_config {
	/* Paths are normalised to `\` separators and always start with `\`
	 * (the BIOS FAT reader must accept `\`). */
	char kit[LK_CFG_PATH_MAX];       /* default \RELINK\KERNEL.KIT */
	char fallback[LK_CFG_PATH_MAX];  /* default \RELINK\FALLBACK.ELF */
	char seed_file[LK_CFG_PATH_MAX]; /* "" = none (default) */
	char initrd[LK_CFG_PATH_MAX];    /* Linux: "" = none (default) */
	char cmdline[LK_CFG_CMDLINE_MAX]; /* default "" */
	lk_u32 protocol;  /* enum lk_protocol of the fallback; default MB2 */
	lk_u32 timeout;   /* seconds; default 0 */
	lk_u32 verbose;   /* 0 (default), 1 timings, 2 layout (insecure) */
	lk_u32 debug_seed_len; /* 0: no debug seed (default) */
	lk_u8 debug_seed[LK_CFG_SEED_MAX]; /* INSECURE fixed seed */
	/* `pubkey = <signify public key base64 line>`: kits (and the
	 * fallback, via its .SIG) must carry a valid signature by it. A key
	 * built into the stage takes precedence over this one. */
	lk_u32 pubkey_set;
	lk_u8 pubkey_keynum[8];
	lk_u8 pubkey[32];
	/* OpenBSD hand-over, in boot(8)'s words (linkkit/proto/obsd_opts.c):
	 * `howto = -acsd`, `root = DUID.p` or `root = sd1a`, `tty = comN`,
	 * `stty = comN SPEED`. */
	struct lk_obsd_opts {
		lk_u32 howto; /* RB_ASKNAME, RB_SINGLE, RB_KDB, RB_CONFIG */
		lk_u32 root_set; /* LK_OBSD_ROOT_* */
		lk_u8 root_duid[8];
		lk_u32 root_type, root_unit, root_part;
		lk_u32 tty_set, tty_unit;
		lk_u32 com_speed[4]; /* 0: 115200, the stages' own speed */
	} obsd;
};

#define LK_OBSD_ROOT_DUID 1u
#define LK_OBSD_ROOT_DEV 2u

/* Fills every field with its default. */
void lk_config_defaults(struct lk_config *c);

/*
 * Parses `len` bytes of text (not NUL-terminated, may contain anything)
 * over the values already in *c (call lk_config_defaults first). `name`
 * (e.g. "\EFI\BOOT\RELINK.CFG") prefixes warning lines. Returns the
 * number of warnings logged (0 = clean). Keys: kit, fallback, cmdline,
 * protocol (multiboot2|openbsd|none), timeout, verbose (0..2), seed_file,
 * debug_seed (2..128 hex digits, even count), pubkey (signify base64
 * line).
 */
int lk_config_parse(const struct lk_host *h, const char *name,
		    const void *text, lk_size len, struct lk_config *c);

/*
 * The key kits and the fallback are checked with: `builtin` (the base64
 * line of a signify public key compiled into the stage, or LK_NULL/"")
 * wins over the config's `pubkey`. Returns 1 with *out set, 0 when no key
 * is configured (signatures are then not required), -1 when the built-in
 * key does not parse (the caller must refuse to boot anything).
 */
struct lk_pubkey;
int lk_config_pubkey(const struct lk_config *c, const char *builtin,
		     struct lk_pubkey *out);

/* Wipes the whole struct (it may hold a debug seed). */
void lk_config_wipe(struct lk_config *c);

#endif
