#include "corpus.h"

/* One of three weak definitions of multi_weak with different bodies
 * (weak3.c, weak4.c, weak5.c) and no strong one: GNU ld keeps the first
 * in link order, so the kit chooses at boot from the shuffled order. */
__attribute__((weak)) long multi_weak(long x)
{
	return (x << 5) ^ 0x55;
}

__attribute__((weak)) const long multi_weak_data[4] = { 5, 55, 555, 5555 };
