/*
 * leak-scan: searches a guest RAM dump, taken after the kernel was entered,
 * for anything that reveals the layout. The boot used a fixed debug_seed,
 * so this program repeats the stage's link with the same core code and seed
 * and knows every secret byte as the core stores it: the kit file and its
 * compressed stream, the inflated payload and its plan, the permutation and
 * layout arrays, the ChaCha key and keystream, the seed, and the linked
 * image (which may exist only at its load address, never as a staging
 * copy). It also counts the leak-test stages' canaries (test/qemu/leak.h).
 *
 *   leak-scan --kit KIT --seed HEX --dump DUMP.elf [--regs REGS.txt]
 *             --name PREFIX [--expect KIND,KIND...]
 *   leak-scan --kit KIT --seed HEX --print-entry
 * --seed-file FILE adds SEED.BIN's bytes to the seed kind; --no-layout is
 * for boots without debug_seed: the kinds that depend on the layout are
 * left out and the kernel's range is widened by every gap's maximum.
 * --fallback ELF is for a kit that fails late (test/qemu/kit-overflow.py):
 * the host's lk_link_write must fail as the stage's did, its image as
 * written so far is the image kind, and the kernel that runs is ELF: its
 * load range is the one skipped (it must hold exactly ELF's image), its
 * entry the one printed, and its file, image and ELF view are legitimate.
 * --fails place (with --fallback) is for a kit that fails in the layout,
 * before any image is written (test/qemu/kit-early.py): lk_link_layout
 * must fail on the host too, and the image kind (never made) is neither
 * searched nor reported.
 * A kit with `protocol openbsd` gets no ELF view from the stage, so a copy
 * of the link's view (its symbol table is the layout) counts as layout.
 *
 * Prints `ok PREFIX-KIND` / `not ok PREFIX-KIND: ...` per kind. The kernel's
 * own load range is excluded: its code and data are the layout by
 * necessity. With --expect (the controls: a dump from a stage that skips
 * a scrub, or taken in the middle of the link) it prints instead whether
 * each listed kind was found, which it must be.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../linkkit/link_internal.h"
#include "../../linkkit/mb2.h"
#include "../../linkkit/proto/linux.h"
#include "leak-canary.h"

#define WIN 32	       /* needle length */
#define MIN_DISTINCT 5 /* fewer distinct bytes: too common to mean much */
#define MIN_PREFIX 3   /* distinct bytes in a needle's first 8 */
#define FILTER_BITS 24 /* prefilter bitmap: 2^24 bits */
#define MAX_REPORTS 4

enum kind {
	K_KIT,
	K_ZSTREAM,
	K_PAYLOAD,
	K_PLAN,
	K_PERM,
	K_LAYOUT,
	K_RNG,
	K_SEED,
	K_IMAGE,
	K_ALLOC,
	K_STACK,
	K_STATIC,
	K_NKINDS
};
static const char *kind_name[K_NKINDS] = {
	"kit",	       "zstream",      "payload",      "plan",
	"permutation", "layout",       "rng",	       "seed",
	"image-copy",  "alloc-canary", "stack-canary", "static-canary"
};

struct needle {
	const uint8_t *p;
	uint64_t key;
	int kind;
	int disk; /* a window of a file the firmware read (kit, config) */
	struct needle *next;
};

struct finding {
	unsigned long count;
	uint64_t addr[MAX_REPORTS];
};

static struct needle **table;
static size_t table_mask;
static uint8_t *filter;
static size_t nneedles[K_NKINDS];
static struct finding found[K_NKINDS];
static const char *prefix = "leak";

/* Legitimate bytes: what the kernel receives (its image, its ELF view)
 * and, for a fallback boot, the fallback's file (public, read from disk). */
static const uint8_t *legit[3];
static size_t legit_len[3];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("not ok %s-setup: ", prefix);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(1);
}

static void host_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	fprintf(stderr, "leak-scan: %s\n", line);
}

static void *host_alloc(void *ctx, lk_size n)
{
	(void)ctx;
	return calloc(1, n ? n : 1);
}

static void host_free(void *ctx, void *p, lk_size n)
{
	(void)ctx;
	(void)n;
	free(p);
}

static struct lk_host host = { NULL,	 host_alloc, host_free,
			       host_log, NULL,	     LK_LOG_ERROR };

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static size_t hash64(uint64_t v)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - FILTER_BITS));
}

static int distinct_bytes(const uint8_t *p, size_t n)
{
	uint8_t seen[256] = { 0 };
	int d = 0;

	for (size_t i = 0; i < n; i++)
		if (!seen[p[i]]++)
			d++;
	return d;
}

/*
 * A Bloom filter of every 8-byte key at every offset of the legitimate
 * buffers: a needle whose key is in none of them cannot be in them, so
 * memmem runs only for the few that pass. Without it each needle was a
 * memmem over the whole image (minutes for a 38 MB Linux kernel).
 */
static uint8_t *legit_bloom;
static unsigned legit_bloom_bits;

static void legit_bloom_hashes(uint64_t key, size_t h[2])
{
	uint64_t a = key * 0x9e3779b97f4a7c15ull;
	uint64_t b = (key ^ (key >> 29)) * 0xbf58476d1ce4e5b9ull;

	h[0] = (size_t)(a >> (64 - legit_bloom_bits));
	h[1] = (size_t)(b >> (64 - legit_bloom_bits));
}

