#include "corpus.h"

long weak_value(void) { return 2; }
