/*
 * Leak-test variant of the BIOS stage ($(B)/stand/stage-leaktest.bin, never
 * installed): the production stage plus canaries that must all be gone once
 * the kernel runs (test/qemu/leak-tests.sh dumps guest RAM then and
 * test/qemu/leak-scan.c looks for them). Every scrub it tests is the
 * production one:
 *  - a tag in the tail of every host.alloc buffer (kit, payload, link
 *    state, FAT buffers, config): heap_free's wipe must remove it, and
 *    every such buffer must be freed before the jump (what the kernel
 *    keeps comes from heap_alloc directly),
 *  - the unused stage stack and a static buffer (the stub's stage wipe),
 *  - the disk bounce buffer (disk_wipe_bounce).
 * Built with -DLEAKTEST_NEGATIVE it is the negative control: frees are
 * dropped, as if a path forgot them, and nothing a failed relink held
 * (kit, payload, link state, image) is wiped; the scan must then find
 * the tags (and those).
 */
#include "bios.h"
#include "stand.h"
#include "../test/qemu/leak-canary.h"

extern char stand_stack[]; /* start.S: bottom of the stage stack */

static lk_u32 lt_serial;
static lk_u8 lt_static[1024];

static void *lt_alloc(void *ctx, lk_size size)
{
	struct stand *s = stand_of(ctx);
	lk_u8 *p;

	if (size > (lk_size)-1 - LEAK_TAG_SIZE)
		return LK_NULL;
	p = heap_alloc(&s->heap, size + LEAK_TAG_SIZE);
	if (p)
		leak_tag(p + size, LEAK_KIND_ALLOC, lt_serial++);
	return p;
}

static void lt_free(void *ctx, void *ptr, lk_size size)
{
	struct stand *s = stand_of(ctx);

#ifdef LEAKTEST_NEGATIVE
	(void)s;
	(void)ptr;
	(void)size;
#else
	heap_free(&s->heap, ptr, size + LEAK_TAG_SIZE);
#endif
}

/* From the stack's bottom up to a little below this frame. */
static void __attribute__((noinline)) lt_fill_stack(void)
{
	lk_uptr here = (lk_uptr)__builtin_frame_address(0) - 512;
	lk_uptr lo = (lk_uptr)stand_stack;

	if (here > lo)
		leak_fill(stand_stack, (unsigned long)(here - lo),
			  LEAK_KIND_STACK);
}

void stand_variant_init(struct stand *s)
{
	s->boot.host.alloc = lt_alloc;
	s->boot.host.free = lt_free;
#ifdef LEAKTEST_NEGATIVE
	s->boot.keep_failed_relink = 1;
#endif
	leak_fill(lt_static, sizeof(lt_static), LEAK_KIND_STATIC);
	leak_fill((void *)(lk_uptr)STAND_BOUNCE, STAND_BOUNCE_SECTORS * 512u,
		  LEAK_KIND_STATIC);
	lt_fill_stack();
	stand_print_line(&s->boot, "relinkboot: LEAKTEST build: canaries in "
				   "allocations, stack and static data (test "
				   "only)");
}