static void legit_bloom_build(void)
{
	size_t total = 0, h[2];

	for (int i = 0; i < 3; i++)
		total += legit[i] ? legit_len[i] : 0;
	/* About 16 bits per key: two probes, under 1% false hits. */
	for (legit_bloom_bits = 20;
	     legit_bloom_bits < 33 && ((size_t)1 << legit_bloom_bits) < total * 16;
	     legit_bloom_bits++)
		;
	legit_bloom = calloc(1, (size_t)1 << (legit_bloom_bits - 3));
	if (!legit_bloom)
		die("out of memory");
	for (int i = 0; i < 3; i++)
		for (size_t o = 0; legit[i] && o + 8 <= legit_len[i]; o++) {
			legit_bloom_hashes(load64(legit[i] + o), h);
			legit_bloom[h[0] >> 3] |= (uint8_t)(1u << (h[0] & 7));
			legit_bloom[h[1] >> 3] |= (uint8_t)(1u << (h[1] & 7));
		}
}

static int legit_bloom_may_hold(const uint8_t *p)
{
	size_t h[2];

	legit_bloom_hashes(load64(p), h);
	return (legit_bloom[h[0] >> 3] >> (h[0] & 7) & 1) &&
	       (legit_bloom[h[1] >> 3] >> (h[1] & 7) & 1);
}

static int is_legit(const uint8_t *p, int skip_image)
{
	if (!legit_bloom_may_hold(p))
		return 0;
	for (int i = skip_image ? 1 : 0; i < 3; i++)
		if (legit[i] && memmem(legit[i], legit_len[i], p, WIN))
			return 1;
	return 0;
}

/*
 * Words that count up or down by a fixed step (0, 1, 2, ... as u32 or
 * u64) say nothing about a layout, and firmware memory is full of them:
 * a FAT32 table of a file written in one piece is clusters N, N+1, ...
 * (an identity run of the plan's indices matched one in OVMF's FAT cache).
 */
static int is_progression(const uint8_t *p)
{
	uint32_t w[WIN / 4];
	uint64_t q[WIN / 8];
	int a32 = 1, a64 = 1;

	memcpy(w, p, WIN);
	memcpy(q, p, WIN);
	for (size_t i = 2; i < WIN / 4; i++)
		a32 &= w[i] - w[i - 1] == w[1] - w[0];
	for (size_t i = 2; i < WIN / 8; i++)
		a64 &= q[i] - q[i - 1] == q[1] - q[0];
	return a32 || a64;
}

static int adding_disk; /* add_range is adding windows of files */

static void add_needle(int kind, const uint8_t *p, int skip_image)
{
	struct needle *n;
	size_t h;

	if (distinct_bytes(p, WIN) < MIN_DISTINCT || is_progression(p) ||
	    is_legit(p, skip_image))
		return;
	if (distinct_bytes(p, 8) < MIN_PREFIX)
		die("internal: weak needle prefix");
	n = calloc(1, sizeof(*n));
	if (!n)
		die("out of memory");
	n->p = p;
	n->key = load64(p);
	n->kind = kind;
	n->disk = adding_disk;
	h = hash64(n->key);
	n->next = table[h & table_mask];
	table[h & table_mask] = n;
	filter[h >> 3] |= (uint8_t)(1u << (h & 7));
	nneedles[kind]++;
}

/*
 * A window starting at or after `off` whose first 8 bytes (the hash key)
 * are varied: a needle keyed by zeros would be compared at every zero
 * word of the dump. Returns n when there is none before `limit`.
 */
static size_t strong_start(const uint8_t *p, size_t n, size_t off, size_t limit)
{
	for (; off < limit && off + WIN <= n; off++)
		if (distinct_bytes(p + off, 8) >= MIN_PREFIX)
			return off;
	return n;
}

/* Every WIN-byte window at `stride` of [p, p + n); the tail too. */
static void add_range(int kind, const void *base, size_t n, size_t stride,
		      int skip_image)
{
	const uint8_t *p = base;
	size_t off, at;

	if (n < WIN)
		return;
	for (off = 0; off + WIN <= n; off += stride) {
		at = strong_start(p, n, off, off + stride);
		if (at < n)
			add_needle(kind, p + at, skip_image);
	}
	at = strong_start(p, n, n - WIN, n);
	if (at < n)
		add_needle(kind, p + at, skip_image);
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		die("%s: cannot read", path);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("%s: cannot read", path);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > cap || n == 0)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	*len = n / 2;
	return 0;
}

struct secrets {
	uint8_t *kit, *payload, *image, *view;
	size_t kit_len, payload_len, image_len, view_len;
	uint64_t load_lo, load_hi, entry_lma;
	struct lk_link *L;
	struct lk_rng rng;
	uint8_t key[32];
	uint8_t seed[64];
	size_t seed_len;
	char seed_text[160];
	uint8_t *seed_file; /* --seed-file: SEED.BIN's bytes */
	size_t seed_file_len;
	uint8_t *stream; /* keystream blocks 0..counter */
	size_t stream_len;
	/* --fallback: the kernel that really boots, and where the failed
	 * link would have put its own. */
	const char *fb_path;
	uint8_t *fb, *fb_image, *fb_view;
	size_t fb_len, fb_image_len, fb_view_len;
	uint64_t link_lo, link_hi;
	/* The OpenBSD hand-over passes no ELF view: a copy is a leftover
	 * (its symbol table is the layout). */
	int view_secret;
	lk_u32 protocol; /* the kit's */
	/* --fails: where the stage's link failed (FAIL_WRITE: the default
	 * of a --fallback boot, with its image written). */
	int fails;
};

enum { FAIL_NONE, FAIL_PLACE, FAIL_WRITE };

