#include "corpus.h"

/* Initialised data pointing at code and at strings. */
struct entry {
	const char *name;
	long (*fn)(long);
	int flags;
};
long negate(long x);
long square(long x);
struct entry entries[] = {
	{ "negate", negate, 1 },
	{ "square", square, 2 },
	{ "world", 0, 3 },
};
int counter = 42;
static short s16 = 7;
char *strp = "hello, world";

long data_use(void) { return counter + s16 + entries[1].flags; }
