#include "corpus.h"

/* Strings shared with strings2.c and tails of longer strings. */
const char *greeting(void) { return "hello, world"; }
const char *world(void) { return "world"; }
const char *shared1(void) { return "shared string"; }
const char *tail1(void) { return "string"; }
