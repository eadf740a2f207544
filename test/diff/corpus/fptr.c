#include "corpus.h"

static long twice(long x) { return 2 * x; }
static long thrice(long x) { return 3 * x; }
long negate(long x) { return -x; }
long square(long x) { return x * x; }

/* Function-pointer table in .rodata: 64-bit absolute relocations. */
static op_fn const table[] = { twice, thrice, negate, square, twice };
op_fn data_table[] = { square, negate };

long call_table(int i)
{
	return table[i % 5](i) + data_table[i & 1](i);
}
