/*
 * Public API of the freestanding relinker core. Used by the UEFI stage
 * (efi/), the BIOS stage (stand/), the host tools (tools/) and the tests.
 * Every function that reads untrusted input validates it and, on failure,
 * logs exactly one LK_LOG_ERROR line per problem through lk_host.log
 * naming the file/object/section/offset/symbol, then returns non-zero.
 */
#ifndef LINKKIT_H
#define LINKKIT_H

#include "lk_host.h"
#include "lk_types.h"
#include "kit_format.h"

/* Status codes (0 is success). */
enum lk_status {
	LK_OK = 0,
	LK_ERR_FORMAT = 1,  /* malformed header/table/index/offset */
	LK_ERR_HASH = 2,    /* SHA-256 mismatch */
	LK_ERR_INFLATE = 3, /* corrupt compressed stream */
	LK_ERR_NOMEM = 4,
	LK_ERR_LINK = 5,    /* undefined symbol, overflow, bad relocation */
	LK_ERR_RANGE = 6,   /* address arithmetic out of range */
	LK_ERR_ELF = 7,     /* bad ELF file (fallback kernel, objects) */
	LK_ERR_UNSUPPORTED = 8,
};

/* ---- mem.c: freestanding helpers (no libc) ---- */
void *lk_memcpy(void *dst, const void *src, lk_size n);
void *lk_memmove(void *dst, const void *src, lk_size n);
void *lk_memset(void *dst, int c, lk_size n);
int lk_memcmp(const void *a, const void *b, lk_size n);
lk_size lk_strlen(const char *s);
lk_size lk_strnlen(const char *s, lk_size max);
int lk_strcmp(const char *a, const char *b);
/* Zeroes memory in a way the compiler may not elide (secrets). */
void lk_wipe(void *p, lk_size n);
/* n / d, remainder in *rem (if not NULL), without libgcc's __udivdi3 (the
 * i386 BIOS stage has none); d == 0 gives 0 with *rem = n. */
lk_u64 lk_udivmod64(lk_u64 n, lk_u64 d, lk_u64 *rem);

/* ---- fmt.c: tiny formatter for log lines ----
 * Supports %s %c %d %u %x %lld %llu %llx %p %%, optional width/zero-pad
 * (e.g. %08x, %016llx). Always NUL-terminates; returns length written. */
