/* The lk_host of the BIOS stage: heap, console logging, CPU entropy. */
#include "bios.h"
#include "stand.h"

void stand_print_line(struct lk_boot *b, const char *line)
{
	(void)b;
	cons_puts(line);
	cons_puts("\n");
}

static void *host_alloc(void *ctx, lk_size size)
{
	return heap_alloc(&stand_of(ctx)->heap, size);
}

static void host_free(void *ctx, void *ptr, lk_size size)
{
	heap_free(&stand_of(ctx)->heap, ptr, size);
}

void stand_host_init(struct stand *s)
{
	lk_boot_host(&s->boot, host_alloc, host_free);
	stand_variant_init(s);
}

/* The production stage has no variant; the leak-test build links a
 * strong definition (stand/leaktest.c) instead. */
__attribute__((weak)) void stand_variant_init(struct stand *s)
{
	(void)s;
}

void stand_halt(const char *why)
{
	cons_puts("relinkboot: ");
	cons_puts(why);
	cons_puts("; halting\n");
	for (;;)
		__asm__ volatile("cli; hlt");
}
