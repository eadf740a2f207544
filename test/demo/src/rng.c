/* xorshift64* seeded from the TSC: test data only, never security. */
#include "demo.h"

DEMO_OBJECT(rng)
DEMO_IDENT(rng)

static u64 rng_state;

static void rng_init(void)
{
	rng_state = cpu_rdtsc() | 1;
}
DEMO_INIT(rng_init);

u64 rng_next(void)
{
	u64 x = rng_state ? rng_state : 0x9e3779b97f4a7c15UL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dUL;
}
