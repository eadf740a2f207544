/* The PT_OPENBSD_RANDOMIZE segment: the loader must fill it. */
#include "obsd.h"

__attribute__((section(".openbsd.randomdata"), used))
static volatile u8 obsd_random[256];

int check_random(void)
{
	u32 i, zero = 0;

	for (i = 0; i < sizeof(obsd_random); i++)
		zero += obsd_random[i] == 0;
	/* 256 random bytes with more than 32 zeros: p < 1e-9. */
	if (zero > 32)
		return fail("random", "zero bytes", zero);
	cons_puts("obsd: check random ok\n");
	/* FNV-1a of the bytes: the tests compare boots by it (same debug
	 * seed, different /etc/random.seed). */
	u64 fnv = 0xcbf29ce484222325ull;
	for (i = 0; i < sizeof(obsd_random); i++)
		fnv = (fnv ^ obsd_random[i]) * 0x100000001b3ull;
	cons_puts("obsd: random ");
	cons_hex(fnv);
	cons_puts("\n");
	return 0;
}
