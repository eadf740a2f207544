#include "corpus.h"

static const int primes[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29 };
const char name_table[][8] = { "alpha", "beta", "gamma" };
static const double ratio = 1.5;
long volatile_sink;

long rodata_sum(void)
{
	long s = 0;

	for (int i = 0; i < 10; i++)
		s += primes[i];
	volatile_sink = (long)(ratio * 2);
	return s + name_table[1][0];
}
