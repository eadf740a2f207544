/* Shared (machine-independent) parts of the BIOS stage. */
#ifndef STAND_STAND_H
#define STAND_STAND_H

#include "../linkkit/linkkit.h"
#include "../linkkit/config.h"
#include "fat.h"

/* heap.c: bump allocator, top-down inside one E820 RAM range. */
struct heap {
	lk_u32 floor; /* nothing below this */
	lk_u32 top;   /* lowest byte in use */
	lk_u32 hi;    /* end of the range */
};
void heap_init(struct heap *hp, lk_u32 lo, lk_u32 hi);
void *heap_alloc(void *ctx, lk_size size);
void heap_free(void *ctx, void *ptr, lk_size size);
/* Keeps future allocations above [lo, hi) when that range is still free;
 * -1 when it overlaps memory already handed out. */
int heap_reserve(struct heap *hp, lk_u64 lo, lk_u64 hi);

/* Everything the boot flow needs; one instance lives in boot.c. */
struct stand {
	struct lk_host host;
	struct heap heap;
	struct fat_fs fs;
	struct lk_config cfg;
	struct lk_rng rng; /* seeded once; the relink and the fallback use it */
	char reason[160];  /* first error line while relinking */
	int capture;       /* errors go to reason instead of the console */
	lk_u32 verbose;
	/* Signature key (lk_config_pubkey): when set, the kit and the
	 * fallback must be signed by it. */
	int have_key;
	struct lk_pubkey key;
	/* Leak-test -neg build only (stand/leaktest.c): nothing a failed
	 * relink held (kit, payload, link state, image) is wiped or freed,
	 * the negative control of relink_wipe. */
	int keep_failed_relink;
};

/* host.c */
void stand_host_init(struct stand *s);
/* Called at the end of stand_host_init: a weak no-op in host.c, the
 * canary allocator of the leak-test stage in stand/leaktest.c. */
void stand_variant_init(struct stand *s);
void stand_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void stand_halt(const char *why);
/* prompt.c: non-zero when the operator chose the fallback (timeout > 0). */
int stand_prompt_fallback(const struct lk_config *cfg);
/* entropy.c: seeds rng from every source there is, warning per gap. */
void stand_seed(struct stand *s, struct lk_rng *rng);
/* randomize.c: fills the fallback ELF's PT_OPENBSD_RANDOMIZE segments. */
int stand_fill_random(struct stand *s, const char *name, const void *elf,
		      lk_u64 size, lk_u64 load_lo, lk_u64 load_hi);
/* files.c: reads a whole file from the ESP into the heap. */
void *stand_read_file(struct stand *s, const char *path, lk_u32 *size);
void stand_free_file(struct stand *s, void *buf, lk_u32 size);
/* handoff.c: builds the Multiboot2 info and jumps; returns on failure. */
struct handoff {
	lk_u64 load_lo, load_hi, entry;
	lk_u32 protocol;
	const char *loader;
	const void *shdrs; /* ELF section headers for tag 9, or NULL */
	lk_u32 shnum, shentsize, shstrndx;
};
int stand_check_range(struct stand *s, const char *what, lk_u64 lo,
		      lk_u64 hi);
int stand_boot(struct stand *s, const struct handoff *ho);

#endif