/* Repeats the stage's relink with the debug seed. */
static void relink(struct secrets *S)
{
	struct lk_kit kit;
	struct lk_image_info info;
	struct lk_elf_view v;

	if (lk_kit_open(&host, S->kit, S->kit_len, "kit", &kit))
		die("kit does not open");
	S->payload_len = kit.payload_size;
	S->payload = calloc(1, S->payload_len + 1);
	if (!S->payload ||
	    lk_kit_inflate(&host, &kit, "kit", S->payload, S->payload_len))
		die("kit does not inflate");
	if (lk_link_open(&host, S->payload, S->payload_len, "kit", &S->L))
		die("payload does not open");
	lk_link_info(S->L, &info); /* the protocol, known before the layout */
	S->protocol = info.protocol;
	lk_rng_init(&S->rng, S->seed, S->seed_len);
	if (lk_link_layout(S->L, &S->rng)) {
		if (S->fails != FAIL_PLACE)
			die("layout failed");
		return;
	}
	if (S->fails == FAIL_PLACE)
		die("the layout succeeds: it does not fail in place");
	lk_link_info(S->L, &info);
	S->load_lo = info.load_lo;
	S->load_hi = info.load_hi;
	S->entry_lma = info.entry_lma;
	S->view_secret = info.protocol == LK_PROTO_OPENBSD;
	S->image_len = info.load_hi - info.load_lo;
	/* A linked OpenBSD kernel gets its symbol table right after the
	 * image (boot(8)'s block): part of the range the kernel owns, and of
	 * the bytes a copy of which elsewhere is a leak. A failed link never
	 * wrote it. */
	if (!S->fb_path) {
		S->load_hi = lk_link_obsd_end(S->L);
		S->image_len = S->load_hi - info.load_lo;
	}
	S->image = calloc(1, S->image_len + 1);
	if (!S->image)
		die("out of memory");
	if (S->fb_path) {
		/* Relocation errors do not stop the write: the image is whole
		 * but for the failed fields, as in the stage. */
		if (!lk_link_write(S->L, S->image, &S->rng))
			die("the kit links: it does not fail late");
		return;
	}
	if (lk_link_write(S->L, S->image, &S->rng) ||
	    lk_link_obsd_place(S->L, S->image))
		die("link failed");
	if (lk_link_elf_size(S->L, &v) || !(S->view = calloc(1, v.size)) ||
	    lk_link_elf_emit(S->L, S->view, v.size, 0, &v))
		die("ELF view failed");
	S->view_len = v.size;
}

/* A Linux bzImage fallback (issue 26) enters with ESI = boot_params;
 * under UEFI (--linux-entry64) at its 64-bit entry, RSI = boot_params. */
static int linux_entry, linux_entry64;
/* Where the stage put it when that is not pref_address (OVMF: the
 * verbose line "Linux kernel at 0x..."); 0: pref_address. */
static uint64_t linux_load;

/* A bzImage as the stages load it: at its pref_address (free under
 * SeaBIOS and OVMF), entered at its 32-bit entry (BIOS) or its 64-bit
 * one (UEFI); no ELF view. */
static void load_linux_fallback(struct secrets *S)
{
	struct lk_linux_image lx;

	if (lk_linux_bzimage_check(&host, S->fb, S->fb_len, S->fb_path, &lx))
		die("%s: not a bzImage the stage boots", S->fb_path);
	S->link_lo = S->load_lo;
	S->link_hi = S->load_hi;
	if (linux_load)
		lx.pref = linux_load;
	S->load_lo = lx.pref;
	S->load_hi = lx.pref + lx.mem;
	if (linux_entry64 && lx.entry64 == ~0ull)
		die("%s: no 64-bit entry", S->fb_path);
	S->entry_lma = lx.pref + (linux_entry64 ? lx.entry64 : lx.entry32);
	S->fb_image_len = lx.mem;
	S->fb_image = calloc(1, lx.mem + 1);
	if (!S->fb_image)
		die("out of memory");
	lk_linux_load(S->fb, S->fb_len, &lx, S->fb_image);
	linux_entry = 1;
}

/* The fallback kernel as the stage loads it: the kernel that runs. */
static void load_fallback(struct secrets *S)
{
	struct lk_elf_image img;
	lk_u32 num, entsize, shndx, proto;
	lk_u64 used = 0;

	S->fb = read_file(S->fb_path, &S->fb_len);
	if (lk_linux_sniff(S->fb, S->fb_len) == LK_LINUX_BZIMAGE) {
		load_linux_fallback(S);
		return;
	}
	if (lk_elf_check(&host, S->fb, S->fb_len, S->fb_path, &img))
		die("%s: not a loadable ELF", S->fb_path);
	S->link_lo = S->load_lo;
	S->link_hi = S->load_hi;
	/* A fallback without a Multiboot2 header is booted with the
	 * config's protocol, which in these tests is the kit's: as OpenBSD,
	 * its range ends past its symbol table. */
	proto = img.protocol ? img.protocol : S->protocol;
	S->load_lo = img.load_lo;
	S->load_hi = lk_elf_obsd_end(S->fb, S->fb_len, &img, proto);
	S->entry_lma = img.entry_lma;
	S->fb_image_len = S->load_hi - img.load_lo;
	S->fb_image = calloc(1, S->fb_image_len + 1);
	if (!S->fb_image || lk_elf_load(&host, S->fb, S->fb_len, S->fb_image) ||
	    lk_elf_obsd_place(&host, S->fb, S->fb_len, S->fb_path, &img, proto,
			      S->fb_image))
		die("%s: does not load", S->fb_path);
	if (lk_mb2_elf_view_from_file(S->fb, S->fb_len, NULL, 0, 0, &num,
				      &entsize, &shndx, &used) ||
	    !used)
		return; /* no section headers: booted without the view */
	S->fb_view = calloc(1, used);
	S->fb_view_len = used;
	if (!S->fb_view ||
	    lk_mb2_elf_view_from_file(S->fb, S->fb_len, S->fb_view, used, 0,
				      &num, &entsize, &shndx, &used))
		die("%s: no ELF view", S->fb_path);
}

