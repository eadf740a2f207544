#include "corpus.h"

static long big[64];
long small_bss[3];
static char odd_bss[5];

long sum_bss(void)
{
	long s = odd_bss[1];

	for (int i = 0; i < 64; i++)
		s += big[i];
	return s + small_bss[2];
}
