/*
 * Leak-test variant of the UEFI stage ($(B)/efi/BOOTX64-leaktest.EFI, never
 * shipped): the production stage plus canaries that must all be gone once
 * the kernel runs (test/qemu/leak-tests.sh dumps guest RAM then and
 * test/qemu/leak-scan.c looks for them). It only adds tags around what the
 * production code allocates and frees, so every scrub it tests is the
 * production one:
 *  - the tail of every core allocation (pool, freed by eb_free's wipe),
 *  - the slack of every page region marked secret (kit, payload, config,
 *    generator: eb_wipe_secret_regions),
 *  - the unused stack below efi_main (the trampoline's stack wipe and the
 *    boot-services scrub), and a static buffer in the image (loader code,
 *    scrubbed by the trampoline).
 * Built with -DLEAKTEST_NEGATIVE it is the negative control: frees are
 * dropped, secret pages are not marked for wiping and eb_release_all
 * (what a failed relink held, before the fallback) neither wipes nor
 * frees, as if a scrub had been forgotten; the scan must then find
 * something.
 */
#include "efiboot.h"
#include "../test/qemu/leak-canary.h"

#define EB_LT_STACK_FILL (56u * 1024) /* inside the stage's 64 KiB wipe */

static void *(*eb_lt_alloc)(void *ctx, lk_size size);
static void (*eb_lt_free)(void *ctx, void *ptr, lk_size size);
static lk_u32 eb_lt_serial;
static lk_u8 eb_lt_static[1024];

static void *eb_lt_tagged_alloc(void *ctx, lk_size size)
{
	lk_u8 *p;

	if (size > (lk_size)-1 - LEAK_TAG_SIZE)
		return LK_NULL;
	p = eb_lt_alloc(ctx, size + LEAK_TAG_SIZE);
	if (p)
		leak_tag(p + size, LEAK_KIND_ALLOC, eb_lt_serial++);
	return p;
}

static void eb_lt_tagged_free(void *ctx, void *ptr, lk_size size)
{
#ifdef LEAKTEST_NEGATIVE
	(void)ctx;
	(void)ptr;
	(void)size;
#else
	eb_lt_free(ctx, ptr, size + LEAK_TAG_SIZE);
#endif
}

/* Secret page regions get a tag in their last bytes, when the rounding
 * to pages left room for one. */
static void eb_lt_pages(struct eb_state *s, struct eb_region *r, lk_u64 size)
{
	lk_u64 cap = (lk_u64)r->pages << 12;

	(void)s;
	if (!r->wipe)
		return;
	if (cap - size >= LEAK_TAG_SIZE)
		leak_tag((lk_u8 *)(lk_uptr)r->addr + cap - LEAK_TAG_SIZE,
			 LEAK_KIND_ALLOC, eb_lt_serial++);
#ifdef LEAKTEST_NEGATIVE
	r->wipe = 0;
#endif
}

/* The stack below this frame, down to where the stage's wipe reaches. */
static void __attribute__((noinline)) eb_lt_fill_stack(struct eb_state *s)
{
	lk_u64 here = (lk_u64)(lk_uptr)__builtin_frame_address(0) - 512;
	lk_u64 lo = s->stack_hi - EB_LT_STACK_FILL;

	if (here > lo)
		leak_fill((void *)(lk_uptr)lo, (unsigned long)(here - lo),
			  LEAK_KIND_STACK);
}

void eb_variant_init(struct eb_state *s)
{
	eb_lt_alloc = s->boot.host.alloc;
	eb_lt_free = s->boot.host.free;
	s->boot.host.alloc = eb_lt_tagged_alloc;
	s->boot.host.free = eb_lt_tagged_free;
	s->page_hook = eb_lt_pages;
#ifdef LEAKTEST_NEGATIVE
	s->boot.keep_failed_relink = 1;
#endif
	leak_fill(eb_lt_static, sizeof(eb_lt_static), LEAK_KIND_STATIC);
	eb_lt_fill_stack(s);
	eb_print(s, "LEAKTEST build: canaries in allocations, stack and "
		    "static data (test only)");
}