/* The generator's key (SHA-256 of the seed) and every block it made. */
static void rng_secrets(struct secrets *S)
{
	uint32_t nonce[3] = { 0, 0, 0 };

	for (int i = 0; i < 8; i++)
		memcpy(S->key + 4 * i, &S->rng.key[i], 4);
	S->stream_len = ((size_t)S->rng.counter + 1) * 64;
	S->stream = calloc(1, S->stream_len);
	if (!S->stream)
		die("out of memory");
	for (uint32_t c = 0; c <= S->rng.counter; c++)
		lk_chacha20_block(S->rng.key, c, nonce, S->stream + 64 * c);
}

static void add_link_arrays(struct secrets *S)
{
	struct lk_link *L = S->L;

	add_range(K_PERM, L->order, 4ull * L->nobj, 8, 0);
	add_range(K_PERM, L->obj_pos, 4ull * L->nobj, 8, 0);
	add_range(K_PERM, L->slot_order, 4ull * L->nchunk, 8, 0);
	add_range(K_LAYOUT, L->chunk_vma, 8ull * L->nchunk, 8, 0);
	add_range(K_LAYOUT, L->chunk_size, 8ull * L->nchunk, 8, 0);
	add_range(K_LAYOUT, L->sym_val, 8ull * L->nsym, 8, 0);
	add_range(K_LAYOUT, L->os, sizeof(*L->os) * L->nout, 8, 0);
	add_range(K_LAYOUT, L->item, sizeof(*L->item) * L->nitem, 8, 0);
	if (S->view_secret)
		add_range(K_LAYOUT, S->view, S->view_len, WIN, 0);
}

static void add_payload(struct secrets *S)
{
	const struct lk_payload_header *hdr = (const void *)S->payload;
	size_t plo = hdr->plan.off;
	size_t phi = plo + (size_t)hdr->plan.count * sizeof(struct lk_op);

	if (phi > S->payload_len || plo >= phi)
		die("payload has no plan");
	add_range(K_PLAN, S->payload + plo, phi - plo, WIN / 2, 0);
	add_range(K_PAYLOAD, S->payload, plo, WIN, 0);
	add_range(K_PAYLOAD, S->payload + phi, S->payload_len - phi, WIN, 0);
}

/* Without a debug seed the layout, the generator and the image are
 * unknown: only what does not depend on them is looked for. */
static int no_layout;

static int layout_kind(int k)
{
	return k == K_PERM || k == K_LAYOUT || k == K_RNG || k == K_IMAGE;
}

/* Kinds this boot cannot hold: not searched, no result line. */
static int skipped_kind(const struct secrets *S, int k)
{
	if (no_layout && layout_kind(k))
		return 1;
	return k == K_IMAGE && S->fails == FAIL_PLACE;
}

/*
 * The most the kernel can extend past this layout's end: every gap at its
 * maximum, plus room for the alignments that follow them.
 */
static uint64_t gap_slack(const struct secrets *S)
{
	const struct lk_link *L = S->L;
	uint64_t slack = 64 * 1024;

	for (lk_u32 i = 0; i < L->nchunk; i++)
		if (L->chunk[i].flags & LK_CHUNK_GAP)
			slack += L->chunk[i].size;
	return slack;
}

static void add_secrets(struct secrets *S)
{
	adding_disk = 1;
	add_range(K_KIT, S->kit, sizeof(struct lk_kit_header), WIN / 2, 0);
	add_range(K_ZSTREAM, S->kit + sizeof(struct lk_kit_header),
		  S->kit_len - sizeof(struct lk_kit_header), WIN, 0);
	if (!no_layout)
		add_range(K_SEED, S->seed_text, strlen(S->seed_text), WIN / 4, 0);
	adding_disk = 0;
	add_payload(S);
	if (S->seed_file)
		add_range(K_SEED, S->seed_file, S->seed_file_len, WIN / 4, 0);
	if (no_layout)
		return;
	add_link_arrays(S);
	add_range(K_RNG, S->key, 32, WIN, 0);
	add_range(K_RNG, S->stream, S->stream_len, WIN / 2, 0);
	add_range(K_SEED, S->seed, S->seed_len, WIN / 4, 0);
	/* A failed link's image is nobody's: every window is a secret. */
	if (S->image)
		add_range(K_IMAGE, S->image, S->image_len, WIN, !S->fb_path);
}

/*
 * A Linux kernel entered under UEFI keeps boot-services memory until it
 * has called SetVirtualAddressMap, so the stage leaves it alone
 * (efi/handoff.c), and the firmware's FAT and disk caches there still
 * hold the files the firmware read for the stage: the kit and RELINK.CFG
 * (with its debug seed). Those bytes are on the disk anyway. Hits of their
 * windows inside a boot-services region of the memory map the stage gave
 * the kernel (boot_params.efi_info) are counted apart, as firmware copies;
 * what only the stage made (payload, plan, permutation, layout, generator)
 * fails anywhere, and the stage's own buffers (loader data) are scanned
 * for every kind.
 */
#define MAX_BS 512
static struct {
	uint64_t lo, hi;
} bs_range[MAX_BS];
static int nbs;
static unsigned long fw_copies[K_NKINDS];

