/* Bump allocator over a .bss arena. */
#include "demo.h"

DEMO_OBJECT(heap)
DEMO_IDENT(heap)

#define HEAP_SIZE (64 * 1024)

static u8 heap_arena[HEAP_SIZE] __attribute__((aligned(64)));
static size_t heap_used;
static int heap_ready;

static void heap_init(void)
{
	heap_used = 0;
	heap_ready = 1;
}
DEMO_INIT(heap_init);

void *heap_alloc(size_t n, size_t align)
{
	size_t off;

	if (!heap_ready || !align || (align & (align - 1)) || align > 64)
		return NULL;
	off = (heap_used + align - 1) & ~(align - 1);
	if (off > HEAP_SIZE || n > HEAP_SIZE - off)
		return NULL;
	heap_used = off + n;
	return heap_arena + off;
}

static int heap_check(char *detail, size_t cap)
{
	u8 *a = heap_alloc(10, 1), *b = heap_alloc(16, 16);

	if (!a || !b || ((uptr)b & 15) || b < a + 10 ||
	    heap_alloc(HEAP_SIZE + 1, 1)) {
		ksnprintf(detail, cap, "allocator misbehaves");
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_HEAP, "heap", heap_check);
