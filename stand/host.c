/* The lk_host of the BIOS stage: heap, console logging, CPU entropy. */
#include "bios.h"
#include "stand.h"

static void host_log(void *ctx, int level, const char *line)
{
	struct stand *s = ctx;

	/* While relinking, the first error is the fallback reason and is
	 * printed once, on the `fallback:` line, by the caller. */
	if (level == LK_LOG_ERROR && s->capture) {
		if (!s->reason[0])
			lk_snprintf(s->reason, sizeof(s->reason), "%s", line);
		return;
	}
	cons_puts("relinkboot: ");
	if (level == LK_LOG_WARN)
		cons_puts("warning: ");
	cons_puts(line);
	cons_puts("\n");
}

static void *host_alloc(void *ctx, lk_size size)
{
	return heap_alloc(&((struct stand *)ctx)->heap, size);
}

static void host_free(void *ctx, void *ptr, lk_size size)
{
	heap_free(&((struct stand *)ctx)->heap, ptr, size);
}

static lk_size host_entropy(void *ctx, void *buf, lk_size len)
{
	lk_size got = 0;

	(void)ctx;
	if (cpu_has_rdseed())
		got = cpu_rdseed(buf, len);
	if (got < len && cpu_has_rdrand())
		got += cpu_rdrand((lk_u8 *)buf + got, len - got);
	/* Whatever the CPU did not give is TSC noise: not counted as random. */
	for (lk_size i = got; i < len; i++)
		((lk_u8 *)buf)[i] = (lk_u8)cpu_rdtsc();
	return got;
}

void stand_host_init(struct stand *s)
{
	s->host.ctx = s;
	s->host.alloc = host_alloc;
	s->host.free = host_free;
	s->host.log = host_log;
	s->host.entropy = host_entropy;
	s->host.log_level = LK_LOG_INFO;
	stand_variant_init(s);
}

/* The production stage has no variant; the leak-test build links a
 * strong definition (stand/leaktest.c) instead. */
__attribute__((weak)) void stand_variant_init(struct stand *s)
{
	(void)s;
}

void stand_print(const char *fmt, ...)
{
	char line[256];
	__builtin_va_list ap;

	__builtin_va_start(ap, fmt);
	lk_vsnprintf(line, sizeof(line), fmt, ap);
	__builtin_va_end(ap);
	cons_puts("relinkboot: ");
	cons_puts(line);
	cons_puts("\n");
}

void stand_halt(const char *why)
{
	stand_print("%s; halting", why);
	for (;;)
		__asm__ volatile("cli; hlt");
}