static int in_bs(uint64_t addr)
{
	for (int i = 0; i < nbs; i++)
		if (addr >= bs_range[i].lo && addr < bs_range[i].hi)
			return 1;
	return 0;
}

static void record(int kind, uint64_t addr)
{
	struct finding *f = &found[kind];

	if (f->count < MAX_REPORTS)
		f->addr[f->count] = addr;
	f->count++;
}

/* Needle hits in [p, p + n) at physical address pa; the kernel's range is
 * skipped by the caller. */
static void scan_needles(const uint8_t *p, size_t n, uint64_t pa)
{
	for (size_t off = 0; off + WIN <= n; off++) {
		uint64_t k = load64(p + off);
		size_t h = hash64(k);
		if (!(filter[h >> 3] & (1u << (h & 7))))
			continue;
		for (struct needle *nd = table[h & table_mask]; nd;
		     nd = nd->next)
			if (nd->key == k && !memcmp(nd->p, p + off, WIN)) {
				if (nbs && nd->disk && in_bs(pa + off) &&
				    in_bs(pa + off + WIN - 1))
					fw_copies[nd->kind]++;
				else
					record(nd->kind, pa + off);
				break;
			}
	}
}

static void scan_canaries(const uint8_t *p, size_t n, uint64_t pa)
{
	uint64_t magic = leak_magic();
	const uint8_t *q = p, *end = p + n;

	while ((q = memmem(q, (size_t)(end - q), &magic, 8)) && q + 9 <= end) {
		int kind = q[8] == LEAK_KIND_ALLOC    ? K_ALLOC
			   : q[8] == LEAK_KIND_STACK  ? K_STACK
			   : q[8] == LEAK_KIND_STATIC ? K_STATIC
						      : -1;
		if (kind >= 0)
			record(kind, pa + (uint64_t)(q - p));
		q += 8;
	}
}

static void scan_piece(const uint8_t *p, uint64_t lo, uint64_t hi)
{
	scan_needles(p, hi - lo, lo);
	scan_canaries(p, hi - lo, lo);
}

/* One RAM block of the dump, minus the kernel's load range. */
static void scan_block(const uint8_t *p, uint64_t lo, uint64_t hi,
		       const struct secrets *S)
{
	uint64_t klo = S->load_lo, khi = S->load_hi;

	if (hi <= klo || lo >= khi) {
		scan_piece(p, lo, hi);
		return;
	}
	if (lo < klo)
		scan_piece(p, lo, klo);
	if (hi > khi)
		scan_piece(p + (khi - lo), khi, hi);
}

/* A RAM block of the dump: physical address, bytes in the file. */
struct block {
	uint64_t paddr;
	const uint8_t *p;
	uint64_t len;
};

#define MAX_BLOCKS 64

struct dump {
	const uint8_t *base;
	size_t len;
	struct block b[MAX_BLOCKS];
	int n;
};

static void add_block(struct dump *d, uint64_t paddr, uint64_t off,
		      uint64_t len)
{
	if (!len)
		return;
	if (off > d->len || len > d->len - off || d->n == MAX_BLOCKS)
		die("dump: segment at 0x%llx outside the file",
		    (unsigned long long)paddr);
	d->b[d->n].paddr = paddr;
	d->b[d->n].p = d->base + off;
	d->b[d->n].len = len;
	d->n++;
}

/* QEMU writes an ELF32 core when the CPU is in 32-bit mode (the kernel's
 * entry) and an ELF64 one in long mode. */
static void parse_dump(struct dump *d)
{
	const Elf64_Ehdr *e64 = (const void *)d->base;
	const Elf32_Ehdr *e32 = (const void *)d->base;

	if (d->len < sizeof(*e64) || memcmp(e64->e_ident, ELFMAG, SELFMAG))
		die("dump: not an ELF core file");
	if (e64->e_ident[EI_CLASS] == ELFCLASS64) {
		if (e64->e_phentsize != sizeof(Elf64_Phdr) ||
		    e64->e_phoff > d->len ||
		    (uint64_t)e64->e_phnum * sizeof(Elf64_Phdr) >
			    d->len - e64->e_phoff)
			die("dump: bad ELF64 program headers");
		const Elf64_Phdr *ph = (const void *)(d->base + e64->e_phoff);
		for (int i = 0; i < e64->e_phnum; i++)
			if (ph[i].p_type == PT_LOAD)
				add_block(d, ph[i].p_paddr, ph[i].p_offset,
					  ph[i].p_filesz);
		return;
	}
	if (e32->e_phentsize != sizeof(Elf32_Phdr) || e32->e_phoff > d->len ||
	    (uint64_t)e32->e_phnum * sizeof(Elf32_Phdr) > d->len - e32->e_phoff)
		die("dump: bad ELF32 program headers");
	const Elf32_Phdr *ph = (const void *)(d->base + e32->e_phoff);
	for (int i = 0; i < e32->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			add_block(d, ph[i].p_paddr, ph[i].p_offset,
				  ph[i].p_filesz);
}

/*
 * Proves the dump is of this boot: the kernel's code (its first pages,
 * which the kernel does not write) is where the host-computed layout put
 * it. Returns the bytes compared equal.
 */
static size_t check_image(const struct dump *d, const struct secrets *S,
			  size_t *total)
{
	size_t want = S->image_len < 8192 ? S->image_len : 8192, same = 0;

	*total = want;
	for (int i = 0; i < d->n; i++) {
		const struct block *b = &d->b[i];
		if (b->paddr > S->load_lo ||
		    b->paddr + b->len < S->load_lo + want)
			continue;
		const uint8_t *p = b->p + (S->load_lo - b->paddr);
		for (size_t k = 0; k < want; k++)
			same += p[k] == S->image[k];
	}
	return same;
}

/* Whether the fallback's byte at load offset off is random at each boot
 * (a PT_OPENBSD_RANDOMIZE segment: the stage fills it, the host cannot). */
static int fallback_random(const struct secrets *S, uint64_t off)
{
	const Elf64_Ehdr *e = (const void *)S->fb;
	uint64_t pa = S->load_lo + off;

	if (linux_entry)
		return 0; /* a bzImage: no program headers, nothing random */
	for (int i = 0; i < e->e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, S->fb + e->e_phoff + (uint64_t)i * sizeof(ph),
		       sizeof(ph));
		if (ph.p_type == 0x65a3dbe6u && pa >= ph.p_paddr &&
		    pa - ph.p_paddr < ph.p_memsz)
			return 1;
	}
	return 0;
}

