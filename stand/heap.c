/* Bump allocator for the stage: frees only undo the latest allocation,
 * which is how the boot flow uses temporary buffers. */
#include "stand.h"

#define HEAP_ALIGN 16u

void heap_init(struct heap *hp, lk_u32 lo, lk_u32 hi)
{
	hp->floor = lo;
	hp->top = hi;
	hp->hi = hi;
}

static lk_u32 round_up(lk_size size)
{
	return (lk_u32)((size + HEAP_ALIGN - 1) & ~(lk_size)(HEAP_ALIGN - 1));
}

void *heap_alloc(void *ctx, lk_size size)
{
	struct heap *hp = ctx;
	lk_u32 n;

	if (size == 0)
		size = 1;
	if (size > 0xffffffffu - HEAP_ALIGN)
		return LK_NULL;
	n = round_up(size);
	if (n > hp->top - hp->floor)
		return LK_NULL;
	hp->top -= n;
	lk_memset((void *)(lk_uptr)hp->top, 0, n);
	return (void *)(lk_uptr)hp->top;
}

/* Wipes what it frees even though callers wipe their secrets first: a
 * caller that forgets must not leave them in RAM the kernel gets. */
void heap_free(void *ctx, void *ptr, lk_size size)
{
	struct heap *hp = ctx;

	if (!ptr || !size)
		return;
	lk_wipe(ptr, round_up(size));
	if ((lk_u32)(lk_uptr)ptr == hp->top)
		hp->top += round_up(size);
}

int heap_reserve(struct heap *hp, lk_u64 lo, lk_u64 hi)
{
	if (hi <= hp->floor || lo >= hp->hi)
		return 0;
	if (hi > hp->top)
		return -1;
	hp->floor = (lk_u32)hi;
	return 0;
}
