#include "corpus.h"

const char *farewell(void) { return "goodbye, world"; }
const char *shared2(void) { return "shared string"; }
const char *bar(void) { return "bar"; }
const char *foobar(void) { return "foobar"; }
const char *abar(void) { return "abar"; }
const char *cbar(void) { return "cbar"; }