/*
 * A fallback boot, stopped before the fallback's first instruction ran:
 * its whole load range must be exactly its image (lk_elf_check accepted
 * the program headers), so nothing of the failed link survives inside
 * the range the scan skips. Returns the bytes that differ, or -1 when
 * the dump does not cover the range.
 */
static long check_fallback_range(const struct dump *d, const struct secrets *S)
{
	for (int i = 0; i < d->n; i++) {
		const struct block *b = &d->b[i];
		long diff = 0;
		if (b->paddr > S->load_lo || b->paddr + b->len < S->load_hi)
			continue;
		const uint8_t *p = b->p + (S->load_lo - b->paddr);
		for (size_t k = 0; k < S->fb_image_len; k++)
			if (p[k] != S->fb_image[k] && !fallback_random(S, k))
				diff++;
		return diff;
	}
	return -1;
}

static void scan_dump(const struct dump *d, const struct secrets *S,
		      uint64_t *bytes)
{
	*bytes = 0;
	for (int i = 0; i < d->n; i++) {
		const struct block *b = &d->b[i];
		scan_block(b->p, b->paddr, b->paddr + b->len, S);
		*bytes += b->len;
	}
}

/* Linux's 64-bit entry: RAX holds the entry, RSI boot_params, RSP the
 * stage's stack; every other general register must be zero. */
static int check_gprs64(const char *path, char *why, size_t cap)
{
	static const char *const names[] = { "RBX=", "RCX=", "RDX=", "RDI=",
					     "RBP=", "R8 =", "R9 =", "R10=",
					     "R11=", "R12=", "R13=", "R14=",
					     "R15=" };
	FILE *f = fopen(path, "r");
	char line[512];
	int bad = 0, seen = 0;

	if (!f)
		return 0;
	while (!bad && fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !bad;
		     i++) {
			const char *p = strstr(line, names[i]);
			unsigned long long v;
			if (p && sscanf(p + 4, "%llx", &v) == 1 && ++seen && v) {
				snprintf(why, cap, "%.3s=%016llx at the entry",
					 names[i], v);
				bad = 1;
			}
		}
	fclose(f);
	if (!bad && seen != (int)(sizeof(names) / sizeof(names[0]))) {
		snprintf(why, cap, "%d of the 64-bit registers in %s", seen,
			 path);
		bad = 1;
	}
	return bad;
}

/* At the entry (32-bit mode) the kernel gets EAX, EBX, EDX (the entry) and
 * ESP; the other general registers must be zero. */
static int check_gprs(const char *path, char *why, size_t cap)
{
	if (linux_entry64)
		return check_gprs64(path, why, cap);
	static const char *const names[] = { "ECX=", "ESI=", "EDI=", "EBP=" };
	FILE *f = fopen(path, "r");
	char line[512];
	int bad = 0;

	if (!f)
		return 0;
	while (!bad && fgets(line, sizeof(line), f))
		for (int i = 0; i < 4 && !bad; i++) {
			const char *p = strstr(line, names[i]);
			unsigned long v;
			if (linux_entry && i == 1)
				continue; /* boot.rst: ESI = boot_params */
			if (p && sscanf(p + 4, "%lx", &v) == 1 && v) {
				snprintf(why, cap, "%.3s=%08lx at the entry",
					 names[i], v);
				bad = 1;
			}
		}
	fclose(f);
	return bad;
}

/* XMM registers from HMP `info registers`: the kernel (built without SSE)
 * never touches them, so they hold what the stage left there. */
static int check_regs(const char *path, char *why, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int seen = 0, dirty = 0;

	if (!f) {
		snprintf(why, cap, "%s: cannot read", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		while ((p = strstr(p, "XMM"))) {
			unsigned idx;
			unsigned long long hi, lo;
			if (sscanf(p, "XMM%u=%llx %llx", &idx, &hi, &lo) == 3) {
				seen++;
				if ((hi || lo) && !dirty++)
					snprintf(why, cap,
						 "XMM%02u=%016llx%016llx "
						 "after the handoff",
						 idx, hi, lo);
			}
			p += 3;
		}
	}
	fclose(f);
	if (!seen)
		snprintf(why, cap, "no XMM registers in %s", path);
	else if (!dirty && check_gprs(path, why, cap))
		dirty = 1;
	return !seen || dirty ? -1 : 0;
}

static void report(int kind)
{
	const struct finding *f = &found[kind];

	if (!f->count) {
		printf("ok %s-%s\n", prefix, kind_name[kind]);
		return;
	}
	printf("not ok %s-%s: %lu hit(s), at", prefix, kind_name[kind],
	       f->count);
	for (unsigned long i = 0; i < f->count && i < MAX_REPORTS; i++)
		printf(" 0x%llx", (unsigned long long)f->addr[i]);
	printf("\n");
}

/* Controls: every listed kind must have been found. */
static int check_expected(const char *list)
{
	int bad = 0;

	printf("# %s found:", prefix);
	for (int k = 0; k < K_NKINDS; k++)
		if (found[k].count)
			printf(" %s (%lu)", kind_name[k], found[k].count);
	printf("\n");
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		int k;
		for (k = 0; k < K_NKINDS; k++)
			if (strlen(kind_name[k]) == n &&
			    !strncmp(kind_name[k], p, n))
				break;
		if (k == K_NKINDS)
			die("--expect: unknown kind %.*s", (int)n, p);
		if (found[k].count)
			printf("ok %s-finds-%s\n", prefix, kind_name[k]);
		else
			printf("not ok %s-finds-%s: not found\n", prefix,
			       kind_name[k]);
		bad |= !found[k].count;
		p += n + (p[n] == ',');
	}
	return bad;
}

