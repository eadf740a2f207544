#include "corpus.h"

static long two(long x) { return x + 2; }
SET_ITEM(two, two);
