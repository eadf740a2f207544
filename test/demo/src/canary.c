/*
 * Stack-protector support. The guard lives in the random-fill section
 * (.demo.randomdata): the object holds zeros, and the boot stage (or the
 * loader, for the PT_OPENBSD_RANDOMIZE segment) fills it with random bytes
 * before the kernel runs, so a zero guard means nobody did.
 * Built without -fstack-protector: it must not check itself.
 */
#include "demo.h"

DEMO_OBJECT(canary)
DEMO_IDENT(canary)

#define CANARY_POOL 64

uptr __stack_chk_guard __attribute__((section(".demo.randomdata"), used));
u8 canary_pool[CANARY_POOL] __attribute__((section(".demo.randomdata"), used));

void __stack_chk_fail(void) __attribute__((noreturn));
void __stack_chk_fail(void)
{
	panic("stack protector: smashed stack");
}

static int canary_check(char *detail, size_t cap)
{
	u32 i, zero = 0;

	if (__stack_chk_guard == 0) {
		ksnprintf(detail, cap,
			  "__stack_chk_guard is zero (section not filled)");
		return -1;
	}
	for (i = 0; i < CANARY_POOL; i++)
		zero += canary_pool[i] == 0;
	/* 64 random bytes: more than 16 zeros is vanishingly unlikely. */
	if (zero > 16) {
		ksnprintf(detail, cap, "random pool has %u zero bytes", zero);
		return -1;
	}
	return 0;
}
DEMO_CHECK(CK_CANARY, "canary", canary_check);