static void map_dump(const char *path, struct dump *d)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0)
		die("%s: cannot open the dump", path);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("%s: cannot map the dump", path);
	close(fd);
	d->base = p;
	d->len = (size_t)st.st_size;
	d->n = 0;
	parse_dump(d);
}

/* Bytes at a physical address of the dump, or NULL. */
static const uint8_t *dump_at(const struct dump *d, uint64_t pa, uint64_t n)
{
	for (int i = 0; i < d->n; i++)
		if (pa >= d->b[i].paddr && n <= d->b[i].len &&
		    pa - d->b[i].paddr <= d->b[i].len - n)
			return d->b[i].p + (pa - d->b[i].paddr);
	return NULL;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* RSI (boot_params) from the registers file, then the EFI memory map
 * boot_params.efi_info points at (zero-page.rst: efi_info at 0x1c0). */
static void load_bs_ranges(const struct dump *d, const char *regs)
{
	FILE *f = regs ? fopen(regs, "r") : NULL;
	char line[512];
	unsigned long long rsi = 0;
	const uint8_t *bp, *ei, *map;
	uint64_t mlo, msz, dsz;

	if (!f)
		die("--linux-entry64 needs --regs (RSI holds boot_params)");
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "RSI=");
		if (p && sscanf(p + 4, "%llx", &rsi) == 1)
			break;
	}
	fclose(f);
	if (!rsi || !(bp = dump_at(d, rsi, 4096)))
		die("boot_params (RSI=0x%llx) is not in the dump", rsi);
	ei = bp + 0x1c0;
	if (memcmp(ei, "EL64", 4))
		die("boot_params: efi_loader_signature is not EL64");
	dsz = rd32(ei + 8);
	msz = rd32(ei + 20);
	mlo = (uint64_t)rd32(ei + 16) | (uint64_t)rd32(ei + 28) << 32;
	if (dsz < 40 || !(map = dump_at(d, mlo, msz)))
		die("boot_params: the EFI memory map is not in the dump");
	for (uint64_t off = 0; off + dsz <= msz; off += dsz) {
		uint32_t type = rd32(map + off);
		uint64_t lo, pages;
		memcpy(&lo, map + off + 8, 8);
		memcpy(&pages, map + off + 24, 8);
		if (type != 3 && type != 4) /* EfiBootServicesCode/Data */
			continue;
		if (nbs == MAX_BS)
			die("boot_params: more than %d boot-services regions",
			    MAX_BS);
		bs_range[nbs].lo = lo;
		bs_range[nbs].hi = lo + (pages << 12);
		nbs++;
	}
	if (!nbs)
		die("boot_params: no boot-services region in the EFI memory map");
}

static void print_fw_copies(void)
{
	unsigned long n = 0;

	for (int k = 0; k < K_NKINDS; k++)
		n += fw_copies[k];
	if (n)
		printf("# %s: %lu windows of on-disk files (kit %lu, zstream "
		       "%lu, config %lu) in the firmware's boot-services "
		       "memory, which Linux keeps: not counted\n",
		       prefix, n, fw_copies[K_KIT], fw_copies[K_ZSTREAM],
		       fw_copies[K_SEED]);
}

struct opts {
	const char *kit, *seed, *dump, *regs, *expect;
	int print_entry;
};

static void parse_args(int argc, char **argv, struct opts *o, struct secrets *S)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--print-entry")) {
			o->print_entry = 1;
			continue;
		}
		if (!strcmp(a, "--linux-entry64")) {
			linux_entry64 = 1;
			continue;
		}
		if (!strcmp(a, "--no-layout")) {
			no_layout = 1;
			continue;
		}
		if (!v)
			die("usage: leak-scan --kit KIT --seed HEX --dump DUMP "
			    "[--regs FILE] --name PREFIX [--expect KINDS]");
		if (!strcmp(a, "--kit"))
			o->kit = v;
		else if (!strcmp(a, "--seed"))
			o->seed = v;
		else if (!strcmp(a, "--dump"))
			o->dump = v;
		else if (!strcmp(a, "--regs"))
			o->regs = v;
		else if (!strcmp(a, "--name"))
			prefix = v;
		else if (!strcmp(a, "--expect"))
			o->expect = v;
		else if (!strcmp(a, "--fallback"))
			S->fb_path = v;
		else if (!strcmp(a, "--linux-load"))
			linux_load = strtoull(v, NULL, 16);
		else if (!strcmp(a, "--fails") && !strcmp(v, "place"))
			S->fails = FAIL_PLACE;
		else if (!strcmp(a, "--seed-file"))
			S->seed_file = read_file(v, &S->seed_file_len);
		else
			die("unknown option %s", a);
		i++;
	}
	if (!o->kit || !o->seed || (!o->dump && !o->print_entry))
		die("--kit, --seed and --dump are required");
	if (S->fails && !S->fb_path)
		die("--fails needs --fallback");
	if (S->fb_path && !S->fails)
		S->fails = FAIL_WRITE;
	if (parse_hex(o->seed, S->seed, sizeof(S->seed), &S->seed_len))
		die("--seed: not a hex string of at most 64 bytes");
	snprintf(S->seed_text, sizeof(S->seed_text), "debug_seed = %s",
		 o->seed);
}

