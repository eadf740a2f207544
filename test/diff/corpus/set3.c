#include "corpus.h"

static long three(long x) { return x + 3; }
static long four(long x) { return x + 4; }
SET_ITEM(three, three);
SET_ITEM(four, four);