int lk_snprintf(char *buf, lk_size size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int lk_vsnprintf(char *buf, lk_size size, const char *fmt,
		 __builtin_va_list ap);
/* Formats and sends one line through host->log if level <= log_level.
 * Control bytes (< 0x20, 0x7f) become '?': names come from untrusted
 * files and must not split the line or forge console output. */
void lk_log(const struct lk_host *h, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- blake3.c ---- */
/* BLAKE3's 32-byte hash of len bytes (the kit digest of LK_KIT_F_BLAKE3
 * kits). Whole chunks go through AVX2 or SSSE3 lanes where
 * lk_cpu_features() reports them; lk_blake3_path forces one build (tests
 * compare each with b3sum; a vector one only where the CPU has it). */
enum { LK_BLAKE3_AUTO, LK_BLAKE3_PORTABLE, LK_BLAKE3_SSSE3, LK_BLAKE3_AVX2 };
void lk_blake3(const void *data, lk_size len, lk_u8 out[32]);
void lk_blake3_path(int path);
/* The build lk_blake3 takes now: the forced one, or the CPU's best. */
int lk_blake3_build(void);

/* ---- sha256.c ---- */
struct lk_sha256 {
	lk_u32 state[8];
	lk_u64 length;
	lk_u8 block[64];
	lk_u32 fill;
};
void lk_sha256_init(struct lk_sha256 *c);
void lk_sha256_update(struct lk_sha256 *c, const void *data, lk_size len);
void lk_sha256_final(struct lk_sha256 *c, lk_u8 out[32]);
void lk_sha256(const void *data, lk_size len, lk_u8 out[32]);

/* ---- sha512.c ---- */
struct lk_sha512 {
	lk_u64 state[8];
	lk_u64 length;
	lk_u8 block[128];
	lk_u32 fill;
};
void lk_sha512_init(struct lk_sha512 *c);
void lk_sha512_update(struct lk_sha512 *c, const void *data, lk_size len);
void lk_sha512_final(struct lk_sha512 *c, lk_u8 out[64]);
void lk_sha512(const void *data, lk_size len, lk_u8 out[64]);

/* ---- ed25519.c: Ed25519 (RFC 8032), pure variant ---- */
/* sk is the 32-byte seed followed by the 32-byte public key (the layout
 * signify stores). Signing is constant-time in the secret. */
void lk_ed25519_pubkey(lk_u8 pk[32], const lk_u8 seed[32]);
void lk_ed25519_sign(lk_u8 sig[64], const void *msg, lk_size len,
		     const lk_u8 sk[64]);
/* 0 when sig is a valid signature of msg under pk; -1 otherwise (also for
 * a non-canonical S or an undecodable point). */
int lk_ed25519_verify(const lk_u8 sig[64], const void *msg, lk_size len,
		      const lk_u8 pk[32]);

/* ---- kitsig.c: signify signatures on kits and the fallback ---- */
struct lk_pubkey {
	lk_u8 keynum[8]; /* signify's key number: names the key */
	lk_u8 key[32];   /* Ed25519 public key */
};
/* A signify public key: the base64 line alone, or the whole .pub file. */
int lk_pubkey_parse(const void *text, lk_size len, struct lk_pubkey *out);
/* Checks a signify signature file (detached, `signify -S -x`) over msg.
 * On failure one error line names `name`. */
int lk_sig_check(const struct lk_host *h, const struct lk_pubkey *pk,
		 const char *name, const void *msg, lk_size len,
		 const void *sig, lk_size siglen);
/* Checks a signed kit (LK_KIT_F_SIGNED, trailer after the stream) using
 * nothing but the header's payload_zsize and flags: call it before
 * lk_kit_open when a key is configured. Unsigned kits are refused. */
int lk_kit_check_sig(const struct lk_host *h, const struct lk_pubkey *pk,
		     const char *name, const void *kit, lk_u64 size);
/* The detached signature's path next to `path` (extension -> .SIG). */
int lk_sig_path(const char *path, char *out, lk_size size);

/* ---- chacha.c / rng.c: ChaCha20 (RFC 8439) and the layout generator ---- */
void lk_chacha20_block(const lk_u32 key[8], lk_u32 counter,
		       const lk_u32 nonce[3], lk_u8 out[64]);
struct lk_rng {
	lk_u32 key[8];
	lk_u32 nonce[3];
	lk_u32 counter;
	lk_u8 buf[64];
	lk_u32 used; /* bytes of buf consumed */
};
/* Seeds from any number of bytes (hashed with SHA-256 into the key). */
void lk_rng_init(struct lk_rng *r, const void *seed, lk_size len);
/* Mixes more entropy into an initialised generator. */
void lk_rng_mix(struct lk_rng *r, const void *data, lk_size len);
void lk_rng_bytes(struct lk_rng *r, void *out, lk_size len);
lk_u32 lk_rng_u32(struct lk_rng *r);
lk_u64 lk_rng_u64(struct lk_rng *r);
/* Uniform in [0, bound), unbiased (rejection sampling); bound > 0. */
lk_u64 lk_rng_below(struct lk_rng *r, lk_u64 bound);
/* Unbiased Fisher-Yates over n u32 values. */
void lk_shuffle_u32(struct lk_rng *r, lk_u32 *v, lk_u32 n);
void lk_rng_wipe(struct lk_rng *r);

/* ---- inflate.c: RFC 1950/1951 ---- */
/* Inflates a zlib stream (checks header and Adler-32). *out_len gets the
 * bytes produced. Returns LK_OK, LK_ERR_INFLATE (corrupt/truncated input or
 * output larger than dst_len). Never reads or writes out of bounds.
 * The stream must end exactly at src_len (no trailing bytes). Bytes of dst
 * past *out_len (but inside dst_len) may be scribbled on (8-byte match
 * copies). Needs about 13 KiB of stack; no allocation. */
int lk_inflate_zlib(const void *src, lk_size src_len, void *dst,
		    lk_size dst_len, lk_size *out_len);
/* Raw DEFLATE (RFC 1951) without the zlib wrapper; *src_used gets the bytes
 * the stream occupied (whole bytes, the last one partly used). */
int lk_inflate_raw(const void *src, lk_size src_len, void *dst,
		   lk_size dst_len, lk_size *out_len, lk_size *src_used);
typedef int lk_inflate_fn(const void *src, lk_size src_len, void *dst,
			  lk_size dst_len, lk_size *out_len, lk_size *src_used);
/* One segment of a raw DEFLATE stream split at byte-aligned block
 * boundaries: all of src_len, exactly dst_len bytes out, no match before
 * dst; ends after a non-final stored block, or (last) with the final
 * block. Same guarantees and stack as above; touches no shared state, so
 * several processors may each inflate a segment at once. */
int lk_inflate_part(const void *src, lk_size src_len, void *dst,
		    lk_size dst_len, int last);
/* Which build of the decoding loop the calls above take: AUTO (the
 * default) the BMI2 one where lk_cpu_features() reports BMI2. Tests force
 * either to check both against zlib (BMI2 only where lk_cpu_probe() has
 * it: elsewhere it faults). */
enum { LK_INFLATE_AUTO, LK_INFLATE_PORTABLE, LK_INFLATE_BMI2 };
void lk_inflate_loop(int loop);

/* ---- adler32.c ---- */
/* The running Adler-32 `adler` (1 to start) updated with n bytes, as zlib's
 * adler32(); on SSSE3/AVX2 when lk_cpu_features() reports them. */
lk_u32 lk_adler32(lk_u32 adler, const void *p, lk_size n);

/* ---- kit.c: the outer kit file ---- */
struct lk_kit {
	const lk_u8 *zdata; /* the zlib stream inside the kit buffer */
	lk_u64 zsize;       /* of the stream alone (no segment index) */
	lk_u64 payload_size;
	lk_u32 flags;
	lk_u32 nseg;        /* segments (1: not split) */
	const lk_u8 *seg;   /* LK_KIT_F_SEGMENTS: nseg - 1 lk_kit_segment
			       records (unaligned), checked by lk_kit_open */
	const lk_u8 *prov;  /* LK_KIT_F_PROV: the record (kit_prov.c), checked
			       by lk_kit_open; LK_NULL without */
	lk_u64 prov_size;
	/* What the header's SHA-256 covers (stream, segment index, record),
	 * and that hash: lk_kit_hash, lk_kit_check_hash. */
	const lk_u8 *hashed;
	lk_u64 hashed_size;
	lk_u8 hash[32]; /* the header's: SHA-256, or BLAKE3 (LK_KIT_F_BLAKE3) */
};
/* Checks magic, version, sizes against kit_size, and the SHA-256.
 * `name` (e.g. the path) is used in error lines. */
int lk_kit_open(const struct lk_host *h, const void *kit, lk_u64 kit_size,
		const char *name, struct lk_kit *out);
/* lk_kit_open without the SHA-256, for a stage that hashes while it
 * inflates (efi/mp.c): it must then lk_kit_hash the kit and pass
 * lk_kit_check_hash before it reads a byte of the payload. The segment
 * index and the record it reads from unhashed bytes are bounds-checked
 * like everything else. */
int lk_kit_open_unhashed(const struct lk_host *h, const void *kit,
			 lk_u64 kit_size, const char *name, struct lk_kit *out);
/* The SHA-256 of what the header's covers. No logging, no shared state:
 * may run on any processor while others inflate. */
void lk_kit_hash(const struct lk_kit *kit, lk_u8 sum[32]);
/* The same hash of any n bytes, as a kit with these flags has it (for a
 * stage that hashes in another processor mode: stand/lm64.c). */
void lk_kit_hash_bytes(lk_u32 flags, const void *p, lk_size n, lk_u8 sum[32]);
/* Compares sum with the header's; the error line is logged here. */
int lk_kit_check_hash(const struct lk_host *h, const struct lk_kit *kit,
		      const char *name, const lk_u8 sum[32]);
/* lk_kit_hash then lk_kit_check_hash, on this processor. */
int lk_kit_verify(const struct lk_host *h, const struct lk_kit *kit,
		  const char *name);
/* Inflates into dst (payload_size bytes) and checks the produced size.
 * Not the stream's Adler-32: the kit's SHA-256 (lk_kit_open) covers the
 * compressed bytes; lk_kit_check_sum is the tools' extra check. */
int lk_kit_inflate(const struct lk_host *h, const struct lk_kit *kit,
		   const char *name, void *dst, lk_u64 dst_size);
/* The same with another lk_inflate_raw (the BIOS stage's, in long mode):
 * the same checks and error lines. */
int lk_kit_inflate_with(const struct lk_host *h, const struct lk_kit *kit,
			const char *name, void *dst, lk_u64 dst_size,
			lk_inflate_fn *inflate);
/* After segment `bad` failed on some processor: the stream inflated
 * whole (a stage's processors share the segments; the index may be off
 * while the stream is right), with one warning when that works. */
int lk_kit_inflate_again(const struct lk_host *h, const struct lk_kit *kit,
			 const char *name, void *dst, lk_u64 dst_size,
			 lk_inflate_fn *inflate, lk_u32 bad);
/* Segment i (< kit->nseg) of a split stream into its place in dst (the
 * payload buffer, payload_size bytes). No logging, no allocation, no
 * shared state: meant to run on several processors at once, each with
 * its own segments. */
int lk_kit_inflate_segment(const struct lk_kit *kit, lk_u32 i, void *dst,
			   lk_u64 dst_size);
/* The payload bytes [*o0, *o1) segment i (< kit->nseg) inflates to. */
void lk_kit_segment_range(const struct lk_kit *kit, lk_u32 i, lk_u64 *o0,
			  lk_u64 *o1);
/* Whether the segments holding the payload's first lk_link_prefix bytes
 * are inflated: state[i] == ok for each (read with acquire ordering, as
 * other processors set them). A stage parses and lays out once they are,
 * while the other segments still inflate. */
int lk_kit_prefix_ready(const struct lk_kit *kit, const void *payload,
			const lk_u8 *state, lk_u8 ok);
/* The inflated payload against the stream's Adler-32 (tools). */
int lk_kit_check_sum(const struct lk_host *h, const struct lk_kit *kit,
		     const char *name, const void *payload);
/* Each segment inflated alone into scratch (payload_size bytes) against
 * payload, the whole stream inflated: one error line naming the first
 * segment that differs. For tools: a stage just inflates such a kit whole. */
int lk_kit_check_segments(const struct lk_host *h, const struct lk_kit *kit,
			  const char *name, const void *payload, void *scratch);

/*
 * ---- kit_prov.c: what a kit was made from (LK_KIT_F_PROV) ----
 * The stage checks the link directory on the root file system
 * (LK_PROV_DIR "/" kernel) against the record before it links: a kit made
 * before a syspatch must never boot again.
 */
#define LK_PROV_DIR "/usr/share/relink/kernel"
struct lk_prov {
	const char *kernel;   /* the link directory's name; LK_NULL: no record */
	lk_u32 count;         /* files */
	lk_u32 names_size;
	const lk_u8 *entries; /* count lk_kit_prov_entry records (unaligned) */
	const char *names;
};
struct lk_prov_file {
	const char *name;     /* relative to the link directory */
	lk_u64 size;
	const lk_u8 *sha256;  /* 32 bytes */
};
/* The record of an opened kit. Without one (older kits, kits not made from
 * an OpenBSD link directory): LK_OK with out->kernel LK_NULL, no line.
 * A malformed one: one error line naming `name`, LK_ERR_FORMAT. */
int lk_kit_prov_open(const struct lk_host *h, const struct lk_kit *kit,
		     const char *name, struct lk_prov *out);
/* Entry i (< p->count). */
void lk_prov_file(const struct lk_prov *p, lk_u32 i, struct lk_prov_file *out);

/* Hashing one file as its bytes arrive, so a stage can stream them. */
struct lk_prov_hash {
	struct lk_sha256 sha;
	lk_u64 size;          /* bytes hashed so far */
};
void lk_prov_hash_begin(struct lk_prov_hash *c);
void lk_prov_hash_update(struct lk_prov_hash *c, const void *p, lk_size n);
/* Compares the file hashed into c with entry i: LK_OK, or one line
 * "KIT: stale: made from KERNEL whose FILE has changed since (...)" and
 * LK_ERR_HASH. Wipes c. */
int lk_prov_hash_end(const struct lk_host *h, const struct lk_prov *p,
		     const char *name, lk_u32 i, struct lk_prov_hash *c);
/* Entry i's file has size bytes: LK_OK when that is its recorded size,
 * else the stale line lk_prov_hash_end gives for a size and LK_ERR_HASH
 * (checked before reading: a size from disk is not trusted to be small). */
int lk_prov_size_check(const struct lk_host *h, const struct lk_prov *p,
		       const char *name, lk_u32 i, lk_u64 size);
/* Entry i's file is not there: its stale line, LK_ERR_HASH. */
int lk_prov_missing(const struct lk_host *h, const struct lk_prov *p,
		    const char *name, lk_u32 i);

/*
 * Reads the file `file` of the link directory: LK_OK with its bytes in
 * *data (valid until the next call; the check never frees them),
 * LK_PROV_MISSING when there is no such file, anything else when it
 * cannot be read.
 */
#define LK_PROV_MISSING 100
typedef int (*lk_prov_read_fn)(void *ctx, const char *file, const void **data,
			       lk_size *size);
struct lk_prov_stats {
	lk_u64 bytes;  /* hashed */
	lk_u32 files;  /* read, the differing one included */
};
/* Every file of the record through read, in record order, stopping at
 * the first difference: LK_OK when all match; LK_ERR_HASH when one is
 * missing or differs (its stale line logged); read's status when a file
 * cannot be read (one line). *st (may be LK_NULL) gets the cost. */
int lk_kit_prov_check(const struct lk_host *h, const struct lk_prov *p,
		      const char *name, lk_prov_read_fn read, void *ctx,
		      struct lk_prov_stats *st);

/* ---- link*.c: the per-boot link ---- */
struct lk_link; /* opaque */

/* How many bytes from the start of a payload of size bytes lk_link_open
 * and lk_link_layout read: every table but data (the section contents,
 * which only lk_link_write reads), from the header in the first `have`
 * bytes; size when the header is not in them. A stage with several
 * processors parses and lays out once these are inflated, while the
 * others still inflate the contents. */
lk_u64 lk_link_prefix(const void *payload, lk_u64 have, lk_u64 size);

/* Validates every table, index, offset and size of an inflated payload.
 * The payload must stay alive and unchanged until lk_link_close. */
int lk_link_open(const struct lk_host *h, const void *payload, lk_u64 size,
		 const char *name, struct lk_link **out);
/* Chooses the object order and gap sizes from rng, evaluates the plan,
 * and computes every address. */
int lk_link_layout(struct lk_link *L, struct lk_rng *rng);
/* Host tools only: later layouts keep the canonical (command-line) order
 * and make every gap empty, as the build's own link did (`linkkit create`
 * matches the build's symbol map against it). */
void lk_link_set_canonical(struct lk_link *L);
/* Later layouts keep the base where the script puts it even when the
 * kit's policy has `random-base` (a Linux command line with nokaslr). */
void lk_link_set_no_shift(struct lk_link *L);
/* A laid-out symbol's final value; 0 when it has none (undefined). */
int lk_link_sym_value(const struct lk_link *L, lk_u32 sym, lk_u64 *value);

struct lk_image_info {
	lk_u64 load_lo;   /* lowest LMA of any allocated output section */
	lk_u64 load_hi;   /* end (exclusive) of the highest, NOBITS included */
	lk_u64 entry_vma; /* entry symbol's VMA */
	lk_u64 entry_lma; /* entry symbol's LMA (where to jump, paging off) */
	lk_u32 protocol;  /* enum lk_protocol */
	lk_u32 noutsecs;  /* output sections that are emitted (non-empty) */
	lk_u32 nphdrs;
	lk_u32 flags;     /* LK_IMAGE_* */
};
/* The image starts with the ELF header and program headers (a PHDRS
 * segment with FILEHDR/PHDRS): a file writer stores it at offset 0. */
#define LK_IMAGE_HEADERS 0x1u
void lk_link_info(const struct lk_link *L, struct lk_image_info *out);

/* Writes the linked image: dst corresponds to LMA load_lo and is
 * load_hi - load_lo bytes long. Copies contents, fills padding and gaps,
 * zeroes NOBITS, fills LK_OUTSEC_RANDOM_FILL sections from rng, applies
 * every relocation. All errors are logged (not just the first). */
int lk_link_write(struct lk_link *L, void *dst, struct lk_rng *rng);

/*
 * lk_link_write split for several processors. lk_link_write_begin checks
 * the link is laid out and cuts the plain section contents into nparts
 * ranges of about equal work. lk_link_write_sections writes everything
 * else; lk_link_write_part writes one range and returns its relocation
 * errors, counted but not logged, so any processor may run it. They
 * touch disjoint bytes and only read L and the payload, so the parts may
 * run at once, with each other and with lk_link_write_sections (whose
 * processor may log). A kit whose tables are sorted after the link
 * (LK_PAYLOAD_F_LINUX_SORT) gets nfirst > 0: parts [0, nfirst) write only
 * those tables' chunks, so once they and lk_link_write_sections are done,
 * lk_link_write_sort (the boot processor: it allocates and may log) sorts
 * them while the other parts still run; unless it ran, lk_link_write_end
 * sorts. Once all are done, lk_link_write_end (the boot processor) writes
 * the headers and returns what lk_link_write would, with its messages
 * (a sort's own lines come when it runs): when the parts found errors it
 * redoes them, logging. The image equals lk_link_write's.
 */
#define LK_WRITE_MAX_PARTS 64
/* What the kallsyms step of a write found, for its message later. */
struct lk_kallsyms_result {
	int rc;
	const char *why;
	lk_u32 sym;
	lk_u64 bytes;
};

struct lk_write_split {
	lk_u32 nparts;
	lk_u32 nfirst; /* parts writing the sorted tables (see above) */
	lk_u32 tail; /* first item no output section claimed */
	lk_u32 nerr; /* relocation errors so far (logged) */
	/* lk_link_write_sections wrote the kallsyms tables; what it found
	 * is said by lk_link_write_end where lk_link_write would say it. */
	int kallsyms_done;
	struct lk_kallsyms_result kallsyms;
	/* The sorted tables' output sections (LK_NONE: none, or no first
	 * parts); what lk_link_write_sort found. */
	lk_u32 sorted_os[3];
	int sorted;
	int sort_rc;
	lk_u32 sort_flag;
	/* Part k: the chunks in [from[k], to[k]) of its kind. */
	lk_u32 from[LK_WRITE_MAX_PARTS];
	lk_u32 to[LK_WRITE_MAX_PARTS];
};
int lk_link_write_begin(struct lk_link *L, lk_u32 nparts,
			struct lk_write_split *ws);
void lk_link_write_sections(const struct lk_link *L, void *dst,
			    struct lk_rng *rng, struct lk_write_split *ws);
lk_u32 lk_link_write_part(const struct lk_link *L, void *dst,
			  const struct lk_write_split *ws, lk_u32 k);
void lk_link_write_sort(const struct lk_link *L, void *dst,
			struct lk_write_split *ws);
int lk_link_write_end(struct lk_link *L, void *dst,
		      const struct lk_write_split *ws, lk_u32 part_errors);

/*
 * ELF view of the linked image, for the Multiboot2 ELF-sections tag and for
 * `linkkit link`: section headers (null, each emitted output section,
 * .symtab, .strtab, .shstrtab) plus the symbol and string tables.
 * lk_link_elf_size gives the bytes needed; lk_link_elf_emit lays out in buf:
 * [Shdr array][.symtab][.strtab][.shstrtab], with sh_addr of the last three
 * set to buf_addr + their offset (buf_addr: where buf will be in memory for
 * the kernel, 0 for a file) and sh_offset relative to buf. The output
 * sections' sh_offset (and lk_link_phdrs' p_offset) are relative to the
 * image start (LMA load_lo): a file writer adds where it stores the image.
 * Symbols are .symtab entries only when emitted by the host and defined.
 */
struct lk_elf_view {
	lk_u32 shnum;
	lk_u32 shentsize;
	lk_u32 shstrndx;
	lk_u64 size;
};
int lk_link_elf_size(const struct lk_link *L, struct lk_elf_view *out);
int lk_link_elf_emit(const struct lk_link *L, void *buf, lk_u64 buf_size,
		     lk_u64 buf_addr, struct lk_elf_view *out);
/*
 * The symbol table as OpenBSD's boot(8) hands it over (obsd_syms.c): an
 * ELF header, the ELF view's section headers, .symtab, .strtab and
 * .shstrtab (each 8-aligned, sh_offset from the header, SHF_ALLOC set),
 * for the stage to put at the image's end rounded up to 8; the kernel's
 * `end` argument (esym) is then the end of this block. 0 without layout.
 */
lk_u64 lk_link_obsd_syms_size(const struct lk_link *L);
int lk_link_obsd_syms(const struct lk_link *L, void *dst, lk_u64 size);
/* Program headers (Elf64_Phdr) as the script's PHDRS describe them. */
int lk_link_phdrs(const struct lk_link *L, void *buf, lk_u64 buf_size,
		  lk_u32 *count);

/*
 * linux_sort.c: Linux's build-time table sorts (scripts/sorttable, 6.1),
 * done by lk_link_write for LK_PAYLOAD_F_LINUX_SORT kits; exposed for
 * tests and timing. ORC: ip (s32 offsets, self-relative) and orc (6-byte
 * entries) of equal count, sorted by address, terminators first on ties,
 * other ties as glibc 2.36's qsort leaves them. __ex_table: 12-byte x86-64
 * entries by insn address, stable. One error line naming `name` and the
 * table on a malformed size or no memory.
 */
int lk_linux_sort_orc(const struct lk_host *h, const char *name, lk_u8 *ip,
		      lk_u64 ip_size, lk_u8 *orc, lk_u64 orc_size);
int lk_linux_sort_extable(const struct lk_host *h, const char *name, lk_u8 *ex,
			  lk_u64 size);

/* Debug only (insecure: reveals the layout): the chosen order and gaps. */
void lk_link_dump_layout(const struct lk_link *L, int level);

/* Wipes every buffer the link allocated (order, addresses, symbols) and
 * frees it. The caller wipes the payload and the kit itself. */
void lk_link_close(struct lk_link *L);

/* ---- elfload.c: the prelinked fallback kernel (an ELF64 executable) ---- */
struct lk_elf_image {
	lk_u64 load_lo, load_hi; /* physical (p_paddr) range of PT_LOADs */
	lk_u64 entry_vma, entry_lma;
	lk_u32 nload;
	lk_u32 protocol; /* from the fallback's .note or the config */
};
int lk_elf_check(const struct lk_host *h, const void *elf, lk_u64 size,
		 const char *name, struct lk_elf_image *out);
/* Copies PT_LOAD segments to dst (= load_lo), zeroing the bss parts. */
int lk_elf_load(const struct lk_host *h, const void *elf, lk_u64 size,
		void *dst);
/*
 * The same block from an ELF file's own tables, as boot(8) copies them:
 * every section header; symbol and string tables (and .debug_line,
 * .SUNW_ctf) in section order. *need gets its size; 0 when the file has
 * no usable symbol table (no or malformed section headers, no .symtab, a
 * table outside the file or a name outside its string table): with dst
 * given, that is one LK_LOG_WARN line and LK_OK, the kernel boots
 * without symbols. dst LK_NULL only sizes.
 */
int lk_elf_obsd_syms(const struct lk_host *h, const void *elf, lk_u64 size,
		     const char *name, void *dst, lk_u64 cap, lk_u64 *need);

/*
 * For the stages. A `protocol openbsd` kernel's range is its image, then
 * (at the image's end rounded up to 8) the symbol block: *_end give the
 * end of that range (load_hi for other protocols or without symbols) and
 * the kernel's `end` argument; *_place write the block, `image` being
 * where load_lo is (a fallback without symbols: one warning line).
 */
lk_u64 lk_link_obsd_end(const struct lk_link *L);
int lk_link_obsd_place(const struct lk_link *L, void *image);
lk_u64 lk_elf_obsd_end(const void *elf, lk_u64 size,
		       const struct lk_elf_image *img, lk_u32 protocol);
int lk_elf_obsd_place(const struct lk_host *h, const void *elf, lk_u64 size,
		      const char *name, const struct lk_elf_image *img,
		      lk_u32 protocol, void *image);

#endif