static void build_needles(struct secrets *S)
{
	rng_secrets(S);
	legit[0] = S->fb_path ? S->fb_image : S->image;
	legit_len[0] = S->fb_path ? S->fb_image_len : S->image_len;
	legit[1] = S->fb_path ? S->fb_view : S->view_secret ? NULL : S->view;
	legit_len[1] = S->fb_path ? S->fb_view_len : S->view_len;
	legit[2] = S->fb;
	legit_len[2] = S->fb_len;
	legit_bloom_build();
	table_mask = (1u << 16) - 1;
	table = calloc(table_mask + 1, sizeof(*table));
	filter = calloc(1, (size_t)1 << (FILTER_BITS - 3));
	if (!table || !filter)
		die("out of memory");
	add_secrets(S);
	for (int k = 0; k < K_ALLOC; k++)
		if (!nneedles[k] && !skipped_kind(S, k))
			die("no needle of kind %s", kind_name[k]);
}

static void print_needles(void)
{
	fprintf(stderr, "leak-scan: %s: needles:", prefix);
	for (int k = 0; k < K_ALLOC; k++)
		fprintf(stderr, " %s %zu", kind_name[k], nneedles[k]);
	fprintf(stderr, "\n");
}

/* The per-kind result lines; non-zero when anything was found. */
static int report_all(const struct secrets *S, const char *regs)
{
	int bad = 0;
	char why[200] = "";

	for (int k = 0; k < K_NKINDS; k++) {
		if (skipped_kind(S, k))
			continue;
		report(k);
		bad |= found[k].count != 0;
	}
	if (!regs)
		return bad;
	if (check_regs(regs, why, sizeof(why))) {
		printf("not ok %s-registers: %s\n", prefix, why);
		return 1;
	}
	printf("ok %s-registers\n", prefix);
	return bad;
}

/* The dump of a fallback boot: the fallback's range must hold exactly its
 * image; everything else is scanned. */
static int scan_fallback(const struct dump *d, const struct secrets *S,
			 const struct opts *o)
{
	long diff = check_fallback_range(d, S);
	uint64_t bytes;

	if (diff) {
		printf("not ok %s-dump: the fallback's range [0x%llx, 0x%llx) "
		       "%s\n",
		       prefix, (unsigned long long)S->load_lo,
		       (unsigned long long)S->load_hi,
		       diff < 0 ? "is not in the dump"
				: "differs from its image (not this kernel, or "
				  "leftovers in it)");
		if (diff > 0)
			printf("# %s: %ld bytes differ\n", prefix, diff);
		return 1;
	}
	if (linux_entry64)
		load_bs_ranges(d, o->regs);
	scan_dump(d, S, &bytes);
	print_needles();
	print_fw_copies();
	if (o->expect)
		return check_expected(o->expect);
	printf("ok %s-dump: fallback [0x%llx, 0x%llx) holds exactly its "
	       "image, %llu bytes scanned outside it ",
	       prefix, (unsigned long long)S->load_lo,
	       (unsigned long long)S->load_hi, (unsigned long long)bytes);
	if (S->fails == FAIL_WRITE)
		printf("(the failed link's image: [0x%llx, 0x%llx))\n",
		       (unsigned long long)S->link_lo,
		       (unsigned long long)S->link_hi);
	else
		printf("(the link failed in the layout: no image written)\n");
	return report_all(S, o->regs);
}

int main(int argc, char **argv)
{
	static struct secrets S;
	struct opts o = { 0 };
	struct dump d;
	size_t same, total;
	uint64_t bytes;

	parse_args(argc, argv, &o, &S);
	S.kit = read_file(o.kit, &S.kit_len);
	relink(&S);
	if (S.fb_path)
		load_fallback(&S);
	if (o.print_entry) {
		/* Where the stage jumps (paging off): the dump is taken there
		 */
		printf("%llx\n", (unsigned long long)S.entry_lma);
		return 0;
	}
	build_needles(&S);
	map_dump(o.dump, &d);
	if (S.fb_path)
		return scan_fallback(&d, &S, &o);
	same = check_image(&d, &S, &total);
	if (no_layout) {
		S.load_hi += gap_slack(&S);
	} else if (same * 10 < total * 9) {
		printf("not ok %s-dump: only %zu of the kernel's first %zu "
		       "bytes are at 0x%llx (not this layout?)\n",
		       prefix, same, total, (unsigned long long)S.load_lo);
		return 1;
	}
	scan_dump(&d, &S, &bytes);
	print_needles();
	if (o.expect)
		return check_expected(o.expect);
	printf("ok %s-dump: kernel [0x%llx, 0x%llx)%s, %llu bytes scanned "
	       "outside it\n",
	       prefix, (unsigned long long)S.load_lo,
	       (unsigned long long)S.load_hi,
	       no_layout ? " (layout unknown: widened by every gap)"
			 : " matches the host layout",
	       (unsigned long long)bytes);
	return report_all(&S, o.regs);
}
