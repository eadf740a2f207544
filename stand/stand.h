/* Shared (machine-independent) parts of the BIOS stage. */
#ifndef STAND_STAND_H
#define STAND_STAND_H

#include "../linkkit/boot/boot.h"
#include "../linkkit/config.h"
#include "../linkkit/linkkit.h"
#include "../linkkit/fs/fat.h"

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

/* The BIOS stage's state; one instance lives in boot.c. */
struct stand {
	struct lk_boot boot; /* the shared sequence; boot.stage is this */
	struct heap heap;
	struct lk_fs fs; /* the ESP */
	lk_u64 kern_lo, kern_hi; /* a Linux kernel placed by place_any */
};

static inline struct stand *stand_of(struct lk_boot *b)
{
	return b->stage;
}

/* host.c: the core's alloc/free on the heap, console lines. */
void stand_host_init(struct stand *s);
/* Called at the end of stand_host_init: a weak no-op in host.c, the
 * canary allocator of the leak-test stage in stand/leaktest.c. */
void stand_variant_init(struct stand *s);
void stand_print_line(struct lk_boot *b, const char *line);
__attribute__((noreturn)) void stand_halt(const char *why);
/* prompt.c: the keyboard/serial poll and the delay hooks. */
int stand_poll_key(struct lk_boot *b);
void stand_delay_us(struct lk_boot *b, lk_u32 us);
/* files.c: the read_file hook (whole files from the ESP into the heap)
 * and the big-buffer hooks. */
int stand_read_file(struct lk_boot *b, const char *path, int secret,
		    void **data, lk_u64 *size);
void *stand_alloc_big(struct lk_boot *b, lk_u64 size, int secret);
void stand_free_big(struct lk_boot *b, void *p, lk_u64 size);
/* handoff.c: placement and the enter hook. */
void *stand_place(struct lk_boot *b, lk_u64 lo, lk_u64 hi);
int stand_settle(struct lk_boot *b, struct lk_kernel *k, const void *hdr,
		 lk_u64 hdr_size);
void *stand_alloc_kept(struct lk_boot *b, lk_u64 size);
void *stand_alloc_kept_below(struct lk_boot *b, lk_u64 size, lk_u64 limit);
void stand_enter_kernel(struct lk_boot *b, const struct lk_kernel *k);
void *stand_place_any(struct lk_boot *b, lk_u64 size, lk_u64 align,
		      lk_u64 pref, lk_u64 *phys);
/* longmode.c: the inflate hook (the kit's hash and inflate as x86-64
 * code in long mode where the CPU has it), and the identity map of the
 * first 4 GiB with 2 MiB pages written into 6 page-aligned pages (cr3). */
int stand_inflate(struct lk_boot *b, const struct lk_kit *kit,
		  const char *name, void *dst, lk_u64 size);
lk_u32 stand_identity_4g(void *tables);
struct lm64_call;
int stand_lm64_usable(void);
int stand_lm64_run(struct lm64_call *c);
/* mp.c: the application processors (INIT at start; up for the inflate
 * and the write, stopped after it or by stand_mp_stop on any way out). */
void stand_mp_init(struct stand *s);
#define STAND_MP_NONE (-2) /* stand_mp_inflate: one processor does it */
int stand_mp_inflate(struct lk_boot *b, const struct lk_kit *kit,
		     const char *name, void *dst, lk_u64 size,
		     lk_inflate_fn *inflate);
int stand_mp_inflate_rest(struct lk_boot *b);
int stand_mp_write(struct lk_boot *b, struct lk_link *L, void *dst,
		   struct lk_rng *rng);
/* 0 when an INIT was not delivered: a processor may still run, so its
 * stacks and trampoline are left as they are; 1 otherwise. */
int stand_mp_stop(struct lk_boot *b);
void stand_ap_main(void);

#endif
